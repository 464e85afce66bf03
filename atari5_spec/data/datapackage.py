"""The package descriptor (datapackage.json): where it is, reading and writing it.

The data package has the Frictionless layout at the top of the repository
(datapackage.json, data/, schemas/, coefficients/, published/); an installed
wheel carries the same files in ``atari5_spec/package``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .errors import InputError
from .paths import folders_with_descriptor, package_file, package_files, package_target, read_regular_file

__all__ = ["package_root", "enclosing_package", "installed_package", "which_package", "PACKAGE_NAME",
           "read_descriptor", "descriptor_text", "refresh_resource_stats", "bump_version", "resource_path", "schema_of", "DescriptorError", "table_resource", "CSV_DIALECT"]

DESCRIPTOR = "datapackage.json"


PACKAGE_NAME = "atari5-spec"  # the descriptor's "name": how a clone is told from other data packages


def package_root(path: str | Path | None = None, reader: bool = True) -> Path:
    """The directory holding datapackage.json.

    ``path`` may be a package directory or its datapackage.json. Without one:
    the atari5-spec package you stand in (the current directory or the nearest
    one above it holding an atari5-spec datapackage.json, as git finds its
    repository), else the copy installed with atari5_spec.

    ``reader`` (the default: every command that only reads) never writes:
    a commit under way is waited for and a change a killed command left
    half-applied is refused, naming ``atari5-spec recover``
    (:func:`atari5_spec.data.transaction.refuse_interrupted`: one ``stat``
    when there is none), so nothing reads a package in the middle of a
    change. ``reader=False``: ``validate`` (reports it), ``recover`` and the
    commands that write (they finish it under the write lock).
    """
    if path is not None:
        path = Path(path)
        root = path.parent if path.name == DESCRIPTOR else path
        if not (root / DESCRIPTOR).is_file():
            if reader:
                _refuse_interrupted(root)  # a descriptor missing mid-change says so
            raise FileNotFoundError(f"{root / DESCRIPTOR} does not exist: pass a data package directory")
    else:
        root = enclosing_package() or installed_package()
    if reader:
        _refuse_interrupted(root)
    return root


def _refuse_interrupted(root: Path) -> None:
    """Wait for a commit under way in ``root``; RecoveryError for an interrupted one. Writes nothing."""
    from .write_markers import STAGING_NAME

    if os.path.lexists(root / STAGING_NAME):
        from .transaction import refuse_interrupted  # only when a write left something behind

        refuse_interrupted(root)


def enclosing_package(start: str | Path | None = None) -> Path | None:
    """The nearest directory at or above ``start`` (default: the current one) with an atari5-spec descriptor."""
    try:
        here = Path(start if start is not None else Path.cwd())
        candidates = list(folders_with_descriptor(here))
    except OSError:  # the current directory was removed
        return None
    return next((folder for folder in candidates if _descriptor_name(folder / DESCRIPTOR) == PACKAGE_NAME), None)


def installed_package() -> Path:
    """The copy of the data package installed with the code (or, in a source checkout, the repository)."""
    here = Path(__file__).resolve().parents[1]  # the atari5_spec folder (this module is atari5_spec/data/)
    for candidate in (here / "package", here.parent):
        if (candidate / DESCRIPTOR).is_file():
            return candidate
    raise FileNotFoundError("the atari5-spec data package is not installed next to the code")


def which_package(path: str | Path | None = None) -> str:
    """One line saying which package a command works on and why (printed by validate, verify, ...)."""
    root = package_root(path, reader=False)
    why = ("as given" if path is not None else "the package you are in" if enclosing_package() == root
           else "the installed copy; no atari5-spec package in or above the current directory")
    try:
        version = read_json_file(root, DESCRIPTOR, "the descriptor").get("version", "?")
    except (OSError, ValueError, AttributeError):  # InputError is a ValueError; validate says what is wrong
        version = "?"
    return f"package: {root} (data {version}; {why})"


def _descriptor_name(path: Path) -> str | None:
    """The "name" of a descriptor, read under the same limits as any descriptor; None if it cannot be read."""
    try:
        descriptor = read_json_file(path.parent, path.name, "the descriptor")
    except (OSError, ValueError):  # another project's, or a broken one: the caller keeps looking
        return None
    return descriptor.get("name") if isinstance(descriptor, dict) else None


# Every CSV of the package is written by atari5_spec.data.writing: comma-separated, header row,
# '"' quotes doubled inside quoted cells, LF line ends. Declared so that no reader has to
# sniff it (sniffing reads algorithms.csv's free text as space-delimited).
CSV_DIALECT = {"delimiter": ",", "header": True, "quoteChar": "\"", "doubleQuote": True, "lineTerminator": "\n"}


def table_resource(name: str, path: str, schema: str, title: str, description: str | None = None) -> dict:
    """A tabular resource entry readable by Data Package v1 (profile) and v2 (type) clients alike."""
    entry = {"name": name, "type": "table", "profile": "tabular-data-resource", "path": path, "scheme": "file",
             "format": "csv", "mediatype": "text/csv", "encoding": "utf-8", "dialect": dict(CSV_DIALECT),
             "title": title}
    if description:
        entry["description"] = description
    entry["schema"] = schema
    return entry


class DescriptorError(InputError):
    """datapackage.json (or a schema it names) that cannot be used; the message names the file and the fix."""


def read_json_file(root: Path, relative: str, where: str):
    """A JSON file inside the package, under the path policy and the limits (size, nesting, numbers)."""
    from .limits import MAX_DESCRIPTOR_BYTES, load_json

    path = package_file(root, relative, where)
    data = read_regular_file(path, relative, MAX_DESCRIPTOR_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise DescriptorError(f"{relative}, line {line}: is not UTF-8 (byte {data[error.start]:#04x}): "
                              "save the file as UTF-8") from None
    return load_json(text, relative)


def descriptor_shape_problem(descriptor) -> str | None:
    """What makes a parsed datapackage.json unusable by this project (None when it is usable)."""
    if not isinstance(descriptor, dict):
        return f"the descriptor is a JSON {type(descriptor).__name__}, not an object {{...}}"
    if not isinstance(descriptor.get("version"), str) or not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+",
                                                                           descriptor["version"], re.ASCII):
        return "'version' must be a text MAJOR.MINOR.PATCH of ASCII digits (e.g. \"1.2.0\")"
    resources = descriptor.get("resources")
    if not isinstance(resources, list):
        return f"'resources' must be a list of resources, not a {type(resources).__name__}"
    seen: dict[str, str] = {}
    names: set[str] = set()
    for index, resource in enumerate(resources):
        if not isinstance(resource, dict):
            return f"resources[{index}] must be an object, not a {type(resource).__name__}"
        name, path = resource.get("name"), resource.get("path")
        if not isinstance(name, str) or not isinstance(path, str):
            return f"resources[{index}] needs a text 'name' and a text 'path'"
        if not isinstance(resource.get("schema"), (str, dict)):
            return f"resource {name!r} needs a 'schema' (a path into schemas/ or an object)"
        if name in names:
            return f"two resources are named {name!r}: each resource has its own name"
        names.add(name)
        if path in seen:
            return f"resources {seen[path]!r} and {name!r} have the same path {path!r}: each file is one resource"
        seen[path] = name
    return None


FIELD_TYPES = ("string", "number", "integer", "boolean")  # the Table Schema types this package uses


def schema_shape_problem(schema) -> str | None:
    """What makes a Table Schema unusable by the loader and the validator (None when it is usable)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("fields"), list):
        return "it has no list of 'fields'"
    for index, field in enumerate(schema["fields"]):
        if not isinstance(field, dict) or not isinstance(field.get("name"), str):
            return f"fields[{index}] needs a text 'name'"
        if field.get("type", "string") not in FIELD_TYPES:
            return f"field {field['name']!r} has the type {field.get('type')!r} (use one of {', '.join(FIELD_TYPES)})"
        if not isinstance(field.get("constraints", {}), dict):
            return f"field {field['name']!r}: 'constraints' must be an object"
    return None


