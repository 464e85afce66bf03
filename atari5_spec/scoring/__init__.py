"""Layer 3, scoring: an agent's scores in, an Atari-5 estimate with honest intervals out.

Holds the one input gate for an agent's scores (``input``: dicts, records,
CSV/JSON files, pandas and numpy), the estimate with its prediction and seed
intervals (``estimate``: :func:`score`; ``relative``: :func:`relative_score`,
:func:`relative_scores`), the citation signature and its parser
(``signature``) and its check against an install (``signature_check``), what
to cite (``citation``), the 57-game prediction (``prediction``), the
leaderboard (``ranking``) and an agent against its leaderboard neighbours with
ratio intervals (``comparison``). The scoring path never imports pandas unless it is
given pandas objects.

May import: ``atari5_spec.data`` and ``atari5_spec.method``.
"""
