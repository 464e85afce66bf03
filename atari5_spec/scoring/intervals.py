"""Intervals and the way results show themselves in a notebook.

Every interval the package returns is an :class:`Interval`: it unpacks as a
pair, ``low, high = result.prediction_interval``, compares equal to the pair
``(low, high)``, and carries ``.low``, ``.high``, ``.level`` (the confidence
level, e.g. 0.95) and ``.covers`` (what the interval covers, in words).
:class:`PredictionInterval` (where an agent's 57-game median lies) and
:class:`RatioInterval` (where the ratio of two agents' medians lies) add the
facts behind them as attributes.

In atari5-spec 1.0.0 those two were named tuples of 11 fields, so
``interval[3]``, ``interval._asdict()`` or ``interval._replace(...)`` worked.
They still do, for one minor-release cycle, with a :class:`DeprecationWarning`
naming the attribute to use instead; only unpacking into all the fields
(``low, high, level, *rest = interval``) no longer works, because an interval
now unpacks as its pair.

How results show themselves (one-line reprs, HTML tables for Jupyter) is
:mod:`.display`.

>>> interval = Interval(72.7, 187.6, 0.95, "the 57-game median")
>>> low, high = interval
>>> (low, high) == interval, interval.level
(True, 0.95)
>>> interval
Interval(low=72.7, high=187.6, level=0.95, covers='the 57-game median')
"""

from __future__ import annotations

import math
import warnings
from typing import Any

__all__ = ["Interval", "PredictionInterval", "RatioInterval", "SeedInterval", "seed_interval", "interval_text",
           "SEED_ONLY", "PREDICTION_COVERS", "RATIO_COVERS", "RATIO_DEFINITION",
           "RATIO_RULE", "POPULATION", "DECISION", "evidence_line", "claim_reason"]

SEED_ONLY = "seed-to-seed variation only (a bootstrap over seeds), NOT where the 57-game median lies"
PREDICTION_COVERS = ("the agent's median human-normalised score over the 57 games, including the model's "
                     "out-of-sample error (agents it did not see) and, with several seeds, seed-to-seed variation")
RATIO_DEFINITION = ("plain ratio of the two 57-game medians (agent / baseline), not (1 + a) / (1 + b); "
                    "the estimate's ratio is agent estimate / baseline estimate")
RATIO_COVERS = ("the plain ratio of the two agents' median human-normalised scores over the 57 games, including "
                "both estimates' out-of-sample errors and, with several seeds for both, seed-to-seed variation")
RATIO_RULE = ("ratio of estimates x 10^(-+ sqrt(a^2 + b^2)), a and b the two agents' own prediction-interval "
              "half-widths in log10 (the lower side takes the agent's lower and the baseline's upper half-width)")

_MISSING = object()


