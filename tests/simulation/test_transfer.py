"""scripts/beating_icm_transfer.py: power ICM's exponent fitted leave-one-configuration-out, judged where it
was not fitted, with the configurations' p-values Holm-adjusted."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np

from pokerlab.stats.paired import holm

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "beating_icm_transfer.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("beating_icm_transfer", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _config(name: str, best: int, grid: np.ndarray, rng: np.random.Generator, left: int = 20,
            curvature: float = 0.5) -> dict[str, object]:
    """Scores whose mean is smallest at grid index ``best`` (ICM's mean between)."""
    base = rng.normal(10.0, 1.0, 8)
    scores = {f"{a:.2f}": (base + curvature * (k - best) ** 2).tolist() for k, a in enumerate(grid)}
    scores["icm"] = (base + 0.25).tolist()
    return {"players": 5 * left, "payouts": name, "play": "coinflip", "left": left, "scores": scores}


def test_the_exponent_is_fitted_on_the_other_configurations_only() -> None:
    """Two configurations prefer exponent 0.8 and one 1.2: the odd one is scored at 0.8 (fitted on the others,
    where it is worse than ICM, by 2 - 0.25 on every snapshot) and each of the others at a compromise it did
    not choose alone; a fit that saw the held-out configuration would give the odd one its own 1.2."""
    module = _script()
    grid = np.array([0.8, 1.0, 1.2])
    rng = np.random.default_rng(1)
    configs = [_config("a", 0, grid, rng), _config("b", 0, grid, rng), _config("odd", 2, grid, rng)]
    rows = module.transfer(configs, grid)
    assert [r["alpha_own"] for r in rows] == [0.8, 0.8, 1.2]
    assert [r["alpha_elsewhere"] for r in rows] == [1.0, 1.0, 0.8]  # a: the mean of b and odd is least at 1.0
    assert np.isclose(rows[2]["mean"], 0.5 * 4 - 0.25)
    assert rows[2]["separates"]
    assert [r["p_holm"] for r in rows] == holm([r["p_value"] for r in rows])


def test_one_configuration_scores_every_exponent_on_the_same_snapshots() -> None:
    """A small coin-flip field end to end: one score per snapshot for ICM and each exponent, power ICM at 1
    scoring as ICM, and the seed and charts named."""
    module = _script()
    grid = np.array([0.8, 1.0])
    args = argparse.Namespace(snapshots=4, left=0.5)
    config = module.one_configuration(12, "standard", "coinflip", grid, args, 7)
    assert set(config["scores"]) == {"icm", "0.80", "1.00"}
    assert all(len(v) == 4 for v in config["scores"].values())
    assert np.allclose(config["scores"]["1.00"], config["scores"]["icm"], rtol=1e-9)
    assert config["seed"] == 7 and config["left"] == 6 and "charts" in config


def test_every_configuration_weighs_alike_in_squared_fair_shares() -> None:
    """A score is about 1/left of its configuration's scale: a 200-left configuration preferring 1.0 by 0.1 (20
    in squared fair shares) outweighs a 20-left one preferring 0.8 by 0.5 (10), which the raw means would not."""
    module = _script()
    grid = np.array([0.8, 1.0])
    rng = np.random.default_rng(2)
    configs = [_config("small", 0, grid, rng, left=20), _config("big", 1, grid, rng, left=200, curvature=0.1),
               _config("held", 0, grid, rng)]
    assert module.transfer(configs, grid)[2]["alpha_elsewhere"] == 1.0
