"""The `simcli` command line: parse, validate, call one function, print."""

from __future__ import annotations

import gc
import math
import os
import signal
import sys
import textwrap
import threading
from pathlib import Path
from typing import Annotated

import typer
import typer.core
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from reports.words import plural
from simcli import __version__, compiling, engine
from simcli.errors import Interrupted, UserError
from simcli.jsonio import strict_json

# Typer up to 0.1x depends on click; later releases vendor it as typer._click.
_click = getattr(typer.core, "_click", None) or typer.core.click
ClickError = _click.exceptions.ClickException
UsageError = _click.exceptions.UsageError
ABORTS = tuple({getattr(_click.exceptions, "Abort", typer.Abort), typer.Abort})

err = Console(stderr=True, emoji=False)  # "mcts:100:c=2" must not show an emoji
out = Console(emoji=False)

MULTI_VALUE_OPTIONS = ("--dice",)
MAX_PLAYOUT = 2**62  # playout indices stay far inside the kernels' int64


def expand_multi_values(args: list[str]) -> list[str]:
    """Let `--dice 3 2` mean `--dice 3 --dice 2`: values after such an option each get it."""
    result: list[str] = []
    current = None
    for arg in args:
        if arg in MULTI_VALUE_OPTIONS:
            current = arg
            result.append(arg)
            continue
        if current and not arg.startswith("-") and result[-1] != current:
            result.append(current)
        elif arg.startswith("-"):
            current = None
        result.append(arg)
    return result


class SimcliGroup(TyperGroup):
    """Typer group with one-line errors (exit 2) and multi-value options."""

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        """Expand multi-value options before click parses them."""
        return super().parse_args(ctx, expand_multi_values(args))

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        """Run the app; user errors print one line and exit 2; Ctrl-C exits 130, SIGTERM
        (and SIGHUP) stop the same way and exit 128 + the signal number."""
        previous = _catch_stop_signals()
        try:
            with compiling.announced():
                rv = super().main(args=args, prog_name=prog_name or "simcli",
                                  complete_var=complete_var, standalone_mode=False, **extra)
        except UserError as exc:
            _error(str(exc))
        except ClickError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `simcli`: the help, as is
                print(exc.format_message())
                sys.exit(0)
            _error(" ".join(exc.format_message().split()))
        except (Interrupted, KeyboardInterrupt, *ABORTS) as exc:
            _interrupted(exc)
        except RecursionError:  # only input nested without end gets here (files, options)
            _error("the input is nested too deeply to read (a content, spec or run-folder "
                   "file?)")
        except Exception as exc:  # a full disk, permissions...: never a traceback
            from simcli.runfolder import write_failure

            failed = write_failure(exc, getattr(exc, "filename", None) or "a file")
            if failed is None:
                raise
            _error(str(failed))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if rv == 130:
            _interrupted(None)
        sys.exit(rv if isinstance(rv, int) else 0)


def _error(msg: str) -> None:
    from simcli.textsafe import inert

    err.print(f"simcli: error: {' '.join(inert(msg).split())}", highlight=False,
              markup=False, soft_wrap=True)
    sys.exit(2)


STOP_SIGNALS = {signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}
_stopped_by: list[int] = []


def _on_stop_signal(signum, frame) -> None:
    """SIGTERM and SIGHUP stop a run like Ctrl-C: the same clean-up, checkpoint kept."""
    if not _deferred(signum, frame):
        _stopped_by.append(signum)
        raise KeyboardInterrupt


def _on_interrupt(signum, frame) -> None:
    """Ctrl-C: KeyboardInterrupt, as Python's own handler, but never inside an llvmlite
    callback."""
    if not _deferred(signum, frame):
        raise KeyboardInterrupt


def _deferred(signum: int, frame) -> bool:
    """Whether the signal landed inside llvmlite (`frame` or a caller a few levels up) and
    was sent again for 50 ms later. llvmlite calls back into Python while it compiles; an
    exception raised there is printed and swallowed ("Exception ignored on calling ctypes
    callback") and the compile goes on."""
    for _ in range(6):
        if frame is None:
            return False
        if f"{os.sep}llvmlite{os.sep}" in frame.f_code.co_filename:
            threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
            return True
        frame = frame.f_back
    return False


def _catch_stop_signals() -> dict:
    """Handle SIGTERM/SIGHUP like Ctrl-C while the app runs (on the main thread, and only
    where nobody chose another handler, e.g. nohup); returns the handlers to restore."""
    _stopped_by.clear()
    _committed().clear()
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is signal.SIG_DFL:
            previous[sig] = signal.signal(sig, _on_stop_signal)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, _on_interrupt)
    return previous


def _committed() -> list:
    """Finished folders this command put in place (simcli.runfolder.COMMITTED, if loaded)."""
    mod = sys.modules.get("simcli.runfolder")
    return mod.COMMITTED if mod is not None else []


def _interrupted(exc: BaseException | None) -> None:
    msg = str(exc) if isinstance(exc, Interrupted) else "interrupted; nothing was written"
    done = _committed()
    if done:  # stopped after its folder was complete: say what is on disk
        msg = f"interrupted after {done[-1]} was complete; it is kept as written"
    if _stopped_by:
        sig = _stopped_by[-1]
        err.print(f"simcli: stopped by {STOP_SIGNALS[sig]}: {msg}", markup=False,
                  highlight=False, soft_wrap=True)
        sys.exit(128 + sig)
    err.print(f"simcli: {msg}", markup=False, highlight=False, soft_wrap=True)
    sys.exit(130)


def seed_option(help_text: str = "Random seed (0 .. 2**64-1); the same seed gives identical "
                                 "results."):
    """The --seed option every command shares: a whole number 0 .. 2**64-1."""
    return typer.Option("--seed", help=help_text, callback=_check_seed)


def _check_seed(value: int | None) -> int | None:
    from simcli.run import check_seed

    return value if value is None else check_seed(value)


def _yes_option():
    return typer.Option("--yes", "-y", help="Run even when the estimated time, measured on "
                                            "the first playouts, exceeds a day.")


# Options shared by several commands (one declaration, the same help everywhere).
MAX_THREADS = 1024


def _check_threads(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= MAX_THREADS:
        raise UserError(f"--threads must be 1 .. {MAX_THREADS}, not {value}")
    cores = os.cpu_count() or 1
    if value is not None and value > cores:
        err.print(f"simcli: note: --threads {value} is more than this machine's {cores} "
                  f"cores: the results are the same, the run is no faster", highlight=False,
                  markup=False, soft_wrap=True)
    return value


ThreadsOpt = Annotated[int | None, typer.Option("--threads", "-t", callback=_check_threads,
                                                help="Worker threads. Default: all cores.")]
def _quiet(value: bool) -> bool:
    if value:
        compiling.silence()
    return value


QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", callback=_quiet,
                                         help="No progress bar and no compile notices.")]
YesOpt = Annotated[bool, _yes_option()]
SeedOpt = Annotated[int, seed_option()]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p",
                                                help="Players. Default: the game's default.")]
