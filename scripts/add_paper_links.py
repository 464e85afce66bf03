"""Record the paper of every entry as a link: data/paper_links.csv (data 1.43.0, issue 34).

Usage::

    python scripts/add_paper_links.py [PACKAGE_DIR]

One row per entry of ``data/algorithms.csv``: its paper's DOI, arXiv id or URL, with the text it was read from,
or ``none-found`` with the reason. Entries are matched by their ``paper_title``; every identifier below was read
in the text its ``read_from`` names (the reference lists of the seed papers, the upstream READMEs stored for the
project, the package's own sources and contributions, public pages read through the search tool). None is
recalled: a paper whose identifier was not met in those texts is ``none-found``, not looked up from memory.

Run once on a package at data 1.42.0 or later whose ``schemas/`` holds ``paper-links.schema.json`` (it ships
with the code that reads the table). A new table, so a minor version (as benchmark_games in 1.32.0); one
transaction. Run again on the result and it refuses (the resource exists).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from atari5_spec.data.datapackage import read_descriptor, table_resource  # noqa: E402
from atari5_spec.data.transaction import package_transaction  # noqa: E402
from atari5_spec_maintainers.versioning import bumped_descriptor_text  # noqa: E402
from atari5_spec.data.writing import csv_text  # noqa: E402

FIRST_VERSION = "1.42.0"
RESOURCE = ("paper_links", "Paper links", "data/paper_links.csv", "schemas/paper-links.schema.json",
            "Per entry, its paper's DOI, arXiv id or URL and the text it was read from, or none-found and why.")

IRT_REFS = "reference list of Martinez-Plumed & Hernandez-Orallo (item response theory on ALE results)"
ATARI5_REFS = "reference list of Aitchison, Sweetser & Hutter 2023 (Atari-5), reference [21]"
DOPAMINE = "google/dopamine baselines/atari README (the link list at its end)"
CONTRIB = "contributions/{}/metadata.yaml (field arxiv) of this package"
SOURCES = "data/sources.csv, description of source {}"
EVIDENCE = "data/protocol_evidence.csv, source of muzero-res2-adam (the paper cited with its arXiv id)"
UPSTREAM_2023 = "danijar/dreamerv3 README as stored for the project (upstream-2023 README, DreamerV3 row)"

# paper_title (as data/algorithms.csv spells it) -> (kind, identifier, where it was read)
LINKS = {
    "Playing Atari with Deep Reinforcement Learning": ("arxiv", "1312.5602", ATARI5_REFS),
    "Massively Parallel Methods for Deep Reinforcement Learning": ("arxiv", "1507.04296", IRT_REFS),
    "Evolution Strategies as a Scalable Alternative to Reinforcement Learning": ("arxiv", "1703.03864", IRT_REFS),
    "Prioritized Experience Replay": ("arxiv", "1511.05952", IRT_REFS),
    "Dueling Network Architectures for Deep Reinforcement Learning": ("arxiv", "1511.06581", IRT_REFS),
    "The Reactor: A fast and sample-efficient Actor-Critic agent for Reinforcement Learning": (
        "arxiv", "1704.04651", IRT_REFS + ", under the paper's first title (The Reactor: a sample-efficient "
        "actor-critic architecture)"),
    "A Distributional Perspective on Reinforcement Learning": ("arxiv", "1707.06887", DOPAMINE),
    "Rainbow: Combining Improvements in Deep Reinforcement Learning": ("arxiv", "1710.02298", DOPAMINE),
    "Distributional Reinforcement Learning with Quantile Regression": ("arxiv", "1710.10044", DOPAMINE),
    "Implicit Quantile Networks for Distributional Reinforcement Learning": ("arxiv", "1806.06923", DOPAMINE),
    "Mastering Atari, Go, Chess and Shogi by Planning with a Learned Model": (
        "arxiv", "1911.08265", CONTRIB.format("muzero-curves")),
    "Mastering Atari, Go, chess and shogi by planning with a learned model": (
        "arxiv", "1911.08265", CONTRIB.format("muzero-curves")),
    "Online and Offline Reinforcement Learning by Planning with a Learned Model": ("arxiv", "2104.06294", EVIDENCE),
    "Mastering diverse control tasks through world models": ("arxiv", "2301.04104", UPSTREAM_2023),
    "ChainerRL: A Deep Reinforcement Learning Library": ("arxiv", "1912.00167", CONTRIB.format("chainerrl-rainbow")),
    "Bigger, Better, Faster: Human-level Atari with human-level efficiency": ("arxiv", "2305.19452", CONTRIB.format("bbf")),
    "Open RL Benchmark: Comprehensive Tracked Experiments for Reinforcement Learning": (
        "arxiv", "2402.03046", CONTRIB.format("ppo2-baselines")),
    "Diffusion for World Modeling: Visual Details Matter in Atari": ("arxiv", "2405.12399", CONTRIB.format("diamond")),
    "Transformers are Sample-Efficient World Models": ("arxiv", "2209.00588", CONTRIB.format("iris")),
    "Data-Efficient Reinforcement Learning with Self-Predictive Representations": ("arxiv", "2007.05929", CONTRIB.format("spr")),
    "Deep Reinforcement Learning at the Edge of the Statistical Precipice": ("arxiv", "2108.13264", CONTRIB.format("drq-eps")),
    "Mastering Atari Games with Limited Data": ("arxiv", "2111.00210", CONTRIB.format("efficientzero")),
    "Transformer-based World Models Are Happy With 100k Interactions": ("arxiv", "2303.07109", CONTRIB.format("twm")),
    "When to use parametric models in reinforcement learning?": ("arxiv", "1906.05243", CONTRIB.format("der")),
    "Importance of using appropriate baselines for evaluation of data-efficiency in deep reinforcement learning for Atari": (
        "arxiv", "2003.10181", CONTRIB.format("otrainbow")),
    "Image Augmentation Is All You Need: Regularizing Deep Reinforcement Learning from Pixels": (
        "arxiv", "2004.13649", CONTRIB.format("drq")),
    "PlayVirtual: Augmenting Cycle-Consistent Virtual Trajectories for Reinforcement Learning": (
        "arxiv", "2106.04152", CONTRIB.format("playvirtual")),
    "CURL: Contrastive Unsupervised Representations for Reinforcement Learning": (
        "arxiv", "2004.04136", CONTRIB.format("curl-atari100k")),
    "Increasing the Action Gap: New Operators for Reinforcement Learning": (
        "arxiv", "1512.04860", "the paper's arXiv HTML page, https://ar5iv.labs.arxiv.org/html/1512.04860 (title and abstract)"),
    "Agent57: Outperforming the Atari Human Benchmark": (
        "arxiv", "2003.13350", "https://www.sciencestack.ai/paper/2003.13350 (the paper's title, authors and abstract)"),
    "Never Give Up: Learning Directed Exploration Strategies": (
        "arxiv", "2002.06038", "the paper's arXiv abstract page (arXiv:2002.06038, title and authors)"),
    "First return, then explore": (
        "doi", "10.1038/s41586-020-03157-9", "the paper's Nature page, https://www.nature.com/articles/s41586-020-03157-9"),
    "Deep Reinforcement Learning with Double Q-learning": (
        "doi", "10.1609/aaai.v30i1.10295", "the AAAI proceedings' RIS record of the paper (ojs.aaai.org, DO field)"),
}
READ = ("the seed papers' reference lists, the upstream READMEs stored for the project, data/sources.csv and "
        "contributions/*/metadata.yaml")
NO_ID = "no DOI, arXiv id or URL for this paper appears in the texts read; not filled from memory"
NO_PAPER = {"": "the entry names no paper (paper_title is empty)",
            "DQN optimiser/loss study": "the upstream README does not name the paper of this study"}


def link_rows(algorithms: list[dict]) -> list[list[str]]:
    """One row per entry (sorted by id): algorithm_id, link_kind, link, read_from, reason."""
    rows = []
    for entry in sorted(algorithms, key=lambda r: r["algorithm_id"]):
        title = entry["paper_title"]
        if title in LINKS:
            kind, link, where = LINKS[title]
            rows.append([entry["algorithm_id"], kind, link, where, ""])
        else:
            rows.append([entry["algorithm_id"], "none-found", "", READ, NO_PAPER.get(title, NO_ID)])
    return rows


def apply(root: Path) -> dict[str, str]:
    """The new text of every file the change writes (relative path -> text)."""
    descriptor = read_descriptor(root)
    if tuple(map(int, descriptor["version"].split("."))) < tuple(map(int, FIRST_VERSION.split("."))):
        raise SystemExit(f"{root}: data package version {descriptor['version']}, expected {FIRST_VERSION} or later")
    name, title, path, schema, description = RESOURCE
    if any(r["name"] == name for r in descriptor["resources"]):
        raise SystemExit(f"{root}: the paper links are recorded already (resource {name})")
    algorithms = list(csv.DictReader(io.StringIO((root / "data" / "algorithms.csv").read_text(encoding="utf-8"),
                                                 newline="")))
    columns = [f["name"] for f in json.loads((root / schema).read_text(encoding="utf-8"))["fields"]]
    texts = {path: csv_text(columns, link_rows(algorithms))}
    at = next(i for i, r in enumerate(descriptor["resources"]) if r["name"] == "algorithms") + 1
    descriptor["resources"].insert(at, table_resource(name, path, schema, title, description))
    texts["datapackage.json"] = bumped_descriptor_text(root, descriptor, texts)
    return texts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", nargs="?", type=Path, default=ROOT,
                        help="data package directory (default: this repository)")
    args = parser.parse_args(argv)
    with package_transaction(args.package, "add_paper_links") as change:
        texts = apply(args.package)
        change.commit(texts)
    print(f"{args.package}: {RESOURCE[2]} recorded, data package {read_descriptor(args.package)['version']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
