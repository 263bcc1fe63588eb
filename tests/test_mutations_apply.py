"""Every mutation in scripts/mutations/ still applies: its `old` text occurs exactly once
in its file, so `scripts/mutate_rules.py` breaks the rule it names instead of reporting the
mutation stale (a rules change that rewrites a mutated line must update the mutation)."""

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MUTATIONS = [(f.stem, m) for f in sorted((ROOT / "scripts" / "mutations").glob("*.toml"))
             for m in tomllib.loads(f.read_text(encoding="utf-8"))["mutation"]]


@pytest.mark.parametrize(("game", "m"), MUTATIONS, ids=[f"{g}: {m['name']}"
                                                        for g, m in MUTATIONS])
def test_each_mutation_applies_exactly_once(game, m):
    text = (ROOT / m["file"]).read_text(encoding="utf-8")
    assert text.count(m["old"]) == 1, f"{game}: '{m['name']}' no longer applies to {m['file']}"
    assert m["new"] != m["old"]
    for t in m.get("tests", []):
        assert (ROOT / t.split("::")[0]).is_file(), t
