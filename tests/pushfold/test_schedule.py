"""The push/fold solve's schedule on its own: checks, the redeal, the doubling, the stops, the time limit."""

from __future__ import annotations

from pokerlab.pushfold.schedule import (
    CONTINUE,
    FIRST_CHECK,
    ITERATIONS,
    MORE_DEALS_AFTER,
    REDEAL,
    REDEAL_ITERATIONS,
    TARGET,
    TIME,
    SolveSchedule,
)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def schedule(**kwargs: object) -> SolveSchedule:
    options: dict[str, object] = {"target": 1e-3, "iterations": None, "deadline": None, "redeal": False,
                                  "can_double": True, "clock": Clock()}
    options.update(kwargs)
    return SolveSchedule(**options)  # type: ignore[arg-type]


def test_checks_every_quarter_of_the_iterations_done() -> None:
    s = schedule()
    done = 0
    seen = []
    for _ in range(6):
        done += s.next_batch(done)
        seen.append(done)
        assert s.after_check(done, 1.0).action == CONTINUE
    assert seen == [8, 16, 24, 32, 40, 50]


def test_stops_at_the_target_and_at_the_iteration_limit() -> None:
    assert schedule().after_check(8, 1e-3).action == TARGET
    s = schedule(iterations=10)
    assert s.next_batch(0) == FIRST_CHECK
    assert s.after_check(8, 1.0).action == CONTINUE
    assert s.next_batch(8) == 2
    assert s.after_check(10, 1.0).action == ITERATIONS
    assert s.next_batch(10) == 0


def test_redeals_once_then_the_target_counts() -> None:
    s = schedule(redeal=True)
    assert s.after_check(8, 1e-9).action == REDEAL  # at the target before the redeal: redeal first
    assert s.next_batch(8) == FIRST_CHECK  # the redealt game is checked after 8 iterations again
    assert s.after_check(16, 1e-9).action == TARGET
    t = schedule(redeal=True)
    assert t.after_check(8, 1.0).action == CONTINUE
    step = t.after_check(REDEAL_ITERATIONS, 1.0)
    assert (step.action, step.deals_factor) == (REDEAL, 1)


def test_redeals_at_the_iteration_limit() -> None:
    s = schedule(redeal=True, iterations=4)
    assert s.after_check(4, 1.0).action == REDEAL
    assert s.next_batch(4) == 0
    assert s.after_check(4, 1.0).action == ITERATIONS


def test_doubles_the_deals_once_when_stalled_where_they_fit() -> None:
    s = schedule(redeal=True)
    assert s.after_check(REDEAL_ITERATIONS, 1.0).action == REDEAL
    assert s.after_check(REDEAL_ITERATIONS + MORE_DEALS_AFTER - 1, 1.0).action == CONTINUE
    step = s.after_check(REDEAL_ITERATIONS + MORE_DEALS_AFTER, 1.0)
    assert (step.action, step.deals_factor) == (REDEAL, 2)
    assert s.after_check(100, 1.0).action == CONTINUE  # once only
    no_room = schedule(redeal=True, can_double=False)
    assert no_room.after_check(REDEAL_ITERATIONS, 1.0).action == REDEAL
    assert no_room.after_check(100, 1.0).action == CONTINUE
    uniform = schedule(redeal=False)  # no redeal asked: no doubling either
    assert uniform.after_check(100, 1.0).action == CONTINUE


def test_time_limit_stops_and_starts_no_redeal() -> None:
    clock = Clock()
    s = schedule(redeal=True, deadline=5.0, clock=clock)
    assert not s.out_of_time()
    assert s.after_check(8, 1.0).action == CONTINUE
    clock.now = 5.0
    assert s.out_of_time()
    assert s.after_check(16, 1e-9).action == TIME  # the redeal was due, but the time is up
    assert s.redeal_pending
    stalled = schedule(redeal=True, deadline=5.0, clock=clock)
    clock.now = 0.0
    assert stalled.after_check(16, 1.0).action == REDEAL
    clock.now = 6.0
    assert stalled.after_check(REDEAL_ITERATIONS + MORE_DEALS_AFTER, 1.0).action == TIME  # no doubling either


def test_a_time_limit_stops_at_the_first_check_and_skips_what_is_left():
    # the limit is past before the first iteration ends: one iteration, one gain check, no redeal, no sampling
    # check, and the result says what it left out
    from pokerlab.pushfold import pushfold

    r = pushfold([10.0, 9.0, 11.0], (0.5, 1.0), payouts=[60.0, 40.0], target=1e-9, time_limit=1e-9,
                 multiway_samples=100)
    assert r.stop_reason == TIME and r.iterations == 1
    assert r.game.valuation.stage == "uniform" and r.multiway_check_gains is None
    assert any("before the redeal" in note for note in r.notes)
    assert any("sampling check" in note for note in r.notes)
    assert r.to_dict()["notes"] == list(r.notes)


def test_ctrl_c_after_the_redeal_keeps_the_strategy_it_had(monkeypatch):
    # Ctrl-C in the redealt game's first iterations, before its first gain check: the uniform deals' best
    # profile and its gains come back (with a note), not an error
    from pokerlab.pushfold import pushfold
    from pokerlab.solvers.vector import VectorSolver

    iterate = VectorSolver.iterate

    def interrupted_after_the_redeal(self, iterations, progress=None):
        if self.tree.game.valuation.stage == "redealt":
            raise KeyboardInterrupt
        return iterate(self, iterations, progress)

    monkeypatch.setattr(VectorSolver, "iterate", interrupted_after_the_redeal)
    r = pushfold([10.0, 9.0, 11.0], (0.5, 1.0), payouts=[60.0, 40.0], target=1e-9, multiway_samples=100)
    assert r.stop_reason == "interrupted" and r.game.valuation.stage == "uniform"
    assert r.jam.shape == (3, 169) and r.max_gain > 0
    assert any("before the redeal" in note for note in r.notes)