ForceOpt = Annotated[bool, typer.Option("--force",
                                        help="Replace the folder if simcli wrote it "
                                        "and it holds nothing else.")]
RuleOpt = Annotated[list[str] | None, typer.Option(
    "--rule", metavar="NAME=VALUE", help="Rule option name=value; repeat for several.")]
FixedRuleOpt = Annotated[list[str] | None, typer.Option("--rule", metavar="NAME=VALUE",
                                                        help="Fixed rule option name=value.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print as JSON.")]
PolicyOpt = Annotated[str | None, typer.Option("--policy", help="Policy on every seat.")]
ContentOpt = Annotated[str | None, typer.Option("--content", help="Content name or path.")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", help="With --backend dask: a running scheduler's address.")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", help="With --backend dask: local worker processes.")]


def _time_limit(yes: bool):
    return engine.time_limit(None if yes else engine.DAY_S)


def _one_format(as_json: bool, as_markdown: bool) -> None:
    """Refuse --json with --markdown: both print to stdout, and only one would."""
    if as_json and as_markdown:
        raise UserError("--json and --markdown both print to stdout; choose one")


def _text(value) -> Text:
    """A user string for a rich table: printed as is, never read as markup."""
    return Text(str(value))


def _table(title: str, columns: tuple[str, ...] | list[str]) -> Table:
    table = Table(title=_text(title), title_justify="left")
    for i, col in enumerate(columns):  # a narrow terminal (80 columns when piped) wraps
        # the other columns, never cuts; the first (a metric or seat name) stays whole
        table.add_column(_text(col), overflow="fold", no_wrap=i == 0)
    return table


def _row(table: Table, values) -> None:
    table.add_row(*[_text(v) for v in values])


def _print_table(table: Table) -> None:
    """Print a table; one too wide for the terminal (a pipe reads as 80 columns) prints one
    row per line instead, every value named by its heading, so no cell wraps mid-word."""
    if _natural_width(table) <= out.width:
        out.print(table)
        return
    heads = [str(c.header) for c in table.columns]
    if table.title:
        out.print(str(table.title), highlight=False, markup=False)
    for r in range(table.row_count):
        cells = [str(c._cells[r]) for c in table.columns]
        rest = "; ".join(f"{h}: {v}" for h, v in zip(heads[1:], cells[1:], strict=True) if v)
        out.print(f"{cells[0]}: {rest}" if rest else cells[0], highlight=False, markup=False,
                  soft_wrap=True)


def _natural_width(table: Table) -> int:
    """The width a table takes with no cell wrapped."""
    widths = [max([len(str(c.header))] + [len(str(x)) for x in c._cells])
              for c in table.columns]
    return sum(widths) + 3 * len(widths) + 1


app = typer.Typer(
    cls=SimcliGroup, add_completion=True, no_args_is_help=True,
    pretty_exceptions_enable=False, rich_markup_mode=None,
    help="Balance studies of samurai-themed tabletop games by playing them millions of "
         "times. Every figure carries a 95% interval; the same seed gives identical results "
         "on any number of threads.",
)


class RichProgress(engine.Progress):
    """Progress on stderr: a live bar with playouts/s and ETA on a terminal; elsewhere (CI
    logs, `2> log`) a plain line every few seconds; nothing when disabled (--quiet)."""

    PLAIN_EVERY_S = 5.0

    def __init__(self, label: str, enabled: bool) -> None:
        self.enabled = enabled
        self.label = label
        self.bar: Progress | None = None
        self.task = None
        self.plain = not err.is_terminal
        self.last_line = 0.0
        self.staged = False

    def stage(self, label: str) -> None:
        """Name the runs that follow (a study's stage): bar and plain lines say it."""
        self.label = label
        self.staged = True
        if self.enabled and self.plain:
            print(f"simcli: {label}", file=sys.stderr, flush=True)

    def start(self, total: int) -> None:
        """Show the bar (or note the start time for plain lines)."""
        if not self.enabled:
            return
        if self.plain:
            self.last_line = 0.0
            return
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=err, transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task(self.label, total=total, rate="")

    def advance(self, done: int, total: int, elapsed: float) -> None:
        """Move the bar, or print a plain line when a few seconds have passed."""
        if self.bar is not None:
            rate = f"{done / elapsed:,.0f}/s" if elapsed > 0 else ""
            self.bar.update(self.task, completed=done, rate=rate)
        elif self.enabled and self.plain and elapsed - self.last_line >= self.PLAIN_EVERY_S:
            self.last_line = elapsed
            print(plain_progress(self.label, done, total, elapsed, self.staged),
                  file=sys.stderr, flush=True)

    def stop(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def plain_progress(label: str, done: int, total: int, elapsed: float,
                   staged: bool = False) -> str:
    """One progress line for logs: percent, playouts/s and the time left (of the stage,
    when the run is one stage of a study)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else float("nan")
    of = " for this stage" if staged else ""
    eta = f"about {engine.duration(left)} left{of}" if left == left else "time left unknown"
    return (f"simcli: {label}: {done:,} of {total:,} playouts "
            f"({100 * done / max(total, 1):.0f}%), {rate:,.0f} playouts/s, {eta}")


def _version(value: bool) -> None:
    if value:
        out.print(f"simcli {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Compile the kernels afresh, neither reading nor writing the "
        "compile cache (SIMCLI_CACHE_DIR, else the user cache folder).")] = False,
) -> None:
    """simcli: balance studies by simulation."""
    if no_cache:
        os.environ["SIMCLI_NO_CACHE"] = "1"


@app.command()
def warmup(
    game_names: Annotated[list[str] | None, typer.Argument(
        metavar="GAME", help="Games to compile. Default: every game.")] = None,
    search: Annotated[bool, typer.Option(
        "--search/--no-search", help="Also the search players' kernels.")] = True,
    jobs: Annotated[int | None, typer.Option(
        "--jobs", "-j", help="Processes compiling at once. Default: one per core.")] = None,
) -> None:
    """Compile the kernels ahead of need (a Docker image, a CI cache step): each game's
    fast path and search player, in parallel processes, into the compile cache."""
    from simcli.registry import GAMES, get_game
    from simcli.warmup import warmup as run_warmup

    names = [get_game(g).name for g in game_names] if game_names else list(GAMES)
    if jobs is not None and jobs <= 0:
        raise UserError(f"--jobs must be positive, not {jobs}")

    def report(r: dict) -> None:
        path = "fast path" if r["path"] == "fast" else "search player"
        how = (f"compiled in {r['wall_s']:.0f} s ({r['cpu_s']:.0f} CPU s)" if r["compiled"]
               else "already in the compile cache")
        err.print(f"simcli: warmup: {r['game']} {path}: {how}", markup=False,
                  highlight=False, soft_wrap=True)

    try:
        run_warmup(names, search, jobs, report)
    except RuntimeError as exc:
        raise UserError(str(exc)) from None


@app.command()
def games(
    game: Annotated[str | None, typer.Argument(help="Show this game only.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List games with their player counts, policies, rule options and content files (one
    game with GAME)."""
    from simcli.catalog import catalog
    from simcli.registry import get_game

    data = catalog()
    if game is not None:
        name = get_game(game).name
        data = [g for g in data if g["name"] == name]
    if as_json:
        out.print_json(strict_json(data))
        return

    def item(head: str, text: str) -> None:
        out.print(textwrap.fill(f"{head}: {text}", width=min(100, out.width),
                                initial_indent="    ", subsequent_indent="      "),
                  highlight=False, markup=False, soft_wrap=True)

    for g in data:
        players = get_game(g["name"]).player_range()
        out.print(f"{g['name']}: {g['title']} ({players} players, default "
                  f"{g['default_players']}; default playouts {g['default_n']:,})",
                  highlight=False, markup=False)
        out.print("  policies (--policy NAME, or --seats NAME,NAME,...):")
        for name, desc in g["policies"].items():
            item(name + (" (default)" if name == g["default_policy"] else ""), desc)
        if g.get("search"):
            sp = g["search"]
            item(sp["policy"], f"{sp['help']} Defaults: {sp['budget']} simulations, "
                 f"exploration {sp['exploration']:g}, rollout={sp['rollout']}.")
        out.print("  rule options (--rule name=value):")
        for r in g["rules"]:
            item(f"{r['name']} = {'|'.join(r['choices'])} (default {r['default']})", r["help"])
        out.print("  content files (--content NAME, or a path to your own file):")
        for c in g["content"]:
            item(f"{c['name']} ({'assumed' if c['assumed'] else 'as printed'})",
                 f"{c['description']} [{c['path']}]")
        out.print()


@app.command()
def content(
    game: Annotated[str, typer.Argument(help="Game whose content file to copy.")],
    copy: Annotated[Path, typer.Option("--copy", help="Write the content file here, to "
                                       "start a variant from (an existing file is never "
                                       "replaced).")],
    name: ContentOpt = None,
) -> None:
    """Copy a game's shipped content file (cards, board, numbers the rules leave to it) to
    edit and run with --content PATH."""
    from simcli.content import copy_to
    from simcli.registry import get_game

    source = get_game(game).content_path(name)
    copy_to(source, copy)
    out.print(f"Wrote {copy} (a copy of {source.name}); run it with --content {copy}",
              highlight=False, markup=False, soft_wrap=True)


@app.command()
def run(
    game: Annotated[str, typer.Argument(help="Game to simulate (see `simcli games`).")],
    n: Annotated[int | None, typer.Option("-n", "--playouts",
                                          help="Playouts (games) to play. Default: the "
                                               "game's default (1,000,000 for "
                                               "sixteen-samurai).")] = None,
    players: Annotated[int | None, typer.Option("--players", "-p",
                                                help="Number of players. Default: the "
                                                     "game's default, or the number of "
                                                     "--seats.")] = None,
    policy: Annotated[str | None, typer.Option("--policy",
                                               help="Policy on every seat (see `simcli "
                                                    "games`). Default: the game's own (greedy; "
                                                    "heuristic in samurai-sword).")] = None,
    seats: Annotated[str | None, typer.Option("--seats",
                                              help="One policy per seat, comma-separated, "
                                                   "e.g. greedy,random,random,random.")] = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    rule: RuleOpt = None,
    content: Annotated[str | None, typer.Option("--content",
                                                help="Content name (shipped) or path to a "
                                                     "content TOML. Default: "
                                                     "standard.")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o",
                                                 help="Run folder to write. Default: "
                                                      "runs/GAME-Pp-seedS-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    save_games: Annotated[bool, typer.Option("--save-games",
                                             help="Also stream one row per playout to "
                                                  "games/*.parquet.")] = False,
    chunk_size: Annotated[int | None, typer.Option("--chunk-size",
                                                   help="Playouts per chunk (does not "
                                                        "change results). Default: "
                                                        "automatic.")] = None,
    backend: Annotated[str, typer.Option("--backend", help="Where chunks run: local "
                                                           "(threads) or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="With --backend dask: "
                                                  "address of a running scheduler, e.g. "
                                                  "tcp://host:8786.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="With --backend dask and no "
                                                "--scheduler: start a local cluster of this "
                                                "many worker processes. Default: one per "
                                                "thread.")] = None,
    checkpoint: Annotated[bool, typer.Option("--checkpoint", help="Keep progress in "
                                             "OUT.partial so that `simcli resume OUT` can "
                                             "finish a stopped run.")] = False,
    target_ci: Annotated[float | None, typer.Option("--target-ci", help="Play in rounds "
                                                    "until every seat win rate's 95% "
                                                    "half-width is at most this (e.g. 0.002 "
                                                    "= +-0.2 points), or -n playouts (default "
                                                    "with this option: 20 x the game's "
                                                    "default).")] = None,
    mirror: Annotated[bool, typer.Option("--mirror", help="Play every deal once per seat "
                                         "rotation, each player carrying its own luck: a "
                                         "paired estimate of seat advantage. -n counts "
                                         "deals.")] = False,
    html: Annotated[bool, typer.Option("--html", help="Also write report.html (one "
                                       "self-contained file).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a machine-readable summary "
                                                         "on stdout.")] = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """Run a balance study: play N games, write a run folder, print a summary."""
    from simcli.run import build_config, run_game

    g, cfg = build_config(game, players=players, policy=policy, seats=seats, n=n, seed=seed,
                          threads=threads, rules=rule or [], content=content, out=out_dir,
                          force=force, save_games=save_games, chunk_size=chunk_size,
                          backend=backend, scheduler=scheduler, workers=workers,
                          checkpoint=checkpoint, mirror=mirror, target_ci=target_ci,
                          html=html, yes=yes)
    progress = RichProgress(f"{g.name} {cfg.players}p", enabled=not quiet)
    _show(run_game(cfg, progress), as_json)


@app.command()
def resume(
    folder: Annotated[Path, typer.Argument(help="The --out folder of a checkpointed run "
                                                "that was stopped.")],
    threads: Annotated[int | None, typer.Option("--threads", "-t", callback=_check_threads,
                                                help="Worker threads. Default: as the run "
                                                     "started.")] = None,
    backend: Annotated[str | None, typer.Option("--backend", help="local or dask. Default: "
                                                "as the run started.")] = None,
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a machine-readable summary "
                                                         "on stdout.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Finish a checkpointed run; the numbers equal those of an uninterrupted run."""
    from simcli.run import resume_run

    if backend not in (None, "local", "dask"):
        raise UserError(f"--backend takes local or dask, not '{backend}'")
    progress = RichProgress("resume", enabled=not quiet)
    _show(resume_run(folder, progress, threads=threads, backend=backend,
                       scheduler=scheduler, workers=workers), as_json)


def _show(result, as_json: bool) -> None:
    if as_json:
        out.print_json(strict_json({
            "run_folder": str(result.folder), "manifest": result.manifest,
            "summary": result.summary.json, "findings": result.summary.findings,
        }))
        return
    _print_summary(result)


def _print_summary(result) -> None:
    s = result.summary
    m = result.manifest
    table = _table(s.title, s.headline.columns)
    for row in s.headline.iter_rows():
        _row(table, row)
    _print_table(table)
    t = m.get("timing", {})

    def num(key: str, fmt: str) -> str:
        v = t.get(key)
        return "?" if not isinstance(v, int | float) else format(v, fmt)

    threads = plural(m.get("threads", "?"), "thread")
    out.print(f"{m['playouts']:,} playouts, seed {m['seed']}, {threads}: "
              f"compile {num('compile_s', '.2f')} s, run {num('run_s', '.2f')} s "
              f"({num('playouts_per_s', ',.0f')} playouts/s)", highlight=False, markup=False)
    for f in s.findings:
        out.print(f"- {f}", highlight=False, markup=False)
    out.print(f"Report: {result.folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def replay(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game to replay (see `simcli games`), or a "
                                             "finished run folder: its game, seed, players, "
                                             "seats, rules and content.")],
    seed: Annotated[int, seed_option("The run's random seed (0 .. 2**64-1).")] = 1,
    playout: Annotated[int, typer.Option("--playout", help="Which playout of the run (from "
                                         "0).")] = 0,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Number of players. "
                                                "Default: the game's default.")] = None,
    policy: PolicyOpt = None,
    seats: Annotated[str | None, typer.Option("--seats", help="One policy per seat, "
                                              "comma-separated.")] = None,
    rule: RuleOpt = None,
    content: Annotated[str | None, typer.Option("--content", help="Content name or path. "
                                                "Default: standard.")] = None,
    find: Annotated[str | None, typer.Option("--find", help="Replay the first playout whose "
                                             "row meets this, e.g. 'winner=4' (seats from "
                                             "1) or 'length>40'; several joined by "
                                             "commas.")] = None,
    search: Annotated[int, typer.Option("--search", help="With --find: how many playouts "
                                        "to look through.")] = 100_000,
    options: Annotated[bool, typer.Option("--options", help="Under each decision, list "
                                          "every legal action in words.")] = False,
    seen_by: Annotated[int | None, typer.Option("--seen-by", help="At each decision of "
                                                "this seat (from 1), show what it "
                                                "saw.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the events and result as "
                                          "JSON.")] = False,
) -> None:
    """Print one simulated game as a readable log: playout I of `simcli run --seed S`."""
    from simcli.replay import render
    from simcli.replay import replay as replay_game
    from simcli.run import build_config

    if not 0 <= playout < MAX_PLAYOUT:
        raise UserError(f"--playout must be 0 .. 2**62-1, not {playout}")
    if not 0 < search <= MAX_PLAYOUT:
        raise UserError(f"--search must be 1 .. 2**62, not {search}")
    if find is not None and not find.strip():
        raise UserError("--find is empty; give a condition such as winner=2 or length>40")
    given = {k for k in ("search", "playout") if ctx.get_parameter_source(k).name != "DEFAULT"}
    if "search" in given and find is None:
        raise UserError("--search counts the playouts --find looks through; give --find too")
    if "playout" in given and find is not None:
        raise UserError("--playout and --find both choose the game; give one")
    if Path(game).is_dir():  # a run folder: replay its own setup
        setup = ("seed", "players", "policy", "seats", "rule", "content")
        mixed = [k for k in setup if ctx.get_parameter_source(k).name != "DEFAULT"]
        if mixed:
            raise UserError(f"a run folder fixes the setup; leave out --{mixed[0]} (or name "
                            f"the game instead of the folder)")
        folder = Path(game)
        man = run_setup(folder)
        game, seed, players = man["game"], man["seed"], man["players"]
        seats = ",".join(man["seats"])
        rule = [f"{k}={v}" for k, v in man["rules"].items()]
        copied = folder / "content.toml"  # the run's own copy of its content file
        content = str(copied) if copied.is_file() else man["content"]["name"]
    g, cfg = build_config(game, players=players, policy=policy, seats=seats, n=1, seed=seed,
                          threads=1, rules=rule or [], content=content, out=Path("unused"),
                          force=False, save_games=False, chunk_size=None)
    doc = replay_game(g, cfg, playout, find, search, options, seen_by)
    if as_json:
        out.print_json(strict_json(doc))
        return
    out.print(render(doc), highlight=False, markup=False, soft_wrap=True)


