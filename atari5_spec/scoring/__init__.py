"""Layer 3, scoring: an agent's scores in, an Atari-5 estimate with honest intervals out.

Holds the one input gate for an agent's scores (``input``: dicts, records,
CSV/JSON files, pandas and numpy), the estimate with its prediction and seed
intervals and its signature (``estimate``: :func:`score`,
:func:`relative_score`), the 57-game prediction (``prediction``) and the
leaderboard (``ranking``). The scoring path never imports pandas unless it is
given pandas objects.

May import: ``atari5_spec.data`` and ``atari5_spec.method``.
"""
