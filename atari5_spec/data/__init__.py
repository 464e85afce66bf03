"""Layer 1, data: the data package on disk and every gate into it.

Holds the descriptor (``datapackage``), reading (``loading``), validation
against the Table Schemas (``validation``), the one path policy and the input
limits (``paths``, ``limits``), atomic writing (``writing``), the one write
transaction of every command that changes the package: lock, journal,
recovery (``transaction``), versioned changes (``versioning``), registries and
files agreeing (``registry``), worker processes ending with their parent
(``processes``), game and algorithm ids (``ids``),
verbatim source values (``rawvalues``), training budgets (``frames``), the
paper's published tables (``published``), the release artefact (``export``:
the package as a folder and a byte-reproducible zip) and the user-facing
error type (``errors``).

May import: nothing else of atari5_spec (only ``atari5_spec._version``).
Everything above may import it.
"""