def run_setup(folder: Path) -> dict:
    """The setup of a finished `simcli run` folder (its manifest checked), for replay."""
    from simcli.runfolder import load_finished

    man, _ = load_finished(folder)
    if man.get("kind", "run") != "run":
        raise UserError(f"{folder} is a {man.get('kind')} folder; replay takes a run folder")
    return man


@app.command()
def skill(
    game: Annotated[str, typer.Argument(help="Game to measure.")],
    players: PlayersOpt = None,
    policy: Annotated[str | None, typer.Option("--policy", help="Comma-separated policies "
                                               "to measure against random players. "
                                               "Default: every non-random policy.")] = None,
    n: Annotated[int, typer.Option("-n", help="Seeds; each is played once per seat "
                                              "arrangement.")] = 20_000,
    rule: RuleOpt = None,
    content: ContentOpt = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Also write the table "
                                                 "and a report to this folder.")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """Skill gap: each non-random policy against random players, from every seat on the
    same seeds, with a paired 95% interval."""
    from simcli.registry import get_game
    from simcli.skill import describe, skill_table, write_skill

    g = get_game(game)
    if not 0 < n <= MAX_PLAYOUT:
        raise UserError(f"-n must be a positive number of seeds up to 2**62, not {n}")
    chosen = None
    if policy is not None:
        chosen = [p.strip() for p in policy.split(",")]
        if "" in chosen:
            raise UserError("--policy has an empty entry; give policies separated by single "
                            "commas, e.g. greedy,mcts:100")
    loaded = g.load_content(g.content_path(content))
    rules = g.resolve_rules(rule or [])
    with _time_limit(yes):
        rows = skill_table(g, players or g.default_players, n, seed,
                           threads or engine.default_threads(),
                           RichProgress("skill", enabled=not as_json), chosen, loaded, rules)
    folder = (write_skill(out_dir, force, g, rows, loaded, rules, seed)
              if out_dir is not None else None)
    if as_json:
        out.print_json(strict_json({"game": g.name, "skill": rows,
                                    "folder": None if folder is None else str(folder)}))
        return
    for r in rows:
        out.print(f"- {describe(r)}", highlight=False, markup=False)
    if folder is not None:
        out.print(f"Skill: {folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def study(
    quick: Annotated[bool, typer.Option("--quick", help="A shorter version (target "
                                        "half-width 0.01 instead of 0.005).")] = False,
    target_ci: Annotated[float | None, typer.Option("--target-ci", help="Target 95% "
                                                    "half-width of every seat win rate. "
                                                    "Default: 0.005 (0.01 with "
                                                    "--quick).")] = None,
    games: Annotated[str | None, typer.Option("--games", help="Comma-separated games. "
                                              "Default: every game.")] = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Study folder. Default:"
                                                 " runs/study-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    converge: Annotated[bool, typer.Option(
        "--converge", help="Also play the strongest check at 4x its search budget on the "
        "same 600 deals and say whether the verdict still moves with skill (minutes per "
        "game; the study says how many).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdicts as "
                                                         "JSON.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Every game at its default players and policies, to a target precision: one combined
    balance report (Markdown and HTML) with a verdict per game."""
    from simcli.study import run_study

    folder, entries = run_study(
        out=out_dir, force=force, quick=quick, target_ci=target_ci,
        games=None if games is None else [g.strip() for g in games.split(",")], seed=seed,
        threads=threads, converge=converge,
        progress=RichProgress("study", enabled=not quiet and not as_json))
    verdicts = {e["game"]: e["verdict"] for e in entries}
    if as_json:
        out.print_json(strict_json({"folder": str(folder), "verdicts": verdicts, "games": {
            e["game"]: {"verdict": e["verdict"], "verdict_word": e["row"]["verdict"],
                        **e["fairness"].as_json(),
                        "skill": [{k: r[k] for k in ("policy", "win_rate", "ci_low", "ci_high",
                                                      "baseline", "edge", "edge_ci_low",
                                                      "edge_ci_high")} for r in e["skill"]],
                        "strongest": {k: v for k, v in e["strongest"].items()
                                      if k != "text"}}
            for e in entries}}))
        return
    for text in verdicts.values():
        out.print(f"- {text}", highlight=False, markup=False)
    out.print(f"Report: {folder / 'report.md'} and {folder / 'report.html'}", highlight=False,
              markup=False)


@app.command()
def report(
    folder: Annotated[Path, typer.Argument(help="A finished run, sweep, ladder, tune or "
                                           "value folder.")],
    html: Annotated[bool, typer.Option("--html", help="Also write report.html: one "
                                       "self-contained file with charts and a methods "
                                       "section (a ladder, tune or value folder always "
                                       "gets one; a sweep has none).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Re-render tables, charts and report.md (and report.html) of a finished run, sweep,
    ladder, tune or value folder from its saved statistics."""
    from simcli.run import rerender
    from simcli.runfolder import AGGREGATES, MANIFEST, read_json

    manifest = folder / MANIFEST
    doc = read_json(manifest, "manifest") if manifest.is_file() else None
    if isinstance(doc, dict) and doc.get("kind") == "sweep":
        from simcli.sweep import rerender_sweep

        if html:
            raise UserError("a sweep's report is report.md; --html is for run folders (a "
                            "ladder, tune or value folder always gets report.html)")
        res = rerender_sweep(folder)
        if as_json:
            out.print_json(strict_json({"folder": str(folder), "table": res.table.to_dicts()}))
            return
        _print_sweep(res)
        return
    if isinstance(doc, dict) and doc.get("kind") == "value":
        from simcli.value import rerender_value

        res = rerender_value(folder)
        if as_json:
            import polars as pl

            verdicts = pl.read_parquet(folder / "tables" / "verdicts.parquet").to_dicts()
            out.print_json(strict_json({"folder": str(folder),
                                        "restricted": res.restricted.to_dicts(),
                                        "cards": res.cards.to_dicts(), "verdicts": verdicts}))
            return
        out.print(f"Value: {folder / 'report.md'} and {folder / 'report.html'}",
                  highlight=False, markup=False)
        return
    if isinstance(doc, dict) and doc.get("kind") == "ladder":
        from simcli.ladder import rerender_ladder, trend

        lad = rerender_ladder(folder)
        if as_json:
            out.print_json(strict_json({"folder": str(folder), "ratings": lad.ratings.to_dicts(),
                                        "balance": lad.balance.to_dicts(),
                                        "balance_vs_skill": trend(lad.balance, lad.ratings)}))
            return
        _print_ladder(folder, lad.manifest, lad.ratings, lad.balance)
        return
    if isinstance(doc, dict) and doc.get("kind") == "tune":
        from simcli.tune import rerender_tune

        tuned = rerender_tune(folder)
        if as_json:
            out.print_json(strict_json({"folder": str(folder), "confirm": tuned.confirm,
                                        "trace": tuned.table.to_dicts()}))
            return
        _print_tune(folder, tuned.confirm)
        return
    if isinstance(doc, dict) and doc.get("kind") == "study" and not (folder / AGGREGATES).exists():
        games = sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file())
        one = folder / (games[0] if games else "GAME")
        raise UserError(f"{folder} is a study folder: each game in it is a run folder that "
                        f"simcli report re-renders (simcli report {one}); the study's own "
                        f"report.md is written only by simcli study")
    result = rerender(folder, html=html)
    if as_json:
        out.print_json(strict_json({"run_folder": str(folder), "summary": result.summary.json,
                                   "findings": result.summary.findings}))
        return
    _print_summary(result)


