"""Every command and every Python block of the README, run as a user would run them from the repository root
(issue 26: 6 of 45 examples needed files that were not shipped, two Python blocks used names they never set).
Cheap examples run as written; expensive ones with the smallest arguments that take the same path
(:data:`CHEAPER` and :data:`CHEAPER_PYTHON`: the README's text, then what runs), the slowest marked slow. A README
example that is neither run as written nor listed here fails :func:`test_every_readme_command_is_covered`."""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

CHEAPER: dict[str, str] = {
    "pokerlab icm --stacks-file examples/big.txt --payouts power:paid=1500 --method montecarlo --places --samples "
    "20000 --json":
        "pokerlab icm --stacks-file examples/big.txt --payouts power:paid=1500 --method montecarlo --places --samples "
        "2000 --json",
    "pokerlab match cfr random --game leduc --hands 20000 --seed 1":
        "pokerlab match cfr random --game leduc --hands 400 --seed 1",
    "pokerlab two-round train --out bot.npz -n 10000000 --buckets 48 --seed 1":
        "pokerlab two-round train --out bot.npz -n 20000 --buckets 48 --seed 1",
    "pokerlab match bot.npz random --game two-round": "pokerlab match bot.npz random --game two-round --hands 200",
    "pokerlab pushfold --stacks 12,8,15,10,9,11 --ante 0.1 --payouts 50,30,20 --png charts/":
        "pokerlab pushfold --stacks 12,8,15,10 --ante 0.1 --payouts 50,30,20 --png charts/",
    "pokerlab pushfold --chart heads-up --depths 1-20": "pokerlab pushfold --chart heads-up --depths 1-3",
    "pokerlab simulate --stacks 5,3,2 --payouts 600,400 --play coinflip --bet 1 --tournaments 100000 --seed 1 --json":
        "pokerlab simulate --stacks 5,3,2 --payouts 600,400 --play coinflip --bet 1 --tournaments 2000 --seed 1 "
        "--json",
    "pokerlab simulate --players 1000 --starting-stack 10000 --table-size 9 --schedule examples/blinds.csv "
    "--payouts power:paid=150 --play rules --tournaments 1000 --output runs/field --json":
        "pokerlab simulate --players 160 --starting-stack 10000 --table-size 9 --schedule examples/blinds.csv "
        "--payouts power:paid=150 --play rules --tournaments 4 --output runs/field --json",
    "pokerlab simulate --players 900 --payouts power:paid=135 --play rules:0.8,tight:0.2 --tournaments 500":
        "pokerlab simulate --players 140 --payouts power:paid=135 --play rules:0.8,tight:0.2 --tournaments 4",
    "pokerlab simulate --from-snapshot examples/snap.json --payouts power:paid=150 --play rules --continuations "
    "10000":
        "pokerlab simulate --from-snapshot examples/snap.json --payouts power:paid=150 --play rules --continuations 8",
    "pokerlab simulate --players 10000 --payouts flat:paid=1500 --tournaments 2000 --ray local":
        "pokerlab simulate --players 1600 --payouts flat:paid=1500 --tournaments 2 --ray local",
    "pokerlab postflop report --oop 66+,A8s+,AJo+ --ip QQ-22,AQs-A2s,ATo+ --pot 60 --stack 970 --bets 33% --raises "
    "'' --flops 49 --target 1% --checkpoint ck --output report --plot":
        "pokerlab postflop report --oop AA,KK --ip QQ --pot 60 --stack 970 --bets 33% --raises '' --flops 1 "
        "--iterations 5 --checkpoint ck --output report --plot",
}
SLOW = {  # a minute or more on a fresh machine: the default two-round bot is trained once, exact best responses
    # and a match in the full two-round game (stack 6: 40-60 s each on a loaded core), Ray starts a cluster
    "pokerlab match cfr fullbet --game two-round --exploitability",
    "pokerlab two-round exploitability bot.npz",
    "pokerlab match bot.npz random --game two-round",
    "pokerlab simulate --players 10000 --payouts flat:paid=1500 --tournaments 2000 --ray local",
}
# what writes the files later examples read: run first when a selection (-m slow, -k) skipped it
PRODUCERS = {"bot.npz": "pokerlab two-round train --out bot.npz -n 10000000 --buckets 48 --seed 1",
             "leduc.npz": "pokerlab solve leduc --algo dcfr --target-exploitability 1e-4 --out leduc.npz"}
CHEAPER_PYTHON: dict[str, str] = {  # a line of a Python block, then what runs: the same calls on smaller inputs
    'r = pushfold([12, 8, 15, 10, 9, 11], blinds=(0.5, 1), ante=0.1, payouts=[50, 30, 20])':
        'r = pushfold([12, 8, 15], blinds=(0.5, 1), ante=0.1, payouts=[50, 30, 20], target=1e-2)',
    'r.call[(5, 0)]          # the big blind calling an UTG jam': 'r.call[(2, 0)]',
    '          target=0.5)': '          target=5)',
    'r = simulate([5, 3, 2], [600, 400], bet=1, tournaments=100_000, seed=1)':
        'r = simulate([5, 3, 2], [600, 400], bet=1, tournaments=2_000, seed=1)',
    'compare_models([5000, 3000, 2000], [600, 400], continuations=10_000, play="rules", seed=1).errors':
        'compare_models([5000, 3000, 2000], [600, 400], continuations=200, play="rules", seed=1).errors',
    'equity_vs_random("AhAs", max_opponents=9, trials=2_000_000, seed=1).equity  # vs 1..9 random hands':
        'equity_vs_random("AhAs", max_opponents=9, trials=20_000, seed=1).equity',
    'r = run_match(g, default_trained(g), RandomAgent(), hands=10_000, seed=1)':
        'r = run_match(g, default_trained(g), RandomAgent(), hands=500, seed=1)',
}
STATED = {  # what a README line says it gives (to 1e-12): checked as each block runs
    'pokerlab.evaluate("AsKs QsJsTs 2d 3c")': 7462,
    'pokerlab.evaluate_hand("Kc Kd Kh 7s 7d").description': "Full house, kings full of sevens",
    'pokerlab.parse_cards("As Kd")': [51, 45],
    'equity(["AsKs", "random"]).equity': (0.670446323092352, 0.329553676907648),
}
EXIT_STATUS = {"pokerlab eval Ax Kd 2c 3c 4c": 2}  # the README shows its one-line refusal
STDIN = {"pokerlab play kuhn --vs cfr": "q\n"}  # you against the bot: q quits


