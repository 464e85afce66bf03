"""Shared by the site tests: a package copy with a contributed algorithm whose name is hostile."""

import csv
import io

HOSTILE_ID = "hostile-agent"
HOSTILE_NAME = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'
                "'\"&amp; \u202eevil\u202c \u2066bidi\u2069 \u2028line</title></bdi>")
HOSTILE_SCORES = {"battle_zone": 40000, "double_dunk": 5, "name_this_game": 15000, "phoenix": 20000, "qbert": 20000}


def _append(path, rows):
    text = path.read_text(encoding="utf-8")
    header = text.splitlines()[0].split(",")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, header, lineterminator="\n")
    for row in rows:
        writer.writerow({column: row.get(column, "") for column in header})
    path.write_text(text + buffer.getvalue(), encoding="utf-8")


def add_hostile_algorithm(root):
    """Append an algorithm with a hostile name (script tags, quotes, bidi controls, U+2028) and its five scores."""
    _append(root / "data" / "algorithms.csv", [{
        "algorithm_id": HOSTILE_ID, "name": HOSTILE_NAME, "kind": "agent", "paper_title": "</script><b>paper",
        "year": "2025", "source_id": "pwc-2022", "in_paper_pool": "false", "sticky_action_probability": "0.25",
        "regime": "200M", "training_frames": "200000000"}])
    n = len((root / "data" / "scores.csv").read_text(encoding="utf-8").splitlines())
    _append(root / "data" / "scores.csv", [
        {"score_id": str(n + i), "algorithm_id": HOSTILE_ID, "game_id": game, "score": str(value),
         "raw_value": str(value), "source_id": "pwc-2022", "provenance": '<img src=x onerror="alert(1)">:1',
         "extra_training_data": "false", "use_in_fit": "true"}
        for i, (game, value) in enumerate(HOSTILE_SCORES.items())])
    return root
