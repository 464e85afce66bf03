"""``python -m atari5_spec.cli``: the same as the ``atari5-spec`` command."""

import sys

from .main import main

sys.exit(main())
