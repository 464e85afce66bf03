"""Reading metadata.yaml: safe YAML, its JSON Schema, and the rules a schema cannot state, each with its line."""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

from atari5_spec.data.limits import MAX_NESTING_DEPTH, MAX_NUMBER_CHARS, control_character_problem
from atari5_spec.data.validation import Problem
from atari5_spec_maintainers.contributions.model import FORMULA_START

# Free-text keys, where a line break is allowed (stored on one line); every other text is one line.
FREE_TEXT_KEYS = {"notes", "protocol.protocol_note", "protocol.statistic_note", "upstream.curve_rule",
                  "paper.location"}


def _yaml_problem(label: str, error: Exception) -> Problem:
    import yaml

    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    text = " ".join(str(part) for part in (getattr(error, "context", None), getattr(error, "problem", None)) if part)
    if isinstance(error, yaml.constructor.ConstructorError):
        return Problem(label, line, None, f"YAML tags are not accepted ({text or error})",
                       "write plain values: no '!!python/...' or other '!' tags (the file is read with yaml.safe_load)")
    return Problem(label, line, None, f"not valid YAML: {text or error}",
                   "fix the YAML syntax at that line (indentation, a ':' after each key, "
                   "quotes around text with ': ' or '#')")


def _key_line(node, path: list) -> int | None:
    """The line of the key (or list item) at ``path`` in a composed YAML node; the nearest existing parent's line."""
    import yaml

    line = None
    for step in path:
        if isinstance(node, yaml.MappingNode):
            found = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if found is None:
                break
            line, node = found[0].start_mark.line + 1, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            break
    return line


def _duplicate_keys(node, label: str, path: tuple = ()) -> list[Problem]:
    """Keys that appear twice in one mapping (yaml.safe_load would silently keep the last)."""
    import yaml

    problems = []
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key, value in node.value:
            dotted = ".".join(map(str, path + (key.value,)))
            if key.value in seen:
                problems.append(Problem(label, key.start_mark.line + 1, dotted,
                                        f"the key appears twice (first on line {seen[key.value]})",
                                        "keep one of the two"))
            seen.setdefault(key.value, key.start_mark.line + 1)
            problems += _duplicate_keys(value, label, path + (key.value,))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += _duplicate_keys(item, label, path + (index,))
    return problems


def _as_written(data: Any, node, schema: dict) -> Any:
    """Keep the text of values the schema wants as text that YAML reads as numbers (arxiv: 2010.02190 -> '2010.02190')."""
    import yaml

    if isinstance(data, dict) and isinstance(node, yaml.MappingNode):
        properties = schema.get("properties", {})
        for key, value in node.value:
            if key.value in properties and key.value in data:
                data[key.value] = _as_written(data[key.value], value, properties[key.value])
        return data
    if isinstance(data, list) and isinstance(node, yaml.SequenceNode):
        return [_as_written(item, n, schema.get("items", {})) for item, n in zip(data, node.value)]
    if (schema.get("type") == "string" and data is not None and not isinstance(data, str)
            and isinstance(node, yaml.ScalarNode) and node.style is None):
        return node.value
    return data


def _event_problems(events, label: str) -> list[Problem]:
    """Aliases, nesting deeper than MAX_NESTING_DEPTH and numbers longer than MAX_NUMBER_CHARS, from the events."""
    import yaml

    resolver, depth = yaml.resolver.Resolver(), 0
    numbers = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
    for event in events:
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            return [Problem(label, line, None, "YAML aliases (*name) are not accepted", "write the value out in full")]
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                return [Problem(label, line, None, f"nested deeper than {MAX_NESTING_DEPTH} levels",
                                "the metadata has at most three levels: see contributions/_template/metadata.yaml")]
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif (isinstance(event, yaml.ScalarEvent) and event.style is None and len(event.value) > MAX_NUMBER_CHARS
              and resolver.resolve(yaml.ScalarNode, event.value, (True, False)) in numbers):
            return [Problem(label, line, None, f"a number of {len(event.value):,} characters, more than the limit "
                            f"of {MAX_NUMBER_CHARS}", "write the value as the paper prints it")]
    return []