def readme_commands() -> list[str]:
    """Every ``pokerlab`` command of the README's bash and console blocks, in order, one line each (a line
    ending in a backslash continued, the comment after ``#`` dropped, ``$ `` dropped)."""
    commands: list[str] = []
    for block in re.findall(r"```(?:bash|console)\n(.*?)```", README.read_text(), flags=re.S):
        pending = ""
        for line in block.splitlines():
            line = pending + line.strip().removeprefix("$ ")
            pending = ""
            if line.endswith("\\"):
                pending = line[:-1].strip() + " "
                continue
            if line.startswith("pokerlab "):
                commands.append(shlex.join(shlex.split(line, comments=True)))
    return commands


def readme_python_blocks() -> list[str]:
    """The README's ``python`` blocks, in order."""
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_every_readme_command_is_covered():
    commands = readme_commands()
    assert len(commands) >= 35  # 39 when this was written: fewer means the blocks are no longer read
    assert set(CHEAPER) <= set(commands), set(CHEAPER) - set(commands)  # a stale entry: the README changed
    assert set(PRODUCERS.values()) <= set(commands)
    assert set(commands) >= SLOW
    for name in ("stacks.txt", "big.txt", "field.txt", "blinds.csv", "snap.json"):
        assert (ROOT / "examples" / name).is_file()
    lines = {line for block in readme_python_blocks() for line in block.splitlines()}
    assert len(readme_python_blocks()) >= 8  # 8 when this was written
    assert set(CHEAPER_PYTHON) <= lines, set(CHEAPER_PYTHON) - lines
    assert {line.split("  #")[0].strip() for line in lines} >= set(STATED)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A scratch folder holding a copy of examples/: the commands write their files (leduc.npz, charts/) here,
    and the later ones read what the earlier ones wrote, in README order."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder


def run_serve(args: list[str], cwd: Path) -> None:
    """``pokerlab serve``: on a free port, until it answers, then Ctrl-C: one line, status 130."""
    from web.live import free_port, wait_for_answer

    port = str(free_port())
    if "--port" in args:
        args[args.index("--port") + 1] = port
    else:
        args += ["--port", port]
    if "--host" in args:  # on this machine only: the same path, the warning, nothing opened to the network
        args[args.index("--host") + 1] = "127.0.0.1"
    process = subprocess.Popen([sys.executable, "-m", "pokerlab.cli.main", *args], cwd=cwd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_answer(f"http://127.0.0.1:{port}/")
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and stderr.strip().endswith("stopped") and "Traceback" not in stderr


def run_command(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as :data:`CHEAPER` runs it, in ``cwd``, after the examples that write the files it reads."""
    args = shlex.split(CHEAPER.get(command, command))[1:]
    for name, producer in PRODUCERS.items():
        if name in args and producer != command and not (cwd / name).exists():
            assert run_command(producer, cwd).returncode == 0
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run([sys.executable, "-m", "pokerlab.cli.main", *args], cwd=cwd, capture_output=True,
                          text=True, input=STDIN.get(command, ""), timeout=1800, env=env)


@pytest.mark.parametrize("command", [
    pytest.param(command, marks=[pytest.mark.slow] if command in SLOW else []) for command in readme_commands()])
def test_readme_command_runs(command, workdir):
    runs = CHEAPER.get(command, command)
    args = shlex.split(runs)[1:]
    if args[0] == "serve":
        run_serve(args, workdir)
        return
    result = run_command(command, workdir)
    expected = EXIT_STATUS.get(command, 0)
    assert result.returncode == expected, f"{runs}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr
    if expected:
        assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("block", range(len(readme_python_blocks())))
def test_readme_python_block_runs(block, tmp_path, monkeypatch):
    """A block runs on its own in a fresh namespace (in a scratch folder: some write files), statement by
    statement; the values the README states are checked."""
    source = "\n".join(CHEAPER_PYTHON.get(line, line) for line in readme_python_blocks()[block].splitlines())
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for statement in ast.parse(source).body:
        text = ast.get_source_segment(source, statement) or ""
        if isinstance(statement, ast.Expr) and text in STATED:
            value = eval(compile(ast.Expression(statement.value), f"README block {block}", "eval"), namespace)
            stated = STATED[text]
            assert value == (stated if isinstance(stated, str) else pytest.approx(stated, rel=1e-12)), (text, value)
            continue
        exec(compile(ast.Module([statement], []), f"README block {block}", "exec"), namespace)
