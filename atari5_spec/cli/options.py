"""What subcommands share: which data package they work on, and a progress bar (argparse only, imports nothing heavy)."""

from __future__ import annotations

import argparse
import sys

from ..data.errors import InputError

__all__ = ["PACKAGE_HELP", "add_package_option", "progress_bar", "writable_package"]

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
    from ..data.datapackage import enclosing_package

    if path is not None:
        return path
    found = enclosing_package()
    if found is None:
        raise InputError("this command writes into a data package: run it inside a clone of atari5-spec or pass "
                         "--package PATH (the installed copy is never changed)")
    return str(found)


def progress_bar(label: str):
    """A progress callback drawing a bar on a terminal (nothing when output is redirected)."""
    if not sys.stderr.isatty():
        return None

    def draw(done: int, total: int) -> None:
        filled = int(30 * done / max(total, 1))
        end = "\n" if done >= total else ""
        print(f"\r{label} [{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,}", end=end, file=sys.stderr, flush=True)

    return draw
