"""Statistics, polars summaries, matplotlib charts and report rendering. No numba here."""
