"""Fixtures of the equity tests: which exact route a small problem on a flop, turn or river takes."""

from __future__ import annotations

import pytest

from pokerlab.equity import few_boards


@pytest.fixture
def kernels_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small problems on a flop, turn or river go to the compiled enumeration's routes, not the plain-numpy one
    (:mod:`pokerlab.equity.few_boards` answers them otherwise, and the routes' own tests would test it instead)."""
    monkeypatch.setattr(few_boards, "FEW_BOARDS_WORK", 0)


@pytest.fixture(params=["few-boards", "kernels"])
def either_route(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test once with the plain-numpy route for small problems and once with the compiled routes only."""
    if request.param == "kernels":
        monkeypatch.setattr(few_boards, "FEW_BOARDS_WORK", 0)
    return str(request.param)
