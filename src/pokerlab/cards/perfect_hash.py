"""The evaluator's row-displacement perfect hash, run once when :mod:`pokerlab.cards.tables` builds the tables
(compiled, since the search tries offsets key by key). A module of its own: the evaluation kernels read the
tables' constants, and the tables call this search, so neither imports the other."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def displace_rows(
    row_starts: np.ndarray, row_columns: np.ndarray, rows_by_size: np.ndarray, width: int
) -> tuple[np.ndarray, np.ndarray]:
    """Row-displacement perfect hash: an offset per row so that the rows' occupied columns never collide.

    Rows are placed largest first at the first offset that fits, searching from the first free slot.
    ``row_columns`` holds each row's columns in increasing order, rows delimited by ``row_starts``.
    """
    occupied = np.zeros(row_columns.shape[0] * 8 + width, dtype=np.bool_)
    offsets = np.zeros(row_starts.shape[0] - 1, dtype=np.uint32)
    first_free = 0
    for row in rows_by_size:
        begin, end = row_starts[row], row_starts[row + 1]
        if begin == end:
            continue
        while occupied[first_free]:
            first_free += 1
        offset = max(0, first_free - row_columns[begin])
        while True:
            fits = True
            for index in range(begin, end):
                if occupied[offset + row_columns[index]]:
                    fits = False
                    break
            if fits:
                break
            offset += 1
        for index in range(begin, end):
            occupied[offset + row_columns[index]] = True
        offsets[row] = offset
    return offsets, occupied
