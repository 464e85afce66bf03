"""The three distributions and the standard's layers (docs/architecture.md): every import points down.

The standard (``atari5_spec``, the repository root's distribution) imports nothing of the research
(``research/``, ``atari5_spec_research``) or the maintainers' tools (``maintainers/``,
``atari5_spec_maintainers``); the research imports nothing of the maintainers' tools. Inside the standard every
import points down its layers.

The imports are read from the source with ``ast`` (module level and inside
functions alike), so a lazy import inside a command counts as much as one at
the top of a file.
"""

import ast
import re
import sys
from pathlib import Path

import pytest

import atari5_spec

PACKAGE = Path(atari5_spec.__file__).resolve().parent

# Bottom to top. A module may import its own layer and the layers with a lower rank; two layers
# of the same rank (contributions, analyses) may not import each other. `_version` is a leaf
# every layer may import; the root `__init__` is the public facade, which nothing inside imports.
LAYER_RANK = {"_version": 0, "data": 1, "method": 2, "scoring": 3, "harness": 3, "cli": 4}
REPOSITORY = Path(__file__).resolve().parents[1]
# bottom to top: a distribution may import its own package and those below it
DISTRIBUTIONS = {"atari5_spec": (REPOSITORY, 0), "atari5_spec_research": (REPOSITORY / "research", 1),
                 "atari5_spec_maintainers": (REPOSITORY / "maintainers", 2)}
