"""The code version and its release date: one leaf module every layer may import (it imports nothing).

The code version (semantic versioning of the Python API, the command line and
the signature format) is independent of the data package version
(datapackage.json ``version``), which moves with every data change; docs/data.md
"Versioning" has the rule.
"""

__version__ = "1.2.0"
__release_date__ = "2026-11-25"
