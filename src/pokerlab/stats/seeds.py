"""Seeds: one validation rule for every stochastic function of pokerlab."""

from __future__ import annotations

import numpy as np

from pokerlab.errors import InvalidArgumentError


def validate_seed(seed: object) -> int | None:
    """Return ``seed`` as a Python int (or ``None`` for a fresh random run) after checking it is a
    non-negative integer; anything else raises :class:`InvalidArgumentError`.

    >>> validate_seed(42), validate_seed(None)
    (42, None)
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed!r}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed}")
    return int(seed)
