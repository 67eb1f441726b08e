"""Run the command line as `python -m doomagent`."""

from doomagent.cli import main

main()
