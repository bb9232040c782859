"""Decisions scored in money (pokerlab.simulation.study.decision_study): heroes deciding by one model against
the same heroes deciding by another, paired over the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import InvalidArgumentError
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
