"""One documentation page per ``atari5-spec`` command, generated from the argparse definitions.

Called by conf.py when a build starts: it writes docs/commands/<command>.md (git-ignored) with a
sphinx-argparse directive for each top-level subcommand, and docs/commands/index.md listing them,
so a new command gets its page without anyone writing one.
"""

from __future__ import annotations

from pathlib import Path


def command_names() -> list[tuple[str, str]]:
    """(name, one-line help) of every top-level subcommand, in the order of ``atari5-spec --help``."""
    import argparse

    from atari5_spec.cli.main import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
    return [(name, helps.get(name, "")) for name in action.choices]


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_command_pages(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    written = []
    names = command_names()
    for name, _ in names:
        page = folder / f"{name}.md"
        _write_if_changed(page, f"# atari5-spec {name}\n\n"
                                "```{eval-rst}\n"
                                ".. argparse::\n"
                                "   :module: atari5_spec.cli.main\n"
                                "   :func: build_parser\n"
                                "   :prog: atari5-spec\n"
                                f"   :path: {name}\n"
                                "```\n")
        written.append(page)
    rows = "\n".join(f"| [`{name}`]({name}.md) | {' '.join(text.split()).replace('|', '/')} |" for name, text in names)
    index = ("# Commands\n\n"
             "Every command of `atari5-spec`, one page each, generated from the command's own argparse "
             "definition (what `atari5-spec COMMAND --help` prints).\n\n"
             "| command | what it does |\n|---|---|\n" + rows + "\n\n"
             "```{toctree}\n:hidden:\n\n" + "\n".join(name for name, _ in names) + "\n```\n")
    _write_if_changed(folder / "index.md", index)
    return written
