"""The ``atari5-spec`` command line: a thin shell over the Python API.

Each subcommand parses its arguments, calls one API function and prints the
result. User errors (bad files, unknown games, invalid data) print a message
and exit with status 1, without a traceback; exit status 0 means success.
Modules are imported inside the commands so that start-up stays fast.
"""

from __future__ import annotations

import argparse
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

    from ..data.datapackage import DESCRIPTOR, package_root

    from .._version import __release_date__

    lines = [f"atari5-spec {__version__} (code, released {__release_date__})"]
    try:
        root = package_root()
        descriptor = json.loads((root / DESCRIPTOR).read_text(encoding="utf-8"))
        from ..method.pinned import default_version, known_versions

        versions = known_versions(root / "coefficients")
        default = default_version(root / "coefficients")
        lines += [f"data package {descriptor.get('version', '?')} at {root}",
                  "coefficient versions: " + ", ".join(v + (" (default)" if v == default else "") for v in versions)]
        data_major, code_major = str(descriptor.get("version", "?")).split(".")[0], __version__.split(".")[0]
        if data_major != code_major:  # README "Versioning": the code's major version is the data's
            lines.append(f"warning: atari5-spec {code_major}.x reads data packages {code_major}.x, this one is "
                         f"{descriptor.get('version', '?')}")
    except (OSError, ValueError, InputError) as error:
        lines.append(f"data package: not readable ({error})")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="atari5-spec",
        description="The Atari-5 benchmark: validate the data package, verify pinned coefficients, "
                    "score an agent from its five games.")
    parser.add_argument("--version", action=_VersionAction,
                        help="show the code, data package and coefficient versions, and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    # One module per command family; each adds its subcommands (argparse only: fast).
    from .analyses import add_analysis_commands
    from .contribute import add_contribution_commands
    from .evaluate import add_evaluation_commands
    from .package import add_package_commands
    from .score import add_scoring_commands
    from .release import add_release_commands
    from .search import add_search_commands

    add_package_commands(commands)        # validate, verify, reproduce, fit
    add_search_commands(commands)         # search, stability
    add_analysis_commands(commands)       # irt, aggregate, report
    add_scoring_commands(commands)        # score, predict, leaderboard
    add_contribution_commands(commands)   # contribute check|add|curves
    add_evaluation_commands(commands)     # evaluate
    add_release_commands(commands)        # signature check, cite, export
    return parser


def main(argv=None) -> int:
    parser = build_parser()
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
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130