@app.command()
def sweep(
    game: Annotated[str, typer.Argument(help="Game to sweep.")],
    vary: Annotated[list[str], typer.Option("--vary", metavar="NAME=V1,V2",
                                            help="A varied parameter: players=2,3,4"
                                            " | policy=greedy,random | seats=greedy/random,"
                                            "random/greedy | content=standard,other | "
                                            "rule.NAME=a,b. Repeat for a grid.")],
    n: Annotated[int | None, typer.Option("-n", "--playouts", help="Playouts per cell. "
                                          "Default: the game's default.")] = None,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Players when not "
                                                "varied.")] = None,
    policy: Annotated[str | None, typer.Option("--policy", help="Policy on every seat when "
                                               "not varied.")] = None,
    seats: Annotated[str | None, typer.Option("--seats", help="One policy per seat, "
                                              "comma-separated, when neither players, "
                                              "policy nor seats are varied.")] = None,
    rule: FixedRuleOpt = None,
    content: Annotated[str | None, typer.Option("--content", help="Content when not "
                                                "varied.")] = None,
    mirror: Annotated[bool, typer.Option("--mirror", help="Play each deal once per seat "
                                         "rotation in every cell (as `simcli run "
                                         "--mirror`).")] = False,
    target_ci: Annotated[float | None, typer.Option("--target-ci", help="Play every cell "
                                                    "until each seat win rate's 95% "
                                                    "half-width is at most this (-n is then "
                                                    "the cap).")] = None,
    seed: Annotated[int, seed_option("Random seed, the same for every cell (0 .. "
                                      "2**64-1).")] = 1,
    threads: ThreadsOpt = None,
    backend: Annotated[str, typer.Option("--backend", help="local or dask.")] = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Sweep folder. Default:"
                                                 " runs/sweep-GAME-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """A grid of runs: every metric per cell, charts, differences from the first cell."""

    from simcli.sweep import run_sweep

    with _time_limit(yes):
        res = run_sweep(game, vary, n=n, seed=seed, threads=threads, players=players,
                        policy=policy, seats=seats, mirror=mirror, target_ci=target_ci,
                        rules=rule or [], content=content, out=out_dir,
                        force=force, backend=backend, scheduler=scheduler, workers=workers,
                        progress=RichProgress("sweep cell", enabled=not quiet))
    if as_json:
        out.print_json(strict_json({"folder": str(res.folder), "manifest": res.manifest,
                                   "table": res.table.to_dicts()}))
        return
    _print_sweep(res)


def _print_sweep(res) -> None:
    """A sweep's headline table and where its report is."""
    from simcli.sweep import SWEEP_COLUMNS, display_rows

    table = _table(f"sweep of {res.manifest['game']}", SWEEP_COLUMNS)
    for cells in display_rows(res.table):
        _row(table, cells)
    _print_table(table)
    out.print(f"Sweep: {res.folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def ladder(
    game: Annotated[str, typer.Argument(help="Game to rate policies in.")],
    policies: Annotated[str, typer.Option("--policies", help="Comma-separated policies, e.g. "
                                          "random,greedy,mcts:100,mcts:1000. Rated 0: "
                                          "random, or the first listed without it.")],
    n: Annotated[int | None, typer.Option("-n", help="Deals per pairing (each played once "
                                          "per seat rotation) and self-play games per "
                                          "policy. Default: the game's default / 50.")] = None,
    players: PlayersOpt = None,
    rule: RuleOpt = None,
    content: ContentOpt = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Ladder folder. "
                                                 "Default: runs/ladder-GAME-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    converge: Annotated[bool, typer.Option(
        "--converge", help="Also play the highest-rated search policy on every seat at 4x "
        "its budget on the same 600 deals and say whether its verdict still moves.")
    ] = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """Rate policies against each other (Elo; random, or else the first policy, at 0) and
    show the game's balance at each level of play."""
    from simcli.ladder import run_ladder, tables, trend

    if n is not None and not 0 < n <= MAX_PLAYOUT:
        raise UserError(f"-n must be a positive number of deals up to 2**62, not {n}")
    with _time_limit(yes):
        res = run_ladder(game, policies.split(","), n=n, players=players, seed=seed,
                         threads=threads, rules=rule or [], content=content, out=out_dir,
                         force=force, converge=converge,
                         progress=RichProgress("ladder", enabled=not quiet))
    rt, bt = tables(res.ratings, res.balance)
    if as_json:
        out.print_json(strict_json({"folder": str(res.folder), "manifest": res.manifest,
                                    "ratings": rt.to_dicts(), "balance": bt.to_dicts(),
                                    "balance_vs_skill": trend(bt, rt)}))
        return
    _print_ladder(res.folder, res.manifest, rt, bt)


