"""Pin the paper's coefficient version (coefficients/paper-2023) from data/.

Usage::

    python scripts/pin_paper_version.py

Provenance for the first pinned version: the training set is the paper's (its
raw pool of 116 entries under the inclusion rule: 62 algorithms, 3,365 rows),
the subsets are what the staged search selects on it (plus the DQN paper's
fixed seven games). Refuses to overwrite an existing version. Later versions
are made with ``atari5-spec fit --name NAME``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import atari5_spec  # noqa: E402
from atari5_spec.data.datapackage import read_descriptor, refresh_resource_stats  # noqa: E402
from atari5_spec.method import coefficients as coef  # noqa: E402
from atari5_spec.method import training  # noqa: E402
from atari5_spec_research.search import staged_search  # noqa: E402


def main() -> int:
    dataset = atari5_spec.load(ROOT, scores="all")
    rows = training.training_rows(dataset, pool_only=True)
    X, y = training.training_matrix(rows, dataset.games, dataset.algorithms)
    found = staged_search(X, y, excluded=tuple(coef.METHOD["search"]["excluded_games"]))
    subsets = {name: list(model.games) for name, model in found.items()}
    subsets["DQN-7"] = coef.DQN7
    fitted = coef.fit_version(rows, dataset.games, dataset.algorithms, subsets)
    tables = coef.version_tables(fitted)
    content = coef.manifest(
        coef.PAPER_VERSION, fitted, {k: subsets[k] for k in coef.SUBSET_ORDER},
        "The Atari-5 paper's models (Aitchison, Sweetser, Hutter 2023), recomputed from the paper's training set.",
        atari5_spec.__version__, dataset.version, training.PAPER_RULE, "in_paper_pool", tables, reproduces="paper")
    path = coef.write_version(ROOT / "coefficients", coef.PAPER_VERSION, fitted, content)
    # The first version is the default one; describe its files in datapackage.json.
    (ROOT / "coefficients" / "index.yaml").write_text(coef.index_text(coef.PAPER_VERSION, [coef.PAPER_VERSION]),
                                                     encoding="utf-8", newline="")
    refresh_resource_stats(ROOT, coef.register_version(read_descriptor(ROOT), coef.PAPER_VERSION))
    print(f"wrote {path}, coefficients/index.yaml and its resources in datapackage.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
