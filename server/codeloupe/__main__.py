"""``python -m codeloupe``: the command line (``codeloupe.cli``)."""

import sys

from .cli import main

sys.exit(main())