def _print_ladder(folder: Path, manifest: dict, rt, bt) -> None:
    """A ladder's ratings and balance table, its balance-vs-skill sentence and where its
    report is (for ladder and report)."""
    from simcli.ladder import trend

    table = _table(f"ladder of {manifest['game']}", ("policy", "Elo", "95% interval",
                                                     "balance", "flagged seats"))
    interval = {r["policy"]: (r["ci_low"], r["ci_high"]) for r in rt.iter_rows(named=True)}
    for r in bt.sort("elo", descending=True).iter_rows(named=True):
        lo, hi = interval[r["policy"]]
        _row(table, (r["policy"], f"{r['elo']:+.0f}", f"{lo:+.0f} to {hi:+.0f}",
                     f"{r['balance']:.3f}", r["flagged_seats"] or "none"))
    _print_table(table)
    out.print(trend(bt, rt), highlight=False, markup=False, soft_wrap=True)
    conv = manifest.get("convergence")
    if conv:
        out.print(conv["text"], highlight=False, markup=False, soft_wrap=True)
    out.print(f"Ladder: {folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def value(
    game: Annotated[str, typer.Argument(help="Game whose options to value.")],
    players: PlayersOpt = None,
    policy: Annotated[str | None, typer.Option("--policy", help="Policy on every seat. "
                                               "Default: the game's default.")] = None,
    n: Annotated[int | None, typer.Option("-n", help="Playouts per run. Default: the "
                                          "game's own (sized for under 2 minutes).")] = None,
    rule: RuleOpt = None,
    content: ContentOpt = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Folder. Default: "
                                                 "runs/value-GAME-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    dominant: Annotated[float, typer.Option(
        "--dominant-points", min=0, max=100, help="An option is dominant when denying it "
        "costs more than this many points beyond its interval and removing it shifts the "
        "balance.")] = 10.0,
    gap: Annotated[float, typer.Option(
        "--gap-points", min=0, max=100, help="An option or card is too strong (weak) when "
        "set apart from the next one by more than its interval and at least this many "
        "points.")] = 2.0,
    cards: Annotated[bool, typer.Option(
        "--cards/--no-cards", help="Also value each content card (Sixteen Samurai's "
        "samurai) by swapping it for an average card.")] = True,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """What each card, ability and optional action is worth: the win rate lost by a player
    denied it on the same seeds, the effect of removing it from the game, and a verdict
    (dominant, too strong, weak, sound) against the stated thresholds."""
    import polars as pl

    from reports.units import difference_interval_text, points_text
    from simcli.value import run_value

    if n is not None and not 0 < n <= MAX_PLAYOUT:
        raise UserError(f"-n must be a positive number of playouts up to 2**62, not {n}")
    with _time_limit(yes):
        res = run_value(game, players=players, policy=policy, n=n, seed=seed, threads=threads,
                        rules=rule or [], content=content, out=out_dir, force=force,
                        dominant=dominant / 100, gap=gap / 100, cards=cards,
                        progress=RichProgress("value", enabled=not quiet))
    verdicts = pl.read_parquet(res.folder / "tables" / "verdicts.parquet")
    if as_json:
        out.print_json(strict_json({"folder": str(res.folder), "manifest": res.manifest,
                                    "restricted": res.restricted.to_dicts(),
                                    "removal": res.removal.to_dicts(),
                                    "verdicts": verdicts.to_dicts(),
                                    "cards": res.cards.to_dicts()}))
        return
    table = _table(f"value of options in {res.manifest['game']} (all seats)",
                   ("option", "value", "95% interval", "effect", "verdict"))
    for r in verdicts.iter_rows(named=True):
        _row(table, (r["option"], points_text(r["value"]),
                     difference_interval_text(r["ci_low"], r["ci_high"], "rate"), r["verdict"],
                     r["strength"]))
    _print_table(table)
    if res.cards.height:
        shown = res.cards.filter(pl.col("verdict").is_in(["too strong", "too weak"]))
        ct = _table("cards set apart (each swapped for an average card)",
                    ("card", "value", "95% interval", "verdict"))
        for r in (shown if shown.height else res.cards.head(3)).iter_rows(named=True):
            _row(ct, (r["card"], points_text(r["value"]),
                      difference_interval_text(r["ci_low"], r["ci_high"], "rate"),
                      r["verdict"]))
        _print_table(ct)
    out.print(f"Value: {res.folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def tune(
    game: Annotated[str, typer.Argument(help="Game to tune.")],
    param: Annotated[list[str], typer.Option("--param", metavar="PATH=RANGE",
                                             help="PATH=LOW..HIGH or "
                                             "PATH=a,b,c: a content path (e.g. clan.size "
                                             "or battle.uma in sixteen-samurai, "
                                             "'roster.samurai[NAME].FIELD' for one entry of "
                                             "a list) or rule.NAME. Repeat for several.")],
    objective: Annotated[str, typer.Option("--objective", help="'balance' (highest balance "
                                           "index) or METRIC=TARGET (e.g. "
                                           "win_rate.seat1=0.25).")] = "balance",
    players: PlayersOpt = None,
    policy: PolicyOpt = None,
    rule: FixedRuleOpt = None,
    content: Annotated[str | None, typer.Option("--content", help="Content to start from "
                                                "(name or path).")] = None,
    n: Annotated[int | None, typer.Option("-n", help="Playouts per candidate in the first "
                                          "round (doubling each round).")] = None,
    budget: Annotated[int | None, typer.Option("--budget", help="Playouts the search may "
                                               "spend (the confirmation run comes on top). "
                                               "Default: 200 x n.")] = None,
    seed: SeedOpt = 1,
    threads: ThreadsOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Folder. Default: "
                                                 "runs/tune-GAME-TIMESTAMP.")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """Search content numbers or rule options for the setting that best meets an
    objective (successive halving on common seeds, then a confirmation run)."""
    from simcli.tune import run_tune

    for name, v in (("-n", n), ("--budget", budget)):
        if v is not None and not 0 < v <= MAX_PLAYOUT:
            raise UserError(f"{name} must be a positive number of playouts, not {v}")
    with _time_limit(yes):
        res = run_tune(game, param, objective, players=players, policy=policy,
                       rules=rule or [], content=content, n=n, budget=budget, seed=seed,
                       threads=threads, out=out_dir, force=force,
                       progress=RichProgress("tune", enabled=not quiet))
    if as_json:
        out.print_json(strict_json({"folder": str(res.folder), "manifest": res.manifest,
                                    "confirm": res.confirm, "trace": res.table.to_dicts()}))
        return
    _print_tune(res.folder, res.confirm)


