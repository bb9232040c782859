"""Decisions scored in money (pokerlab.simulation.study.decision_study): heroes deciding by one model against
the same heroes deciding by another, paired over the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
from pokerlab.simulation.core import prepare
from pokerlab.simulation.study import decision_study


def test_models_that_coincide_differ_by_exactly_zero_on_every_replicate() -> None:
    """Heads-up winner-take-all: ICM is the chip share, so ICM and chip-EV heroes decide alike in every hand and
    every paired tournament pays them the same."""
    study = decision_study([1000, 1000], [1.0], models=("icm",), baseline="chip-ev", hero_share=0.5,
                           tournaments=60, seed=4)
    assert np.array_equal(study.prizes["icm"], study.prizes["chip-ev"])
    assert study.comparisons[0].mean == 0.0 and study.comparisons[0].stderr == 0.0


def test_a_best_response_beats_a_fixed_chart() -> None:
    """Heads-up winner-take-all at 100 bb against the Nash charts: the chip-EV decider (a best response to the
    charts in every hand) wins more often than a hero playing the tight simple-rules chart: a positive
    interval (measured +0.39 of the prize, 400 tournaments, interval +0.33 to +0.45)."""
    study = decision_study([1000, 1000], [1.0], models=("chip-ev",), baseline="tight", hero_share=0.5,
                           tournaments=400, seed=2)
    (comparison,) = study.comparisons
    assert comparison.low > 0.0 and comparison.separates
    payload = study.to_dict()
    assert payload["seed"] == 2 and payload["baseline"] == "tight"
    assert set(payload["provenance"]["charts"]) == {"chip-ev", "tight"} and len(payload["provenance"]["code"]) == 16


def test_refuses_bad_heroes() -> None:
    with pytest.raises(InvalidArgumentError, match="differ from the field"):
        decision_study([1000, 1000], [1.0], models=("pushfold",), tournaments=4, seed=1)
    with pytest.raises(InvalidArgumentError, match="hero share"):
        decision_study([1000, 1000], [1.0], hero_share=1.5, tournaments=4, seed=1)


def test_identical_deciders_under_two_names_differ_by_exactly_zero_in_a_multi_table_field() -> None:
    """27 players at three tables, top-heavy payouts: power ICM at alpha 1 decides as ICM in every hand, so the
    common random numbers (one stream per tournament: seating, cards, the charts' mixing, bust tie-breaks) give
    the same places and a difference of exactly zero; alpha 0.5 decides differently and its tournaments differ."""
    study = decision_study(players=27, payouts="power:paid=4", models=("power-icm@1", "power-icm@0.5"),
                           baseline="icm", hero_share=0.2, tournaments=6, seed=5)
    assert np.array_equal(study.prizes["power-icm@1"], study.prizes["icm"])
    same, other = study.comparisons
    assert same.model == "power-icm@1" and same.mean == 0.0 and same.stderr == 0.0
    assert other.model == "power-icm@0.5" and not np.array_equal(study.prizes["power-icm@0.5"], study.prizes["icm"])


def test_refuses_deciders_it_cannot_build() -> None:
    with pytest.raises(InvalidArgumentError, match="at most 10 players"):
        decision_study(players=27, payouts="power:paid=4", models=("harville@0.7",), tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match="2 powers at most"):
        prepare(players=9, payouts="power:paid=3", play="pushfold:0.4,power-icm@0.8:0.2,power-icm@0.6:0.2,icm:0.2")
    with pytest.raises(InvalidArgumentError, match="needs its exponent"):
        decision_study(players=9, payouts="power:paid=3", models=("power-icm",), tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match=r"exponent must be in \(0, 4\]"):
        decision_study(players=9, payouts="power:paid=3", models=("harville@0",), tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match="is no player"):
        decision_study(players=9, payouts="power:paid=3", models=("chip-ev",), hero_share=0.1, tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match="unknown stage"):
        decision_study(players=9, payouts="power:paid=3", stage="river", tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match="takes no exponent"):
        decision_study(players=9, payouts="power:paid=3", models=("icm@2",), baseline="chip-ev", tournaments=2,
                       seed=1)


def test_final_table_deciders_checkpoint_and_resume_exactly(tmp_path) -> None:
    """Final tables of an 18-player field (two field snapshots, three continuations each): discounted-Harville
    and Malmuth-Weitzman heroes against ICM heroes. A run stopped by Ctrl-C after its first model (progress
    raising KeyboardInterrupt) resumes from its checkpoint to exactly the prizes of an uninterrupted run."""
    arguments = dict(players=18, payouts="power:paid=3", models=("harville@0.7", "malmuth-weitzman"),
                     baseline="icm", hero_share=0.2, tournaments=3, stage="final", snapshots=2, seed=9)
    whole = decision_study(**arguments)

    def stop(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        decision_study(**arguments, checkpoint=tmp_path, progress=stop)
    assert (tmp_path / "snapshots" / "manifest.json").exists() and (tmp_path / "snapshot-0" / "icm").is_dir()
    seen: list[tuple[int, int]] = []
    resumed = decision_study(**arguments, checkpoint=tmp_path, progress=lambda d, t: seen.append((d, t)))
    for name in ("icm", "harville@0.7", "malmuth-weitzman"):
        assert np.array_equal(resumed.prizes[name], whole.prizes[name]), name
    assert seen[-1] == (18, 18) and resumed.to_dict()["replicates"] == 2 and resumed.tournaments == 6
    assert resumed.provenance["commit"] is None or len(resumed.provenance["commit"]) >= 40
