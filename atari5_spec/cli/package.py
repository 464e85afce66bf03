"""Commands on the data package itself: validate, verify, reproduce, recover."""

from __future__ import annotations

from .options import add_package_option, progress_bar


def _problems_json(problems) -> list[dict]:
    return [p._asdict() for p in problems]


def _cmd_validate(args) -> int:
    from ..data.datapackage import package_root, which_package
    from ..data.validation import format_problems, validate_package

    problems = validate_package(args.path)
    if args.json:
        import json

        print(json.dumps({"package": str(package_root(args.path, reader=False)), "valid": not problems,
                          "problems": _problems_json(problems)}, indent=2))
        return 1 if problems else 0
    print(which_package(args.path))
    if problems:
        print(format_problems(problems))
        print(f"\n{len(problems)} problem(s): the package is NOT valid.")
        return 1
    print("valid: structure, types, keys, hashes and data rules all pass.")
    return 0


def _cmd_verify(args) -> int:
    from ..data.datapackage import package_root, which_package
    from ..method.verification import format_report, verify

    checks = verify(args.path, search=not args.skip_search, progress=None if args.json else progress_bar("search"))
    if args.json:
        import json

        print(json.dumps({"package": str(package_root(args.path)), "ok": all(c.ok for c in checks),
                          "checks": [{"name": c.name, "compared": c.compared, "max_abs_diff": c.max_abs_diff,
                                      "ok": c.ok, "mismatches": list(c.mismatches)} for c in checks]}, indent=2))
        return 0 if all(c.ok for c in checks) else 1
    print(which_package(args.path))
    print(format_report(checks))
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)}/{len(checks)} checks passed" + ("" if not failed else ": NOT reproducible"))
    return 1 if failed else 0


def _cmd_recover(args) -> int:
    from ..data.datapackage import package_root
    from ..data.transaction import recover

    root = package_root(args.path, reader=False)
    done = recover(root)
    print(f"{root}: " + ("no interrupted change: nothing to do" if done is None else f"the interrupted change was {done}"))
    return 0


def _cmd_reproduce(args) -> int:
    from ..data.loading import load
    from ..data.paths import output_directory
    from ..method import coefficients as coef
    from ..method import training
    from ..method.reproduction import reproduce_tables, write_tables

    output_directory(args.out)  # the output policy, checked before the work (and again when writing)
    dataset = load(args.path)
    content, tables = coef.read_version_tables(dataset.root / "coefficients", args.coefficients or coef.PAPER_VERSION)
    rows = training.training_rows(dataset, pool_only=True)
    written = write_tables(reproduce_tables(dataset, tables, rows), args.out)
    print(f"wrote {len(written)} files to {args.out} (CSV at full precision, Markdown at the paper's precision)")
    return 0


def add_package_commands(commands) -> None:
    """Add validate, verify, reproduce and recover to the top-level subcommands."""
    p = commands.add_parser(
        "validate", help="validate a data package: structure, types, keys, hashes and data rules",
        description="Validates the data package with Frictionless (structure, types, constraints, keys, sha256 "
                    "hashes) and with pandera models built from the same Table Schemas (data rules: finite scores, "
                    "raw values, protocol facts, corrections). Prints which package it checked, then every problem "
                    "with file, line, column and fix; exit 1 when it is not valid.")
    add_package_option(p, positional=True)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=_cmd_validate)

    p = commands.add_parser(
        "verify", help="validate, then recompute every pinned number; exit 1 with a diff on any mismatch",
        description="Validates the package, then recomputes every pinned coefficient version from its pinned "
                    "training rows (tolerance 1e-9), compares the paper's version with the paper's printed Tables "
                    "2, 3, 8, 9, 10, 11 and 12 at printed precision, checks the conformance vectors and runs "
                    "every installed extension's checks (with the maintainers' tools: every pinned calibration "
                    "recomputed and the subset searches rerun). Exit 1, naming version, model "
                    "and value, on any mismatch.")
    add_package_option(p, positional=True)
    p.add_argument("--skip-search", action="store_true", help="do not rerun the subset searches (faster)")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(run=_cmd_verify)

    p = commands.add_parser("reproduce", help="write the paper's Tables 2, 3, 8, 9, 10, 11, 12 computed from the data",
                            description="Computes the Atari-5 paper's Tables 2, 3, 8, 9, 10, 11 and 12 from the "
                                        "data and writes each as CSV (full precision) and Markdown (the paper's "
                                        "printed precision) to a new folder outside the package.")
    p.add_argument("--out", required=True, help="directory to write CSV and Markdown files to")
    add_package_option(p)
    p.add_argument("--coefficients", default=None, help="coefficient version (default: paper-2023)")
    p.set_defaults(run=_cmd_reproduce)

    p = commands.add_parser("recover", help="finish (or undo) a change a killed command left in the package",
                            description="A command that writes into the package (contribute add, fit, evaluate "
                                        "--pin-calibration) commits through a journal; if it is killed, the next "
                                        "command that writes, or this one, finishes its change (or undoes it when "
                                        "it cannot be finished); commands that only read refuse until then. This "
                                        "does only that, and says what it did. A journal atari5-spec did not "
                                        "write for this package on this machine (one committed to git, say) is "
                                        "refused and nothing is written.")
    add_package_option(p)
    p.set_defaults(run=_cmd_recover)
