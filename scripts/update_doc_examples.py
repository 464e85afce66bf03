"""Run the examples of README.md and docs/*.md, and rewrite what they print.

    python scripts/update_doc_examples.py          # rewrite every example's output in place
    python scripts/update_doc_examples.py --check  # exit 1 naming each example whose output differs
                                                   # (what tests/test_doc_examples.py checks)

Two kinds of fenced block are examples:

* ```` ```pycon ````: Python in doctest form (``>>>`` and ``...`` lines, then what
  the interpreter prints); the blocks of one file share a namespace, in order.
  Compared as doctest does, with ELLIPSIS and NORMALIZE_WHITESPACE; rewritten
  with what the code prints today.
* ```` ```console ````: ``$ atari5-spec ARGS`` lines, each followed by what the
  command prints on standard output (run in-process, from the repository's
  root, so the data package is the repository's own); compared exactly, line
  by line, trailing blanks ignored.

Other blocks (``python``, ``bash``, indented ones) are not run: use them for
code that needs files or time a reader does not have.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(pycon|console)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def example_files(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


class Example:
    """One fenced block: its kind, its text, and where it starts in the file."""

    def __init__(self, path: Path, kind: str, body: str, start: int, end: int, line: int):
        self.path, self.kind, self.body, self.start, self.end, self.line = path, kind, body, start, end, line

    def __repr__(self) -> str:
        return f"{self.path.name}:{self.line}"


def find_examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    return [Example(path, m.group(1), m.group(2), m.start(2), m.end(2), text.count("\n", 0, m.start()) + 1)
            for m in FENCE.finditer(text)]


@contextlib.contextmanager
def _in_root(root: Path):
    before = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(before)


def run_command(arguments: str, root: Path = ROOT) -> str:
    """What ``atari5-spec ARGUMENTS`` prints on standard output, run in-process from ``root``."""
    from atari5_spec.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with _in_root(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(shlex.split(arguments))
        except SystemExit:
            pass
    return out.getvalue()


def console_output(body: str, root: Path = ROOT) -> str:
    """The console block with each command's output as printed today."""
    pieces = []
    for line in body.splitlines():
        if line.startswith("$ "):
            command = line[2:].strip()
            if not command.startswith("atari5-spec "):
                raise ValueError(f"a console example runs atari5-spec only, not {command!r}")
            pieces.append(line)
            pieces += [printed.rstrip() for printed in run_command(command[len("atari5-spec "):], root).splitlines()]
    return "\n".join(pieces) + "\n"


def console_differences(body: str, root: Path = ROOT) -> list[str]:
    want = [line.rstrip() for line in body.splitlines()]
    got = console_output(body, root).splitlines()
    if want == got:
        return []
    import difflib

    return list(difflib.unified_diff(want, got, "in the document", "printed today", lineterm="", n=1))


class _Displayed(doctest.DocTestRunner):
    """A doctest runner that records what each example printed (for rewriting the block)."""

    def __init__(self):
        super().__init__(optionflags=FLAGS, verbose=False)
        self.printed: list[str] = []
        self.failures_text: list[str] = []

    def report_success(self, out, test, example, got):
        self.printed.append(got)

    def report_failure(self, out, test, example, got):
        self.printed.append(got)
        self.failures_text.append(f">>> {example.source.strip()}\nexpected:\n{example.want}got:\n{got}")

    def report_unexpected_exception(self, out, test, example, exc_info):
        import traceback

        text = "".join(traceback.format_exception_only(*exc_info[:2]))
        self.printed.append("Traceback (most recent call last):\n  ...\n" + text)
        self.failures_text.append(f">>> {example.source.strip()}\nraised: {text}")


def run_pycon(body: str, name: str, globs: dict) -> tuple[list, _Displayed]:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(body, globs, name, name, 0)
    runner = _Displayed()
    with _in_root(ROOT):
        runner.run(test, clear_globs=False)
    globs.update(test.globs)  # the blocks of one file share a namespace (DocTest works on a copy)
    return test.examples, runner


