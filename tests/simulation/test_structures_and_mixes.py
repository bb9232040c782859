"""Named blind structures (turbo, regular, deep) and mixed fields (full-ring chart players, ICM-aware players,
tight full-ring players): the structures' levels, their depth at the bubble, the mix dealt as asked, the tight
players' cut ranges, and a mix of players who play alike being the pure field bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.classes import CLASS_SIZES, preflop_order
from pokerlab.errors import InvalidArgumentError
from pokerlab.pushfold.fullring_charts import NO_DECISION, overcalls_of, shipped_charts
from pokerlab.simulation import ring, simulate
from pokerlab.simulation.core import prepare
from pokerlab.simulation.ring import ring_charts, tightened
from pokerlab.simulation.schedule import STRUCTURES, structure_schedule
from pokerlab.simulation.study import _play, average_depth, decision_study


@pytest.mark.parametrize("name", list(STRUCTURES))
def test_a_structure_starts_at_its_depth_and_grows_by_its_factor(name: str) -> None:
    shape = STRUCTURES[name]
    s = structure_schedule(name, 20_000)
    assert s.big_blind[0] == 20_000 / shape.depth and s.small_blind[0] == s.big_blind[0] // 2
    assert np.all(s.hands == shape.hands_per_level) and s.big_blind_ante
    assert s.ante[0] == 0 and np.array_equal(s.ante[1:], s.big_blind[1:])  # a big-blind ante from level 2
    growth = s.big_blind[1:] / s.big_blind[:-1]
    assert abs(np.exp(np.log(growth).mean()) - shape.growth) < 0.01  # blinds rounded to two digits
    assert s.big_blind[-1] >= 900 * 20_000  # the blinds outgrow any field's chips


def test_the_turbos_bubble_is_shallower_than_the_deep_structures() -> None:
    """45 rules players, 6 paid: the average stack in big blinds at the bubble snapshot of each of four
    tournaments (measured: turbo 8-14 bb, deep 23-40 bb)."""
    depth = {}
    for name in ("turbo", "deep"):
        r = simulate(players=45, payouts="power:paid=6", play="rules", structure=name, tournaments=4, seed=3,
                     workers=0, snapshots=["bubble"], records=True)
        assert r.to_dict()["structure"] == name and r.tournament.describe()["structure"] == name
        assert r.records is not None
        depth[name] = [average_depth(r.records["snap_stacks"][k, 0],
                                     float(r.tournament.schedule.big_blind[r.records["snap_info"][k, 0, 1]]))
                       for k in range(4)]
    assert max(depth["turbo"]) < min(depth["deep"]), depth


def test_the_mix_is_dealt_as_asked_and_heroes_take_their_share_of_every_kind() -> None:
    t = prepare(players=100, payouts="power:paid=15", play="fullring:0.6,icm:0.2,fullring-tight:0.2")
    assert np.bincount(t.field.model).tolist() == [60, 20, 20]
    assert t.group_model == ["fullring", "icm", "fullring-tight"] and t.field.callers == 9
    assert t.ring.plays.tolist() == [True, True, True]  # the ICM players put the others on full-ring ranges
    assert t.ring.shift.tolist() == [0, 0, t.ring.uses.size]  # the tight players read the cut charts
    kinds = [("fullring", 0.6), ("icm", 0.2), ("fullring-tight", 0.2)]
    with_heroes = prepare(players=100, payouts="power:paid=15", play=_play(kinds, "icm", 0.1))
    assert np.bincount(with_heroes.field.model).tolist() == [54, 18, 18, 10]  # the heroes: their own group


def test_a_tight_player_keeps_the_strongest_share_of_every_chart_range() -> None:
    charts = shipped_charts()
    rows = charts.jam.reshape(-1, charts.jam.shape[-1])
    rows = rows[(rows != NO_DECISION).all(axis=1) & (rows.astype(np.int64) @ CLASS_SIZES > 0)]
    cut = tightened(rows, 0.5)
    full = rows.astype(np.int64) @ CLASS_SIZES
    kept = cut.astype(np.int64) @ CLASS_SIZES
    assert np.all(np.abs(kept - 0.5 * full) <= 0.5 * 12 + 1e-9)  # within half a step of the edge class's combos
    assert np.all(cut <= rows)
    order = preflop_order()[0]
    ordered = cut[:, order] < rows[:, order]  # cut classes: all the weaker ones are cut too
    first = np.argmax(ordered, axis=1)
    assert all(np.all(cut[r, order[first[r] + 1:]] == 0) for r in range(rows.shape[0]) if ordered[r].any())
    assert np.array_equal(tightened(charts.call, 1.0), charts.call)


def test_a_tight_field_cuts_the_charts_once_per_file_and_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tournament of a study sets up its field: the second set-up with the same keeps reuses the cut
    charts (no call of :func:`tightened`) and its bundle equals the first's and a fresh cut's."""
    ring._TIGHTENED.clear()
    calls: list[float] = []

    def counted(steps: np.ndarray, keep: float) -> np.ndarray:
        calls.append(keep)
        return tightened(steps, keep)

    monkeypatch.setattr(ring, "tightened", counted)
    keeps = [1.0, 0.4, None]
    first, charts = ring_charts(keeps)
    assert calls == [0.4, 0.4, 0.4]  # jam, call and over-call, once
    second, _ = ring_charts(keeps)
    assert calls == [0.4, 0.4, 0.4]
    assert charts is not None
    spots = charts.key.shape[0]
    for bundle in (first, second):
        assert np.array_equal(bundle.jam[:spots], charts.jam) and np.array_equal(bundle.call[:spots], charts.call)
        assert np.array_equal(bundle.jam[spots:], tightened(charts.jam, 0.4))
        assert np.array_equal(bundle.call[spots:], tightened(charts.call, 0.4))
        assert bundle.shift.tolist() == [0, spots, 0]
        rows = overcalls_of(charts).rows
        assert np.array_equal(bundle.overcall[rows.shape[0]:], tightened(rows, 0.4))
        assert bundle.overcall_shift.tolist() == [0, rows.shape[0], 0]
    assert second.jam.flags.writeable and second.jam is not first.jam  # each bundle its own arrays
    ring_charts([0.7])
    assert calls == [0.4, 0.4, 0.4, 0.7, 0.7, 0.7]


