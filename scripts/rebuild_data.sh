#!/usr/bin/env bash
# Rebuild data/, the refit version and the calibrations, in the order they were made.
# Usage: scripts/rebuild_data.sh UPSTREAM_ATARI5_DIR UPSTREAM_2023_DIR PACKAGE_DIR [UPSTREAM_2026_DIR [UPSTREAM_100K_DIR]]
# UPSTREAM_100K_DIR (data 1.26.0-1.31.0, issue 26): iris/{IRIS,SPR,DrQ(eps),EfficientZero,MuZero,SimPLe}.json as
# eloialonso/iris results/data/ holds them at 75e5ab57e8bdeca240f8a0e376dac98c0aa6672a (scripts/import_atari100k.py).
# UPSTREAM_2026_DIR (data 1.12.0-1.21.0, issue 20): bbf/ and slm-lab/ as ../shared/upstream-2026 holds them,
# chainerrl/{rainbow,iqn}/README.md, btr/results.csv and diamond/DIAMOND.json, the files named in scripts/import_2026.py's docstring
# (repository@commit:path).
# PACKAGE_DIR: a copy of the package at data version 0.1.0 (git archive of the 0.1.0 commit) with
# today's schemas/ and an empty contributions/ folder. Compare the result with `cmp` file by file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
atari5="$1"; upstream2023="$2"; package="$3"; upstream2026="${4:-}"; upstream100k="${5:-}"
python "$here/import_upstream.py" "$atari5" --out "$package"
python "$here/migrate_0_to_1.py" "$package"
python "$here/import_2023.py" "$upstream2023" --package "$package" --fixture "$package/upstream_2023_sample.json.gz"
atari5-spec evaluate --path "$package" --pin-calibration
atari5-spec fit --name refit-2026-11 --path "$package" --description "Atari-5 weights refitted on every entry the \
inclusion rule admits today (the paper's pool plus the results after 2022, published numbers only, no protocol term), \
chosen among four candidates by leave-one-paper-out error (atari5-spec evaluate --refit-candidates). The paper's games \
are kept."
atari5-spec evaluate --path "$package" --version refit-2026-11 --pin-calibration
# Issue 18: the in-range calibration, edition 1 (calibration/paper-2023.in-range.csv, data 1.11.0).
atari5-spec evaluate --path "$package" --pin-calibration --calibration-method in-range
# Issue 20: the field's results since 2022, one `contribute add` (one data version) per agent.
if [[ -n "$upstream2026" ]]; then
  python "$here/import_2026.py" "$upstream2026" --package "$package" --only bbf bbf-sticky bbf-rr2 \
    bbf-rr2-sticky slm-lab-ppo slm-lab-a2c slm-lab-sac chainerrl-rainbow chainerrl-iqn btr
  # Its agents are new evidence: the in-range calibration's edition 2 (calibration/paper-2023.in-range.2.csv,
  # data 1.22.0), beside edition 1.
  atari5-spec evaluate --path "$package" --pin-calibration --calibration-method in-range
  # DIAMOND (data 1.23.0), merged after that pin; Atari 100k without the Atari-5 games, so no held-out agent.
  python "$here/import_2026.py" "$upstream2026" --package "$package" --only diamond
  # Issue 26 (data 1.25.0, after the reselected calibration of data 1.24.0): where each protocol fact is stated (data/protocol_evidence.csv, from
  # scripts/protocol_evidence_2026.csv, read against data 1.23.0) and the empty cross-checks resource.
  python "$here/import_protocol_2026.py" "$package"
fi
# Issue 26 (data 1.26.0-1.31.0): the Atari 100k field, one `contribute add` per agent, then the cross-checks.
if [[ -n "$upstream2026" && -n "$upstream100k" ]]; then
  python "$here/import_atari100k.py" "$upstream100k" --package "$package"
fi
# Issue 26 (data 1.32.0): more protocol evidence read from the sources (scripts/protocol_evidence_2026-11.csv).
if [[ -n "$upstream2026" && -n "$upstream100k" ]]; then
  python "$here/update_protocol_evidence.py" "$package" --evidence "$here/protocol_evidence_2026-11.csv"
fi
