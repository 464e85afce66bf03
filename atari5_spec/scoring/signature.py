"""The citation signature: one line that pins everything behind a reported score, and its parser.

A score is reproducible from its raw game scores only with the same subset,
coefficients, normalisation constants, transform, seed handling and bootstrap
settings; its prediction interval also needs the same pinned calibration. The
signature writes all of them into one line of ``|``-separated fields (the
idea of sacrebleu's signature), printed by ``atari5-spec score`` and returned
by the API, documented field by field in docs/signature.md::

    Atari-5|coef:paper-2023@071b0e4b|cal:paper-2023@9ca22b6e|norm:agent57-human|phi:log10p1
           |seeds:3,3,3,3,3|boot:10000,seed=0,ci=95|data:1.10.0|v:1.0.0

(one line; wrapped here). :func:`parse_signature` reads it back into a
:class:`Signature`, and also reads the signatures printed by atari5-spec
0.1.0, which had no ``cal:`` and no ``data:`` field. Checking a signature
against an install lives in :mod:`atari5_spec.scoring.signature_check`.

This module reads only json and the standard library: ``score`` imports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple

from .._version import __version__
from ..method.reference import SPEC_VERSION
from ..data.datapackage import package_root, read_descriptor
from ..data.errors import InputError

__all__ = ["Signature", "BootSetting", "GATE_ALLOWED", "signature", "parse_signature", "data_package_version", "data_version_of", "TRANSFORM_LABEL",
           "FIELD_ORDER", "KIND_SUFFIXES"]

TRANSFORM_LABEL = "log10p1"  # phi(z) = log10(1 + max(0, z))
# Field keys in the order they are written; the subset comes first and has no key.
FIELD_ORDER = ("coef", "cal", "norm", "phi", "seeds", "boot", "gate", "protocol", "data", "spec", "v")
# The gate: field's only value: the scores were scored past the input gate (SPEC.md section 1.1, input rules), knowingly.
GATE_ALLOWED = "implausible-allowed"
# The protocol: field's value, a protocol_id of data/protocols.csv (the episode table's protocol column).
_PROTOCOL_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# What a signature can sign besides a plain score: "<subset> ratio" (relative_score), "<subset> same-setup ratio"
# (relative_score(same_setup=True): another interval), "<subset> per-game" (predict).
KIND_SUFFIXES = ("same-setup ratio", "ratio", "per-game")  # longest first: "same-setup ratio" ends with "ratio"
# A version or calibration name: letters, digits, '.', '_', '-' (never a path: no '/'), then 8 hex digits.
_VERSIONED = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)@(?P<digest>[0-9a-f]{8})$")
MAX_LENGTH = 2000  # far above any real signature (57 games of seeds included)
_BOOT = re.compile(r"^(?P<n>\d+),seed=(?P<seed>\d+),ci=(?P<ci>\d+(?:\.\d+)?)$")


class BootSetting(NamedTuple):
    """The ``boot:`` field: bootstrap resamples, random seed and confidence level in percent."""

    n_resamples: int
    seed: int
    ci_percent: float

    def __str__(self) -> str:
        return f"{self.n_resamples},seed={self.seed},ci={self.ci_percent:g}"


@dataclass(frozen=True)
class Signature:
    """A parsed signature. ``str(signature)`` writes it back exactly as printed.

    Fields absent from the text are None (``cal`` without a prediction
    interval, ``seeds`` with one seed per game, ``boot`` without a seed
    interval, ``cal`` and ``data`` in signatures printed before 1.0.0).
    """

    subset: str                         # e.g. "Atari-5"
    kind: str                           # "score", "ratio" or "per-game"
    coefficients: str                   # pinned coefficient version name
    coefficients_digest: str            # 8 hex digits of sha256 over its scoring files
    normalisation: str                  # "agent57-human" or "custom-<8 hex>"
    transform: str                      # "log10p1"
    code_version: str                   # v: the atari5-spec version that computed it
    calibration: str | None = None      # pinned calibration name (prediction interval only)
    calibration_digest: str | None = None
    seeds: tuple[int, ...] | None = None  # seeds per game in the subset's order (several seeds only)
    boot: BootSetting | None = None     # bootstrap settings (seed interval only)
    data_version: str | None = None     # data: the data package version installed when it was computed
    spec_version: str | None = None     # spec: the version of SPEC.md the number follows (since format 1.1)
    gate: str | None = None             # gate: "implausible-allowed" when scored past the input gate (format 1.2)
    protocol: str | None = None         # protocol: the protocol_id the scored episode table names (format 1.2)

    @property
    def label(self) -> str:
        return self.subset if self.kind == "score" else f"{self.subset} {self.kind}"

    @property
    def format(self) -> str:
        """"1.1" for signatures with the spec: field, "1.0" for those with the data: field (atari5-spec >= 1.0.0),
        "0.1" for older ones."""
        if self.gate is not None or self.protocol is not None:
            return "1.2"
        if self.spec_version is not None:
            return "1.1"
        return "1.0" if self.data_version is not None else "0.1"

    def fields(self) -> dict[str, str]:
        """Field key -> text as written, in signature order (the subset under the key "subset")."""
        out = {"subset": self.label, "coef": f"{self.coefficients}@{self.coefficients_digest}"}
        if self.calibration is not None:
            out["cal"] = f"{self.calibration}@{self.calibration_digest}"
        out["norm"] = self.normalisation
        out["phi"] = self.transform
        if self.seeds is not None:
            out["seeds"] = ",".join(str(n) for n in self.seeds)
        if self.boot is not None:
            out["boot"] = str(self.boot)
        if self.gate is not None:
            out["gate"] = self.gate
        if self.protocol is not None:
            out["protocol"] = self.protocol
        if self.data_version is not None:
            out["data"] = self.data_version
        if self.spec_version is not None:
            out["spec"] = self.spec_version
        out["v"] = self.code_version
        return out

    def __str__(self) -> str:
        fields = self.fields()
        return "|".join([fields.pop("subset")] + [f"{key}:{value}" for key, value in fields.items()])


def data_package_version(root: Path | None = None) -> str:
    """The ``version`` of the data package's datapackage.json (the package of the current folder by default)."""
    return str(read_descriptor(package_root(root))["version"])


