"""Helpers shared by the scoring tests: dataset scores of published algorithms, small CSV files."""

from __future__ import annotations

from pathlib import Path


def dataset_subset_scores(dataset, algorithm_id: str, games) -> dict[str, float]:
    """Raw scores of ``algorithm_id`` on ``games`` from the rows fits may use (use_in_fit, not superseded)."""
    from atari5_spec.method.training import candidate_rows

    rows = candidate_rows(dataset.scores, dataset.algorithms, dataset.games)
    rows = rows[(rows["algorithm_id"] == algorithm_id) & rows["game_id"].isin(list(games))]
    return {g: float(s) for g, s in rows.groupby("game_id")["score"].first().items()}


def write_csv(path: Path, header: str, lines) -> Path:
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path
