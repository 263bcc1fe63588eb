"""simcli: balance studies of tabletop games by playing them millions of times."""

__version__ = "0.1.0"
