"""Small wording helpers with no heavy imports (the CLI's start-up reads them)."""


def plural(n: object, word: str) -> str:
    """'1 thread', '2 threads' ('?' and other non-numbers take the plural)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def did_you_mean(word: str, known) -> str:
    """' (did you mean samsara?)' when a known name is close to `word`, else ''."""
    from difflib import get_close_matches

    close = get_close_matches(str(word).lower(), [str(k) for k in known], n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""
