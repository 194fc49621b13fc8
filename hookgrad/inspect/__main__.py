"""``python -m hookgrad.inspect``."""

import sys

from hookgrad.inspect.cli import main

sys.exit(main())
