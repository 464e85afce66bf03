"""Does this install reproduce a signature (and the number next to it)? ``atari5-spec signature check``.

A reader of a paper pastes the line it reports, e.g.::

    Atari-5 score 109.7 (95% prediction interval 65.6 to 182.1)  [Atari-5|coef:paper-2023@071b0e4b|...]

or the signature alone. Every field is compared with what this install has
(the coefficient files' hash, the calibration file's hash, the constants, the
transform, the data package and code versions). Given the agent's raw
scores, the number and the prediction interval are recomputed with the
signature's settings and compared with the reported ones at the precision
they were printed; the recomputed signature's seeds field is compared too.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, NamedTuple

from .._version import __version__
from ..data.errors import InputError
from ..data.paths import package_file
from ..method.pinned import load_coefficient_set
from ..method.reference import SPEC_VERSION
from .logs import LogReading
from .signature import TRANSFORM_LABEL, Signature, data_package_version, parse_signature

__all__ = ["FieldCheck", "ReportedLine", "SignatureCheck", "check_signature", "parse_reported_line"]

MATCHES, DIFFERS, ABSENT, UNCHECKED = "matches", "differs", "not in signature", "not checked"
_NUMBER = r"-?[\d,]+(?:\.\d+)?"
_LINE = re.compile(rf"^\s*(?P<label>.+?) score (?P<number>{_NUMBER})"
                   rf"(?:\s*\((?P<level>\d+(?:\.\d+)?)% prediction interval (?P<low>{_NUMBER}) to (?P<high>{_NUMBER})"
                   r"(?:, calibration (?P<cal>[^)\s]+))?\))?\s*\[(?P<signature>[^\]]+)\]\s*$")


class FieldCheck(NamedTuple):
    """One field of the signature (or the number, or the interval) against this install."""

    field: str
    given: str | None       # as written in the signature / the reported line
    here: str | None        # what this install has or recomputes
    status: str             # matches, differs, not in signature, not checked
    note: str = ""


class ReportedLine(NamedTuple):
    """The line ``score`` asks to paste: label, number and prediction interval as printed, and the signature."""

    label: str
    number: str
    level: str | None
    low: str | None
    high: str | None
    signature: str
    calibration: str | None = None  # "(..., calibration <name>@<hash>)" in lines printed by 0.1.0


class SignatureCheck(NamedTuple):
    signature: Signature
    reported: ReportedLine | None
    fields: tuple[FieldCheck, ...]
    results: tuple[FieldCheck, ...]   # the recomputed number and interval (empty without scores)

    @property
    def differing(self) -> tuple[str, ...]:
        return tuple(c.field for c in self.fields + self.results if c.status == DIFFERS)

    @property
    def matches(self) -> bool:
        return not self.differing

    @property
    def unchecked(self) -> tuple[str, ...]:
        """The reported number and interval that were not compared (no scores to recompute them from)."""
        return tuple(c.field for c in self.results if c.status == UNCHECKED)


def parse_reported_line(text: str) -> ReportedLine | None:
    """The pasted ``score`` line, or None when ``text`` is a bare signature."""
    match = _LINE.match(text.strip())
    if not match:
        if "[" in text or " score " in text:
            raise InputError(f"cannot read {text.strip()!r}: paste the signature alone, or the whole line "
                             "'<subset> score <number> (<level>% prediction interval <low> to <high>)  [<signature>]'")
        return None
    return ReportedLine(match["label"], match["number"], match["level"], match["low"], match["high"],
                        match["signature"], match["cal"])


def _same_as_printed(printed: str, value: float) -> bool:
    """``value`` printed with as many decimals as ``printed`` has is ``printed`` (thousands commas ignored)."""
    text = printed.replace(",", "")
    places = len(text.partition(".")[2])
    return f"{value:.{places}f}" == f"{float(text):.{places}f}"


def _compare(field: str, given: str | None, here: str | None, note: str = "") -> FieldCheck:
    if given is None:
        return FieldCheck(field, None, here, ABSENT, note or "older signature format: not pinned")
    if here is None:
        return FieldCheck(field, given, None, DIFFERS, note)
    return FieldCheck(field, given, here, MATCHES if given == here else DIFFERS, note)


def _calibration_digest(package: Path, name: str) -> str | None:
    path = package_file(package, f"calibration/{name}.csv", "the signature's cal: field")
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8] if path.is_file() else None


def _field_checks(sig: Signature, reported: ReportedLine | None, root: Path | None) -> list[FieldCheck]:
    checks = []
    try:
        coefficients = load_coefficient_set(sig.coefficients, root)
    except InputError as error:
        coefficients, problem = None, str(error)
    package = Path(coefficients.path).parent.parent if coefficients else None
    if reported is not None and reported.label != sig.label:
        checks.append(FieldCheck("subset", sig.label, reported.label, DIFFERS,
                                 "the pasted line and its signature name different subsets"))
    elif coefficients is None:
        checks.append(FieldCheck("subset", sig.label, None, DIFFERS, f"coefficient version {sig.coefficients} is "
                                 "not usable here"))
    elif sig.subset not in coefficients.subsets:
        checks.append(FieldCheck("subset", sig.label, None, DIFFERS, f"{sig.coefficients} has no subset {sig.subset!r}"))
    else:
        checks.append(FieldCheck("subset", sig.label, sig.label, MATCHES, f"a subset of {sig.coefficients}"))
    if coefficients is None:
        checks.append(FieldCheck("coef", f"{sig.coefficients}@{sig.coefficients_digest}", None, DIFFERS, problem))
    else:
        checks.append(_compare("coef", f"{sig.coefficients}@{sig.coefficients_digest}",
                               f"{coefficients.version}@{coefficients.digest}",
                               "" if coefficients.digest == sig.coefficients_digest else
                               "same name, other files: this install's version is not the one cited"))
    if sig.calibration is None:
        checks.append(FieldCheck("cal", None, None, ABSENT,
                                 "no prediction interval signed (or a signature older than 1.0.0)"))
    else:
        digest = _calibration_digest(package, sig.calibration) if package else None
        checks.append(_compare("cal", f"{sig.calibration}@{sig.calibration_digest}",
                               f"{sig.calibration}@{digest}" if digest else None,
                               "" if digest else f"no pinned calibration {sig.calibration} here"))
    if coefficients is None:
        checks.append(FieldCheck("norm", sig.normalisation, None, UNCHECKED, "the constants come with the coefficient "
                                 "version, which is not usable here"))
    else:
        checks.append(_compare("norm", sig.normalisation, coefficients.normalisation_label))
    checks.append(_compare("phi", sig.transform, TRANSFORM_LABEL))
    checks.append(FieldCheck("seeds", None if sig.seeds is None else ",".join(map(str, sig.seeds)), None, UNCHECKED,
                             "compared with the scores given with --scores"))
    checks.append(FieldCheck("boot", None if sig.boot is None else str(sig.boot), None, UNCHECKED,
                             "a setting: used to recompute the interval from --scores"))
    if reported is not None and reported.level is not None and sig.boot is not None \
            and float(reported.level) != sig.boot.ci_percent:
        checks[-1] = FieldCheck("boot", str(sig.boot), None, DIFFERS,
                                f"the pasted line's interval is at {reported.level}%, the signature says ci="
                                f"{sig.boot.ci_percent:g}")
    if sig.protocol is not None:
        checks.append(FieldCheck("protocol", sig.protocol, None, UNCHECKED,
                                 "the protocol the scored episode table names: compared with --scores"))
    data_here = data_package_version(package) if package else data_package_version(root)
    checks.append(_compare("data", sig.data_version, data_here,
                           "" if sig.data_version in (None, data_here) else
                           "another data package: the number depends only on coef and cal, but the data differ"))
    checks.append(_compare("spec", sig.spec_version, SPEC_VERSION,
                           "older signature format: SPEC.md 1.0 rules apply" if sig.spec_version is None else
                           "" if sig.spec_version == SPEC_VERSION else
                           "another version of SPEC.md: the formula or the interval rules differ"))
    checks.append(_compare("v", sig.code_version, __version__,
                           "" if sig.code_version == __version__ else "another atari5-spec release computed it"))
    return checks


def _recompute(sig: Signature, reported: ReportedLine | None, scores: Any, root: Path | None
               ) -> tuple[list[FieldCheck], list[FieldCheck]]:
    """Checks from recomputing with the signature's settings: (field updates, number checks)."""
    from .estimate import score

    if sig.kind != "score":
        return [], [FieldCheck("score", None, None, UNCHECKED, f"recomputing a {sig.kind} signature is not supported")]
    level = (sig.boot.ci_percent if sig.boot else float(reported.level) if reported and reported.level else 95.0)
    result = score(scores, subset=sig.subset, coefficients=load_coefficient_set(sig.coefficients, root),
                   n_bootstrap=sig.boot.n_resamples if sig.boot else 0, confidence=level / 100,
                   seed=sig.boot.seed if sig.boot else 0)
    again = result.parsed_signature
    given_seeds = None if sig.seeds is None else ",".join(map(str, sig.seeds))
    here_seeds = None if again.seeds is None else ",".join(map(str, again.seeds))
    field_updates = [FieldCheck("seeds", given_seeds or "1 per game", here_seeds or "1 per game",
                                MATCHES if given_seeds == here_seeds else DIFFERS, "seeds per game in these scores")]
    if sig.protocol is not None or again.protocol is not None:
        field_updates.append(FieldCheck("protocol", sig.protocol, again.protocol,
                                        MATCHES if sig.protocol == again.protocol else DIFFERS,
                                        "the protocol these scores' episode table names"))
    if sig.format != "0.1" and (again.calibration is None) != (sig.calibration is None):  # 0.1 had no cal:
        field_updates.append(FieldCheck("cal", None if sig.calibration is None else
                                        f"{sig.calibration}@{sig.calibration_digest}",
                                        None if again.calibration is None else
                                        f"{again.calibration}@{again.calibration_digest}", DIFFERS,
                                        "recomputing gives " + ("no" if again.calibration is None else "a")
                                        + " prediction interval"))
    results = []
    if reported is None:
        results.append(FieldCheck("score", None, f"{result.estimate:.1f}", UNCHECKED,
                                  "the signature alone carries no number: paste the whole line to compare"))
        return field_updates, results
    results.append(FieldCheck("score", reported.number, f"{result.estimate:,.{_places(reported.number)}f}",
                              MATCHES if _same_as_printed(reported.number, result.estimate) else DIFFERS))
    pi = _interval_with_the_signed_calibration(sig, reported, result, scores, root)
    if reported.low is not None:
        if pi is None:
            results.append(FieldCheck("prediction interval", f"{reported.low} to {reported.high}", None, DIFFERS,
                                      "this install gives no prediction interval for these scores"))
        else:
            same = _same_as_printed(reported.low, pi.low) and _same_as_printed(reported.high, pi.high)
            results.append(FieldCheck(
                "prediction interval", f"{reported.low} to {reported.high}",
                f"{pi.low:,.{_places(reported.low)}f} to {pi.high:,.{_places(reported.high)}f}",
                MATCHES if same else DIFFERS, f"{pi.level * 100:g}%, recomputed with "
                + (f"boot:{sig.boot}" if sig.boot else "no bootstrap")))
    return field_updates, results


