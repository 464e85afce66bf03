"""Layer 3, harness: an agent played on the games under a named evaluation protocol, one row per episode.

Holds the protocols as the data package states them (``protocols``: data/protocols.csv read into
:class:`Protocol`, and the emulator settings each one fixes), the POLICY a user names (``policies``:
``random``, ``module:callable`` or a Python file), the emulator side (``emulator``: ale-py imported only
here, only when an episode is played), the episode table written and read back (``episode_table``) and the
runs themselves, local processes or a Dask cluster, resumable (``runs``: :func:`play`). Nothing of ale-py or
Gymnasium is imported until :func:`play` runs, so ``score`` stays light.

May import: ``atari5_spec.data`` and ``atari5_spec.method``.
"""
