"""Seeds: one validation rule for every stochastic function of pokerlab."""

from __future__ import annotations

from pokerlab.errors import whole_number


def validate_seed(seed: object) -> int | None:
    """Return ``seed`` as a Python int (or ``None`` for a fresh random run) after checking it is a whole
    number >= 0 (:func:`pokerlab.errors.whole_number`); anything else raises :class:`InvalidArgumentError`.

    >>> validate_seed(42), validate_seed(None)
    (42, None)
    """
    if seed is None:
        return None
    return whole_number(seed, "seed", low=0)
