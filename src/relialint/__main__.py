"""``python -m relialint``: the same command line as the ``relialint`` script."""

from relialint.cli import main

main()
