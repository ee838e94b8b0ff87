"""``python -m relialint``: the same command line as the ``relialint`` script."""

import sys

from relialint.cli import main

sys.exit(main())