def _boot_from_interval(boot: FieldCheck, fields: list[FieldCheck], results: list[FieldCheck]) -> FieldCheck:
    """The boot: field judged by the interval it produced: it is the cause when only the interval differs."""
    status = {c.field: c.status for c in fields + results}
    interval = status.get("prediction interval")
    if boot.given is None or interval is None:
        return boot
    if interval == MATCHES:
        return boot._replace(status=MATCHES, note="the interval recomputed with these settings is the reported one")
    if status.get("score") == MATCHES and status.get("cal") == MATCHES and status.get("seeds") == MATCHES:
        return boot._replace(status=DIFFERS, note="the same scores, coefficients and calibration give another "
                                                  "interval with these bootstrap settings")
    return boot


def _interval_with_the_signed_calibration(sig: Signature, reported: ReportedLine, result, scores, root):
    """The prediction interval recomputed with the calibration the signature (or a 0.1.0 line) names.

    ``score`` uses this install's default calibration; when the signature
    names another pinned calibration of the version (the first, pooled one,
    or an older edition such as ``paper-2023.in-range`` once
    ``paper-2023.in-range.2`` is pinned) whose file is here with the same
    hash, the interval is recomputed with that one, as the signature says it
    was: an old signature stays verifiable.
    """
    from ..method.calibration import read_calibration_intervals, read_named_calibration
    from .estimate import _prediction_interval, load_aliases, runs_from

    pi = result.prediction_interval
    named = (f"{sig.calibration}@{sig.calibration_digest}" if sig.calibration else reported.calibration)
    if named is None or (pi is not None and pi.calibration == named):
        return pi
    coefficients = load_coefficient_set(sig.coefficients, root)
    name, _, digest = named.rpartition("@")
    calibration = read_named_calibration(coefficients.path, name)  # exactly that edition, when it is here
    if calibration is not None and calibration.digest == digest:
        given = scores.observations if isinstance(scores, LogReading) else scores  # what a file or log gave
        runs = {g: v for g, v in runs_from(given, load_aliases(root)).items() if g in coefficients.constants}
        return _prediction_interval(coefficients.subsets[sig.subset], runs, result.estimate, result.interval,
                                    calibration, pi.level if pi else float(reported.level) / 100,
                                    read_calibration_intervals(coefficients.path, calibration))
    return pi