DOCS = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path):
    """(line, imported module) for every import of atari5_spec in the file, relative ones resolved."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "atari5_spec" or target.startswith("atari5_spec."):
                # `from atari5_spec.method import training`: the names may be modules themselves
                for alias in node.names:
                    candidate = f"{target}.{alias.name}"
                    is_module = (PACKAGE.parent / Path(*candidate.split("."))).with_suffix(".py").is_file() or \
                        (PACKAGE.parent / Path(*candidate.split("."))).is_dir()
                    yield node.lineno, candidate if is_module else target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "atari5_spec" or alias.name.startswith("atari5_spec."):
                    yield node.lineno, alias.name


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None  # None: the root package itself


def upward_imports() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        here = layer_of(module_name(path))
        if here is None:
            continue  # the public facade imports lazily, by name, from every layer
        for line, target in imported_modules(path):
            there = layer_of(target)
            where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
            if there is None:
                found.append(f"{where}: the root package is the public facade; import the module that defines it")
            elif there == here:
                continue
            elif here == "_version":
                found.append(f"{where}: _version is a leaf and imports nothing")
            elif LAYER_RANK[there] >= LAYER_RANK[here]:
                found.append(f"{where}: layer '{here}' may not import layer '{there}' "
                             f"(imports point down: {' < '.join(sorted(LAYER_RANK, key=LAYER_RANK.get))})")
    return found


def test_every_module_lives_in_a_layer():
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "_version"))
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert not loose, f"modules outside the layers (put each in one of {sorted(LAYER_RANK)}): {loose}"
    assert set(folders) == set(LAYER_RANK) - {"_version"}, folders


def test_nothing_imports_upward():
    problems = upward_imports()
    assert not problems, "\n".join(problems)


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    # The rule must be able to fail: a data module importing the scoring layer is reported by file and line.
    fake = tmp_path / "atari5_spec"
    (fake / "data").mkdir(parents=True)
    (fake / "scoring").mkdir()
    for folder in (fake, fake / "data", fake / "scoring"):
        (folder / "__init__.py").write_text("")
    (fake / "scoring" / "estimate.py").write_text("")
    (fake / "data" / "loading.py").write_text("import json\n\n\ndef f():\n    from ..scoring import estimate\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert upward_imports() == [
        "atari5_spec/data/loading.py:5 imports atari5_spec.scoring.estimate: layer 'data' may not import layer "
        "'scoring' (imports point down: _version < data < method < scoring < harness < cli)"]


@pytest.mark.parametrize("layer", sorted(set(LAYER_RANK) - {"_version"}))
def test_each_layer_says_what_it_holds_and_may_import(layer):
    doc = ast.get_docstring(ast.parse((PACKAGE / layer / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "May import" in doc, f"atari5_spec/{layer}/__init__.py: a docstring saying what it may import"


def test_the_architecture_page_names_every_layer():
    text = DOCS.read_text(encoding="utf-8")
    for layer in set(LAYER_RANK) - {"_version"}:
        assert f"`{layer}/`" in text, f"docs/architecture.md does not describe {layer}/"


def import_cycles() -> list[list[str]]:
    """Groups of modules that import each other, directly or round a circle (lazy imports count too)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: sorted({t for _, t in imported_modules(path) if t in modules and t != name})
             for name, path in modules.items()}
    order, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(start):  # Tarjan's strongly connected components, iteratively
        work = [(start, iter(graph[start]))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                elif child in on_stack:
                    low[node] = min(low[node], order[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return sorted(cycles)


def test_no_two_modules_import_each_other():
    # data/registry.py and data/validation.py did (Problem now lives in data/problems.py): a circle of
    # imports means two ideas that are not separated yet.
    assert import_cycles() == []


def test_the_cycle_check_sees_a_circle(tmp_path, monkeypatch):
    fake = tmp_path / "atari5_spec"
    (fake / "data").mkdir(parents=True)
    for folder in (fake, fake / "data"):
        (folder / "__init__.py").write_text("")
    (fake / "data" / "registry.py").write_text("def f():\n    from .validation import Problem\n")
    (fake / "data" / "validation.py").write_text("from .registry import f\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert import_cycles() == [["atari5_spec.data.registry", "atari5_spec.data.validation"]]


def test_docstrings_name_only_dotted_paths_that_import():
    """A dotted path in the package's text (``atari5_spec.method.reference``) names a module or object that exists:
    32 docstrings still named the paths from before the layers moved (issue 32)."""
    import importlib
    import re

    def resolves(ref: str) -> bool:
        parts = ref.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for part in parts[i:]:
                if hasattr(obj, part):
                    obj = getattr(obj, part)
                    continue
                try:
                    obj = importlib.import_module(f"{obj.__name__}.{part}")
                except (ImportError, AttributeError):
                    return False
            return True
        return False

    dead = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for ref in re.findall(r"atari5_spec(?:\.[A-Za-z_]\w*)+", line):
                if not ref.endswith(("_py", ".py")) and not resolves(ref):
                    dead.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {ref}")
    assert dead == []


def test_each_command_family_adds_exactly_the_commands_main_maps_to_it():
    """cli/main.py builds only the named command's family (so `score` imports no other family): its map must be
    what each family module adds."""
    import argparse
    import importlib

    from atari5_spec.cli.main import FAMILIES, build_parser

    for family, (adder, names) in FAMILIES.items():
        commands = argparse.ArgumentParser().add_subparsers()
        getattr(importlib.import_module(f"atari5_spec.cli.{family}"), adder)(commands)
        assert tuple(commands.choices) == names, family
    from importlib.metadata import entry_points

    from atari5_spec.cli.main import COMMANDS_GROUP

    every = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    added = {point.name for point in entry_points(group=COMMANDS_GROUP)}  # the installed extensions' commands
    assert set(every) == {n for _, names in FAMILIES.values() for n in names} | added
    only = next(a for a in build_parser("score")._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(only) == {"score", "predict", "leaderboard"}


def test_the_score_path_imports_a_small_part_of_the_package():
    """`atari5-spec score` on five games, in a fresh interpreter: at most 30 of the package's modules (45 in 1.2.0;
    benchmarks/bench_score_imports.py measures it against any revision), no pandas, and none of the other command
    families, the transaction machinery or the pair measurements."""
    import json
    import subprocess

    probe = """
import sys, io, contextlib, json
from atari5_spec.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    status = main(sys.argv[1:])
print(json.dumps([status, sorted(m for m in sys.modules if m.startswith("atari5_spec"))]))
"""
    arguments = ["score", "--score", "battle_zone=35000", "--score", "double_dunk=-1.5", "--score",
                 "name_this_game=12000", "--score", "phoenix=9000", "--score", "qbert=15000"]
    done = subprocess.run([sys.executable, "-c", probe, *arguments], capture_output=True, text=True, check=True,
                          cwd=PACKAGE.parent)
    status, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and len(modules) <= 30, modules
    assert not any(m.startswith(("atari5_spec.data.transaction", "atari5_spec.cli.package", "atari5_spec_research.cli.search",
                                 "atari5_spec.method.pairs", "atari5_spec.scoring.relative", "pandas"))
                   for m in modules), modules


def distribution_imports(folder: Path, package: str):
    """(file:line, imported top-level package) for every import of one of the three packages in ``folder``'s files
    (module level and inside functions; relative imports stay in their own package)."""
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else
                     [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                top = name.split(".")[0]
                if top in DISTRIBUTIONS:
                    yield f"{path.relative_to(REPOSITORY)}:{node.lineno}", top


def distribution_problems() -> list[str]:
    found = []
    for package, (root, rank) in DISTRIBUTIONS.items():
        folders = [root / package, root / "tests"] if package != "atari5_spec" else [root / package, root / "tests"]
        for folder in folders:
            for where, top in distribution_imports(folder, package):
                if DISTRIBUTIONS[top][1] > rank:
                    found.append(f"{where} imports {top}: {package} (and its tests) may import only "
                                 f"{' and '.join(p for p, (_, r) in DISTRIBUTIONS.items() if r <= rank)}")
    return found


def test_no_distribution_imports_one_above_it():
    # what a user installs is the standard alone: it, and its tests, must run without the other two
    assert distribution_problems() == []


def test_the_distribution_check_sees_an_upward_import(tmp_path, monkeypatch):
    (tmp_path / "atari5_spec" / "scoring").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "atari5_spec" / "scoring" / "estimate.py").write_text("def f():\n    import atari5_spec_research.search\n")
    (tmp_path / "tests" / "test_x.py").write_text("from atari5_spec_maintainers.site import build\n")
    monkeypatch.setattr(sys.modules[__name__], "REPOSITORY", tmp_path)
    monkeypatch.setitem(DISTRIBUTIONS, "atari5_spec", (tmp_path, 0))
    monkeypatch.setitem(DISTRIBUTIONS, "atari5_spec_research", (tmp_path / "research", 1))
    monkeypatch.setitem(DISTRIBUTIONS, "atari5_spec_maintainers", (tmp_path / "maintainers", 2))
    assert [p.split(" ")[0:3] for p in distribution_problems()] == [
        ["atari5_spec/scoring/estimate.py:2", "imports", "atari5_spec_research:"],
        ["tests/test_x.py:1", "imports", "atari5_spec_maintainers:"]]


def test_the_three_distributions_move_in_one_version():
    import re

    versions = {root.name: re.search(r'^version = "([^"]+)"', (root / "pyproject.toml").read_text(encoding="utf-8"),
                                     re.M).group(1) for root, _ in DISTRIBUTIONS.values()}
    pins = re.findall(r'"(atari5-spec(?:-research)?)==([^"]+)"',
                      "".join((root / "pyproject.toml").read_text(encoding="utf-8") for root, _ in DISTRIBUTIONS.values()))
    assert len(set(versions.values())) == 1 and {v for _, v in pins} == set(versions.values()), (versions, pins)
    assert versions[REPOSITORY.name] == atari5_spec.__version__


def modules_missing_from_the_map() -> list[str]:
    """Every module of the three packages (a subpackage's ``__init__.py`` aside) whose path relative to its
    package is not named, in backticks, in its distribution's section of docs/architecture.md."""
    text = DOCS.read_text(encoding="utf-8")
    missing = []
    for package, (root, _) in DISTRIBUTIONS.items():
        heading = re.search(rf"^### .*`(?:\w+/)?{package}/`$", text, re.M)
        if heading is None:
            missing.append(f"docs/architecture.md: no '### ...`{package}/`' section")
            continue
        end = text.find("\n### ", heading.end())
        section = text[heading.end():end if end != -1 else len(text)]
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root / package).as_posix()
            if path.name in ("__init__.py", "__main__.py") and relative != "__init__.py":
                continue
            if f"`{relative}`" not in section:
                missing.append(f"{package}/{relative}")
    return missing


def test_every_module_is_on_the_map():
    # the map is drawn from the code: a new module gets its line (the first sentence of its docstring)
    assert modules_missing_from_the_map() == []


def test_the_map_check_sees_a_new_module(tmp_path, monkeypatch):
    (tmp_path / "atari5_spec" / "scoring").mkdir(parents=True)
    (tmp_path / "atari5_spec" / "scoring" / "new.py").write_text('"""A new idea."""\n')
    (tmp_path / "atari5_spec" / "__init__.py").write_text('"""The API."""\n')
    doc = tmp_path / "architecture.md"
    doc.write_text("### The standard: `atari5_spec/`\n\n| `__init__.py` | the API |\n")
    monkeypatch.setattr(sys.modules[__name__], "DOCS", doc)
    monkeypatch.setattr(sys.modules[__name__], "DISTRIBUTIONS", {"atari5_spec": (tmp_path, 0)})
    assert modules_missing_from_the_map() == ["atari5_spec/scoring/new.py"]