def pycon_output(body: str, name: str, globs: dict) -> tuple[str, list[str]]:
    """The block rewritten with what each example prints today, and the failures found on the way."""
    examples, runner = run_pycon(body, name, globs)
    lines = []
    for example, printed in zip(examples, runner.printed):
        source = example.source.rstrip("\n").split("\n")
        indent = " " * example.indent
        lines += [f"{indent}>>> {source[0]}"] + [f"{indent}... {more}" for more in source[1:]]
        if example.want and ("..." in example.want) and doctest.OutputChecker().check_output(example.want, printed,
                                                                                              FLAGS):
            printed = example.want  # a deliberately elided output stays elided
        lines += [f"{indent}{line}" if line else "" for line in printed.rstrip("\n").split("\n")] if printed else []
    return "\n".join(lines) + "\n", runner.failures_text


# --- README's table of signature fields: its example column is the signature `score` prints today -----------

SIGNATURE_ROW = re.compile(r"^\| (`[a-z]+:`|subset) \| `([^`]*)` \|", re.M)

def signature_fields(root: Path = ROOT) -> dict[str, str]:
    """Field label (`coef:`, ...) -> value, from the signature of three seeds per game scored today."""
    scores = " ".join(f"--score {game}={base:g},{base + 10:g},{base + 20:g}"
                      for game, base in (("battle_zone", 35000), ("double_dunk", -1.5), ("name_this_game", 12000),
                                         ("phoenix", 9000), ("qbert", 15000)))
    printed = run_command(f"score {scores} --json", root)
    import json

    signature = json.loads(printed)["signature"]
    parts = signature.split("|")
    fields = {"subset": parts[0]}
    for part in parts[1:]:
        label, _, value = part.partition(":")
        fields[f"`{label}:`"] = value
    return fields


def signature_table(text: str, root: Path = ROOT) -> str:
    fields = signature_fields(root)

    def row(match: re.Match) -> str:
        label = match.group(1)
        value = fields.get(label, match.group(2))
        return f"| {label} | `{value}` |"

    return SIGNATURE_ROW.sub(row, text)


def check_file(path: Path) -> list[str]:
    """One message per example of ``path`` whose output is not what it prints today."""
    problems, globs = [], {}
    for example in find_examples(path):
        if example.kind == "console":
            difference = console_differences(example.body)
            if difference:
                problems.append(f"{example}: console output differs\n" + "\n".join(difference))
        else:
            _, runner = run_pycon(example.body, repr(example), globs)
            problems += [f"{example}: {failure}" for failure in runner.failures_text]
    if path.name == "README.md":
        text = path.read_text(encoding="utf-8")
        if signature_table(text) != text:
            problems.append(f"{path.name}: the table of signature fields shows values other than today's signature")
    return problems


def rewrite_file(path: Path) -> bool:
    """Rewrite every example's output in ``path``; True when the file changed."""
    text = path.read_text(encoding="utf-8")
    globs: dict = {}
    pieces, at = [], 0
    for example in find_examples(path):
        if example.kind == "console":
            new = console_output(example.body)
        else:
            new, failures = pycon_output(example.body, repr(example), globs)
            for failure in failures:
                print(f"{example}: {failure}", file=sys.stderr)
        pieces += [text[at:example.start], new]
        at = example.end
    pieces.append(text[at:])
    new_text = "".join(pieces)
    if path.name == "README.md":
        new_text = signature_table(new_text)
    if new_text != text:
        path.write_text(new_text, encoding="utf-8")
        return True
    return False


def main(argv: list[str]) -> int:
    check = "--check" in argv
    status = 0
    for path in example_files():
        if check:
            for problem in check_file(path):
                print(problem)
                status = 1
        elif rewrite_file(path):
            print(f"rewrote {path.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
