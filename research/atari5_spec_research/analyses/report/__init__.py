"""``atari5-spec report``: the structure analyses as pictures and one self-contained HTML page.

:func:`analyse` runs every analysis of :mod:`atari5_spec_research.analyses.structure` on the
paper's training table once; :func:`write_report` draws the pictures (PNG)
and writes ``report.html``, which embeds them as base64 data URIs and holds
the tables inline, with no external URL, script or font, so that it can be
opened offline or attached to an e-mail.

matplotlib is an optional extra (``pip install 'atari5-spec-research[plot]'``). The
figures are drawn on ``matplotlib.figure.Figure`` with the Agg canvas, never
through pyplot, so nothing global is touched; PNGs carry no software or time
stamp, so the same data give the same bytes.

The subpackage holds one idea per module: :mod:`.analysis` (the analyses,
run once), :mod:`.figures` (the pictures) and :mod:`.page` (the HTML page and
writing every file).
"""

from __future__ import annotations

from atari5_spec_research.analyses.irt_output import format_irt, irt_as_dict, irt_estimation_text  # noqa: F401 (re-exported)
from atari5_spec_research.analyses.report.analysis import Analyses, analyse
from atari5_spec_research.analyses.report.figures import FIGURE_FILES, ICC_GAMES, PNG_METADATA, new_figure, require_matplotlib  # noqa: F401
from atari5_spec_research.analyses.report.page import HTML_FILE, report_html, write_report  # noqa: F401

__all__ = ["Analyses", "analyse", "format_irt", "irt_as_dict", "require_matplotlib", "write_report", "FIGURE_FILES", "HTML_FILE",
           "ICC_GAMES"]