def _print_tune(folder: Path, c: dict) -> None:
    """A tune's confirmed best setting and where its content and report are (for tune and
    report)."""
    from simcli.tune import confirm_text

    out.print(f"Best: {c['setting']} -> {confirm_text(c)} on {c['playouts']:,} fresh playouts",
              highlight=False, markup=False, soft_wrap=True)
    out.print(f"Content with the setting: {folder / 'best.toml'}; report: "
              f"{folder / 'report.md'}", highlight=False, markup=False)


@app.command()
def check(
    spec: Annotated[Path, typer.Argument(help="A TOML file of [[assert]] tables (see "
                                               "scripts/balance.example.toml).")],
    threads: ThreadsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdicts as "
                                                         "JSON.")] = False,
    markdown_out: Annotated[Path | None, typer.Option("--markdown", help="Also write a "
                                                      "Markdown summary to this file ('-' "
                                                      "for stdout), e.g. "
                                                      "$GITHUB_STEP_SUMMARY.")] = None,
    quiet: QuietOpt = False,
    yes: YesOpt = False,
) -> None:
    """CI balance gate: exit 0 if every assertion passes, 1 if any fails or is
    inconclusive, 2 for a bad spec."""
    from simcli.check import markdown, result_cells, run_check

    if as_json and str(markdown_out) == "-":
        raise UserError("--json and --markdown - both print to stdout; send the Markdown to "
                        "a file, or drop one")
    if markdown_out is not None and str(markdown_out) != "-":
        parent = markdown_out.parent if str(markdown_out.parent) else Path(".")
        if markdown_out.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (
                markdown_out.exists() and not (markdown_out.is_file()
                                               and os.access(markdown_out, os.W_OK))):
            raise UserError(f"--markdown {markdown_out} is not a file simcli can write (a "
                            f"regular file: not a folder, a FIFO or a device)")
    with _time_limit(yes):
        results = run_check(spec, threads, RichProgress("check", enabled=not quiet and
                                                        not as_json))
    if markdown_out is not None:
        text = markdown(results, spec)
        if str(markdown_out) == "-":
            print(text)
        else:
            try:
                with open(markdown_out, "a", encoding="utf-8") as fh:
                    fh.write(text + "\n")
            except OSError as exc:
                raise UserError(f"cannot write --markdown {markdown_out}: "
                                f"{exc.strerror or exc}") from None
    if as_json:
        out.print_json(strict_json({"spec": str(spec), "results": results}))
    elif str(markdown_out) != "-":
        table = _table(f"simcli check {spec}", ("assertion", "verdict", "metric", "allowed",
                                                "estimate", "interval", "playouts"))
        for r in results:
            _row(table, (r["name"], r["verdict"].upper(), r["metric"], *result_cells(r),
                         f"{r['playouts']:,}"))
        _print_table(table)
    if any(r["verdict"] != "pass" for r in results):
        raise typer.Exit(1)


