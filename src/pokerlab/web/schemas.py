"""Request bodies of the JSON API: the CLI's options under the same names (``--time`` is ``time``, ``--stderr``
is ``stderr``, ...). Types and sizes are checked here; the values themselves by the library's façades, so the
API refuses exactly what the CLI refuses, with the same message."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

from pokerlab.limits import MULTIWAY_DEALS
from pokerlab.web.solving import TWO_ROUND_DEFAULTS

Text = Annotated[str, Field(max_length=4000)]


class _Request(BaseModel):
    # a misspelt option is an error, as on the command line; strict: true, false and "12" are not numbers
    model_config = ConfigDict(extra="forbid", strict=True)


def _one_of(*values: str) -> JsonDict:
    """The allowed values of a text option, for the OpenAPI document (the façade refuses others, in its words)."""
    return {"enum": list(values)}


class RangeRequest(_Request):
    """``pokerlab range --json``; ``paint`` sets whole grid cells (``{"AKs": 0.5, "QQ": 0}``) or single combos
    (``{"AhKh": 0}``) over ``text``; ``hand`` (a class, ``"AKs"``) asks for its combos and their weights."""

    text: Text = ""
    board: Text = ""
    paint: dict[Annotated[str, Field(max_length=4)], float] = Field(default_factory=dict, max_length=169)
    hand: str = Field(default="", max_length=3)


class StacksRequest(_Request):
    """Stacks as typed or pasted from a lobby, read as ``pokerlab icm --stacks`` reads them: one per line,
    ``5000,3000,2000``, ``5,000 3,000 2,000``, names as ``alice 5,000``."""

    text: str = Field(max_length=400_000, examples=["12,500\n8,000\n5,250"])


class EquityRequest(_Request):
    """``pokerlab equity --json``: 2 to 10 hands or ranges in pokerlab's range syntax."""

    players: list[Text] = Field(min_length=1, max_length=10,
                                examples=[["AhAs", "KdKc"], ["QQ+, AKs", "random", "15%"]])
    board: Text = ""
    dead: Text = ""
    method: str = Field(default="auto", json_schema_extra=_one_of("auto", "exact", "montecarlo"))
    trials: int | None = Field(default=None, description="Monte Carlo showdowns (at most the server's `trials`).")
    time: float | None = Field(default=None, description="Monte Carlo: seconds (at most `sampling_seconds`).")
    stderr: float | None = Field(default=None, description="Monte Carlo: target standard error of every equity.")
    seed: int | None = None


class HandEquityRequest(_Request):
    """The equity of every hand class of one player's range (``player``, from 0) against the other players, by
    Monte Carlo with a fixed seed: the page's grid after a run."""

    players: list[Text] = Field(min_length=2, max_length=10, examples=[["QQ+, AKs", "random"]])
    board: Text = ""
    dead: Text = ""
    player: int = Field(default=0, ge=0, le=9)
    seed: int = 0


class ICMRequest(_Request):
    """``pokerlab icm --json``: stacks as numbers, payouts in the CLI's text form (a list ``50,30,20``, a
    standard split ``65/35``, ``power:a=1,pool=1000,paid=40`` or ``flat:pool=100,paid=9``; no files)."""

    stacks: list[float] = Field(min_length=1, max_length=20_000, examples=[[5000, 3000, 2000]])
    payouts: Text = Field(examples=["50,30,20"])
    method: str = Field(default="auto", json_schema_extra=_one_of("auto", "exact", "subset", "montecarlo"))
    samples: int | None = Field(default=None, description="Monte Carlo samples (at most the server's `icm_samples`).")
    half_width: float | None = Field(default=None, description="Monte Carlo: target half-width, money.")
    confidence: float | None = None
    time: float | None = Field(default=None, description="Monte Carlo: seconds (at most `sampling_seconds`).")
    variance_reduction: str = Field(default="auto", json_schema_extra=_one_of(
        "auto", "plain", "antithetic", "sobol", "conditional"))
    seed: int | None = None
    places: bool = False
    bubble_factors: bool = False
    deal: bool = False
    bounty: float | Annotated[list[float], Field(max_length=20_000)] | None = Field(
        default=None, description="Knockout bounty on every head, or one per player: adds `bounty_equity` per player.")
    pko_share: float | None = Field(default=None, description="Progressive knockout: the part of a bounty paid "
                                    "to the buster (the rest goes onto his head); null for a plain knockout.")


