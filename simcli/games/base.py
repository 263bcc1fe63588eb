"""The contract every game implements so the engine, CLI and reports can drive it."""

from __future__ import annotations

import hashlib
import tomllib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from kernels.stat_table import Stat, zeros
from reports.metrics import Core
from reports.words import did_you_mean
from simcli.errors import UserError
from simcli.filesafe import CONTENT_LIMIT, read_regular
from simcli.textsafe import check_strings

CONTENT_ROOT = Path(__file__).parent / "content"


@dataclass(frozen=True)
class RuleOption:
    """A rule reading a user can switch with --rule name=value."""

    name: str
    choices: tuple[str, ...]
    default: str
    help: str


# The figures every game reports the same way; defined with the catalogue that reads them.
CoreStats = Core


MAX_BUDGET = 1_000_000


@dataclass(frozen=True)
class SearchSpec:
    """A game's search player (kernels/search.py): its policy name and defaults."""

    name: str = "mcts"
    budget: int = 400  # simulations per decision
    exploration: float = 0.7  # UCB1 constant (rewards are 0/1 wins)
    rollout: str = "random"  # the policy that finishes each simulated game
    help: str = ""
    study_budget: int = 100  # the budget `simcli study` plays on every seat; 0: not stronger
    # than the game's heuristics, so the study plays those (simcli/strongest.py)


@dataclass(frozen=True)
class PolicySpec:
    """A seat's policy: a plain policy name, or the search player with its options."""

    name: str
    budget: int = 0
    exploration: float = 0.0
    rollout: str = ""

    @property
    def is_search(self) -> bool:
        """Whether this seat searches (budget > 0)."""
        return self.budget > 0


@dataclass(frozen=True)
class OddsRequest:
    """What `simcli odds GAME ...` asked for; each game reads the options it declares in
    Game.odds_options (the CLI refuses the others)."""

    dice: tuple[str, ...] = ()
    attacker: int | None = None
    defender: int | None = None
    castle: bool = False
    mountain: bool = False
    table: bool = False
    exact: bool = False
    n: int = 1_000_000
    seed: int = 1
    threads: int = 1
    content: str | None = None
    out: Path | None = None
    force: bool = False
    progress: Any = None