def parse_yaml(text: str, label: str) -> tuple[Any, Any, list[Problem]]:
    """(data, composed node, problems) of a YAML text read with yaml.safe_load.

    Refused: syntax errors, tags (object construction), aliases (they can
    expand exponentially), several documents, duplicate keys.
    """
    import yaml

    try:
        # The events first: the parser is a state machine, while composing and loading recurse.
        refused = _event_problems(yaml.parse(text, Loader=yaml.SafeLoader), label)
        if refused:
            return None, None, refused
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        return None, None, [_yaml_problem(label, error)]
    except (RecursionError, ValueError) as error:  # unreachable after the event checks; never a traceback
        return None, None, [Problem(label, None, None, f"cannot be read ({type(error).__name__})",
                                    "write plain keys and values, as in contributions/_template/metadata.yaml")]
    problems = _duplicate_keys(node, label)
    return data, node, problems


def _property_schema(schema: dict, path: list) -> dict:
    """The subschema of the property at ``path`` (object properties and array items), {} if none."""
    for step in path:
        schema = schema.get("items", {}) if isinstance(step, int) else schema.get("properties", {}).get(step, {})
    return schema


def _schema_error_problem(error, node, label: str, root_schema: dict) -> list[Problem]:
    """A jsonschema error as Problems with the line of the key, the dotted key path and a fix from the schema."""
    path = list(error.absolute_path)
    dotted = ".".join(map(str, path)) or None
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required":
        missing = re.match(r"'(.+)' is a required property", error.message)
        key = missing.group(1) if missing else str(error.validator_value)
        described = _property_schema(root_schema, path + [key]).get("description", "see the schema")
        return [Problem(label, _key_line(node, path), ".".join(map(str, path + [key])),
                        f"the key {key!r} is missing", f"add {key}: {described}")]
    if error.validator == "additionalProperties":
        allowed = list(_property_schema(root_schema, path).get("properties", {}))
        problems = []
        for key in [k for k in error.instance if k not in allowed]:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            problems.append(Problem(label, _key_line(node, path + [key]), ".".join(map(str, path + [key])),
                                    f"unknown key {key!r}", f"{hint}allowed keys here: {', '.join(allowed)}"))
        return problems
    if "title" in schema and error.validator in ("anyOf", "oneOf", "not", "allOf"):
        # Point at the first key the rule is about when it is there (e.g. a correction's 'name').
        given = error.instance if isinstance(error.instance, dict) else {}
        present = [k for k in _required_keys(error.validator_value) if k in given]
        where = path + present[:1]
        return [Problem(label, _key_line(node, where), ".".join(map(str, where)) or None, schema["title"],
                        schema.get("description", ""))]
    hint = ""
    if error.validator == "type" and isinstance(error.instance, (int, float)) and "string" in str(error.validator_value):
        hint = "quote it ('...'); "
    fix = hint + (_property_schema(root_schema, path).get("description")
                  or "see schemas/contribution-metadata.schema.json")
    if "enum" in schema:
        fix = f"use one of: {', '.join('null' if v is None else str(v) for v in schema['enum'])}. " + fix
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return [Problem(label, _key_line(node, path), dotted, message, fix)]


def _required_keys(schema: Any) -> list[str]:
    """Every key named in a 'required' list inside a subschema, in order."""
    if isinstance(schema, dict):
        return list(schema.get("required", [])) + [k for v in schema.values() for k in _required_keys(v)]
    if isinstance(schema, list):
        return [k for item in schema for k in _required_keys(item)]
    return []


