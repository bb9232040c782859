"""Timings shown to users never include compilation: after a command's warm-up, its timed call neither compiles
nor loads a kernel; the compiling notice shows on a terminal only, and only when numba really compiles.

Each check runs in a fresh process, where no kernel is loaded yet (the on-disk cache may hold them: loading
one is also work that must stay out of a timed run).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pokerlab.cli.main import COMMANDS
from pokerlab.warmup import COMPILING_NOTICE, KERNEL_GROUPS

# kernels_added(call): calls call; ADDED is then every numba dispatcher of pokerlab that gained a compiled or loaded
# specialization in it (the warm-ups call the same façades: the last call is the command's timed one)
PROBE_HEAD = """
import json, sys
from numba.core.registry import CPUDispatcher

def overloads():
    counts = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("pokerlab"):
            for attr, value in list(vars(module).items()):
                if isinstance(value, CPUDispatcher):
                    counts[f"{name}.{attr}"] = len(value.overloads)
    return counts

def kernels_added(call, *args, **kwargs):
    before = overloads()
    result = call(*args, **kwargs)
    after = overloads()
    ADDED[:] = sorted(k for k, n in after.items() if n > before.get(k, 0))  # the last call: the timed one
    return result

ADDED = []
"""

FACADE_PROBE = """
from pokerlab.equity import equity, equity_vs_random
from pokerlab.icm import icm
from pokerlab.simulation import simulate
from pokerlab.solvers import solve
from pokerlab.warmup import prepare
import numpy as np

prepare({groups!r}, quiet=True)
kernels_added(lambda: {call})
print("ADDED", json.dumps(ADDED))
"""

FACADE_CASES = [
    ([], 'equity(["AhAs", "KdKc"])'),  # two known hands preflop: the shipped table, no kernel at all
    (["equity-known-hands"], 'equity(["AhAs", "KdKc"], method="exact")'),
    (["equity-known-hands"], 'equity(["AsAh", "QdQc", "9c3d"], dead="2h7d8c")'),
    ([], 'equity(["AsAh", "QdQc", "9c3d"], board="2h7d8c")'),  # a small problem on a flop: plain numpy
    (["equity-exact"], 'equity(["AhAs", "KdKc"], method="exact")'),
    (["equity-exact"], 'equity(["AsAh", "QdQc", "9c3d"], method="exact")'),
    (["equity-exact"], 'equity(["QQ+, AKs", "TT+, AQs+"], method="exact")'),
    (["equity-exact"], 'equity(["AA", "random"], method="exact")'),
    (["equity-exact"], 'equity(["AsKs", "AcJc"], dead="Js8s5d")'),
    # a route's own group: the one board-walk kernel that route runs
    (["equity-exact-hand-vs-random"], 'equity(["AA", "random"], method="exact")'),
    (["equity-exact-hand-vs-random"], 'equity(["AsKs", "random"], dead="Js8s5d")'),
    (["equity-exact-hand-vs-random"],  # the demo's exact calls (the one on a flop is plain numpy)
     '(equity(["AsKs", "random"], method="exact"), equity(["AsKs", "AcJc"], board="Js8s5d"))'),
    (["equity-exact-hand-vs-range"], 'equity(["AsKs", "QQ+:0.5, AKs"], dead="Js8s5d")'),
    (["equity-exact-hand-vs-range"], 'equity(["QQ+:0.5, AKs", "AsKs"], dead="Js8s5d")'),  # enumerated mirrored
    (["equity-exact-heads-up"], 'equity(["JJ+:0.5, AK", "88+, ATs+"], board="Js8s5d")'),
    (["equity-exact-multiway"], 'equity(["AK:0.5", "QQ, JJ", "T9s, 98s"], board="Js8s5d")'),
    (["equity-montecarlo"], 'equity(["AhAs", "random", "random", "random"], method="montecarlo", trials=50_000, '
                            'seed=2)'),
    (["equity-vs-random"], 'equity_vs_random("AhAs", max_opponents=9, trials=100_000, seed=1)'),
    (["icm"], 'icm(np.linspace(1, 3, 300), np.linspace(20, 1, 45), places=True)'),
    (["icm-montecarlo"], 'icm(np.linspace(1, 3, 300), np.linspace(20, 1, 45), "montecarlo", samples=20_000, '
                         'seed=1)'),
    (["simulation"], 'simulate([5, 3, 2], [600, 400], bet=1, tournaments=2_000, seed=3)'),
    (["solvers"], 'solve("leduc", "cfr+", iterations=20)'),
]


def _probe(script: str, env: dict[str, str] | None = None) -> tuple[list[str], str]:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})})
    line = next(x for x in done.stdout.splitlines() if x.startswith("ADDED "))
    return json.loads(line[len("ADDED "):]), done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("groups, call", FACADE_CASES)
def test_a_warm_group_covers_every_kernel_of_its_route(groups, call):
    added, _ = _probe(PROBE_HEAD + FACADE_PROBE.format(groups=groups, call=call))
    assert added == [], f"{call} compiled or loaded {added} after warming {groups}"


CLI_PROBE = """
import importlib
from pokerlab.cli.main import app

