"""`python -m simcli` runs the same app as the `simcli` command."""

from simcli.cli import main

main()
