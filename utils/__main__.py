"""``python -m utils``: the ``atlas`` command (see :mod:`utils.cli`)."""

import sys

from .cli import main

sys.exit(main())
