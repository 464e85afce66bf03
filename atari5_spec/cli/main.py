"""The ``atari5-spec`` command line: a thin shell over the Python API.

Each subcommand parses its arguments, calls one API function and prints the
result. User errors (bad files, unknown games, invalid data) print a message
and exit with status 1, without a traceback; exit status 0 means success.
Modules are imported inside the commands so that start-up stays fast.
"""

from __future__ import annotations

import argparse
import errno
import sys

from .._version import __version__
from ..data.errors import InputError


class _VersionAction(argparse.Action):
    """``--version``: the code, the data package and the coefficient versions, read only when asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    import json

    from .._version import __release_date__
    from ..data.datapackage import DESCRIPTOR, package_root

    lines = [f"atari5-spec {__version__} (code, released {__release_date__})"]
    try:
        root = package_root()
        from ..data.paths import read_package_text

        descriptor = json.loads(read_package_text(root / DESCRIPTOR, root))
        from ..method.pinned import default_version, known_versions

        versions = known_versions(root / "coefficients")
        default = default_version(root / "coefficients")
        lines += [f"data package {descriptor.get('version', '?')} at {root}",
                  "coefficient versions: " + ", ".join(v + (" (default)" if v == default else "") for v in versions)]
        data_major, code_major = str(descriptor.get("version", "?")).split(".")[0], __version__.split(".")[0]
        if data_major != code_major:  # docs/data.md "Versioning": the code's major version is the data's
            lines.append(f"warning: atari5-spec {code_major}.x reads data packages {code_major}.x, this one is "
                         f"{descriptor.get('version', '?')}")
    except (OSError, ValueError, InputError) as error:
        lines.append(f"data package: not readable ({error})")
    return "\n".join(lines)


_DISK_ADVICE = {errno.ENOSPC: "the disk is full: free some space and run the command again",
                errno.EDQUOT: "the disk quota is exhausted: free some space and run the command again",
                errno.EROFS: "the file system is read-only: write somewhere else",
                errno.EACCES: "permission denied: check the permissions, or write somewhere else",
                errno.EPERM: "operation not permitted: check the permissions, or write somewhere else",
                errno.EIO: "input/output error: the disk is failing; check it and run the command again"}


def disk_error_text(error: OSError) -> str:
    """One line for an operating-system error: the path, what happened, what to do."""
    path = error.filename if error.filename is not None else "the disk"
    if error.filename2 is not None:
        path = f"{path} -> {error.filename2}"
    what = _DISK_ADVICE.get(error.errno) or (error.strerror or str(error) or type(error).__name__)
    return " ".join(f"{path}: {what}".split())  # one line, whatever the message holds


class SuggestingParser(argparse.ArgumentParser):
    """An ArgumentParser whose mistakes are told by the (sub)command that made them, with a suggestion.

    ``atari5-spec score --scroe 3`` prints the usage of ``score`` (argparse would print the top-level
    usage) and "did you mean --score?"; a misspelled command or choice gets the nearest valid one.
    Subcommand parsers are of this class too (argparse makes them of their parent's class).
    """

    def parse_known_args(self, args=None, namespace=None):
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:  # the innermost (sub)command sees them first: its usage is the one to show
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._option_hint(extras)}")
        return parsed, extras

    def _option_hint(self, extras) -> str:
        import difflib

        options = [o for action in self._actions for o in action.option_strings
                   if action.help is not argparse.SUPPRESS and o.startswith("--")]
        hints = []
        for extra in extras:
            if extra.startswith("-"):
                close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1, cutoff=0.6)
                if close:
                    hints.append((extra.split("=", 1)[0], close[0]))
        if len(hints) == 1 and len(extras) == 1:
            return f" (did you mean {hints[0][1]}?)"
        return f" ({'; '.join(f'{given}: did you mean {near}?' for given, near in hints)})" if hints else ""

    def error(self, message):
        import difflib
        import re

        found = re.search(r"invalid choice: '?([^'\s]*)'?.*\(choose from (.*)\)", message)
        if found:
            choices = [c.strip().strip("'\"") for c in found.group(2).split(",")]
            close = difflib.get_close_matches(found.group(1), choices, n=1, cutoff=0.5)
            if close:
                message += f"; did you mean '{close[0]}'?"
        super().error(message)


# One module per command family, each adding its subcommands (argparse only); a command line naming one of these
# commands builds only its family's parser, so that `atari5-spec score` imports none of the others.
FAMILIES = {  # family module -> (its function, the commands it adds), in the order --help lists them
    "package": ("add_package_commands", ("validate", "verify", "reproduce", "recover")),
    "score": ("add_scoring_commands", ("score", "predict", "leaderboard")),
    "release": ("add_release_commands", ("signature", "cite")),
    "play": ("add_play_commands", ("play",)),
}
# The other distributions add their commands through entry points of this group: the entry point's name is the
# command, its value the function adding that command's family (maintainers/pyproject.toml, research/pyproject.toml).
COMMANDS_GROUP = "atari5_spec_commands"
# Where a command that is not installed comes from: said instead of "invalid choice".
ELSEWHERE = {
    "atari5-spec-research (pip install ./research)": ("search", "stability", "irt", "aggregate", "report"),
    "atari5-spec-maintainers (pip install ./research ./maintainers)": ("contribute", "evaluate", "site", "fit",
                                                                      "export"),
}


def _extension_adders(command: str | None) -> list:
    """The functions adding the installed extensions' commands: only ``command``'s when an extension adds it."""
    from importlib.metadata import entry_points

    points = sorted(entry_points(group=COMMANDS_GROUP), key=lambda point: point.name)
    chosen = [point for point in points if point.name == command] or points
    return [point.load() for point in {point.value: point for point in chosen}.values()]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only of ``command``'s family when it names one."""
    import importlib

    parser = SuggestingParser(
        prog="atari5-spec",
        description="The Atari-5 benchmark: validate the data package, verify pinned coefficients, "
                    "score an agent from its five games.")
    parser.add_argument("--version", action=_VersionAction,
                        help="show the code, data package and coefficient versions, and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    parser.commands = commands  # what main looks a command up in
    own = [f for f, (_, names) in FAMILIES.items() if command in names]
    for family in own or list(FAMILIES):
        adder, _ = FAMILIES[family]
        getattr(importlib.import_module(f"{__package__}.{family}"), adder)(commands)
    if not own:
        for adder in _extension_adders(command):
            adder(commands)
    return parser


def _not_installed(command: str) -> str | None:
    for distribution, names in ELSEWHERE.items():
        if command in names:
            return (f"error: `atari5-spec {command}` comes with {distribution}, which is not installed here "
                    "(docs/development.md says which install each reader needs)")
    return None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    if argv and argv[0] not in parser.commands.choices and _not_installed(argv[0]):
        print(_not_installed(argv[0]), file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if getattr(args, "legacy_path", None) and getattr(args, "path", None) is None:
        args.path = args.legacy_path  # `validate PATH`, as before --package
    try:
        return args.run(args)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except OSError as error:  # the disk, not the input: full, read-only, not ours, failing
        print(f"error: {disk_error_text(error)}", file=sys.stderr)
        return 1
    except MemoryError:
        print("error: out of memory: give a smaller input (or fewer resamples)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