COMPARE_COLUMNS = ("metric", "a", "b", "a - b", "95% interval", "adjusted p", "flag")


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="A finished run folder (a).")],
    run_b: Annotated[Path, typer.Argument(help="A finished run folder of the same game and "
                                                "content (b).")],
    as_json: JsonOpt = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown "
                                                                 "table.")] = False,
) -> None:
    """Every metric of two runs: difference a - b with its 95% interval and Holm-adjusted
    p-value."""
    from reports.compare import display_rows
    from reports.render import markdown_rows, md_text
    from simcli.compare import compare_runs, describe

    _one_format(as_json, as_markdown)
    diff, man_a, man_b = compare_runs(run_a, run_b)
    if as_json:
        out.print_json(strict_json({"a": str(run_a), "b": str(run_b),
                                   "differences": diff.to_dicts()}))
        return
    if as_markdown:
        print(f"a: {md_text(describe(man_a))}\n\nb: {md_text(describe(man_b))}\n\n"
              f"{markdown_rows(COMPARE_COLUMNS, display_rows(diff))}")
        return
    out.print(f"a: {describe(man_a)}", highlight=False, markup=False)
    out.print(f"b: {describe(man_b)}", highlight=False, markup=False)
    table = _table("a - b (95% interval, Holm-adjusted p)", COMPARE_COLUMNS)
    for cells in display_rows(diff):
        _row(table, cells)
    _print_table(table)


