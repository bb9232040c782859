"""``pokerlab match``, ``pokerlab play`` and ``pokerlab two-round size|train|exploitability``: bots on the command
line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from pokerlab.cli.common import (
    CHECKPOINT_HELP,
    JSON_OPTION,
    Checkpoints,
    check_output,
    command,
    command_group,
    interrupted,
    print_json,
    progress_bar,
    stderr_console,
)
from pokerlab.games.registry import PLAY, game_entry, game_names

PLAYABLE = ", ".join(game_names(PLAY))


def _agent(name: str, game: Any, quiet: bool) -> Any:
    """The agent called ``name``; the default ``cfr`` bot says so when it must be trained first, with a bar."""
    from pokerlab.agents.defaults import default_trained
    from pokerlab.agents.players import make_agent

    trained = None
    if name.strip().lower() == "cfr":
        console = stderr_console()
        with progress_bar("training", None, enabled=not quiet, unit="iterations", console=console) as update:
            trained = default_trained(game, progress=lambda note: console.print(f"[dim]{note}[/dim]"),
                                      training=update)
    return make_agent(name, game, trained)


MATCH_WORDS = {"start_chips": "--start-chips", "max_match_hands": "--max-match-hands"}


@command("match", vocabulary=MATCH_WORDS)
def match_command(
    agent_a: str = typer.Argument(..., help="Agent A: random, fullbet, checkcall, cfr or a strategy file."),
    agent_b: str = typer.Argument(..., help="Agent B (same choices)."),
    game: str = typer.Option("kuhn", "--game", "-g", help=f"One of {PLAYABLE}."),
    hands: int = typer.Option(10_000, "--hands", "-n", help="Independent hands (seats alternate)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the cards and of the bots' sampling."),
    matches: int = typer.Option(200, "--matches", help="Stack-until-bust matches (the stack-until-bust format)."),
    start_chips: int = typer.Option(20, "--start-chips", help="Chips of each player at the start of a match."),
    max_match_hands: int = typer.Option(1000, "--max-match-hands", help="A longer match goes to the chip leader."),
    exploitability: bool = typer.Option(False, "--exploitability", help="Also compute each bot's exploitability."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Play A against B: chips per hand (95% CI), hands and matches won, exact EV from the policies."""
    from pokerlab.agents.match import MatchResult, game_by_name, run_match
    from pokerlab.errors import Interrupted, InvalidArgumentError
    from pokerlab.stats import validate_seed
    from pokerlab.warmup import KERNEL_GROUPS, compile_first

    validate_seed(seed)
    if hands < 2:
        raise InvalidArgumentError(f"--hands must be at least 2 (the confidence interval needs two), got {hands}")
    if matches < 0:
        raise InvalidArgumentError(f"--matches must be a non-negative integer, got {matches}")
    g = game_by_name(game)
    slow_exact = game_entry(game, PLAY).warmup  # the kernel group of an exact evaluation too slow to run twice
    a, b = _agent(agent_a, g, as_json), _agent(agent_b, g, as_json)
    if a.name == b.name:
        b.name = b.name + "'"
    # compile first (a few hands of the same match), so that the time shown is the match's own. A game whose
    # exact EV and exploitabilities take tens of seconds each (the two-round game) names a warm-up group that
    # compiles their kernels on a small game, rather than running them twice
    warm = [lambda: run_match(g, a, b, hands=4, seed=seed, matches=min(matches, 1), start_chips=start_chips,
                              max_match_hands=10, exact=slow_exact is None,
                              exploitabilities=exploitability and slow_exact is None)]
    compile_first(warm if slow_exact is None else [*warm, KERNEL_GROUPS[slow_exact].warm], quiet=as_json,
                  names=[] if slow_exact is None else [slow_exact])
    with progress_bar("match", hands + matches, enabled=not as_json, unit="hands and matches") as update:
        try:
            r = run_match(g, a, b, hands=hands, seed=seed, matches=matches, start_chips=start_chips,
                          max_match_hands=max_match_hands, exploitabilities=exploitability, progress=update)
        except Interrupted as stop:
            p = stop.partial
            done = getattr(p, "hands", 0)
            interrupted(f"{stop}: A's chips per hand {p.chips_per_hand:+.4f} ± {p.ci95:.4f} (95% CI)"
                        if isinstance(p, MatchResult) and done >= 2 else str(stop))
    if as_json:
        data = r.to_dict()
        print_json({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in data.items()})
        return
    t = Table(title=f"{r.game}: {r.agent_a} (A) vs {r.agent_b} (B), seed {r.seed}", show_header=False)
    t.add_row("hands", f"{r.hands:,} (seats alternate)")
    t.add_row("A's chips per hand", f"{r.chips_per_hand:+.4f} ± {r.ci95:.4f} (95% CI, stderr {r.stderr:.4f})")
    if r.exact_ev is not None:
        t.add_row("A's exact EV", f"{r.exact_ev:+.4f} chips per hand (from the policies, no sampling)")
    t.add_row("hands won / lost / tied by A", f"{r.hands_won_pct:.1f}% / {r.hands_lost_pct:.1f}% / "
              f"{r.hands_tied_pct:.1f}%")
    t.add_row("matches (bust format)", f"{r.matches} from {r.start_chips} chips each: A won {r.matches_won_a}, "
              f"B won {r.matches_won_b}, drawn {r.matches_drawn} ({r.matches_capped} hit the hand cap); "
              f"mean {r.mean_match_hands:.1f} hands")
    if not math.isnan(r.match_win_pct):
        t.add_row("A's share of decided matches", f"{r.match_win_pct:.1f}% ± {r.match_win_ci95:.1f}%")
    if exploitability:
        ea, eb = r.exploitability
        t.add_row("exploitability A / B", " / ".join("-" if e is None else f"{e:.4f}" for e in (ea, eb))
                  + " chips per hand")
    t.add_row("time", f"{r.elapsed_s:.1f} s")
    Console().print(t)


