"""Layer 4, analyses: questions asked of the data beyond the Atari-5 score.

Holds aggregates of published scores in the ALE paper's normalisations
(``aggregates``), aggregates of a researcher's own per-seed runs with
stratified bootstrap intervals (``runs_input``: the runs file's input gate;
``run_aggregates``; ``aggregate_figure``), item response theory
(``irt``, ``irt_output``), the structure analyses of the benchmark
(``structure``) and the HTML report with its figures (``report``).

May import: ``atari5_spec.data``, ``atari5_spec.method`` and
``atari5_spec.scoring``. Not ``contributions`` (a sibling) or ``cli``.
"""
