"""The ``signature check`` and ``cite`` subcommands: what a paper cites.

Only argparse is imported here; each command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import json
import sys


__all__ = ["add_release_commands"]

SIGNATURE_HELP = "check a pasted signature (or the whole pasted score line) against this install"
SIGNATURE_DESCRIPTION = """\
Say, field by field, whether this install matches a signature printed by
`atari5-spec score` (see docs/signature.md for every field). Paste the
signature alone or the whole line `score` asks you to paste (with the number
and the prediction interval). With --scores FILE (the agent's raw scores) the
number and the interval are recomputed with the signature's settings and
compared with the reported ones at the precision they were printed.
Exit status: 0 matches, 1 bad input or something differs."""

CITE_HELP = "what to cite for a number computed with this install: BibTeX, CFF, APA or JSON, and a sentence"
CITE_DESCRIPTION = """\
Print the Atari-5 paper (Aitchison, Sweetser & Hutter, ICML 2023) and
atari5-spec at this install's code, data package and coefficient versions, as
BibTeX (default), CFF, APA or JSON, and the sentence to put next to the number
(with BibTeX, the sentence goes to standard error: `cite > refs.bib` gives a
file of entries only, which pybtex, bibtexparser and BibTeX all read).
--sources adds every source (data/sources.csv) of the rows the number depends
on: the coefficient version's training rows, the held-out agents of its
calibration and the normalisation constants. --signature SIG cites the
versions a signature names and quotes it in the sentence. --algorithm ID
(repeatable) adds that entry's own paper (data/paper_links.csv): with its
authors and venue where the texts read gave them, or why no paper is linked."""

def add_release_commands(commands) -> None:
    """Register ``signature`` and ``cite`` on the main parser's subparsers."""
    p = commands.add_parser("signature", help=SIGNATURE_HELP, description=SIGNATURE_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = p.add_subparsers(dest="signature_command", metavar="ACTION")
    actions.required = True
    check = actions.add_parser("check", help=SIGNATURE_HELP, description=SIGNATURE_DESCRIPTION,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("signature", help="the signature, or the whole pasted line (quote it)")
    check.add_argument("--scores", metavar="FILE", default=None,
                       help="the agent's raw scores (CSV or JSON as for `score`, an episode table or a log; '-' for "
                            "standard input)")
    check.add_argument("--json", action="store_true", help="print JSON instead of text")
    check.set_defaults(run=_cmd_signature_check)

    p = commands.add_parser("cite", help=CITE_HELP, description=CITE_DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--format", choices=("bibtex", "cff", "apa", "json"), default="bibtex",
                   help="output format (default: bibtex)")
    p.add_argument("--sources", action="store_true",
                   help="also cite every data source of the rows the number depends on")
    p.add_argument("--coefficients", default=None, metavar="VERSION",
                   help="the coefficient version used (default: the index's default, or the signature's)")
    p.add_argument("--signature", default=None, metavar="SIG", help="a signature printed by `score`: cite its "
                   "versions and quote it in the sentence")
    p.add_argument("--algorithm", action="append", default=[], metavar="ID",
                   help="also cite this entry's own paper (repeatable; ids as in data/algorithms.csv)")
    p.set_defaults(run=_cmd_cite)


# --- signature check -------------------------------------------------------------------------------------------

def _check_lines(check) -> list[str]:
    sig = check.signature
    lines = [f"signature: {sig}", f"format: {sig.format}" + (" (before 1.0.0: no cal: or data: field)"
                                                              if sig.format == "0.1" else ""), ""]
    width = max(len(c.field) for c in check.fields + check.results)
    for c in check.fields + check.results:
        given = c.given if c.given is not None else "-"
        here = f"; here: {c.here}" if c.here is not None and c.here != c.given else ""
        note = f" ({c.note})" if c.note else ""
        lines.append(f"  {c.field:<{width}}  {c.status:<16} {given}{here}{note}")
    lines.append("")
    if check.results and all(c.status == "matches" for c in check.results) and not check.matches:
        lines.append("the reported number and interval are reproduced by this install all the same")
    lines.append(_verdict(check))
    return lines


def _verdict(check) -> str:
    differing, unchecked = check.differing, check.unchecked
    if not check.matches:
        return "does not match: " + ", ".join(differing) + (" differs" if len(differing) == 1 else " differ")
    if unchecked:
        return ("the signature's fields match this install; number not checked: the reported "
                + " and ".join(unchecked) + " were not recomputed (give the agent's scores with --scores)")
    return "matches: this install reproduces what the signature pins"


def _cmd_signature_check(args) -> int:
    from ..data.errors import InputError
    from ..scoring.logs import read_log
    from ..scoring.signature_check import check_signature

    try:  # the same reader as `score`: a scores file, the episode table `play` writes, or a log
        scores = read_log(args.scores) if args.scores else None
        check = check_signature(args.signature, scores)
    except InputError as error:
        if not args.json:
            raise
        # --json always prints JSON: a script reading it gets the error as data, with the exit status 1.
        print(json.dumps({"error": str(error), "matches": False}, indent=2))
        return 1
    if args.json:
        print(json.dumps({"signature": str(check.signature), "parsed": _jsonable(check.signature),
                          "matches": check.matches, "differing": list(check.differing),
                          "unchecked": list(check.unchecked), "verdict": _verdict(check),
                          "fields": [c._asdict() for c in check.fields],
                          "results": [c._asdict() for c in check.results]}, indent=2))
        return 0 if check.matches else 1
    else:
        print("\n".join(_check_lines(check)))
    if not check.matches:
        raise InputError("the signature does not match this install: " + ", ".join(check.differing))
    return 0


def _jsonable(signature) -> dict:
    from dataclasses import asdict

    out = asdict(signature)
    out["boot"] = signature.boot._asdict() if signature.boot else None
    out["seeds"] = list(signature.seeds) if signature.seeds else None
    return out


# --- cite ------------------------------------------------------------------------------------------------------

def _cmd_cite(args) -> int:
    from ..scoring import citation as cite

    result = cite.citation(args.coefficients, args.signature, args.sources, algorithms=args.algorithm)
    writer = {"bibtex": cite.as_bibtex, "cff": cite.as_cff, "apa": cite.as_apa, "json": cite.as_json}[args.format]
    print(writer(result), end="")
    if args.format == "bibtex":  # BibTeX has no comments: the sentence goes beside the entries, not into the file
        for p in result.papers:
            if not p.url:
                print(f"{p.algorithm_id}: no paper link recorded: {p.reason}", file=sys.stderr)
        print(f"Next to the number: {result.sentence}", file=sys.stderr)
    return 0