@command("play")
def play_command(
    game: str = typer.Argument(..., help=f"One of {PLAYABLE}."),
    vs: str = typer.Option("cfr", "--vs", help="The bot: cfr, random, fullbet, checkcall or a strategy file."),
    hands: int | None = typer.Option(None, "--hands", "-n", help="Stop after this many hands (default: until q)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the cards."),
) -> None:
    """Play hands against a bot at the terminal; q quits at any prompt."""
    from pokerlab.agents.human import HumanAgent, play_session
    from pokerlab.agents.match import game_by_name
    from pokerlab.errors import InvalidArgumentError
    from pokerlab.stats import validate_seed

    validate_seed(seed)
    if hands is not None and hands < 1:
        raise InvalidArgumentError(f"--hands must be a positive integer, got {hands}")
    g = game_by_name(game)
    bot = _agent(vs, g, False)

    def write(text: str) -> None:
        print(text, flush=True)

    print(f"pokerlab play {g.name} against {bot.name}. Type ? for help, q to quit.", flush=True)
    play_session(g, bot, HumanAgent(input, write), seed=seed, hands=hands)


TRAIN_ITERATIONS_PER_SECOND = 2e6  # an optimistic MCCFR rate of the two-round game, for the limits only

TWO_ROUND = command_group("two-round", "The two-round hold'em game: size, training, exploitability.")