class Interval(tuple):
    """A ``(low, high)`` pair with its confidence ``level`` and what it ``covers``.

    It unpacks, indexes and compares as the pair (``interval == (low, high)``;
    ``json.dumps`` writes ``[low, high]``); the other facts are attributes.
    Subclasses list their further fields in ``_fields`` (after the pair) with
    defaults in ``_defaults``; ``as_dict()`` returns every field.
    """

    _fields: tuple[str, ...] = ("low", "high", "level", "covers")
    _defaults: dict[str, Any] = {"level": None, "covers": ""}
    _short_covers = ""            # a few words for reprs; ``covers`` otherwise
    _digits = 1                   # decimals in reprs

    def __new__(cls, *args, **kwargs):
        if len(args) > len(cls._fields):
            raise TypeError(f"{cls.__name__} takes at most {len(cls._fields)} fields, got {len(args)}")
        values = dict(zip(cls._fields, args))
        for name, value in kwargs.items():
            if name not in cls._fields:
                raise TypeError(f"{cls.__name__} has no field {name!r} (fields: {', '.join(cls._fields)})")
            if name in values:
                raise TypeError(f"{cls.__name__} got {name!r} twice")
            values[name] = value
        for name in cls._fields:
            if name not in values:
                default = cls._defaults.get(name, _MISSING)
                if default is _MISSING:
                    raise TypeError(f"{cls.__name__} needs the field {name!r}")
                values[name] = default
        self = super().__new__(cls, (float(values["low"]), float(values["high"])))
        for name in cls._fields[2:]:
            object.__setattr__(self, name, values[name])
        return self

    # --- the pair -------------------------------------------------------------------------------------------
    @property
    def low(self) -> float:
        return tuple.__getitem__(self, 0)

    @property
    def high(self) -> float:
        return tuple.__getitem__(self, 1)

    @property
    def width(self) -> float:
        return self.high - self.low

    @property
    def degenerate(self) -> bool:
        """True when the interval is a single point (e.g. a bootstrap with one run per game)."""
        return self.low == self.high

    def __contains__(self, value) -> bool:
        """``x in interval``: low <= x <= high."""
        try:
            return self.low <= value <= self.high
        except TypeError:
            return False

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; use .replace({name}=...)")

    def __getitem__(self, index):
        if isinstance(index, int) and not -2 <= index < 2 and 0 <= index < len(self._fields):
            name = self._fields[index]
            warnings.warn(f"{type(self).__name__}[{index}] (the named-tuple field access of atari5-spec 1.0.0) is "
                          f"deprecated and will be removed; use .{name}", DeprecationWarning, stacklevel=2)
            return self.as_dict()[name]
        return tuple.__getitem__(self, index)

    def __eq__(self, other):
        if isinstance(other, Interval):
            return type(self) is type(other) and self.as_dict() == other.as_dict()
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = tuple.__hash__

    def __getnewargs_ex__(self):
        return (), self.as_dict()

    def __reduce__(self):
        return (_rebuild, (type(self), self.as_dict()))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # --- fields ---------------------------------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        """Every field by name, the pair first."""
        return {"low": self.low, "high": self.high, **{name: getattr(self, name) for name in self._fields[2:]}}

    def replace(self, **changes) -> "Interval":
        """A copy with some fields changed."""
        return type(self)(**{**self.as_dict(), **changes})

    def _asdict(self) -> dict[str, Any]:
        warnings.warn(f"{type(self).__name__}._asdict() (named-tuple API of atari5-spec 1.0.0) is deprecated; "
                      "use .as_dict()", DeprecationWarning, stacklevel=2)
        return self.as_dict()

    def _replace(self, **changes) -> "Interval":
        warnings.warn(f"{type(self).__name__}._replace() (named-tuple API of atari5-spec 1.0.0) is deprecated; "
                      "use .replace()", DeprecationWarning, stacklevel=2)
        return self.replace(**changes)

    # --- display --------------------------------------------------------------------------------------------
    def text(self, digits: int | None = None) -> str:
        """'(72.7, 187.6)'."""
        digits = self._digits if digits is None else digits
        return f"({_number(self.low, digits)}, {_number(self.high, digits)})"

    def short_covers(self) -> str:
        return self._short_covers or self.covers

    def _extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        level = "None" if self.level is None else f"{self.level:g}"
        return (f"{type(self).__name__}(low={_number(self.low, self._digits)}, "
                f"high={_number(self.high, self._digits)}, level={level}, "
                f"covers={self.short_covers()!r}{self._extra_repr()})")

    def _repr_html_(self) -> str:
        from .display import html_table

        return html_table(type(self).__name__, list(self.as_dict().items()))


def _rebuild(cls, fields):
    return cls(**fields)


class SeedInterval(Interval):
    """The percentile bootstrap interval over seeds: seed-to-seed variation only."""

    _defaults = {"level": None, "covers": SEED_ONLY}
    _short_covers = "seed noise only"


def seed_interval(pair, level: float | None) -> SeedInterval | None:
    """The bootstrap pair as a :class:`SeedInterval` (None stays None)."""
    return None if pair is None else SeedInterval(pair[0], pair[1], level)


