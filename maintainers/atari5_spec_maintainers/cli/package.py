"""The maintainers' commands on the package as a whole: ``fit`` (a new pinned coefficient version) and ``export``
(the release artefact). Only argparse is imported here; each command imports what it needs when it runs."""

from __future__ import annotations

import argparse

from atari5_spec.cli.options import add_package_option, writable_package

__all__ = ["add_fit_commands", "add_export_commands"]

EXPORT_HELP = "write the data package as a self-contained folder and a byte-reproducible zip (a release artefact)"
EXPORT_DESCRIPTION = """\
Write DIR/atari5-spec-data-<version>/ and DIR/atari5-spec-data-<version>.zip:
datapackage.json, data/, schemas/, the pinned coefficient versions, the
calibrations, the paper's published tables, a README of every field, the
licences and CITATION.cff. Files are copied byte for byte (the hashes in
datapackage.json hold); the zip depends only on the package (sorted entries,
fixed timestamps), so the same package always gives the same zip. DIR must be
outside any data package; an earlier export there is replaced."""



def _cmd_fit(args) -> int:
    from atari5_spec_maintainers.pinning.refit import fit_new_version

    path = fit_new_version(writable_package(args.path), args.name, description=args.description)
    print(f"wrote coefficient version {args.name} to {path}")
    return 0


def _cmd_export(args) -> int:
    from atari5_spec_maintainers.release import export

    result = export(args.out, args.path)
    print(f"wrote {result.folder}/ ({result.n_files} files)")
    print(f"wrote {result.zip_path} ({result.zip_bytes:,} bytes)")
    return 0


def add_fit_commands(commands) -> None:
    """Register ``fit`` on the main parser's subparsers."""
    p = commands.add_parser("fit", help="fit a new pinned coefficient version from the current data",
                            description="Fits every subset model of the default version (same games) on every entry "
                                        "the inclusion rule admits in the current data, and pins it as a new "
                                        "coefficient version (manifest, training rows, hashes); the data package "
                                        "version gets a minor bump and CHANGELOG.md a line. The default version "
                                        "does not change.")
    p.add_argument("--name", required=True, help="version name, e.g. 2026-11 (lower-case, digits, '-')")
    add_package_option(p)
    p.add_argument("--description", default=None, help="one sentence saying why this version exists")
    p.set_defaults(run=_cmd_fit)



def add_export_commands(commands) -> None:
    """Register ``export`` on the main parser's subparsers."""
    p = commands.add_parser("export", help=EXPORT_HELP, description=EXPORT_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write into (outside any data package)")
    add_package_option(p)
    p.set_defaults(run=_cmd_export)