def test_a_mix_of_players_who_play_alike_is_the_pure_field_bit_for_bit() -> None:
    """Tight players who keep all of every range play the charts: a field of 60% full-ring and 40% such players
    is the full-ring field, tournament by tournament; so is a decision study in it."""
    runs = [simulate(players=27, payouts="power:paid=4", play=play, tournaments=3, seed=7, workers=0, records=True)
            for play in ("fullring", "fullring:0.6,fullring-tight@1:0.4")]
    assert runs[0].records is not None and runs[1].records is not None
    assert np.array_equal(runs[0].records["places"], runs[1].records["places"])
    studies = [decision_study(players=27, payouts="power:paid=4", models=("chip-ev",), baseline="icm", field=field,
                              hero_share=0.2, tournaments=2, seed=5, structure="turbo")
               for field in ("fullring", "fullring:0.5,fullring-tight@1:0.5")]
    for name in ("icm", "chip-ev"):
        assert np.array_equal(studies[0].prizes[name], studies[1].prizes[name])
    payload = studies[1].to_dict()
    assert payload["structure"] == "turbo" and payload["average_stack_bb"] == 50.0


def test_heroes_in_a_mixed_field_with_players_of_their_own_model() -> None:
    """ICM heroes in a field that has ICM players: the heroes are counted apart (their prizes, not the field's);
    a bubble start records each snapshot's depth."""
    study = decision_study(players=27, payouts="power:paid=4", models=("chip-ev",), baseline="icm",
                           field="fullring:0.5,icm:0.25,fullring-tight:0.25", hero_share=0.2, tournaments=2,
                           stage="bubble", snapshots=2, seed=6, structure="deep")
    payload = study.to_dict()
    assert payload["field"] == "fullring:0.5,icm:0.25,fullring-tight:0.25" and payload["structure"] == "deep"
    assert len(payload["average_stack_bb_each"]) == 2 and all(d > 0 for d in payload["average_stack_bb_each"])
    assert all(0.0 <= p <= 1000.0 for values in study.prizes.values() for p in values)


def test_bad_mixes_and_structures_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="unknown structure"):
        prepare(players=10, payouts="1", structure="hyper")
    with pytest.raises(InvalidArgumentError, match="not both"):
        prepare(players=10, payouts="1", structure="deep", schedule=structure_schedule("deep", 10_000))
    with pytest.raises(InvalidArgumentError, match="add up to 0.9"):
        prepare(players=10, payouts="1", play="fullring:0.6,fullring-tight:0.3")
    with pytest.raises(InvalidArgumentError, match="unknown play model"):
        decision_study(players=10, payouts="1", field="fullring:0.5,nit:0.5", tournaments=2, seed=1)
    with pytest.raises(InvalidArgumentError, match=r"in \(0, 1\]"):
        prepare(players=10, payouts="1", play="fullring-tight@0")