def _places(printed: str) -> int:
    return len(printed.replace(",", "").partition(".")[2])


def check_signature(text: str, scores: Any = None, root: Path | None = None) -> SignatureCheck:
    """Check a pasted signature (or the whole pasted ``score`` line) against this install.

    Parameters
    ----------
    text : str
        A signature, or the whole line ``score`` prints for the paper.
    scores : optional
        The agent's raw scores in any form :func:`atari5_spec.score` accepts;
        with them the number and interval are recomputed and compared with
        the reported ones.
    root : Path, optional
        The package to check against (default: the one you are in, else the installed copy).

    Returns
    -------
    SignatureCheck
        Field by field, whether this install matches; ``matches`` is True
        when it reproduces what the signature pins.
    """
    reported = parse_reported_line(text)
    sig = parse_signature(reported.signature if reported else text)
    fields = _field_checks(sig, reported, root)
    results: list[FieldCheck] = []
    unusable = [c for c in fields if c.field in ("subset", "coef") and c.here is None]
    if scores is not None and unusable:
        results = [FieldCheck("score", reported.number if reported else None, None, UNCHECKED,
                              "not recomputed: " + "; ".join(c.note for c in unusable))]
    elif scores is None and reported is not None:
        # The pasted number is only read, never compared: say so, so that it does not read as checked.
        why = "number not checked: give the agent's scores (--scores) to recompute it"
        results = [FieldCheck("score", reported.number, None, UNCHECKED, why)]
        if reported.low is not None:
            results.append(FieldCheck("prediction interval", f"{reported.low} to {reported.high}", None, UNCHECKED,
                                      why.replace("number not checked", "interval not checked")))
    elif scores is not None:
        updates, results = _recompute(sig, reported, scores, root)
        by_name = {c.field: c for c in updates}
        fields = [by_name.pop(c.field, c) if c.status != DIFFERS else c for c in fields]
        fields += [c for c in by_name.values() if c.status == DIFFERS]  # scores naming a protocol the line does not
        fields = [_boot_from_interval(c, fields, results) if c.field == "boot" and c.status != DIFFERS else c
                  for c in fields]
    return SignatureCheck(sig, reported, tuple(fields), tuple(results))