engine = importlib.import_module("{module}")  # the module (pokerlab.equity as an attribute is the function)

facade = engine.{name}
engine.{name} = lambda *args, **kwargs: kernels_added(facade, *args, **kwargs)
app({args!r}, standalone_mode=False)
print("ADDED", json.dumps(ADDED))
"""


@pytest.mark.parametrize("module, name, args", [
    ("pokerlab.equity", "equity", ["equity", "AsKs", "QdQc", "--json"]),
    pytest.param("pokerlab.equity", "equity", ["equity", "AsKs", "QdQc", "--mc", "--trials", "20000", "--seed", "1",
                                               "--json"], marks=pytest.mark.slow),
    ("pokerlab.icm", "icm", ["icm", "--stacks", "5000,3000,2000,1000", "--payouts", "50,30,20", "--places", "--json"]),
    # the two-round game's exact EV (tens of seconds) is not run twice: its group compiles the kernels on stack 1
    pytest.param("pokerlab.agents.match", "run_match", ["match", "fullbet", "random", "--game", "two-round", "--hands",
                                                        "20", "--matches", "1", "--json"], marks=pytest.mark.slow),
    pytest.param("pokerlab.icm", "icm", ["icm", "--stacks", "5000,3000,2000,1000", "--payouts", "50,30,20", "--method",
                                         "montecarlo", "--samples", "20000", "--json"], marks=pytest.mark.slow),
    pytest.param("pokerlab.icm", "icm", ["icm", "--stacks", ",".join(["100"] * 300), "--payouts", "50,30,20",
                                         "--method", "montecarlo", "--json"], marks=pytest.mark.slow),
])
def test_commands_time_no_compilation(module, name, args):
    """The engine call a command times (its elapsed_s) runs on kernels compiled or loaded before it."""
    added, stderr = _probe(PROBE_HEAD + CLI_PROBE.format(module=module, name=name, args=args))
    assert added == [], f"pokerlab {' '.join(args)}: the timed call compiled or loaded {added}"
    assert COMPILING_NOTICE not in stderr  # --json: nothing on stderr


TWO_ROUND_PROBE = """
from pokerlab.cli.main import app
from pokerlab.games.two_round import TwoRoundSpec
from pokerlab.solvers import two_round

two_round.TwoRoundTrainer(TwoRoundSpec(stack=1), seed=0).save({bot!r})  # no kernel runs: tables only
facade = {target}
{target} = lambda *args, **kwargs: kernels_added(facade, *args, **kwargs)
app({args!r}, standalone_mode=False)
print("ADDED", json.dumps(ADDED))
"""


@pytest.mark.parametrize("target, args", [
    ("two_round.TwoRoundTrainer.train", ["two-round", "train", "--stack", "1", "--iterations", "2000", "--out",
                                         "{dir}/trained.npz", "--json"]),
    ("two_round.TwoRoundTrainer.train", ["two-round", "train", "--resume", "{dir}/bot.npz", "--iterations", "2000",
                                         "--json"]),
    ("two_round.exploitability", ["two-round", "train", "--stack", "1", "--iterations", "2000", "--exploitability",
                                  "--out", "{dir}/trained.npz", "--json"]),
    ("two_round.exploitability", ["two-round", "exploitability", "{dir}/bot.npz", "--json"]),
])
def test_two_round_commands_time_no_compilation(tmp_path, target, args):
    """`two-round train` times the training (elapsed_s), `two-round exploitability` the best responses: both run on
    kernels compiled or loaded before."""
    args = [arg.format(dir=tmp_path) for arg in args]
    added, stderr = _probe(PROBE_HEAD + TWO_ROUND_PROBE.format(bot=str(tmp_path / "bot.npz"), target=target,
                                                               args=args))
    assert added == [], f"pokerlab {' '.join(args)}: the timed call compiled or loaded {added}"
    assert COMPILING_NOTICE not in stderr


# Runs a web task in a fresh process; ADDED collects the kernels that gained a specialization inside any call of
# the timed façades made outside a warm-up (compile_first: what prepare and the tasks' own warm-ups run through)
WEB_PROBE = """
import importlib
from pokerlab import warmup
from pokerlab.web.tasks import TASKS