def signature(subset: str, coefficients, n_seeds: Iterable[int] | None = None, bootstrap=None,
              relative: bool = False, calibration: str | None = None, kind: str | None = None,
              data_version: str | None = None) -> str:
    """The citation signature of a score computed with ``coefficients`` (a loaded CoefficientSet).

    ``n_seeds``: seeds per game in the subset's order (written only when a
    game has several); ``bootstrap``: the BootstrapSettings of a reported seed
    interval (None without one); ``calibration``: ``"<name>@<8 hex>"`` of the
    pinned calibration behind a reported prediction interval (None without
    one); ``relative`` or ``kind``: a ratio to a baseline or per-game
    predictions; ``data_version``: default the current data package's.
    """
    kind = kind or ("ratio" if relative else "score")
    n_seeds = list(n_seeds or [])
    cal_name = cal_digest = None
    if calibration is not None:
        cal_name, _, cal_digest = calibration.rpartition("@")
    boot = None
    if bootstrap is not None:
        boot = BootSetting(int(bootstrap.n_resamples), int(bootstrap.seed), float(bootstrap.confidence) * 100)
    return str(Signature(
        subset=subset, kind=kind, coefficients=coefficients.version, coefficients_digest=coefficients.digest,
        normalisation=coefficients.normalisation_label, transform=TRANSFORM_LABEL, code_version=__version__,
        calibration=cal_name, calibration_digest=cal_digest,
        seeds=tuple(n_seeds) if any(n > 1 for n in n_seeds) else None, boot=boot,
        data_version=data_version if data_version is not None else data_version_of(coefficients),
        spec_version=SPEC_VERSION))


def data_version_of(coefficients) -> str:
    """The version of the data package holding the coefficient version (else of the current package)."""
    holder = Path(coefficients.path).parent.parent
    return data_package_version(holder if (holder / "datapackage.json").is_file() else None)


