"""``pokerlab icm``: tournament prize equity (ICM), finish places, bubble factors, deals and knockout bounties."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from pokerlab.cli.common import (
    JSON_OPTION,
    PILOT_SECONDS,
    PRECISION_TIME_LIMIT,
    check_output,
    command,
    interrupted,
    print_json,
    print_table,
    progress_bar,
)

# the ICM façade's parameter names, as the command line spells them
ICM_WORDS = {"method='montecarlo'": "--method montecarlo", "method='exact'": "--method exact",
             "method 'auto'": "--method auto",
             "half_width": "--half-width", "time_limit": "--time", "variance_reduction": "--variance-reduction",
             "allow_rising=True": "--allow-rising", "places=True": "--places"}


@command("icm", vocabulary=ICM_WORDS)
def icm_command(
    stacks: str | None = typer.Option(None, "--stacks", help="Chips per player as pasted from a lobby: 5000,3000,2000"
                                      " or '5,000 3,000 2,000'; names as 'alice:5,000 bob:3,000' (0 = busted)."),
    stacks_file: Path | None = typer.Option(None, "--stacks-file", help="File of stacks: one per line ('5,000' or "
                                            "'alice 5,000'), or a list as for --stacks."),
    payouts: str | None = typer.Option(None, "--payouts", help="Money per place 50,30,20 | a split of --pool 70/30, "
                                       "60/25/15, 50%,30%,20% | power:a=1,pool=1000,paid=40 | flat:pool=100,"
                                       "paid=9 | file.csv (needed unless --bounty is given)."),
    pool: str | None = typer.Option(None, "--pool", help="Prize pool that a percentage split (70/30) or power:/"
                                      "flat: divides (default 100 for splits, 1000 for power/flat)."),
    allow_rising: bool = typer.Option(False, "--allow-rising", help="Accept payouts that rise with place."),
    method: str = typer.Option("auto", "--method", help="auto | exact | subset | montecarlo"),
    samples: int | None = typer.Option(None, "--samples", help="Monte Carlo samples (default 100,000; montecarlo "
                                       "only)."),
    half_width: float | None = typer.Option(
        None, "--half-width", help="Monte Carlo: stop once every player's equity is within +- this much money (or "
        "after --time; without --time a 0.3 s pilot run refuses a target out of reach in 600 s)."
    ),
    confidence: float | None = typer.Option(None, "--confidence", help="Confidence of --half-width (default 0.95)."),
    time_limit: float | None = typer.Option(None, "--time", help="Monte Carlo: stop after this many seconds."),
    variance_reduction: str = typer.Option(
        "auto", "--variance-reduction", help="Monte Carlo: auto | plain | antithetic | sobol | conditional."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Monte Carlo seed (montecarlo only; also seeds the "
                                    "sampled bounties of a field over 18 players)."),
    places: bool = typer.Option(
        False, "--places", help="Show finish-place probabilities (Monte Carlo: counted from plain samples)."
    ),
    bubble: bool = typer.Option(False, "--bubble-factors", help="Show bubble factors and risk premiums."),
    deal_: bool = typer.Option(False, "--deal", help="Show ICM chop and chip chop."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write a chip share vs prize share figure here (.png, .pdf or .svg)."
    ),
    bounty: str | None = typer.Option(None, "--bounty", help="Knockout bounty on every head (1) or one per player "
                                      "(1,2,1.5): adds each player's expected bounties (bounty_equity)."),
    bounty_column: bool = typer.Option(False, "--bounty-column", help="The --stacks-file's last column is each "
                                       "player's bounty (one player per line: 'alice 5,000 12.5')."),
    pko: bool = typer.Option(False, "--pko", help="Progressive knockout: --pko-share of a bounty is paid to the "
                             "buster, the rest goes onto the buster's head."),
    pko_share: float | None = typer.Option(None, "--pko-share", help="The part of a PKO bounty paid in cash "
                                           "(default 0.5)."),
    as_json: bool = JSON_OPTION,
    fgs_depth: int = typer.Option(0, "--fgs-depth", help="FGS: the prize equity with this many hands (1-4) played "
                                  "out first (push/fold, blinds and button moving; pokerlab pushfold's model), "
                                  "against ICM; needs --blinds. The stacks are one table, clockwise."),
    blinds: str | None = typer.Option(None, "--blinds", help="FGS: small and big blind in chips: 50/100 or 0.5,1."),
    ante: float = typer.Option(0.0, "--ante", help="FGS: ante per seat (chips)."),
    bb_ante: float = typer.Option(0.0, "--bb-ante", help="FGS: big-blind ante (chips)."),
    button: int | None = typer.Option(None, "--button", help="FGS: the button's seat (1 = the first stack; default "
                                      "the third from last, as pokerlab pushfold's acting order UTG .. BB)."),
) -> None:
    """Prize equity of every player by the Independent Chip Model (Malmuth-Harville), or by FGS."""
    from pokerlab.plotting import figure_path

    if plot is not None:
        plot = figure_path(plot)
        check_output(plot)
    import numpy as np

    from pokerlab.errors import Interrupted, InvalidArgumentError, InvalidPayoutsError
    from pokerlab.icm import ICMResult, icm, parse_payouts
    from pokerlab.icm.analysis import BUBBLE_MAX_PLAYERS, bubble_factors, deal, plot_shares
    from pokerlab.icm.bounty import (
        DEFAULT_PKO_SHARE,
        EXACT_MAX_PLAYERS,
        BountyResult,
        bounty_equity,
        parse_bounties,
        split_bounty_column,
        validate_bounties,
        validate_share,
    )
    from pokerlab.icm.display import (
        bounty_json,
        bounty_table,
        bubble_table,
        icm_json,
        icm_table,
        money,
        places_table,
        with_bounties,
    )
    from pokerlab.icm.lobby import parse_amount, parse_stacks, player_labels, read_stacks_file
    from pokerlab.icm.small_field import PLAIN_MAX_PLAYERS
    from pokerlab.limits import check_work
    from pokerlab.stats.stopping import normal_quantile, out_of_reach
    from pokerlab.warmup import compile_first, prepare_icm

    if (stacks is None) == (stacks_file is None):
        raise InvalidArgumentError("give the stacks with exactly one of --stacks or --stacks-file")
    # knockout bounties: the options checked, and the bounty column split off a stacks file, before any work
    stacks_text = stacks if stacks is not None else read_stacks_file(str(stacks_file))
    bounty_text = bounty
    if bounty_column:
        if stacks_file is None or bounty is not None:
            raise InvalidArgumentError("--bounty-column reads the bounties from --stacks-file: give a stacks file "
                                       "and no --bounty")
        stacks_text, bounty_text = split_bounty_column(stacks_text)
    if bounty_text is None and (pko or pko_share is not None):
        raise InvalidArgumentError("--pko needs bounties: give --bounty (or --bounty-column)")
    if pko_share is not None and not pko:
        raise InvalidArgumentError("--pko-share applies to a progressive knockout: add --pko")
    if payouts is None and bounty_text is None:
        raise InvalidArgumentError("give the payouts (--payouts) or a knockout bounty (--bounty)")
    players = parse_stacks(stacks_text)
    live = int(np.count_nonzero(players.chips > 0))
    heads = None if bounty_text is None else validate_bounties(parse_bounties(bounty_text), players.chips.size)
    share = validate_share(DEFAULT_PKO_SHARE if pko_share is None else pko_share) if pko else 1.0

    def expected_bounties(heads: np.ndarray) -> BountyResult:
        if PLAIN_MAX_PLAYERS < live <= EXACT_MAX_PLAYERS:  # the compiled recursion (a final table: plain numpy)
            compile_first([lambda: bounty_equity([3.0, 2.0, 1.0], 1.0, method="exact")], quiet=as_json)
        # a field too big for the exact recursion is sampled, with --seed when given
        return bounty_equity(players.chips, heads, share=share, seed=seed if live > EXACT_MAX_PLAYERS else None)

    if payouts is None:  # the expected bounties alone
        if heads is None or places or bubble or deal_ or plot is not None:
            raise InvalidArgumentError("--places, --bubble-factors, --deal and --plot need --payouts")
        alone = expected_bounties(heads)
        if as_json:
            print_json(bounty_json(alone, players.names))
        else:
            print_table(bounty_table(alone, players.names))
        return
    prize_pool = None if pool is None else parse_amount(pool, InvalidPayoutsError, "prize pool")
    pay = parse_payouts(payouts, pool=prize_pool, allow_rising=allow_rising)
    names = players.names
    if fgs_depth or blinds is not None:
        if heads is not None:
            raise InvalidArgumentError("--fgs-depth values prize money without bounties: drop --bounty or "
                                       "--fgs-depth")
        _fgs(players.chips, pay, names, fgs_depth, blinds, ante, bb_ante, button, as_json,
             others=bubble or deal_ or places or plot is not None or method != "auto")
        return
    if bubble and live > BUBBLE_MAX_PLAYERS:  # refused before the work: n(n - 1) ICM runs of n players each
        raise InvalidArgumentError(f"--bubble-factors need {live * (live - 1):,} ICM runs of {live:,} players each "
                                   f"(one per all-in outcome of every pair): at most {BUBBLE_MAX_PLAYERS} live "
                                   "players; drop --bubble-factors for this field")
    pilot = half_width is not None and time_limit is None and samples is None and method == "montecarlo"
    if half_width is not None and time_limit is None and method == "montecarlo":
        time_limit = PRECISION_TIME_LIMIT  # a target that cannot be reached must not run for ever
    # compile first, so that the time shown is the run's own
    prepare_icm(players.chips, pay, method, places=places, samples=samples, variance_reduction=variance_reduction,
                allow_rising=allow_rising, quiet=as_json)
    if pilot and half_width is not None and half_width > 0:
        # a short run first: a target out of reach is refused now, with the precision the time allows
        trial = icm(players.chips, pay, method, confidence=confidence, time_limit=PILOT_SECONDS,
                    variance_reduction=variance_reduction, seed=seed, allow_rising=allow_rising)
        if trial.stderr is not None:
            z = normal_quantile(0.95 if confidence is None else confidence)
            why = out_of_reach(half_width, z * float(np.max(trial.stderr)), trial.elapsed_s, PRECISION_TIME_LIMIT,
                               what=f"--half-width {half_width:g}")
            if why is not None:
                raise InvalidArgumentError(f"{why}; give a larger --half-width, or --time to run that long anyway")
    sampled = method == "montecarlo"
    # the exact quadrature is usually quick (50,000 players take ~16 s): its bar shows once it runs over a second
    with progress_bar("ICM Monte Carlo" if sampled else "exact ICM", 1.0, enabled=not as_json, unit="",
                      show_after=0.0 if sampled else 1.0) as update:
        try:
            result = icm(players.chips, pay, method, places=places, samples=samples, half_width=half_width,
                         confidence=confidence, time_limit=time_limit, variance_reduction=variance_reduction,
                         seed=seed, progress=update, allow_rising=allow_rising)
        except Interrupted as stop:
            partial = stop.partial
            if not isinstance(partial, ICMResult) or partial.stderr is None:
                raise
            shown = ", ".join(f"{label} {money(e)} ± {money(se)}" for label, e, se in
                              zip(player_labels(partial.stacks.size, names), partial.equity, partial.stderr,
                                  strict=True))
            interrupted(f"{stop}: equity {shown}")
    if bubble:  # each of the n(n - 1) runs costs about what the main run did (less for a Monte Carlo one)
        per_run = result.elapsed_s if result.stderr is None else result.elapsed_s / 10
        check_work(live * (live - 1), f"--bubble-factors for {live:,} players ({live * (live - 1):,} ICM runs)",
                   per_second=1.0 / max(per_run, 1e-6))
    factors = bubble_factors(players.chips, pay, allow_rising) if bubble else None
    split = deal(players.chips, pay, allow_rising) if deal_ else None
    written = plot_shares(result, plot, names=names) if plot is not None else None
    knockouts = None if heads is None else expected_bounties(heads)
    if as_json:
        data = icm_json(result, names, factors, split)
        print_json(data if knockouts is None else with_bounties(data, knockouts))
        return
    print_table(icm_table(result, names, split, knockouts))
    if result.places is not None:
        print_table(places_table(result, names))
    if factors is not None:
        print_table(bubble_table(factors, names))
    if written is not None:
        typer.echo(f"plot written to {written}")


def _fgs(chips: Any, payouts: Any, names: Any, depth: int, blinds: str | None, ante: float, bb_ante: float,
         button: int | None, as_json: bool, others: bool) -> None:
    """``pokerlab icm --fgs-depth``: each seat's FGS equity (:func:`pokerlab.pushfold.fgs.fgs_equity`) beside its
    ICM equity."""
    from pokerlab.cli.pushfold_cmd import _blinds
    from pokerlab.errors import InvalidArgumentError
    from pokerlab.icm.lobby import player_labels
    from pokerlab.pushfold.fgs import check_fgs_depth, fgs_equity

    check_fgs_depth(depth, len(chips))
    if button is not None and not 1 <= button <= len(chips):
        raise InvalidArgumentError(f"--button must be a seat from 1 to {len(chips)}, got {button}")
    if blinds is None:
        raise InvalidArgumentError("--fgs-depth plays hands out: give the blinds too (--blinds 50/100)")
    if others:
        raise InvalidArgumentError("--fgs-depth reports FGS and ICM equity only: drop --method, --places, "
                                   "--bubble-factors, --deal and --plot")
    from pokerlab.warmup import compile_first

    seat = None if button is None else button - 1
    blind_list = _blinds(blinds)
    # compile first (and load or solve the future hands' charts), so that the time shown is the run's own
    compile_first([lambda: fgs_equity(chips, payouts, blind_list, ante=ante, bb_ante=bb_ante, depth=min(depth, 1),
                                      button=seat)], quiet=as_json)
    result = fgs_equity(chips, payouts, blind_list, ante=ante, bb_ante=bb_ante, depth=depth, button=seat)
    labels = player_labels(len(result.equity), names)
    if as_json:
        print_json(result.to_dict() | {"players": labels, "button": result.button + 1})
        return
    typer.echo(f"FGS depth {result.depth}: {result.depth} hands played out from the hand with the button at "
               f"{labels[result.button]} ({result.elapsed_s:.2f} s; branches valued early: probability "
               f"{result.pruned:.1e})")
    typer.echo(f"{'player':<12}{'stack':>12}{'ICM':>12}{'FGS':>12}{'FGS - ICM':>12}")
    for label, stack, icm_value, value in zip(labels, chips, result.icm, result.equity, strict=True):
        typer.echo(f"{label:<12}{stack:>12,.6g}{icm_value:>12.4f}{value:>12.4f}{value - icm_value:>+12.4f}")