class SolveRequest(_Request):
    """``pokerlab solve --json``: a game, a CFR-family algorithm and the stopping rules."""

    game: Text = Field(examples=["kuhn", "leduc"])
    algo: Text = "cfr+"
    iterations: int | None = None
    target_exploitability: float | None = None
    time: float | None = None
    seed: int | None = None
    alpha: float | None = None
    beta: float | None = None
    gamma: float | None = None


class TwoRoundRequest(_Request):
    """``pokerlab two-round train --exploitability --json`` with the exploitability measured ``checks`` times as it
    runs; ``time`` bounds the training (seconds), the run stops at ``iterations`` or ``time``, whichever first."""

    stack: int = TWO_ROUND_DEFAULTS["stack"]
    buckets: int = TWO_ROUND_DEFAULTS["buckets"]
    iterations: int | None = Field(default=None, examples=[TWO_ROUND_DEFAULTS["iterations"]])
    time: float | None = None
    checks: int = TWO_ROUND_DEFAULTS["checks"]
    seed: int = TWO_ROUND_DEFAULTS["seed"]


class PushFoldRequest(_Request):
    """``pokerlab pushfold --json``: stacks per seat in acting order (UTG .. BTN, SB, BB), blinds, antes;
    ``payouts`` (money per place) turn on ICM, with ``field`` the stacks at the other tables."""

    stacks: list[float] = Field(min_length=1, max_length=10, examples=[[10, 10]])
    blinds: list[float] = Field(default=[0.5, 1.0], min_length=1, max_length=3)
    ante: float = 0.0
    bb_ante: float = 0.0
    payouts: list[float] | None = Field(default=None, max_length=10_000)
    field: list[float] | None = Field(default=None, max_length=10_000)
    target: float = Field(default=1e-3, description="Stop once no seat gains more than this by deviating (bb, or "
                          "money under ICM).")
    iterations: int | None = None
    time: float | None = Field(default=None, description="Seconds the solve may take (at most `solve_seconds`).")
    multiway_samples: int = Field(default=MULTIWAY_DEALS, ge=1, le=100_000)
    bounty: float | Annotated[list[float], Field(max_length=10)] | None = Field(
        default=None, description="Knockout bounty on every head, or one per seat (money under ICM, big blinds under "
        "chip EV).")
    pko_share: float | None = Field(default=None, description="Progressive knockout: the part of a bounty paid "
                                    "to the buster; null for a plain knockout.")
    fgs_depth: int = Field(default=0, description="FGS: value the outcomes with this many more hands played out "
                           "(1-4; needs payouts), as `--fgs-depth`. 0: ICM.")


class FullRingChartRequest(_Request):
    """The shipped full-ring chart (``pokerlab pushfold --chart full-ring``) of ``seats`` (2-10) equal stacks of
    ``depth`` big blinds (the nearest shipped depth answers, and says so) with ante rule ``ante``: ``none``, ``10``
    or ``12.5`` (that percent of the big blind from every seat), ``bb`` (a big-blind ante, heads-up)."""

    seats: int = Field(default=9, examples=[9])
    depth: float = Field(default=10.0, examples=[10])
    ante: str = Field(default="none", max_length=8, json_schema_extra=_one_of("none", "10", "12.5", "bb"))
    icm: str | None = Field(default=None, max_length=8, description="The shipped ICM charts (3-10 seats, no ante) "
                            "of a 'final' table (every seat paid) or the 'bubble' (one seat fewer paid), as "
                            "`--icm`; null: chip EV.", json_schema_extra=_one_of("final", "bubble"))
    overcalls: bool = Field(default=False, description="Also the over-call ranges (`overcall`, keyed 'BB vs CO and "
                            "BTN': the caller facing a jam and a call), where shipped (`overcalls_shipped`; "
                            "`overcalls_withheld` and `overcalls_why` where withheld).")
