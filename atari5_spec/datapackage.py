"""The package descriptor (datapackage.json): where it is, reading and writing it.

The data package has the Frictionless layout at the top of the repository
(datapackage.json, data/, schemas/, coefficients/, published/); an installed
wheel carries the same files in ``atari5_spec/package``.
"""

from __future__ import annotations

import json
from pathlib import Path


__all__ = ["package_root", "read_descriptor", "descriptor_text", "refresh_resource_stats",
           "bump_version", "resource_path", "schema_of", "table_resource", "CSV_DIALECT"]

DESCRIPTOR = "datapackage.json"


def package_root(path: str | Path | None = None) -> Path:
    """The directory holding datapackage.json.

    ``path`` may be a package directory or its datapackage.json; by default the
    copy installed with atari5_spec (or, in a source checkout, the repository).
    """
    if path is not None:
        path = Path(path)
        root = path.parent if path.name == DESCRIPTOR else path
        if not (root / DESCRIPTOR).is_file():
            raise FileNotFoundError(f"{root / DESCRIPTOR} does not exist: pass a data package directory")
        return root
    here = Path(__file__).resolve().parent
    for candidate in (here / "package", here.parent):
        if (candidate / DESCRIPTOR).is_file():
            return candidate
    raise FileNotFoundError("the atari5-spec data package is not installed next to the code")


# Every CSV of the package is written by atari5_spec.writing: comma-separated, header row,
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


def read_descriptor(root: Path) -> dict:
    return json.loads((Path(root) / DESCRIPTOR).read_text(encoding="utf-8"))


def descriptor_text(descriptor: dict) -> str:
    """Deterministic JSON text of a descriptor (2-space indent, LF, final newline)."""
    return json.dumps(descriptor, indent=2, ensure_ascii=False) + "\n"


def resource_path(root: Path, descriptor: dict, name: str) -> Path:
    for resource in descriptor["resources"]:
        if resource["name"] == name:
            return Path(root) / resource["path"]
    raise KeyError(f"datapackage.json has no resource named {name!r}")


def schema_of(root: Path, descriptor: dict, name: str) -> dict:
    """The Table Schema of resource ``name`` (resolving a path into schemas/)."""
    for resource in descriptor["resources"]:
        if resource["name"] == name:
            schema = resource["schema"]
            if isinstance(schema, str):
                schema = json.loads((Path(root) / schema).read_text(encoding="utf-8"))
            return schema
    raise KeyError(f"datapackage.json has no resource named {name!r}")


def refresh_resource_stats(root: Path, descriptor: dict | None = None) -> dict:
    """Set ``bytes`` and ``hash`` of every resource from its file; write and return the descriptor."""
    # Imported here: writing pulls in pandas, and package_root() is on the fast `score` path.
    from .writing import file_stats, write_text_atomic

    root = Path(root)
    descriptor = read_descriptor(root) if descriptor is None else descriptor
    for resource in descriptor["resources"]:
        resource.update(file_stats(root / resource["path"]))
    write_text_atomic(root / DESCRIPTOR, descriptor_text(descriptor))
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
