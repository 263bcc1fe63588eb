"""What `simcli games` lists: every game's players, policies, rule options and content."""

from __future__ import annotations

from typing import Any

from simcli.errors import UserError
from simcli.registry import GAMES


def catalog() -> list[dict[str, Any]]:
    """One entry per game."""
    entries = []
    for g in GAMES.values():
        content = []
        for name, path in g.content_files().items():
            try:
                c = g.load_content(path)
                content.append({"name": name, "assumed": c.assumed,
                                "description": c.description, "path": str(path)})
            except UserError as exc:  # a broken shipped file should show, not crash
                content.append({"name": name, "assumed": True, "description": f"BROKEN: {exc}",
                                "path": str(path)})
        entries.append({
            "name": g.name, "title": g.title,
            "players": f"{g.min_players}-{g.max_players}",
            "default_players": g.default_players, "default_n": g.default_n,
            "policies": dict(g.policies), "default_policy": g.default_policy,
            "rules": [{"name": r.name, "choices": list(r.choices), "default": r.default,
                       "help": r.help} for r in g.rules],
            "content": content,
            "search": None if g.search is None else {
                "policy": f"{g.search.name}[:BUDGET][:rollout=POLICY][:c=NUMBER]",
                "budget": g.search.budget, "exploration": g.search.exploration,
                "rollout": g.search.rollout, "help": g.search.help},
        })
    return entries
