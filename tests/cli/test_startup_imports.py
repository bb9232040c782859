"""Small problems answer without numba or scipy: a heads-up preflop equity from the shipped table, a final
table's ICM by the plain-numpy subset recursion, a hand's value, a range, heads-up push/fold. Each command runs in
a fresh interpreter (as from the shell) and reports which heavy modules it loaded; a problem that needs a compiled
kernel still loads numba (so the probe can see it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import sys
from pokerlab.cli.main import app
try:
    app({args!r})
except SystemExit:
    pass
print("LOADED", sorted(m for m in ("numba", "scipy", "matplotlib") if m in sys.modules))
"""


def loaded(args: list[str]) -> tuple[list[str], str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True,
                          check=True)
    *output, last = done.stdout.strip().splitlines()
    assert last.startswith("LOADED "), done.stdout + done.stderr
    return eval(last.removeprefix("LOADED ")), "\n".join(output)  # noqa: S307 (our own repr of a list)


@pytest.mark.parametrize("args", [
    ["eval", "AsKsQsJsTs9d2c"],
    ["range", "QQ+,AKs", "--grid"],
    ["equity", "AsKs", "random", "--json"],
    ["equity", "AsKs", "QdQc", "--json"],
    ["equity", "AsKs", "QdQc", "--board", "2c7d9h", "--json"],  # small on a flop: plain numpy
    ["equity", "QQ+,AKs", "TT+,AQs+:0.5", "--json"],
    ["icm", "--stacks", "5000,3000,2000", "--payouts", "50,30,20", "--json"],
    ["icm", "--stacks", ",".join(["1000"] * 10), "--payouts", "50,30,20", "--places", "--json"],
    ["pushfold", "--stacks", "10,10"],  # heads-up push/fold: plain numpy
    ["pushfold", "--stacks", "12,8", "--payouts", "70,30", "--target", "1e-3"],
])
def test_small_problems_load_neither_numba_nor_scipy(args):
    modules, output = loaded(args)
    assert modules == []
    if "--json" in args:
        assert json.loads(output)["method"] == "exact"


@pytest.mark.parametrize("args", [
    ["equity", "AsKs", "QdQc", "--dead", "3c", "--json"],  # preflop with a dead card: the enumeration kernels
    ["icm", "--stacks", ",".join(["1000"] * 11), "--payouts", "50,30,20", "--json"],  # over 10 players: quadrature
    ["pushfold", "--stacks", "10,10", "--bounty", "1", "--iterations", "8"],  # bounties: the compiled solver
])
def test_problems_that_need_a_kernel_still_load_numba(args):
    modules, _ = loaded(args)
    assert "numba" in modules
