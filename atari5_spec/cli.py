"""The ``atari5-spec`` command line: a thin shell over the Python API.

Each subcommand parses its arguments, calls one API function and prints the
result. User errors (bad files, unknown games, invalid data) print a message
and exit with status 1, without a traceback; exit status 0 means success.
Modules are imported inside the commands so that start-up stays fast.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import InputError


def _cmd_validate(args) -> int:
    from .validation import format_problems, validate_package

    problems = validate_package(args.path)
    if problems:
        print(format_problems(problems))
        print(f"\n{len(problems)} problem(s): the package is NOT valid.")
        return 1
    print("valid: structure, types, keys, hashes and data rules all pass.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="atari5-spec",
        description="The Atari-5 benchmark: validate the data package, verify pinned coefficients, "
                    "score an agent from its five games.")
    parser.add_argument("--version", action="version", version=f"atari5-spec {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    p = commands.add_parser("validate", help="validate a data package (default: the installed one)")
    p.add_argument("path", nargs="?", default=None, help="package directory or its datapackage.json")
    p.set_defaults(run=_cmd_validate)

    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
