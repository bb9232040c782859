"""Shared test fixtures: the oracle files (reference values computed independently of pokerlab)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ORACLE_DIR = Path(__file__).parent / "oracles"


def load_oracle(name: str) -> dict[str, Any]:
    """Reference values from ``tests/oracles/<name>.json``."""
    return json.loads((ORACLE_DIR / f"{name}.json").read_text())


@pytest.fixture(scope="session")
def oracle():
    return load_oracle