@command("size", group=TWO_ROUND)
def two_round_size_command(
    stack: int = typer.Option(6, "--stack", help="Chips behind the ante."),
    suits: int = typer.Option(4, "--suits", help="Suits in the deck (7 ranks each)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Histories, information sets and betting-tree sizes of the two-round game (computed exactly)."""
    from pokerlab.games.two_round import TwoRoundSpec, two_round_sizes

    s = two_round_sizes(TwoRoundSpec(suits=suits, stack=stack))
    if as_json:
        print_json(s.to_dict())
        return
    t = Table(title=f"two-round game: 7 ranks x {suits} suits, stack {stack}, bets 0..4", show_header=False)
    for key, value in s.to_dict().items():
        t.add_row(key.replace("_", " "), f"{value:,}" if isinstance(value, int) else ", ".join(f"{v:,}" for v in value))
    Console().print(t)


@command("train", group=TWO_ROUND)
def two_round_train_command(
    out: Path | None = typer.Option(None, "--out", help="Write the bot (and checkpoint) here (.npz); default with "
                                    "--resume: the resumed file, which then holds the continued run."),
    iterations: int = typer.Option(2_000_000, "--iterations", "-n",
                                   help="MCCFR iterations to run now on the main stack (with --resume: added to the "
                                        "checkpoint's)."),
    buckets: int | None = typer.Option(None, "--buckets", help="Flop buckets by equity (0: no abstraction; default "
                                       "24). Not with --resume."),
    stack: int | None = typer.Option(None, "--stack", help="Chips behind the ante (default 6). Not with --resume."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue a checkpoint (its stack, buckets and random "
                                       "state are kept)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the sampled deals and actions (default 0). Not "
                                    "with --resume."),
    checkpoint_every: str = typer.Option("60s", "--checkpoint-every", help=CHECKPOINT_HELP),
    exploitability: bool = typer.Option(False, "--exploitability", help="Measure the exact exploitability after."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Train a bot for the two-round game with external-sampling MCCFR (resumable)."""
    import time

    from pokerlab.errors import Interrupted, InvalidArgumentError

    out = out if out is not None else resume
    if out is None:
        raise InvalidArgumentError("give --out FILE.npz to save the bot (or --resume a checkpoint to continue)")
    check_output(out)  # before the trainer (and numba) loads
    from pokerlab.games.two_round import TwoRoundSpec
    from pokerlab.limits import check_work
    from pokerlab.solvers.two_round import Abstraction, TrainProgress, TwoRoundTrainer
    from pokerlab.solvers.two_round import exploitability as two_round_exploitability
    from pokerlab.warmup import prepare

    checkpoints = Checkpoints.parse(checkpoint_every)
    if iterations < 0:
        raise InvalidArgumentError(f"--iterations must be a non-negative integer, got {iterations}")
    check_work(iterations, f"--iterations {iterations:,}", per_second=TRAIN_ITERATIONS_PER_SECOND)
    if resume is not None:
        given = [flag for flag, value in (("--stack", stack), ("--buckets", buckets), ("--seed", seed))
                 if value is not None]
        if given:
            raise InvalidArgumentError(f"{'/'.join(given)} cannot be given with --resume (the checkpoint keeps its "
                                       "own)")
        trainer = TwoRoundTrainer.load(resume)
    else:
        trainer = TwoRoundTrainer(TwoRoundSpec(stack=6 if stack is None else stack),
                               Abstraction(buckets=24 if buckets is None else buckets),
                               seed=0 if seed is None else seed)
    prepare(["two-round"], quiet=as_json)  # compile first, so that the time shown is the training's own
    start = time.perf_counter()
    with progress_bar(f"two-round MCCFR, stack {trainer.spec.stack}", iterations, enabled=not as_json,
                      unit="iterations") as update:

        def report(p: TrainProgress) -> None:
            update(p.iteration, p.total, status=f"stack {p.stack}")
            if checkpoints.due(trainer.iterations[trainer.spec.stack]):
                trainer.save(out)

        try:
            trainer.train(iterations, progress=report)
        except Interrupted as stop:
            trainer.save(out)
            interrupted(f"{stop}; saved to {out} (continue with --resume {out})")
    elapsed = time.perf_counter() - start
    trainer.save(out)
    data: dict[str, Any] = {"out": str(out), "iterations": trainer.iterations[trainer.spec.stack],
                            "elapsed_s": elapsed, "buckets": trainer.abstraction.buckets}
    if exploitability:
        with progress_bar("exploitability: two best responses", None, enabled=not as_json,
                          unit="node-boards") as update:
            try:
                e = two_round_exploitability(trainer.bot().strategy(trainer.spec.stack), progress=update)
            except Interrupted as stop:
                interrupted(f"{stop}; the trained bot is saved to {out}")
        data.update(e.to_dict())
    if as_json:
        print_json(data)
        return
    line = (f"trained {data['iterations']:,} iterations ({trainer.abstraction.buckets} buckets) in {elapsed:.1f} s; "
            f"saved {out}")
    if exploitability:
        line += f"; exploitability {data['exploitability']:.4f} chips/hand ({data['mbb_per_game']:.0f} mbb/hand)"
    typer.echo(line)


@command("exploitability", group=TWO_ROUND)
def two_round_exploitability_command(
    bot: str = typer.Argument(..., help="A bot file from `pokerlab two-round train`, or random (also called uniform), "
                              "fullbet, checkcall."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Exact exploitability of a bot in the real (unabstracted) two-round game, by vectorised best response."""
    from pokerlab.games.two_round import TwoRoundSpec
    from pokerlab.solvers.two_round import TwoRoundBot, exploitability
    from pokerlab.warmup import prepare

    kinds = {"random": "uniform", "uniform": "uniform", "fullbet": "fullbet", "checkcall": "checkcall"}
    key = bot.strip().lower()
    if key not in kinds and not Path(bot).exists():
        from pokerlab.errors import InvalidArgumentError

        raise InvalidArgumentError(f"no bot file {bot!r} (expected a file from `pokerlab two-round train`, or random, "
                                   "uniform, fullbet, checkcall)")
    b = TwoRoundBot.fixed(kinds[key], TwoRoundSpec()) if key in kinds else TwoRoundBot.load(bot)
    prepare(["two-round"], quiet=as_json)  # compile first: the time shown is the best responses' own
    with progress_bar("two best responses", None, enabled=not as_json, unit="node-boards") as update:
        e = exploitability(b.strategy(b.spec.stack), progress=update)
    if as_json:
        print_json({"bot": bot, **e.to_dict()})
        return
    typer.echo(f"{bot}: exploitability {e.exploitability:.4f} chips/hand ({e.mbb_per_game:.0f} mbb/hand); best "
               f"responses win {e.best_response_values[0]:+.4f} (seat 1) and {e.best_response_values[1]:+.4f} "
               f"(seat 2); {e.elapsed_s:.1f} s")