class PredictionInterval(Interval):
    """Where the agent's 57-game median lies, at ``level``: model error (out of sample) and seed noise.

    Fields after the pair: ``level``, ``calibration`` ("<version>@<8 hex>", the
    pinned errors it is calibrated on), ``n_errors``, ``log_half_width`` (the
    model-error part, in log10(1 + z)), ``seed_part`` (how seed noise entered,
    or why it could not), ``coverage`` (measured on held-out agents),
    ``covers``, ``range`` ('in range', 'extrapolation' or 'pooled'),
    ``method`` (the calibration's rule), ``claim`` ('shown' or 'widened',
    :mod:`atari5_spec.method.claims`; '' for calibrations before claims),
    ``claim_reason`` (one line: why shown as calibrated or widened),
    ``widening`` (the factor the model part was widened by) and ``evidence``
    (the measured coverage behind ``coverage``: agents, runs, papers, exact
    interval), ``population`` (what the coverage was measured on, a code:
    ``leave-one-paper-out``, ``held-out``) and ``row`` (the pinned interval
    table's row it was made from, :class:`atari5_spec.method.reference.IntervalRow`:
    every number behind the sentences above).
    """

    _fields = ("low", "high", "level", "calibration", "n_errors", "log_half_width", "seed_part", "coverage",
               "covers", "range", "method", "claim", "claim_reason", "widening", "evidence", "population", "row")
    _defaults = {"covers": PREDICTION_COVERS, "range": "pooled", "method": "", "claim": "", "claim_reason": "",
                 "widening": 1.0, "evidence": None, "population": "", "row": None}
    _short_covers = "57-game median"

    def half_widths(self, estimate: float) -> tuple[float, float]:
        """(below, above): the interval's half-widths in log10(1 + z) around ``estimate``."""
        from ..method.reference import interval_half_widths

        return interval_half_widths(estimate, (self.low, self.high))

    def _extra_repr(self) -> str:
        return f", calibration={self.calibration!r}"


class RatioInterval(Interval):
    """Where the ratio of two agents' true 57-game medians lies, at ``level``, and what that decides.

    Fields after the pair: ``level``, ``decision`` ('higher', 'lower', 'cannot
    tell': the interval holds 1, or 'cannot be decided here': it excludes 1,
    but an agent is where the pair coverage was not measured, see
    ``reasons``), ``statement`` (the decision in words), ``coverage``
    (measured on pairs of agents the version did not see), ``calibration``,
    ``seed_part``, ``definition``, ``covers``, ``rule``, ``reasons`` (why no
    direction is stated although the interval excludes 1), ``design`` ('two
    papers', the default, or 'same setup') and ``evidence``
    (:class:`atari5_spec.method.pairs.Evidence`: pairs, runs, papers and the
    clustered interval) and ``row`` (the pinned interval table's ratio row,
    :class:`atari5_spec.method.reference.IntervalRow`).
    """

    _fields = ("low", "high", "level", "decision", "statement", "coverage", "calibration", "seed_part",
               "definition", "covers", "rule", "reasons", "design", "evidence", "row")
    _defaults = {"definition": RATIO_DEFINITION, "covers": RATIO_COVERS, "rule": RATIO_RULE, "reasons": (),
                 "design": "two papers", "evidence": None, "row": None}
    _short_covers = "ratio of 57-game medians"
    _digits = 3

    def _extra_repr(self) -> str:
        return f", decision={self.decision!r}"


def _number(value, digits: int = 1) -> str:
    if value is None:
        return "None"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def interval_text(interval, digits: int = 1) -> str:
    """'(72.7, 187.6)', or 'None'."""
    if interval is None:
        return "None"
    if isinstance(interval, Interval):
        return interval.text(digits)
    return f"({_number(interval[0], digits)}, {_number(interval[1], digits)})"


