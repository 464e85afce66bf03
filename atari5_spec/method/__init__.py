"""Layer 2, method: the Atari-5 method and the numbers it pins.

Holds the reference implementation of SPEC.md (``reference``: normalisation, the transform, the estimate, the
interval arithmetic), the pinned interval tables (``interval_table``), the training
table and inclusion rule (``training``), the exact least-squares fits and
cross-validation (``fitting``), the subset search (``search/``), pinned
coefficient versions (``coefficients``: fit, write, read; ``pinned``: the fast
reader scoring uses; ``refit``: a new version as a versioned change), the
calibration of prediction intervals (``calibration``), the out-of-sample
evaluation that measures a version's error and pins its calibration
(``evaluation/``), the paper's tables (``reproduction``) and ``verification``,
which recomputes every pinned number.

May import: ``atari5_spec.data``. Never scoring, contributions, analyses or cli.
"""