@dataclass
class OddsResult:
    """A game's odds answer: a table to print and the data for --json."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str]
    data: dict[str, Any]


@dataclass(frozen=True)
class Content:
    """A loaded content file: its identity and the parsed, validated data."""

    name: str
    version: str
    path: Path
    sha256: str
    assumed: bool
    description: str
    data: Any = field(repr=False)

    def identity(self) -> dict[str, Any]:
        """Name, version, hash, assumed flag and path, for manifests and reports."""
        return {
            "name": self.name,
            "version": self.version,
            "sha256": self.sha256,
            "assumed": self.assumed,
            "description": self.description,
            "path": str(self.path),
        }


def line_of(text: str, needle: str, start: int = 0) -> int | None:
    """The number (from 1) of the first line after the first `start` lines that contains
    `needle`, or None."""
    for i, line in enumerate(text.splitlines()[start:], start=start + 1):
        if needle in line:
            return i
    return None


def at_line(path: Path, line: int | None) -> str:
    """'PATH line N' for error messages, or just PATH when the line is unknown."""
    return f"{path} line {line}" if line else str(path)


def read_content(path: Path, game: str) -> tuple[dict[str, Any], bytes, str, dict[str, Any]]:
    """Parse a content file for `game`: (document, its bytes, its text, its [content]
    table); a file made for another game is refused naming the line."""
    doc, raw = read_toml(path)
    text = raw.decode("utf-8")
    meta = doc.get("content", {})
    if not isinstance(meta, dict):
        raise UserError(f"{path}: [content] must be a table")
    name = meta.get("game", game)
    if name != game:
        raise UserError(f"{at_line(path, line_of(text, 'game ='))}: content is for '{name}', "
                        f"not {game}")
    return doc, raw, text, meta


def read_toml(path: Path, what: str = "content file") -> tuple[dict[str, Any], bytes]:
    """Parse a TOML file (`what` names it in errors); unreadable or malformed files raise
    UserError naming the line. Only an ordinary file of at most 8 MiB
    (filesafe.CONTENT_LIMIT) is read: a FIFO, a device (/dev/zero) or a folder is refused at
    once, never waited on or read without end."""
    raw = read_regular(Path(path), CONTENT_LIMIT, what)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        check_strings(data, str(path))
        return data, raw
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: malformed TOML: {exc}") from None
    except RecursionError:
        raise UserError(f"{path}: nested too deeply to read") from None


def sha256(raw: bytes) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(raw).hexdigest()


class Game(ABC):
    """One simulated game: its options, content, kernel driver and statistics."""

    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    policies: dict[str, str]
    default_policy: str
    search: SearchSpec | None = None  # the game's search player, when it has one
    rules: tuple[RuleOption, ...] = ()
    fixed_readings: tuple[str, ...] = ()  # readings of the rulebook that are not options
    supports_mirror: bool = False  # run_chunk(..., rotation=r) moves players and their luck
    own_metric_names: tuple[str, ...] = ()  # names own_metrics() returns
    # What win_rate.seatK means in this game (team games: the seat's team wins).
    seat_win_meaning: str = "wins outright"
    team_game: bool = False  # seats hold different roles: no fair share per seat
    default_n: int = 100_000
    chunk_size: int = 10_000
    row_columns: tuple[str, ...] = ()
    length_column: str = ""  # the row column holding the game's length (for replay --find)
    stats: tuple[Stat, ...] = ()  # the statistics table (declared in the kernel package)
    kernel: Any = None  # the compiled play_chunk (numba dispatcher): compile/cache figures
    # options a player can be denied (battle cards, card kinds, move kinds ...), in the
    # order of the kernel's forbid columns; `simcli value` values each of them
    options: tuple[str, ...] = ()
    value_n: int = 20_000  # playouts per run of `simcli value` at its defaults
    # fields of a content entry that are computed from its other fields (e.g. a printed
    # total of ratings): `simcli tune` recomputes them after editing a value
    content_derived: ClassVar[dict[str, Any]] = {}

    # --- content ---
    def content_files(self) -> dict[str, Path]:
        """Shipped content files by name."""
        folder = CONTENT_ROOT / self.name
        return {p.stem: p for p in sorted(folder.glob("*.toml"))}

    def content_path(self, spec: str | None) -> Path:
        """The file for a content name (shipped) or path; default content when None."""
        files = self.content_files()
        if spec is None:
            return files["standard"]
        if spec in files:
            return files[spec]
        path = Path(spec)
        if path.exists():
            return path
        names = ", ".join(files)
        raise UserError(f"content '{spec}' is neither a shipped content ({names}) nor a file")

    @abstractmethod
    def load_content(self, path: Path) -> Content:
        """Read and validate a content file."""

    # --- options ---
    def player_range(self) -> str:
        """'2' or '3-7': the player counts this game takes, in words."""
        if self.min_players == self.max_players:
            return str(self.min_players)
        return f"{self.min_players}-{self.max_players}"

    def check_players(self, players: int) -> None:
        """Reject a player count the game does not support."""
        if not self.min_players <= players <= self.max_players:
            raise UserError(
                f"{self.name} takes {self.player_range()} players, not {players}"
            )

    def policy_or_default(self, policy: str | None) -> str:
        """The policy a --policy option names (the game's default when not given); an empty
        one is refused, not taken for the default."""
        if policy is None:
            return self.default_policy
        if not policy.strip():
            raise UserError("--policy is empty; give a policy name (see `simcli games`)")
        return policy

    def check_policy(self, policy: str) -> None:
        """Reject an unknown policy name (or a malformed search policy)."""
        self.policy_spec(policy)

    def describe_policy(self, policy: str) -> str:
        """What a seat's policy does, in words (for manifests and reports)."""
        spec = self.policy_spec(policy)
        if not spec.is_search:
            return self.policies[policy]
        return (f"{self.search.help} {spec.budget} simulations per decision, exploration "
                f"constant {spec.exploration:g}, rollouts by {spec.rollout}.").strip()

    def policy_spec(self, policy: str) -> PolicySpec:
        """A seat's policy parsed: a plain policy name, or the search player with its
        options, `mcts[:BUDGET][:rollout=NAME][:c=FLOAT]` (defaults from `search`)."""
        if policy in self.policies:
            return PolicySpec(policy)
        head, _, rest = policy.partition(":")
        if self.search is None or head != self.search.name:
            known = ", ".join([*self.policies, *([f"{self.search.name}[:BUDGET]"]
                                                  if self.search else [])])
            hint = did_you_mean(head, [*self.policies, *([self.search.name] if self.search
                                                          else [])])
            raise UserError(f"unknown policy '{policy}' for {self.name}{hint}; choose from "
                            f"{known}")
        spec = PolicySpec(head, self.search.budget, self.search.exploration,
                          self.search.rollout)
        parts = rest.split(":") if policy != head else []
        if "" in parts:
            raise UserError(f"policy '{policy}': an empty part between colons; write "
                            f"{head}, {head}:BUDGET or {head}:BUDGET:rollout=NAME:c=FLOAT")
        given: set[str] = set()
        for part in parts:
            key, eq, value = part.partition("=")
            what = "budget" if not eq and key.isdigit() else key
            if what in given:
                raise UserError(f"policy '{policy}': the {what} is given twice")
            given.add(what)
            try:
                if not eq and key.isdigit():
                    spec = replace(spec, budget=int(key))
                elif key == "rollout" and value in self.policies:
                    spec = replace(spec, rollout=value)
                elif key == "c" and 0 < float(value) < 100:
                    spec = replace(spec, exploration=float(value))
                else:
                    raise ValueError
            except ValueError:
                raise UserError(f"policy '{policy}': '{part}' is not a budget, "
                                f"rollout=POLICY ({', '.join(self.policies)}) or c=NUMBER"
                                ) from None
        if not 1 <= spec.budget <= MAX_BUDGET:
            raise UserError(f"policy '{policy}': the budget must be 1-{MAX_BUDGET:,} "
                            f"simulations per decision")
        return spec

    def play_searching(self, search_play: Any, prep: Any, st: Any, ban: np.ndarray,
                       scratch: Any, table: Any, seed: int, first: int, count: int,
                       out: np.ndarray, max_rollout: int) -> int:
        """Play games first .. first+count-1 on state `st` with its searching seats
        (search_settings) through the game's kernels.<game>.search_play module, `scratch`
        being its workspace's game-specific part; returns the moves the searches
        simulated."""
        from kernels.search import PLAY_SEARCHING
        from simcli.games.handle import NO_FOUT, NO_OUT

        budget, c, rollout = self.search_settings(prep, st)
        ws = search_play.new_workspace(st, ban, int(budget.max()), scratch, table,
                                       self.sizes(prep))
        search_play.run_search(st, ws, ban, np.int64(PLAY_SEARCHING), np.uint64(seed),
                               np.int64(first), np.int64(count), out, NO_OUT, NO_FOUT,
                               budget, c, rollout, np.int64(max_rollout))
        return int(ws.moves[0])

    def search_arrays(self, seats: tuple[str, ...], lanes, size: int, codes: dict[str, int],
                      fallback: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per table seat s, holding player `lanes[s]` (after rotation), `size` entries:
        simulations per decision (0: the seat does not search), exploration constant and
        rollout policy code (`codes` by policy name, else `fallback`)."""
        budget = np.zeros(size, np.int64)
        c = np.zeros(size, np.float64)
        rollout = np.zeros(size, np.int64)
        for s, j in enumerate(int(x) for x in lanes):
            if j >= len(seats):  # a hand-built setup naming fewer seats than players
                continue
            spec = self.policy_spec(seats[j])
            if spec.is_search:
                budget[s] = spec.budget
                c[s] = spec.exploration
                rollout[s] = codes.get(spec.rollout, fallback)
        return budget, c, rollout

    def resolve_rules(self, pairs: list[str]) -> dict[str, str]:
        """Rule options from name=value strings, defaults filled in."""
        by_name = {r.name: r for r in self.rules}
        chosen = {r.name: r.default for r in self.rules}
        given: set[str] = set()
        for pair in pairs:
            name, sep, value = pair.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name:
                raise UserError(f"rule option '{pair}' must look like name=value")
            if name not in by_name:
                known = ", ".join(by_name) or "none"
                raise UserError(f"unknown rule option '{name}' for {self.name}"
                                f"{did_you_mean(name, by_name)}; known: {known}")
            if value not in by_name[name].choices:
                raise UserError(
                    f"rule option {name} takes {'|'.join(by_name[name].choices)}, not '{value}'"
                )
            if name in given:
                raise UserError(f"rule option {name} is given twice; give it once")
            given.add(name)
            chosen[name] = value
        return chosen

    # --- kernel driving ---
    @abstractmethod
    def prepare(
        self, content: Content, players: int, seats: tuple[str, ...], rules: dict[str, str]
    ) -> Any:
        """Kernel-ready inputs for a run (validated)."""

    def sizes(self, prep: Any) -> dict[str, int]:
        """Run-time sizes of the statistics table's named dimensions ("seat", "card"...)."""
        return {}

    def new_aggregates(self, prep: Any) -> dict[str, np.ndarray]:
        """Zeroed integer statistics for one chunk, from the statistics table."""
        return zeros(self.stats, self.sizes(prep))

    @abstractmethod
    def run_chunk(
        self, prep: Any, seed: int, first: int, count: int, aggs: dict[str, np.ndarray],
        rows: np.ndarray | None, rotation: int = 0, forbid: np.ndarray | None = None,
    ) -> None:
        """Play playouts first..first+count-1, adding to `aggs` (and filling `rows`). In
        rotation r player j (its policy and its own luck) sits at seat (j + r) % players
        (games with supports_mirror); forbid[s, o] denies seat s option o (games with
        options)."""

    def verdict_note(self, rules: dict[str, str]) -> str:
        """A sentence the study verdict must carry for this setup (e.g. that the verdict
        depends on a reading in force); empty when none."""
        return ""

    def remove_option(self, content: Content, option: int) -> Content | None:
        """The content with option `option`'s card taken out of the game (for `simcli
        value`), or None when the option is not a card that can be removed."""
        return None

    def option_in_game(self, content: Content, option: int) -> bool:
        """Whether option `option` can be used at all with this content (`simcli value`
        skips an option whose cards the content leaves out)."""
        return True

    def content_cards(self, content: Content) -> tuple[str, ...]:
        """The content's cards that `simcli value` values by swapping each for an average
        one (none unless the game says; Sixteen Samurai's samurai)."""
        return ()

    def swap_card(self, content: Content, card: int) -> Content:
        """The content with card `card` replaced by an average card of its kind."""
        raise NotImplementedError

    def card_rates(self, aggs: dict[str, np.ndarray]) -> list[tuple[Any, Any]]:
        """Per content card, from a run's aggregates: (the rate of the contests it fights
        that it wins, its owner's game win rate), each a reports.stats.Estimate."""
        raise NotImplementedError

    @abstractmethod
    def core_stats(self, aggs: dict[str, np.ndarray], players: int) -> CoreStats:
        """The figures every game shares (seat wins, shared wins, completion, length)."""

    # --- one game, step by step ---
    def new_game(self, seed: int = 1, playout: int = 0, players: int | None = None,
                 seats: tuple[str, ...] | list[str] | None = None,
                 rules: dict[str, str] | list[str] | None = None,
                 content: str | None = None, rotation: int = 0):
        """Playout `playout` of the run keyed by `seed`, as a GameHandle at its start (after
        setup): the same game `simcli run --seed SEED` plays as that playout."""
        players = players or (len(seats) if seats else self.default_players)
        self.check_players(players)
        seats = tuple(seats) if seats else (self.default_policy,) * players
        if len(seats) != players:
            raise UserError(f"{len(seats)} seats given for {players} players")
        for policy in seats:
            self.check_policy(policy)
        if isinstance(rules, dict):
            rules = [f"{k}={v}" for k, v in rules.items()]
        chosen = self.resolve_rules(list(rules or []))
        loaded = self.load_content(self.content_path(content))
        prep = self.prepare(loaded, players, seats, chosen)
        return self.handle(prep, seed, playout, rotation)

    def handle(self, prep: Any, seed: int, playout: int, rotation: int = 0):
        """A GameHandle for one playout of a prepared run (games override this)."""
        raise UserError(f"{self.name} cannot be played step by step yet")

    odds_options: tuple[str, ...] = ()  # the `simcli odds` options this game reads

    def odds(self, req: OddsRequest) -> OddsResult:
        """Battle odds (games with a battle worth asking about override this)."""
        raise UserError(f"odds are not available for {self.name}")

    def seats_won(self, rows: np.ndarray) -> np.ndarray:
        """won[g, s]: whether seat s won playout g, from --save-games rows (a `win_mask`
        column of seat bits when the game has one, else the `winner` seat, -1 for none)."""
        players = self.max_players
        if "win_mask" in self.row_columns:
            mask = rows[:, self.row_columns.index("win_mask")]
            return np.stack([(mask >> s) & 1 for s in range(players)], axis=1).astype(bool)
        w = rows[:, self.row_columns.index("winner")]
        return np.stack([w == s for s in range(players)], axis=1)

    def own_metrics(self, aggs: dict[str, np.ndarray], players: int) -> list[tuple[str, Any, str]]:
        """The game's own catalogue metrics: (name, reports.stats.Estimate, one-line meaning)
        and optionally a fourth element, the unit (reports.units; 'share' when left out)."""
        return []

    @abstractmethod
    def report(self, aggs: dict[str, np.ndarray], manifest: dict[str, Any], content: Content):
        """A reports.Summary for finished aggregates."""
