"""``python -m hookgrad.demo``: run the demo (see :mod:`hookgrad.demo.cli`)."""

import sys

from hookgrad.demo.cli import main

sys.exit(main())
