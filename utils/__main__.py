"""``python -m utils``: the ``atlas`` command (see :mod:`utils.cli`).

Reached with another package's ``utils/__init__.py`` (``pip install utils`` writes one over ours), it
says so instead of failing on a missing name. A ``utils.py`` in the current folder is run by Python
instead of this file: nothing of ours runs then, which is why the README recommends ``atlas``.
"""

import sys

from grounded_dialogue_atlas import main

sys.exit(main())
