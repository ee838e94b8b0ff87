"""`python -m relialint.site`: generate the catalogue pages."""

import sys

from relialint.site.build import main

sys.exit(main())
