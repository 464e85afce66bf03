"""Layer 5, site: the static web home that ``atari5-spec site --out DIR`` writes.

Holds the page data taken from the data package, the method and the scoring
results (``pages``: the leaderboard, a page per algorithm and per game; ``scorer``:
the browser scorer's constants and interval rules, read from the pinned files
through the Python objects at build time, never retyped), the SVG charts drawn at
build time (``charts``), the HTML rendering with Jinja2 and inlined JSON
(``render``) and the build itself, written under the output policy (``build``).
Templates, the one script and the style sheet are package data
(``templates/``, ``static/``).

May import: ``atari5_spec.data``, ``atari5_spec.method``, ``atari5_spec.scoring``,
``atari5_spec_maintainers.contributions`` and ``atari5_spec_research.analyses``. Not ``cli``.
"""
