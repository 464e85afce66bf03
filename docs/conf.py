"""Sphinx configuration of the atari5-spec documentation.

Build (warnings are errors; CI's main job and the web home's Pages workflow run exactly this):

    pip install ".[docs]"
    python -m sphinx -W --keep-going -b html docs OUT

The user guide is the repository's own Markdown (README.md, CONTRIBUTING.md and docs/*.md, read by
MyST); the API reference is generated from the docstrings (autodoc + numpydoc); one page per command
is generated from the argparse definitions (docs/_commands.py, at build time: each command's --help); the tutorial is a MyST
notebook executed at every build, so it cannot go stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atari5_spec  # noqa: E402

from _commands import write_command_pages  # noqa: E402
from _fields import write_field_tables  # noqa: E402

project = "atari5-spec"
author = "atari5-spec contributors"
copyright = "atari5-spec contributors; code MIT, data CC-BY-SA-4.0"
release = atari5_spec.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_nb",            # MyST Markdown (myst-parser) and executed notebooks
    "_content_policy",    # raw HTML in pages shown as text; the web home's Content-Security-Policy on every page
]

root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store", "README.md"]
source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}

# MyST: heading anchors for the Markdown's own links (README's "#how-accurate-is-an-atari-5-score").
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# The tutorial runs at every build; an error in a cell fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 300
nb_execution_show_tb = True

# numpydoc: no autosummary tables of class members (the result types list their fields themselves).
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()
autodoc_member_order = "bysource"
autodoc_typehints = "none"      # the signatures show them; the prose says what they mean

html_theme = "pydata_sphinx_theme"
html_title = f"atari5-spec {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path: list[str] = []
html_show_sourcelink = False


# Written before Sphinx reads the sources (the API reference includes the field tables).
write_command_pages(HERE / "commands")
write_field_tables(HERE / "_generated")