warming = [0]
compile_first = warmup.compile_first

def counted(*args, **kwargs):
    warming[0] += 1
    try:
        return compile_first(*args, **kwargs)
    finally:
        warming[0] -= 1

warmup.compile_first = counted
timed_added = set()

def timed(owner, name):
    facade = getattr(owner, name)

    def call(*args, **kwargs):
        if warming[0]:
            return facade(*args, **kwargs)
        result = kernels_added(facade, *args, **kwargs)
        timed_added.update(ADDED)
        return result

    setattr(owner, name, call)

for module, name in {facades!r}:
    owner = importlib.import_module(module)
    *path, attr = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    timed(owner, attr)
TASKS[{task!r}]({params!r}, lambda *args, **kwargs: None)
print("ADDED", json.dumps(sorted(timed_added)))
"""


@pytest.mark.parametrize("task, params, facades", [
    ("equity", {"players": ["AsKs", "QdQc"]}, [("pokerlab.equity", "equity")]),
    pytest.param("equity", {"players": ["QQ+", "AKs", "random"], "method": "montecarlo", "trials": 20_000, "seed": 1},
                 [("pokerlab.equity", "equity")], marks=pytest.mark.slow),
    ("icm", {"stacks": [5000, 3000, 2000, 1000], "payouts": "50,30,20", "places": True}, [("pokerlab.icm", "icm")]),
    pytest.param("icm", {"stacks": [5000, 3000, 2000, 1000], "payouts": "50,30,20", "method": "montecarlo",
                         "samples": 20_000, "seed": 1}, [("pokerlab.icm", "icm")], marks=pytest.mark.slow),
    ("solve", {"game": "kuhn", "algo": "cfr+", "iterations": 50}, [("pokerlab.solvers.core", "solve")]),
    ("pushfold", {"stacks": [10, 10], "iterations": 20}, [("pokerlab.pushfold", "pushfold")]),
    ("two-round", {"stack": 1, "iterations": 2000, "checks": 2},
     [("pokerlab.solvers.two_round", "TwoRoundTrainer.train"), ("pokerlab.solvers.two_round", "exploitability")]),
])
def test_web_tasks_time_no_compilation(task, params, facades):
    """Each web task warms its kernels as the matching CLI command does, so its elapsed_s excludes compilation."""
    added, _ = _probe(PROBE_HEAD + WEB_PROBE.format(task=task, params=params, facades=facades))
    assert added == [], f"web task {task} {params}: the timed calls compiled or loaded {added}"


NOTICE_PROBE = """
from numba import njit
from pokerlab.warmup import compile_first

@njit(cache=False)  # never cached: the first call compiles
def twice(x):
    return 2 * x

