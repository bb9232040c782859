"""The OpenMP wait policy pokerlab sets for numba's parallel kernels: passive unless the user chose one."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = "import os, pokerlab; print(os.environ.get('OMP_WAIT_POLICY'))"


def _policy_after_import(given: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given is not None:
        env["OMP_WAIT_POLICY"] = given
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    return done.stdout.strip()


def test_threads_sleep_between_parallel_loops_unless_the_user_chose_otherwise() -> None:
    assert _policy_after_import(None) == "PASSIVE"
    assert _policy_after_import("ACTIVE") == "ACTIVE"
