"""Results contributed by pull request: reading a submission, checking it, and merging it into data/ append-only.

A submission is a folder ``contributions/<id>/`` holding exactly two files:

* ``metadata.yaml``: the paper, where in it the numbers are, the evaluation
  protocol and the contributor (JSON Schema: schemas/contribution-metadata.schema.json);
* ``scores.csv``: ``game,score`` and optionally ``seed`` and ``std``
  (Table Schema: schemas/contribution-scores.schema.json).

The folder name is the new algorithm's id. A submission whose metadata names
``corrects: <algorithm-id>`` instead adds rows that supersede that algorithm's
numbers (a correction); nothing is ever deleted or rewritten.

:func:`check_submission` lists every problem (file, line, column, fix) and the
warnings a reviewer should read; :func:`add_submission` merges a clean
submission: new rows are appended to data/sources.csv, data/algorithms.csv and
data/scores.csv (existing bytes untouched), datapackage.json gets the new
hashes and a version bump (new data: minor; corrections only: patch) and
CHANGELOG.md an entry, all in one transaction (:mod:`atari5_spec.data.transaction`:
the package's lock is held from the first read, so concurrent merges never lose
one another), so that on any error or kill the package holds the state before or
after the merge.

Decisions (documented in CONTRIBUTING.md):

* seeds: the row without a seed is the published per-game number and the one
  fits use; per-seed rows are kept with use_in_fit=false. A game given only per
  seed gets a fit row derived with the metadata's statistic (mean, median,
  best-seed, single-seed), computed exactly from the decimal texts;
* line endings: LF and CRLF are accepted (git stores LF); a UTF-8 byte-order
  mark is rejected (the file is kept in the repository as provenance);
* size: each file at most MAX_FILE_BYTES (1 MiB), checked before reading; at
  most MAX_SEEDS_PER_GAME (100) runs per game and training budget;
* a score below random - 10 x (human - random) is rejected as a typo (sign,
  game or scale); the schema's finite-number rules apply as everywhere.

Where things are (one module per idea):

* reading a submission: :mod:`.files` (the folder and its two files),
  :mod:`.metadata` (metadata.yaml), :mod:`.scores_table` (scores.csv) and
  :mod:`.reading` (all of it into a :class:`Submission`);
* checking it against the data: :mod:`.checking` (the rows it adds, corrections);
* merging it: :mod:`.merging` (appending rows, all files or none);
* reviewing a pull request: :mod:`.report` (per changed submission its problems, or what it adds, its Atari-5
  estimate against its 57-game median and its rank; the text the pull-request bot posts);
* the privileged review of a pull request, by the base branch's code from git: :mod:`.pull_request` (every path
  outside new submission folders listed first as "needs a maintainer", each new folder's two files read from git into memory);
* look-alike names and near-copies of an entry already in data/: :mod:`.lookalikes`;
* :mod:`.model`: the limits and the records passed between them;
* learning curves to rows by one stated rule: :mod:`.curves`.

Layer 4 (beside ``analyses``). May import: ``atari5_spec.data``, ``atari5_spec.method``
and ``atari5_spec.scoring`` (the score-cell parser). Not ``analyses`` or ``cli``.
"""

# Every public name of the former single module stays importable from here.
from atari5_spec_maintainers.contributions.checking import PROTOCOL_KEYS, algorithm_row, merged_problems, origin_text, plan_merge, planned_scores, protocol_exclusion, protocol_note, seed_statistic, source_row
from atari5_spec_maintainers.contributions.files import folder_problems, read_text
from atari5_spec_maintainers.contributions.merging import add_submission, appended_text, check_submission, check_submissions, merged_dataset_problems, merged_texts
from atari5_spec_maintainers.contributions.metadata import formula_problem, metadata_problems, parse_yaml
from atari5_spec_maintainers.contributions.model import CHANGELOG, CURVE_COLUMNS, DERIVABLE, FAR_BELOW_RANDOM, FIT_MIN_GAMES, FORMULA_START, MAX_FILE_BYTES, METADATA_SCHEMA, MIN_TRAINING_FRAMES, NUMBER, SCORES_SCHEMA, STANDARD_EPISODE_FRAMES, SUBMISSION_FILES, Merge, PlannedRows, Report, Submission, SubmissionError, SubmittedScore, format_report
from atari5_spec_maintainers.contributions.reading import id_collision_problems, id_problems, read_submission
from atari5_spec_maintainers.contributions.scores_table import header_problems, parse_scores, score_text_problem

__all__ = ["MAX_FILE_BYTES", "SUBMISSION_FILES", "SubmittedScore", "Submission", "Merge", "Report",
           "SubmissionError", "read_submission", "id_collision_problems", "check_submission", "check_submissions",
           "add_submission", "plan_merge",
           "protocol_exclusion", "format_report",
           # the rest of the former module's public names
           "CHANGELOG", "CURVE_COLUMNS", "DERIVABLE", "FAR_BELOW_RANDOM", "FIT_MIN_GAMES", "FORMULA_START",
           "METADATA_SCHEMA", "MIN_TRAINING_FRAMES", "NUMBER", "PROTOCOL_KEYS", "SCORES_SCHEMA",
           "STANDARD_EPISODE_FRAMES", "PlannedRows", "algorithm_row", "appended_text", "folder_problems",
           "formula_problem", "header_problems", "id_problems", "merged_dataset_problems", "merged_problems",
           "merged_texts", "metadata_problems", "origin_text", "parse_scores", "parse_yaml", "planned_scores",
           "protocol_note", "read_text", "score_text_problem", "seed_statistic", "source_row"]