print("COMPILED", compile_first([lambda: twice(1)], quiet={quiet}), compile_first([lambda: twice(2)]))
"""


TERMINAL_ENV = {"TTY_COMPATIBLE": "1", "FORCE_COLOR": "1"}


@pytest.mark.parametrize("terminal, quiet, shown", [(True, False, True), (True, True, False), (False, False, False)])
def test_compiling_notice_only_on_a_terminal_and_only_when_compiling(terminal, quiet, shown):
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_ENV}  # stderr is a pipe here
    if terminal:
        env.update(TERMINAL_ENV)  # rich then treats the pipe as a terminal
    done = subprocess.run([sys.executable, "-c", NOTICE_PROBE.format(quiet=quiet)], capture_output=True, text=True,
                          check=True, env=env)
    assert "COMPILED 1 0" in done.stdout  # the first workload compiled one kernel, the second none
    assert done.stderr.count(COMPILING_NOTICE) == (1 if shown else 0)


def test_warmup_command_is_listed_and_every_group_has_a_description():
    assert COMMANDS["warmup"][0] == "warmup_cmd"
    assert all(group.description and group.name == name for name, group in KERNEL_GROUPS.items())
    assert all(KERNEL_GROUPS[group.within].within is None for group in KERNEL_GROUPS.values() if group.within)


@pytest.mark.parametrize("players, board, method, sampling, groups", [
    # heads-up preflop with no dead card: any two ranges from the shipped table, no kernel
    (["AsKs", "QdQc"], "", "auto", False, []),
    (["AsKs:0.5", "QdQc"], "", "exact", False, []),
    (["AA", "random"], "", "auto", False, []),
    (["QQ+, AKs", "TT+, AQs+"], "", "auto", False, []),
    (["AsKs", "QdQc"], "2c7d9h", "auto", False, []),  # small on a flop: plain numpy, no kernel
    (["AsKs:0.5", "QQ+"], "2c7d9h", "exact", False, []),
    (["AsKs", "QdQc", "JhTh"], "", "exact", False, ["equity-known-hands"]),
    (["AsKs:0.5", "random"], "2c7d9h", "exact", False, ["equity-exact-hand-vs-range"]),  # a weight: the board walk
    (["random", "AsKs:0.5"], "2c7d9h", "exact", False, ["equity-exact-hand-vs-range"]),
    (["JJ+:0.5, AK", "88+, ATs+"], "2c7d9h", "exact", False, ["equity-exact-heads-up"]),
    (["AK:0.5", "QQ, JJ", "T9s, 98s"], "Js8s5d", "exact", False, ["equity-exact-multiway"]),
    (["AsKs", "random"], "", "auto", False, []),  # heads-up preflop: the table
    (["AsKs", "random"], "Js8s5d", "auto", False, ["equity-exact-hand-vs-random"]),  # 2.5 M values: the kernel
    (["AA, KK", "random"], "2c3d4h", "auto", False, ["equity-exact"]),  # orbits of matchups
    (["AsKs", "QdQc"], "", "auto", True, ["equity-montecarlo"]),  # a Monte Carlo limit was given
    (["AsKs", "QdQc"], "", "exact", True, []),  # refused by the engine before any kernel
    (["random"] * 9 + ["AsKs"], "", "auto", False, ["equity-montecarlo"]),  # too big to enumerate
])
def test_equity_groups_follow_the_engines_choice(players, board, method, sampling, groups):
    from pokerlab.warmup import equity_groups

    assert equity_groups(players, board, "", method, sampling) == groups


def test_make_test_runs_the_warmup_first_and_make_demo_compiles_only_what_it_uses():
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    for target, first in (("test", "$(BIN)/pokerlab warmup"), ("demo", "$(BIN)/python -m pokerlab.demo")):
        recipe = makefile.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
        lines = [line.strip() for line in recipe.splitlines()[1:]]
        assert lines[0] == first, f"make {target} should start with {first}"


def test_demo_compiles_up_front_exactly_the_groups_its_sections_prepare():
    import ast

    from pokerlab import demo

    tree = ast.parse(Path(demo.__file__).read_text())
    prepared = {element.value for call in ast.walk(tree) if isinstance(call, ast.Call)
                and getattr(call.func, "id", None) == "prepare" and isinstance(call.args[0], ast.List)
                for element in call.args[0].elts}
    assert prepared == set(demo.DEMO_GROUPS) and prepared <= set(KERNEL_GROUPS)
    assert len(demo.DEMO_GROUPS) == len(prepared)


@pytest.mark.slow
def test_warmup_command_compiles_every_group_in_two_processes():
    done = subprocess.run([sys.executable, "-m", "pokerlab.cli.main", "warmup", "--jobs", "2", "--json"],
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    assert report["jobs"] == 2 and done.stderr == ""  # --json: no progress bar, no notice
    expected = {name for name, group in KERNEL_GROUPS.items() if group.within is None}
    assert {group["name"] for group in report["groups"]} == expected
    assert report["kernels_compiled"] == sum(group["kernels_compiled"] for group in report["groups"])
    # the workers wrote the cache: a fresh process now loads every group without compiling anything
    again = subprocess.run([sys.executable, "-c", "from pokerlab.warmup import KERNEL_GROUPS, prepare\n"
                            "print('COMPILED', prepare(KERNEL_GROUPS, quiet=True))"],
                           capture_output=True, text=True, check=True)
    assert "COMPILED 0" in again.stdout
