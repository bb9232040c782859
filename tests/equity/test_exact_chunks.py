"""The exact engine runs its kernels in chunks (so that Ctrl-C lands between them and progress moves): every
route gives the same numbers bit for bit whatever the chunks (1 item, 7, all at once, or sized by time) and
whatever the thread count, and the progress it reports ends at 1."""

from __future__ import annotations

import numba
import pytest

from pokerlab.equity.exact import plan_exact, solve_exact
from pokerlab.equity.problem import prepare_problem

CASES = [
    (["QQ+", "AKs, AQs", "JJ-99"], "2c7d9h", False),  # one deal of known hands per orbit of matchups
    (["AA", "random"], "Js8s5d2c", False),  # combo orbits against a random hand
    (["QQ", "AhKh"], "Qs8h2c", False),  # the exact hand second: the mirrored lean loop
    (["AsAh", "QdQc", "9c3d"], "7h6h5d", False),  # one deal of known hands
    (["QQ+:0.3, AK", "TT+:0.7, 98s"], "2c7d9h", False),  # weighted heads-up: float totals
    (["QQ+:0.5, AKs", "random", "JJ-88:0.25"], "2c7d9h8h", True),  # the general loop, weighted, with categories
    (["AKs:0.5, 76s", "JJ"], "Ah8h2d", True),
]


def _solve(players, board, breakdown, chunk):
    problem = prepare_problem(players, board, "")
    plan = plan_exact(problem)
    assert plan is not None
    seen: list[float] = []
    outcome = solve_exact(problem, plan, breakdown, seen.append, chunk=chunk)
    assert seen and seen[-1] == pytest.approx(1.0) and seen == sorted(seen)
    return outcome


def _same(a, b):
    for field in ("equity", "win", "tie"):
        assert a[field].tolist() == b[field].tolist(), field  # bit for bit, not approximately
    assert (a["showdowns"], a["wins"], a["ties"]) == (b["showdowns"], b["wins"], b["ties"])
    if a["categories"] is not None:
        assert a["categories"].tolist() == b["categories"].tolist()


@pytest.mark.parametrize("players, board, breakdown", CASES)
def test_the_chunks_do_not_change_a_bit(players, board, breakdown):
    adaptive = _solve(players, board, breakdown, None)
    for chunk in (1, 7, 1 << 30):
        _same(_solve(players, board, breakdown, chunk), adaptive)


def test_the_thread_count_does_not_change_a_bit():
    """Weighted totals are summed per unit of boards in unit order, not per thread."""
    players, board, breakdown = CASES[5]
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = _solve(players, board, breakdown, None)
    finally:
        numba.set_num_threads(threads)
    _same(single, _solve(players, board, breakdown, None))


def test_long_units_are_cut_into_slices_of_matchups():
    """A unit of the general loop preflop (19,600 boards) against 1.65 M matchups of three players took 32 s in one
    kernel call; it is cut into slices of matchups so that Ctrl-C waits well under a second (0.3-0.4 s measured
    under load 4), while small problems stay one slice."""
    from pokerlab.equity.exact import matchup_slices

    problem = prepare_problem(["JJ+,AK", "TT+,AQ", "random"], "", "")
    plan = plan_exact(problem)
    assert matchup_slices(plan, 19_600, 3, 0) == 73  # at least 16 matchups per combo in a slice
    problem = prepare_problem(*CASES[5][:2], "")
    assert matchup_slices(plan_exact(problem), 1, 3, 0) == 1


@pytest.mark.parametrize("players, board, breakdown", [CASES[5], (["QQ+", "AKs, AQs", "JJ-99"], "2c7d9h", True),
                                                        (["QQ+:0.3, AK", "TT+:0.7, 98s"], "2c7d9h", False)])
def test_slices_of_matchups_change_no_count_and_no_bit_across_chunks(monkeypatch, players, board, breakdown):
    from pokerlab.equity import exact

    whole = _solve(players, board, breakdown, None)
    monkeypatch.setattr(exact, "matchup_slices", lambda *args: 3)  # the rule's choice is tested above
    sliced = _solve(players, board, breakdown, None)
    assert (sliced["showdowns"], sliced["wins"], sliced["ties"]) == (whole["showdowns"], whole["wins"], whole["ties"])
    for field in ("equity", "win", "tie"):  # floats: the same sums in another order
        assert sliced[field] == pytest.approx(whole[field], rel=1e-10, abs=1e-13)
    if breakdown:
        assert sliced["categories"] == pytest.approx(whole["categories"], rel=1e-10, abs=1e-13)
    for chunk in (1, 7, 1 << 30):  # and the slices are items like any other: chunks change no bit
        _same(_solve(players, board, breakdown, chunk), sliced)

