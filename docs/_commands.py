"""One documentation page per ``atari5-spec`` command, generated from the argparse definitions.

Called by conf.py when a build starts: it writes docs/commands/<command>.md (git-ignored) for each
top-level subcommand, with what ``atari5-spec COMMAND --help`` prints (and, for a command with
subcommands, each subcommand's help), and docs/commands/index.md listing them; so a new command
gets its page, and a changed option its new text, without anyone writing one.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

WIDTH = "100"  # help text wrapped at a fixed width: the same pages on every machine


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand of ``parser``, in the order of its --help."""
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not actions:
        return []
    helps = {choice.dest: choice.help or "" for choice in actions[0]._choices_actions}
    return [(name, helps.get(name, ""), sub) for name, sub in actions[0].choices.items()]


def _help(parser: argparse.ArgumentParser) -> str:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return parser.format_help()
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def _fenced(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}text\n{text.rstrip()}\n{fence}\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def command_page(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    lines = [f"# atari5-spec {name}\n", f"{_markdown_text(summary)}\n" if summary else "", _fenced(_help(parser))]
    for sub, sub_summary, sub_parser in _subcommands(parser):
        lines += [f"\n## atari5-spec {name} {sub}\n", f"{_markdown_text(sub_summary)}\n" if sub_summary else "",
                  _fenced(_help(sub_parser))]
    return "\n".join(line for line in lines if line)


def _markdown_text(text: str) -> str:
    """Plain help text as Markdown prose: the project's one escaping (atari5_spec/data/markdown.py), and
    emphasis and headings, which help text never means."""
    from atari5_spec.data.markdown import markdown_text

    out = markdown_text(text)
    for character in "*_#":
        out = out.replace(character, "\\" + character)
    return out


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_command_pages(folder: Path) -> list[Path]:
    from atari5_spec.cli.main import build_parser

    folder.mkdir(exist_ok=True)
    commands = _subcommands(build_parser())
    written = []
    for name, summary, parser in commands:
        page = folder / f"{name}.md"
        _write_if_changed(page, command_page(name, summary, parser))
        written.append(page)
    rows = "\n".join(f"| [`{name}`]({name}.md) | {_markdown_text(summary)} |" for name, summary, _ in commands)
    _write_if_changed(folder / "index.md",
                      "# Commands\n\nEvery command of `atari5-spec`, one page each, generated from the command's "
                      "own argparse definition (what `atari5-spec COMMAND --help` prints).\n\n"
                      "| command | what it does |\n|---|---|\n" + rows + "\n\n"
                      "```{toctree}\n:hidden:\n\n" + "\n".join(name for name, _, _ in commands) + "\n```\n")
    for stale in set(folder.glob("*.md")) - set(written) - {folder / "index.md"}:
        stale.unlink()  # a command that was removed loses its page
    return written