def _bad(text: str, why: str) -> InputError:
    return InputError(f"not a signature ({why}): {text!r}; a signature looks like "
                      "'Atari-5|coef:paper-2023@071b0e4b|norm:agent57-human|phi:log10p1|v:1.0.0'")


def _versioned(text: str, key: str, value: str) -> tuple[str, str]:
    match = _VERSIONED.match(value)
    if not match:
        raise _bad(text, f"{key}: must be <version>@<8 hex digits>, not {value!r}")
    return match["name"], match["digest"]


def parse_signature(text: str) -> Signature:
    """A signature line (either format) as a :class:`Signature`.

    Parameters
    ----------
    text : str
        The signature, e.g. ``Atari-5|coef:paper-2023@071b0e4b|...|v:1.0.0``
        (square brackets around it are ignored).

    Returns
    -------
    Signature
        Its fields: subset, coefficients and their digest, calibration, data
        and code versions, seeds, bootstrap settings.

    Raises
    ------
    InputError
        Naming what is wrong with the text.
    """
    text = text.strip().strip("[]").strip()
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
        raise _bad(text.encode("unicode_escape").decode("ascii"), "control characters")
    if len(text) > MAX_LENGTH:
        raise InputError(f"not a signature: {len(text):,} characters (a signature has at most {MAX_LENGTH:,})")
    parts = text.split("|")
    label, values = parts[0].strip(), {}
    if not label:
        raise _bad(text, "no subset before the first '|'")
    for part in parts[1:]:
        key, colon, value = part.partition(":")
        if not colon or key not in FIELD_ORDER:
            raise _bad(text, f"unknown field {part!r} (known: {', '.join(k + ':' for k in FIELD_ORDER)})")
        if key in values:
            raise _bad(text, f"field {key}: given twice")
        values[key] = value
    missing = [k for k in ("coef", "norm", "phi", "v") if k not in values]
    if missing:
        raise _bad(text, "missing " + ", ".join(k + ":" for k in missing))
    order = [k for k in FIELD_ORDER if k in values]
    if list(values) != order:
        raise _bad(text, "fields out of order (expected " + "|".join(order) + ")")
    subset, kind = label, "score"
    for suffix in KIND_SUFFIXES:
        if label.endswith(" " + suffix):
            subset, kind = label[: -len(suffix) - 1], suffix
            break
    coefficients, digest = _versioned(text, "coef", values["coef"])
    calibration = calibration_digest = None
    if "cal" in values:
        calibration, calibration_digest = _versioned(text, "cal", values["cal"])
    seeds = None
    if "seeds" in values:
        if not re.fullmatch(r"\d+(,\d+)*", values["seeds"]):
            raise _bad(text, f"seeds: must be whole numbers separated by commas, not {values['seeds']!r}")
        seeds = tuple(int(n) for n in values["seeds"].split(","))
    boot = None
    if "spec" in values and not re.fullmatch(r"\d+\.\d+", values["spec"]):
        raise _bad(text, f"spec: must be <major>.<minor> (the SPEC.md version), not {values['spec']!r}")
    if "boot" in values:
        match = _BOOT.match(values["boot"])
        if not match:
            raise _bad(text, f"boot: must be <resamples>,seed=<seed>,ci=<level>, not {values['boot']!r}")
        boot = BootSetting(int(match["n"]), int(match["seed"]), float(match["ci"]))
    if "gate" in values and values["gate"] != GATE_ALLOWED:
        raise _bad(text, f"gate: the only value is {GATE_ALLOWED}, not {values['gate']!r}")
    if "protocol" in values and not _PROTOCOL_ID.match(values["protocol"]):
        raise _bad(text, f"protocol: a protocol id of data/protocols.csv (machado-2018), not {values['protocol']!r}")
    return Signature(subset=subset, kind=kind, coefficients=coefficients, coefficients_digest=digest,
                     normalisation=values["norm"], transform=values["phi"], code_version=values["v"],
                     calibration=calibration, calibration_digest=calibration_digest, seeds=seeds, boot=boot,
                     data_version=values.get("data"), spec_version=values.get("spec"), gate=values.get("gate"),
                     protocol=values.get("protocol"))