# The words `atari5-spec score` prints about an interval that the site prints too (the command line's
# cli/score_output.py and the comparison page, site/compare.py): one copy, here below both.
# What an interval table's population code means, for the evidence line (schemas/calibration-intervals.schema.json).
POPULATION = {
    "leave-one-paper-out": "agents left out with their paper",
    "held-out": "held-out agents",
    "pairs-two-papers": "pairs from two papers",
    "pairs-same-paper": "pairs from one paper",
    "never-selected": "never-selected agents",
    "never-selected-pairs-two-papers": "never-selected pairs from two papers",
}
DECISION = {
    "higher": "your agent's 57-game median is higher",
    "lower": "your agent's 57-game median is lower",
    "cannot tell": "cannot tell which is higher (the interval holds 1)",
    "cannot be decided here": "cannot be decided here (see --explain)",
}
# The decision line when the interval excludes 1 but the one widened by the decision margin does not.
DECISION_WITHIN_MARGIN = ("cannot tell which is higher (the interval excludes 1, the one widened by the decision "
                          "margin does not; see --explain)")


def within_margin_statement(percent: str, margin: float | None) -> str:
    """Why no direction is stated when the ``percent`` interval excludes 1 (SPEC.md section 9's decision)."""
    return (f"the {percent} interval excludes 1, but no direction is stated: "
            + (f"a direction needs the interval widened by the decision margin {margin:g} (each side's log "
               "half-width times it) to exclude 1, the smallest margin under which no measured pair was decided "
               "the wrong way (docs/comparisons.md)" if margin is not None else
               f"no decision margin is pinned for this design at {percent} (docs/comparisons.md)"))


def evidence_line(row) -> str | None:
    """'evidence: 55 of 58 never-selected agents held (94.8%; 40 of 43 runs), 10 papers, 42 sources' (a run's
    learning-curve checkpoints count once; "never-selected": agents the game selection never used, scored by the
    pinned formula)."""
    if row is None or not row.agents:
        return None
    widened = f"; widened x{row.factor:g}" if row.status == "widened" else ""
    runs = f"; {row.runs_covered} of {row.runs} runs" if row.runs and "pairs" not in row.population else ""
    return (f"evidence: {row.agents_covered} of {row.agents} {POPULATION.get(row.population, row.population)} held "
            f"({row.agents_covered / row.agents:.1%}{runs}), {row.papers} papers, {row.sources} sources{widened}")


def claim_reason(row) -> str:
    """One line: why a claimed agent row (formula, reselected) is shown, widened or withheld, from its pinned cells
    (method/claims.py's rule; the as-calibrated coverage ``plain_*``, the coverage as printed on every agent: the
    row's own counts when measured leave-one-paper-out, else ``also_*``)."""
    from ..method.reference import FACTORS

    every = ((row.agents_covered, row.agents, row.papers) if row.population == "leave-one-paper-out"
             else (row.also_agents_covered, row.also_agents, row.also_papers))
    plain = f"{row.plain_agents_covered}/{row.plain_agents}"
    level, group = f"{row.level:.0%}", row.range
    if row.reason == "too-few-agents":
        minimum = math.ceil(1.0 / (1.0 - row.level) - 1e-9)
        return f"only {row.plain_agents} agents ({every[2]} papers) measured {group}: a {level} coverage needs at least {minimum}"
    if row.reason == "no-factor":
        return f"no widening up to x{FACTORS[-1]:g} supports {level} leave-one-paper-out (as calibrated: {plain})"
    if row.status == "withheld" and row.reason == "coverage-short":
        return (f"leave-one-paper-out coverage {plain} as calibrated, {every[0]}/{every[1]} widened with the factor "
                f"picked without each paper: below {1.0 - 2.0 * (1.0 - row.level):.0%}")
    if row.factor > 1:
        return (f"leave-one-paper-out coverage {plain} as calibrated does not support {level}; half-width "
                f"x{row.factor:g} ({every[0]}/{every[1]} with the factor picked without each paper)")
    return (f"leave-one-paper-out coverage {plain} (runs: exact 95% bounds up to {row.plain_coverage_high:.0%}) "
            f"supports {level}")
