"""The path policy (atari5_spec.data.paths) and the limits (atari5_spec.data.limits), unit by unit."""

import os

import pytest

from atari5_spec.data import limits, paths
from atari5_spec.data.errors import InputError
from atari5_spec_maintainers.versioning import apply_changes


@pytest.mark.parametrize("relative, reason", [
    ("data/scores.csv", None),
    ("coefficients/paper-2023/subset_models.csv", None),
    ("/etc/passwd", "is absolute"),
    ("../outside.csv", "climbs out with '..'"),
    ("data/../../outside.csv", "climbs out with '..'"),
    ("~/scores.csv", "'~'"),
    ("$HOME/scores.csv", "'$'"),
    ("%APPDATA%/x.csv", "'%'"),
    ("data\\scores.csv", "Windows separator"),
    ("C:/data/scores.csv", "':'"),
    ("file:///etc/passwd", "':'"),
    ("data/scores.csv\n", "control characters"),
    ("", "not a non-empty text"),
])
def test_unsafe_reason(relative, reason):
    found = paths.unsafe_reason(relative)
    assert (found is None) if reason is None else (reason in found)


def test_a_link_inside_the_package_is_followed_and_one_leading_out_is_refused(tmp_path):
    root = tmp_path / "package"
    (root / "data").mkdir(parents=True)
    (root / "data" / "real.csv").write_text("a\n")
    os.symlink(root / "data" / "real.csv", root / "data" / "inside.csv")
    os.symlink(tmp_path / "elsewhere.csv", root / "data" / "outside.csv")
    assert paths.package_file(root, "data/inside.csv", "x") == root / "data" / "inside.csv"
    with pytest.raises(paths.UnsafePathError, match="leads outside the package"):
        paths.package_file(root, "data/outside.csv", "x")
    with pytest.raises(paths.UnsafePathError, match="is a symbolic link"):
        paths.package_target(root, "data/inside.csv", "x")  # never written through, even inside


def test_apply_changes_refuses_a_linked_target_before_writing_anything(tmp_path):
    root, outside = tmp_path / "package", tmp_path / "outside.csv"
    root.mkdir()
    outside.write_text("theirs\n")
    (root / "CHANGELOG.md").write_text("mine\n")
    os.symlink(outside, root / "linked.csv")
    with pytest.raises(InputError):
        apply_changes(root, {"CHANGELOG.md": "changed\n", "linked.csv": "changed\n"})
    assert outside.read_text() == "theirs\n" and (root / "CHANGELOG.md").read_text() == "mine\n"


def test_a_named_pipe_is_refused_without_opening_it(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(InputError, match="named pipe"):
        paths.read_regular_file(pipe, "pipe", 100)


def test_output_policy(tmp_path):
    package = tmp_path / "package"
    (package / "published").mkdir(parents=True)
    (package / "datapackage.json").write_text("{}")
    with pytest.raises(InputError, match="inside the data package"):
        paths.output_directory(package / "published" / "new")
    out = paths.output_directory(tmp_path / "out" / "deeper")
    written = paths.write_output(out / "table.csv", "a,b\n")
    assert written.read_text() == "a,b\n" and not list(out.glob(".*.tmp"))
    os.symlink(package / "datapackage.json", out / "link.csv")
    with pytest.raises(InputError, match="symbolic link"):
        paths.write_output(out / "link.csv", "x")
    assert (package / "datapackage.json").read_text() == "{}"


def test_limits():
    assert limits.non_ascii_digit("１２") == "１" and limits.non_ascii_digit("12") is None
    assert not limits.ASCII_NUMBER.fullmatch("١٢٣")
    assert "U+001B" in limits.control_character_problem("a\x1bb")
    assert limits.control_character_problem("two\nlines", line_breaks=True) is None
    assert "U+202E" in limits.control_character_problem("abc\u202edef")
    assert limits.printable("a\x1b[31mb") == "a\ufffd[31mb"
    assert limits.score_problem(1e9) is None and "beyond" in limits.score_problem(-2e9)
    assert "finite" in limits.score_problem(float("nan"))
    with pytest.raises(InputError, match="line 2: nested deeper than 32"):
        limits.load_json("\n" + "[" * 33 + "]" * 33, "x.json")
    with pytest.raises(InputError, match="41 characters"):
        limits.load_json("1" * 41, "x.json")
    with pytest.raises(InputError, match="NaN"):
        limits.load_json("[NaN]", "x.json")
    assert limits.load_json('{"a": "[[[["}', "x.json") == {"a": "[[[["}  # brackets in strings do not nest


def nesting_by_characters(text: str) -> tuple[int, str] | None:
    """The nesting rule character by character (the definition json_nesting_problem's token scan must equal)."""
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        line += char == "\n"
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limits.MAX_NESTING_DEPTH:
                return line, f"nested deeper than {limits.MAX_NESTING_DEPTH} levels"
        elif char in "]}":
            depth -= 1
    return None


def test_the_nesting_scan_equals_the_character_by_character_rule():
    import random

    deep = limits.MAX_NESTING_DEPTH
    texts = ["", "[" * deep, "[" * (deep + 1), "\n[" * (deep + 1), '"' + "[" * 99, '["\\"' + "[" * 99 + '"]',
             '"\\\n' + "[" * 99, '"abc\\', "]" * 99 + "[" * (deep + 1), '{"a": "[[[["}', '"\\\\"' + "[" * 99]
    alphabet = ['"', "\\", "[", "]", "{", "}", "\n", "a", " ", ":"]
    generator = random.Random(20261128)
    texts += ["".join(generator.choices(alphabet, k=generator.randrange(1, 400))) for _ in range(3000)]
    texts += ["[" * generator.randrange(deep - 3, deep + 3) + "".join(generator.choices(alphabet, k=50))
              for _ in range(500)]
    assert [limits.json_nesting_problem(t) for t in texts] == [nesting_by_characters(t) for t in texts]
    assert any(nesting_by_characters(t) for t in texts) and not all(nesting_by_characters(t) for t in texts)
