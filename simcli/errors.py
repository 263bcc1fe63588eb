"""Errors a user can cause and fix: reported as one line with exit code 2."""


class UserError(Exception):
    """Bad input (unknown game, bad option, malformed file): one line, exit code 2."""


class Interrupted(Exception):
    """The run was stopped (Ctrl-C) before it finished; nothing was kept."""