def read_descriptor(root: Path) -> dict:
    """datapackage.json of the package at ``root``, checked: its shape, and every path in it under the path policy.

    Raises DescriptorError (an InputError: one line, exit status 1) naming
    what is wrong; a descriptor returned here is safe to follow.
    """
    root = Path(root)
    descriptor = read_json_file(root, DESCRIPTOR, "the descriptor")
    problem = descriptor_shape_problem(descriptor)
    if problem:
        raise DescriptorError(f"{DESCRIPTOR}: {problem}: fix the descriptor (see the Frictionless Data Package spec)")
    named = []
    for resource in descriptor["resources"]:
        where = f"{DESCRIPTOR}, resource {resource['name']!r}:"
        named.append((resource["path"], f"{where} path"))
        if isinstance(resource["schema"], str):
            named.append((resource["schema"], f"{where} schema"))
    package_files(root, named)  # in order: the first unsafe path is the one reported
    return descriptor


def descriptor_text(descriptor: dict) -> str:
    """Deterministic JSON text of a descriptor (2-space indent, LF, final newline)."""
    return json.dumps(descriptor, indent=2, ensure_ascii=False) + "\n"


def resource_path(root: Path, descriptor: dict, name: str) -> Path:
    for resource in descriptor["resources"]:
        if resource["name"] == name:
            return package_file(root, resource["path"], f"{DESCRIPTOR}, resource {name!r}: path")
    raise DescriptorError(f"{DESCRIPTOR} has no resource named {name!r}: restore it (see the installed package)")


