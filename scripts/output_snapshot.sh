#!/usr/bin/env bash
# Snapshot of what the commands print, for refactors that must not change behaviour.
#
#   bash scripts/output_snapshot.sh /tmp/before     # on the old code
#   bash scripts/output_snapshot.sh /tmp/after      # on the new code
#   diff -r /tmp/before /tmp/after                  # nothing but what you meant to change
#
# Runs from the repository root on the package there: score (JSON and text, seeds, protocol,
# --relative-to), predict, leaderboard, aggregate (JSON and text), validate --json, verify --json,
# irt, reproduce, --help, --version, and the sha256 of every data, calibration and coefficient file.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$1"; mkdir -p "$out"
inputs="$(mktemp -d)"; trap 'rm -rf "$inputs"' EXIT
python - "$inputs" <<'PY'
import random, sys
folder = sys.argv[1]
random.seed(1)
games = ["battle_zone", "double_dunk", "name_this_game", "phoenix", "qbert", "pong", "breakout", "alien"]
with open(f"{folder}/runs.csv", "w") as f:
    f.write("agent,game,seed,score\n")
    for agent in "ABC":
        for game in games:
            for seed in range(5):
                f.write(f"{agent},{game},{seed},{random.uniform(0, 20000):.1f}\n")
base = [("battle_zone", 30000), ("double_dunk", -1), ("name_this_game", 12000), ("phoenix", 9000),
        ("qbert", 15000), ("pong", 10), ("breakout", 300)]
for name, factor in (("seeds", 1.0), ("base", 0.8)):
    with open(f"{folder}/{name}.csv", "w") as f:
        f.write("game,score,seed\n")
        for game, value in base:
            for seed in range(3):
                f.write(f"{game},{value * (1 + 0.1 * seed) * factor:.1f},{seed}\n")
PY
A=atari5-spec
run() { local file="$1"; shift; { "$A" "$@" 2>&1; echo "exit $?"; } > "$out/$file" || true; }
run score1.json score --json --score battle_zone=35000 --score double_dunk=-1.5 --score name_this_game=12000 \
    --score phoenix=9000 --score qbert=15000
run score2.json score --json "$inputs/seeds.csv"
run score3.txt score "$inputs/seeds.csv" --sticky-actions 0.25 --frames 200e6
run score4.json score --json "$inputs/seeds.csv" --relative-to "$inputs/base.csv"
run score5.txt score "$inputs/seeds.csv"
run predict.txt predict "$inputs/seeds.csv"
run leaderboard.txt leaderboard "$inputs/seeds.csv"
run aggregate.json aggregate --json "$inputs/runs.csv"
run aggregate.txt aggregate "$inputs/runs.csv"
run validate.json validate --json
run verify.json verify --json
run irt.txt irt
run help.txt --help
run version.txt --version
"$A" reproduce --out "$out/reproduce" > /dev/null
sha256sum data/* calibration/* coefficients/*/* datapackage.json > "$out/data.sha256"
sed -i "s#$inputs#INPUTS#g" "$out"/*.json "$out"/*.txt
echo "wrote $out"
