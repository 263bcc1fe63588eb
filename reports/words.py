"""Small wording helpers with no heavy imports (the CLI's start-up reads them)."""


def plural(n: object, word: str) -> str:
    """'1 thread', '2 threads' ('?' and other non-numbers take the plural)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
