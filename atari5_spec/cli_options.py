"""Options every subcommand shares: which data package it works on (argparse only, imports nothing heavy)."""

from __future__ import annotations

import argparse

from .errors import InputError

__all__ = ["PACKAGE_HELP", "add_package_option", "writable_package"]

PACKAGE_HELP = ("the data package (a directory or its datapackage.json); default: the atari5-spec package you are "
                "in (the current directory or the nearest one above it), else the installed copy")


def add_package_option(parser: argparse.ArgumentParser, positional: bool = False) -> None:
    """``--package PATH``, the one name every command uses for the data package it works on.

    ``--path`` (and, for validate and verify, a positional PATH) are still accepted, unlisted,
    for scripts written before 1.0.
    """
    parser.add_argument("--package", dest="path", default=None, metavar="PATH", help=PACKAGE_HELP)
    parser.add_argument("--path", dest="path", default=None, help=argparse.SUPPRESS)
    if positional:
        parser.add_argument("legacy_path", nargs="?", default=None, help=argparse.SUPPRESS)


def writable_package(path) -> str:
    """The package a writing command changes: as given, else the one you are in (never the installed copy)."""
    from .datapackage import enclosing_package

    if path is not None:
        return path
    found = enclosing_package()
    if found is None:
        raise InputError("this command writes into a data package: run it inside a clone of atari5-spec or pass "
                         "--package PATH (the installed copy is never changed)")
    return str(found)