def schema_of(root: Path, descriptor: dict, name: str) -> dict:
    """The Table Schema of resource ``name`` (resolving a path into schemas/)."""
    for resource in descriptor["resources"]:
        if resource["name"] == name:
            schema = resource["schema"]
            if isinstance(schema, str):
                schema = read_json_file(Path(root), schema, f"{DESCRIPTOR}, resource {name!r}: schema")
            problem = schema_shape_problem(schema)
            if problem:
                raise DescriptorError(f"the schema of resource {name!r}: {problem}: fix it in schemas/")
            return schema
    raise DescriptorError(f"{DESCRIPTOR} has no resource named {name!r}: restore it (see the installed package)")


def refresh_resource_stats(root: Path, descriptor: dict | None = None) -> dict:
    """Set ``bytes`` and ``hash`` of every resource from its file; write and return the descriptor."""
    # Imported here: writing pulls in pandas, and package_root() is on the fast `score` path.
    from .writing import file_stats, write_text_atomic

    root = Path(root)
    descriptor = read_descriptor(root) if descriptor is None else descriptor
    for resource in descriptor["resources"]:
        resource.update(file_stats(package_file(root, resource["path"], f"{DESCRIPTOR}, resource path")))
    write_text_atomic(package_target(root, DESCRIPTOR, "the descriptor"), descriptor_text(descriptor))
    return descriptor


def bump_version(version: str, part: str) -> str:
    """Semantic version bump: part is 'major', 'minor' or 'patch'."""
    major, minor, patch = (int(x) for x in version.split("."))
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise ValueError(f"unknown version part {part!r}: use major, minor or patch")


def fields_markdown(root: Path, resources: list[str]) -> str:
    """Markdown tables documenting every field of ``resources``, generated from schemas/."""
    descriptor = read_descriptor(root)
    parts = []
    for name in resources:
        resource = next(r for r in descriptor["resources"] if r["name"] == name)
        schema = schema_of(root, descriptor, name)
        parts.append(f"#### `{resource['path']}`\n\n{resource.get('description', '')}\n\n"
                     "| field | type | required | description |\n|---|---|---|---|\n")
        for field in schema["fields"]:
            constraints = field.get("constraints", {})
            extra = f" One of: {', '.join(constraints['enum'])}." if "enum" in constraints else ""
            required = "yes" if constraints.get("required") else ""
            parts[-1] += f"| `{field['name']}` | {field.get('type', 'string')} | {required} | {field.get('description', '')}{extra} |\n"
    return "\n".join(parts)
