"""Cut (or re-cut) a code release: CHANGELOG section, and the code version everywhere it is written.

Usage::

    python scripts/cut_release.py VERSION DATE [--repo DIR]

e.g. ``python scripts/cut_release.py 1.0.0 2026-11-23``. What it does, all
files or none:

* CHANGELOG.md: everything under ``## [Unreleased]`` moves into
  ``## [VERSION] - DATE``, headed by the line ``Data package at this release:
  X.Y.Z`` (datapackage.json's ``version`` now). When that section already
  exists (a re-cut: entries were merged under [Unreleased] after the first
  cut), the new entries join its subsections of the same name and the data
  package line and the date are refreshed. ``## [Unreleased]`` is left empty.
* The code version and release date: ``atari5_spec/_version.py``
  (``__version__``, ``__release_date__``), pyproject.toml ``version``,
  CITATION.cff ``version`` and ``date-released``, .zenodo.json ``version`` and
  ``publication_date``.

It never touches the data package: the data version moves with data changes
only (README, "Versioning"). Running it twice with the same arguments changes
nothing the second time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

UNRELEASED = "## [Unreleased]"
DATA_LINE = "Data package at this release: "
# Keep a Changelog's order; any other subsection (e.g. "Migrating from 0.1.0") goes first.
ORDER = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]


def _split_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(preamble, [(heading line, body)]) for every ``## `` section."""
    parts = re.split(r"(?m)^(## .*)$", text)
    return parts[0], [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]


def _subsections(body: str) -> tuple[list[str], dict[str, list[str]]]:
    """Free lines before the first ``### `` and, per ``### `` title, its lines (blank edges trimmed)."""
    free, subs, current = [], {}, None
    for line in body.split("\n"):
        if line.startswith("### "):
            current = line[4:].strip()
            subs.setdefault(current, [])
        elif current is None:
            free.append(line)
        else:
            subs[current].append(line)
    trim = lambda lines: "\n".join(lines).strip("\n").split("\n") if "\n".join(lines).strip() else []
    return trim(free), {k: trim(v) for k, v in subs.items()}


def _section_body(free: list[str], subs: dict[str, list[str]]) -> str:
    titles = [t for t in subs if t not in ORDER] + [t for t in ORDER if t in subs]
    blocks = ["\n".join(free)] if free else []
    blocks += [f"### {t}\n" + "\n".join(subs[t]) for t in titles if subs[t]]
    return "\n\n" + "\n\n".join(blocks) + "\n\n"


def cut_changelog(text: str, version: str, date: str, data_version: str) -> str:
    preamble, sections = _split_sections(text)
    headings = [h for h, _ in sections]
    if UNRELEASED not in headings:
        raise SystemExit(f"CHANGELOG.md has no '{UNRELEASED}' section")
    new_free, new_subs = _subsections(sections[headings.index(UNRELEASED)][1])
    target = next((i for i, h in enumerate(headings) if h.startswith(f"## [{version}]")), None)
    free, subs = ([], {}) if target is None else _subsections(sections[target][1])
    free = [line for line in free + new_free if not line.startswith(DATA_LINE)]
    free = [f"{DATA_LINE}{data_version} (datapackage.json `version`; README, \"Versioning\")."] + (
        [""] + free if free else [])
    for title, lines in new_subs.items():
        subs[title] = subs.get(title, []) + lines
    section = (f"## [{version}] - {date}", _section_body(free, subs))
    out = [(UNRELEASED, "\n\n")]
    for i, (heading, body) in enumerate(sections):
        if heading == UNRELEASED:
            if target is None:
                out.append(section)
        elif i == target:
            out.append(section)
        else:
            out.append((heading, body))
    return preamble + "".join(h + b for h, b in out)


def _replace(text: str, pattern: str, value: str, where: str) -> str:
    new, count = re.subn(pattern, lambda m: m.group(1) + value + m.group(2), text, count=1, flags=re.M)
    if count != 1:
        raise SystemExit(f"{where}: no line matching {pattern!r}")
    return new


def cut(repo: Path, version: str, date: str) -> dict[Path, str]:
    """The new text of every file the cut changes (nothing written)."""
    data_version = json.loads((repo / "datapackage.json").read_text(encoding="utf-8"))["version"]
    files = {}
    changelog = repo / "CHANGELOG.md"
    files[changelog] = cut_changelog(changelog.read_text(encoding="utf-8"), version, date, data_version)
    code = repo / "atari5_spec" / "_version.py"
    text = _replace(code.read_text(encoding="utf-8"), r'^(__version__ = ")[^"]*(")', version, str(code))
    files[code] = _replace(text, r'^(__release_date__ = ")[^"]*(")', date, str(code))
    pyproject = repo / "pyproject.toml"
    files[pyproject] = _replace(pyproject.read_text(encoding="utf-8"), r'^(version = ")[^"]*(")', version,
                                str(pyproject))
    cff = repo / "CITATION.cff"
    text = _replace(cff.read_text(encoding="utf-8"), r"^(version: )\S*()$", version, str(cff))
    files[cff] = _replace(text, r'^(date-released: ")[^"]*(")$', date, str(cff))
    zenodo = repo / ".zenodo.json"
    metadata = json.loads(zenodo.read_text(encoding="utf-8"))
    metadata["version"], metadata["publication_date"] = version, date
    files[zenodo] = json.dumps(metadata, indent=2, ensure_ascii=False) + "\n"
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="the code version, MAJOR.MINOR.PATCH")
    parser.add_argument("date", help="the release date, YYYY-MM-DD")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+", args.version) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
        print("error: VERSION must be MAJOR.MINOR.PATCH and DATE YYYY-MM-DD", file=sys.stderr)
        return 1
    files = cut(args.repo, args.version, args.date)  # everything computed before anything is written
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(args.repo)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
