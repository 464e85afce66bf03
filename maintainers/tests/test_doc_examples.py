"""The examples in README.md, docs/*.md and the docstrings run, and print what the documents say.

README and docs: ```pycon blocks run as doctests, ```console blocks run the command and compare its output
(scripts/update_doc_examples.py; `python scripts/update_doc_examples.py` rewrites them after a change).
Docstrings: every ``>>>`` example of the package runs as a doctest.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path

import pytest

import atari5_spec
import atari5_spec_maintainers
import atari5_spec_research

ROOT = Path(__file__).resolve().parents[2]


def _examples_module():
    spec = importlib.util.spec_from_file_location("update_doc_examples", ROOT / "scripts" / "update_doc_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


examples = _examples_module()


# README's examples validate the whole package and bootstrap (about 13 s on 2 cores): a slow test (`pytest --full`).
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name == "README.md" else p
                                  for p in examples.example_files(ROOT)], ids=lambda p: p.name)
def test_document_examples_print_what_the_document_says(path):
    problems = examples.check_file(path)
    assert not problems, ("\n\n".join(problems)
                          + "\n\nrerun `python scripts/update_doc_examples.py` if the new output is right")


def test_readme_has_both_kinds_of_example():
    kinds = [e.kind for e in examples.find_examples(ROOT / "README.md")]
    assert kinds.count("console") >= 1 and kinds.count("pycon") >= 2


def test_a_stale_example_is_caught(tmp_path):
    stale = tmp_path / "README.md"
    stale.write_text("text\n\n```console\n$ atari5-spec predict --score battle_zone=1 --score double_dunk=1 "
                     "--score name_this_game=1 --score phoenix=1 --score qbert=1 --json\n{}\n```\n\n"
                     "```pycon\n>>> 1 + 1\n3\n```\n", encoding="utf-8")
    problems = examples.check_file(stale)
    assert any("console output differs" in p for p in problems) and any("1 + 1" in p for p in problems)
    assert examples.rewrite_file(stale)
    assert examples.check_file(stale) == []
    assert ">>> 1 + 1\n2\n" in stale.read_text(encoding="utf-8")


def _modules_with_examples():
    """Modules of the three distributions whose source holds a ``>>>`` example (found on disk: importing every
    module to look is slow)."""
    names = []
    packages = [Path(p.__file__).resolve().parent for p in (atari5_spec, atari5_spec_research, atari5_spec_maintainers)]
    for package, path in sorted((package, path) for package in packages for path in package.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(package.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(module, name) if t.examples]
    assert tests, f"{name} mentions >>> but has no doctest"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} docstring example(s) failed (see the output above)"


def test_every_command_has_a_generated_page(tmp_path):
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from _commands import write_command_pages
    finally:
        sys.path.remove(str(ROOT / "docs"))
    from atari5_spec.cli.main import build_parser

    pages = write_command_pages(tmp_path)
    commands = set(next(a for a in build_parser()._actions if hasattr(a, "choices") and a.choices).choices)
    assert {p.stem for p in pages} == commands
    score = (tmp_path / "score.md").read_text(encoding="utf-8")
    assert "--relative-to" in score and score.startswith("# atari5-spec score")
    assert "## atari5-spec contribute add" in (tmp_path / "contribute.md").read_text(encoding="utf-8")
    assert all(f"[`{c}`]({c}.md)" in (tmp_path / "index.md").read_text(encoding="utf-8") for c in commands)