@app.command()
def odds(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game whose battle to compute.")],
    dice: Annotated[list[str] | None, typer.Option(
        "--dice", help="sixteen-samurai: one pool per player, 2-4 pools: a number of dice "
                       "1-4 or 'uma' (two 7s). `--dice 3 2` pits 3 dice against 2.")] = None,
    attacker: Annotated[int | None, typer.Option("--attacker", help="samurai-katana: "
                                                 "attacking army size.")] = None,
    defender: Annotated[int | None, typer.Option("--defender", help="samurai-katana: "
                                                 "defending army size.")] = None,
    castle: Annotated[bool, typer.Option("--castle", help="samurai-katana: the defender "
                                         "holds a castle.")] = False,
    mountain: Annotated[bool, typer.Option("--mountain", help="samurai-katana: the fight "
                                           "is in a mountain territory.")] = False,
    table: Annotated[bool, typer.Option("--table", help="samurai-katana: the full odds "
                                        "table (Parquet, CSV and a heatmap per terrain "
                                        "case).")] = False,
    out_dir: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for --table "
                                                 "files (a new one). Default: runs/odds-GAME, "
                                                 "or odds-GAME-2 ... when taken.")] = None,
    force: ForceOpt = False,
    exact: Annotated[bool, typer.Option("--exact", help="Exact probabilities by enumeration "
                                                        "instead of sampling.")] = False,
    n: Annotated[int, typer.Option("-n", help="Battles to sample (without "
                                              "--exact).")] = 1_000_000,
    seed: Annotated[int, seed_option("Random seed for sampling (0 .. 2**64-1).")] = 1,
    threads: ThreadsOpt = None,
    content: Annotated[str | None, typer.Option("--content",
                                                help="Content file of the game. Default: "
                                                     "standard.")] = None,
    as_json: JsonOpt = False,
    yes: YesOpt = False,
) -> None:
    """Battle odds: the chance each side wins one battle."""
    from simcli.games.base import OddsRequest
    from simcli.registry import get_game

    g = get_game(game)
    given = {k for k, v in ctx.params.items()
             if k not in ("game", "as_json", "yes")
             and ctx.get_parameter_source(k).name != "DEFAULT"}
    names = {"out_dir": "out"}

    def flag(name: str) -> str:
        return "-n" if name == "n" else "--" + name.replace("_", "-")

    stray = sorted(names.get(k, k) for k in given if names.get(k, k) not in g.odds_options)
    if stray and g.odds_options:
        raise UserError(f"{flag(stray[0])} does not apply to {g.name} odds (options: "
                        f"{', '.join(flag(o) for o in g.odds_options)})")
    if n > MAX_PLAYOUT:
        raise UserError(f"-n must be at most 2**62 battles, not {n}")
    req = OddsRequest(dice=tuple(dice or ()), attacker=attacker, defender=defender,
                      castle=castle, mountain=mountain, table=table, exact=exact, n=n,
                      seed=seed, threads=threads or engine.default_threads(),
                      content=content, out=out_dir, force=force,
                      progress=RichProgress("battles", enabled=not as_json))
    with _time_limit(yes):
        res = g.odds(req)
    if as_json:
        out.print_json(strict_json(res.data))
        return
    t = _table(res.title, res.columns)
    for row in res.rows:
        _row(t, row)
    _print_table(t)
    for note in res.notes:
        out.print(note, highlight=False, markup=False)


def _busy() -> str:
    """Why the machine looks busy (its 1-minute load above half its cores), or ''."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return ""
    cores = os.cpu_count() or 1
    return (f"the machine is busy (load {load:.1f} on {cores} cores)"
            if load > 0.5 * cores else "")


@app.command()
def bench(
    game: Annotated[list[str] | None, typer.Argument(metavar="GAME",
                                                     help="Games to measure. Default: "
                                                          "all.")] = None,
    threads: Annotated[int | None, typer.Option("--threads", "-t", callback=_check_threads,
                                                help="Threads for the multi-thread "
                                                     "figure. Default: all cores.")] = None,
    seconds: Annotated[float, typer.Option("--seconds", help="Target seconds per "
                                                             "repeat.")] = 1.0,
    repeats: Annotated[int, typer.Option("--repeats", help="Repeats per figure, interleaved "
                                                           "across games (median "
                                                           "reported).")] = 5,
    cold: Annotated[bool, typer.Option("--cold", help="Also measure a cold compile in a "
                                                      "fresh process with an empty "
                                                      "cache.")] = False,
    baseline: Annotated[Path | None, typer.Option("--baseline", help="A `simcli bench "
                                                  "--json` file to compare with; exit code "
                                                  "1 on a regression.")] = None,
    tolerance: Annotated[float, typer.Option("--tolerance", help="With --baseline: the "
                                             "slowdown allowed beyond the measured noise "
                                             "(0.25 = 25%).")] = 0.25,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON (a baseline "
                                                         "file).")] = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown "
                                                                 "tables.")] = False,
) -> None:
    """Playouts per second and compile time, measured apart, on fixed seeds."""
    from simcli.bench import compare, load_baseline, markdown, rows_for_table, run_bench
    from simcli.registry import get_game

    names = list(dict.fromkeys(get_game(g).name for g in (game or [])))  # each game once
    if not math.isfinite(seconds) or not 0 < seconds <= 3600:
        raise UserError(f"--seconds must be a number of seconds in (0, 3600], not {seconds}")
    if not 0 < repeats <= 1000:
        raise UserError(f"--repeats must be 1 .. 1000, not {repeats}")
    figures = 3 * len(names or ("all five",) * 5) + 1  # about 3 timed figures a game, dice
    if seconds * repeats * figures > 3600:
        raise UserError(f"--seconds {seconds:g} x --repeats {repeats} would time "
                        f"{figures} figures for about {seconds * repeats * figures / 3600:.1f} "
                        f"h; keep it under an hour")
    if not 0 <= tolerance < 1:
        raise UserError(f"--tolerance must be in [0, 1), not {tolerance}")
    _one_format(as_json, as_markdown)
    base = load_baseline(baseline) if baseline is not None else None
    if base is not None:
        from simcli.registry import GAMES

        measured = set(names or GAMES)
        if not measured & set(base["games"]):
            raise UserError(f"baseline {baseline} holds none of the games measured "
                            f"({', '.join(sorted(measured))}), so nothing could be compared; "
                            f"it has {', '.join(sorted(base['games'])) or 'no game'}")
    busy = _busy()
    if busy:
        err.print(f"simcli: note: {busy}: the figures may read low and spread wide",
                  highlight=False, markup=False, soft_wrap=True)
    res = run_bench(names, threads=threads or engine.default_threads(), seconds=seconds,
                    repeats=repeats, cold=cold)
    verdicts = compare(res, base, tolerance) if base is not None else None
    if as_json:
        if verdicts is not None:
            res = {**res, "baseline": str(baseline), "tolerance": tolerance,
                   "verdicts": verdicts}
        print(strict_json(res, indent=2))
    elif as_markdown:
        print(markdown(res, verdicts))
    else:
        table = _table(f"simcli bench ({res['cores']} cores)", ("measure", "median",
                                                                  "min - max"))
        for row in rows_for_table(res):
            _row(table, row)
        _print_table(table)
        if verdicts is not None:
            vt = _table(f"against {baseline} (tolerance {tolerance:.0%} beyond noise)",
                        ("game", "measure", "baseline", "now", "change", "verdict"))
            for v in verdicts:
                _row(vt, (v["game"], v["measure"], f"{v['baseline_median']:,.0f}",
                          f"{v['current_median']:,.0f}", f"{100 * v['change']:+.1f}%",
                          "REGRESSION" if v["regressed"] else "ok"))
            out.print(vt)
    if verdicts and any(v["regressed"] for v in verdicts):
        err.print("simcli: bench: slower than the baseline beyond tolerance and noise",
                  markup=False)
        raise typer.Exit(1)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    finally:
        # The process ends now: spare it the final garbage collection of the compiled
        # kernels' object graph, which alone takes about a second (Ctrl-C stays quick).
        gc.freeze()