def _leaf_values(data: Any, path: tuple = ()):
    """(path, value) of every value that is not a mapping or a list in a YAML document."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaf_values(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _leaf_values(value, path + (index,))
    else:
        yield path, data


def _text_values(data: Any, path: tuple = ()):
    """(path, text) of every string in a YAML document."""
    return ((p, v) for p, v in _leaf_values(data, path) if isinstance(v, str))


def value_problem(dotted: str, value: Any) -> tuple[str, str] | None:
    """(message, fix) for a value no field may hold: NaN or infinity, control characters; None when fine."""
    if isinstance(value, float) and not math.isfinite(value):
        return (f"{value!r} is not a finite number", "write the number, or null where the paper does not say")
    if isinstance(value, str):
        problem = control_character_problem(value, line_breaks=dotted in FREE_TEXT_KEYS)
        if problem:
            return (f"the text {problem}", "type the text again as plain characters"
                    + ("" if dotted in FREE_TEXT_KEYS else " on one line"))
    return None


# The longest text a schema pattern is run on when its field states no maxLength (an e-mail address, a URL, a
# licence expression): linear patterns or not, the time is bounded by the length.
MAX_PATTERN_TEXT = 1_000

# Texts that are labels: shown on the leaderboard, in CHANGELOG.md, the README and the documentation site.
LABEL_KEYS = {"name", "paper.title", "paper.authors", "contributor.name"}
# Markup that renders in Markdown or HTML: tags, links and images, code spans, bare addresses.
LABEL_MARKUP = ("<", ">", "[", "]", "`", "://")


def label_problem(value: str) -> tuple[str, str] | None:
    """(message, fix) when a name or title holds markup or a character that renders as nothing; else None.

    Labels are labels: '<' and '>' (HTML), '[' and ']' (Markdown links and images), backticks (code spans) and
    '://' (an address that becomes a link) are refused, as is every default-ignorable, format or filler
    character (:func:`atari5_spec_maintainers.contributions.lookalikes.invisible_character`). Every writer of Markdown
    escapes what it writes besides (:func:`atari5_spec.data.markdown.markdown_text`).
    """
    from atari5_spec_maintainers.contributions.lookalikes import invisible_character

    markup = [m for m in LABEL_MARKUP if m in value]
    if markup:
        return (f"{' and '.join(repr(m) for m in markup)} would be markup (HTML, a link or code) where the text "
                f"is shown ({value[:60]!r})",
                "write the name or title as plain words: no '<', '>', '[', ']', backticks or web addresses "
                "(addresses go in paper.url)")
    invisible = invisible_character(value)
    if invisible:
        return (f"the text {invisible}", "type the name again with visible characters only")
    return None


def _ecma_pattern(pattern: str) -> str:
    """A JSON Schema pattern for Python's re: a final '$' is the end of the text, as in ECMA 262.

    (Python's '$' also matches before a final line break, so '^[a-z]+$' would accept 'abc\\n'.)
    """
    return pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern


def _validator(schema: dict):
    """The JSON Schema validator, with patterns matched as the JSON Schema dialect (ECMA 262) defines them."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(validator, pattern, instance, schema):
        if not validator.is_type(instance, "string"):
            return
        limit = schema.get("maxLength", MAX_PATTERN_TEXT)
        if len(instance) > limit:  # before the pattern: a pattern is never run on a text longer than its field
            if "maxLength" not in schema:  # (maxLength reports it otherwise)
                yield ValidationError(f"{instance[:20]!r}... has {len(instance):,} characters, more than the "
                                      f"limit of {limit}")
            return
        if not re.search(_ecma_pattern(pattern), instance):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    return validators.extend(Draft202012Validator, {"pattern": pattern})(schema)


def formula_problem(label: str, line: int | None, column: str | None, text: str) -> Problem | None:
    """A Problem when ``text`` would run as a spreadsheet formula once the data is opened in a spreadsheet.

    Checked on the text as given and as stored (trimmed, spaces collapsed): ``" =1+1"`` is stored as ``=1+1``.
    """
    if text.startswith(FORMULA_START) or " ".join(text.split()).startswith(FORMULA_START):
        return Problem(label, line, column,
                       f"text starting with {text.lstrip(' ')[:1]!r} is read as a formula by spreadsheets "
                       f"({text[:30]!r})",
                       "start the text with a letter or digit (write the words out, e.g. 'minus' or 'at')")
    return None


# Values of contributions/_template/metadata.yaml that only an unedited copy has: it describes a
# made-up paper (ExampleAgent) by a made-up contributor, and must never be merged as data.
TEMPLATE_VALUES = {
    ("name",): "ExampleAgent",
    ("paper", "doi"): "10.5555/example.2024.1",
    ("paper", "arxiv"): "2401.00000",
    ("paper", "url"): "https://example.org/exampleagent.pdf",
    ("contributor", "name"): "Ada Example",
    ("contributor", "github"): "ada-example",
}


def template_problems(data: dict, node, label: str) -> list[Problem]:
    """Problems for every value still as the template gives it (the made-up example)."""
    problems = []
    for path, example in TEMPLATE_VALUES.items():
        value = data
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value == example:
            problems.append(Problem(label, _key_line(node, list(path)), ".".join(path),
                                    f"{value!r} is the template's made-up example, not your submission's",
                                    "replace every value of contributions/_template/metadata.yaml with your "
                                    "paper's and your own (see CONTRIBUTING.md)"))
    return problems


def metadata_problems(data: Any, node, schema: dict, label: str, this_year: int) -> list[Problem]:
    """Everything wrong with a parsed metadata.yaml: its JSON Schema, then the rules a schema cannot state."""
    if not isinstance(data, dict):
        return [Problem(label, None, None, "the file holds no YAML mapping (key: value lines)",
                        "copy contributions/_template/metadata.yaml and fill it in")]
    errors = sorted(_validator(schema).iter_errors(data),
                    key=lambda e: (_key_line(node, list(e.absolute_path)) or 0, list(map(str, e.absolute_path))))
    problems = [p for error in errors for p in _schema_error_problem(error, node, label, schema)]
    flagged = {p.column for p in problems}
    for path, value in _leaf_values(data):
        dotted = ".".join(map(str, path))
        if dotted in flagged:
            continue
        bad = value_problem(".".join(str(s) for s in path if not isinstance(s, int)), value)
        if bad:
            problems.append(Problem(label, _key_line(node, list(path)), dotted, *bad))
        elif isinstance(value, str):
            problem = formula_problem(label, _key_line(node, list(path)), dotted, value)
            problems += [problem] if problem else []
            key = ".".join(str(s) for s in path if not isinstance(s, int))
            markup = label_problem(value) if key in LABEL_KEYS and not problem else None
            if markup:
                problems.append(Problem(label, _key_line(node, list(path)), dotted, *markup))
    year = data.get("paper", {}).get("year") if isinstance(data.get("paper"), dict) else None
    if isinstance(year, int) and not isinstance(year, bool) and year > this_year and "paper.year" not in flagged:
        problems.append(Problem(label, _key_line(node, ["paper", "year"]), "paper.year",
                                f"the year {year} is in the future", "give the year the paper was published"))
    protocol = data.get("protocol") if isinstance(data.get("protocol"), dict) else {}
    frames, regime = protocol.get("training_frames"), protocol.get("regime")
    if isinstance(frames, int) and not isinstance(frames, bool) and frames >= 1 and \
            "protocol.training_frames" not in flagged:
        from atari5_spec.data.frames import training_budget_problem

        unitless = training_budget_problem(frames)  # YAML integers carry no unit: 200 is not a budget
        if unitless:
            message = unitless.split(": ", 1)[0]
            problems.append(Problem(label, _key_line(node, ["protocol", "training_frames"]),
                                    "protocol.training_frames", message,
                                    "write the budget in emulator frames as a whole number (200000000 for 200M; "
                                    "Atari 100k is 400000)"))
    if isinstance(frames, int) and isinstance(regime, str) and "protocol.regime" not in flagged:
        from atari5_spec.data.validation import regime_label

        if frames > 0 and regime_label(frames) != regime:
            problems.append(Problem(label, _key_line(node, ["protocol", "regime"]), "protocol.regime",
                                    f"regime {regime} does not agree with training_frames {frames}",
                                    f"write regime: {regime_label(frames)}, or correct training_frames"))
    problems += template_problems(data, node, label)
    if protocol.get("statistic") == "single-seed" and protocol.get("seeds") not in (None, 1):
        problems.append(Problem(label, _key_line(node, ["protocol", "seeds"]), "protocol.seeds",
                                f"statistic single-seed with seeds: {protocol.get('seeds')}",
                                "single-seed means one run: set seeds: 1, or name the statistic over the seeds"))
    return sorted(problems, key=lambda p: (p.row or 0, p.column or ""))
