"""Properties the evaluator tables rely on, checked exhaustively, and the on-disk cache."""

from itertools import product

import numpy as np
import pytest

from pokerlab import category, evaluate
from pokerlab.cards import tables


def test_rank_multipliers_give_distinct_sums_for_every_multiset_of_up_to_seven_ranks():
    sums = {0: [0]}  # card count -> sums of multisets with that many cards
    for multiplier in tables.RANK_MULTIPLIERS:
        extended: dict[int, list[int]] = {k: list(v) for k, v in sums.items()}
        for (cards, values), copies in product(list(sums.items()), range(1, 5)):
            if cards + copies <= 7:
                extended.setdefault(cards + copies, []).extend(v + copies * multiplier for v in values)
        sums = extended
    every_sum = np.concatenate([np.array(v) for v in sums.values()])
    assert len(every_sum) == len(np.unique(every_sum))
    assert every_sum.max() < 1 << tables.SUIT_SHIFT  # rank keys never reach the suit counters


def test_seven_cards_of_one_suit_do_not_overflow_the_suit_counter():
    # 3 + 7 = 10 stays inside the 4-bit counter: seven spades are a flush of their best five, and the
    # neighbouring counter (hearts) is untouched, so a seven-heart hand is ranked the same way
    seven_spades = evaluate("AsKsQsJs9s7s5s")
    assert seven_spades == evaluate("AsKsQsJs9s") == evaluate("AhKhQhJh9h7h5h")
    assert category(seven_spades) == "flush"


def test_cached_tables_are_read_only():
    with pytest.raises(ValueError):
        tables.load_tables().rank_values[0] = 1


def test_tables_are_cached_on_disk_and_reloaded_identically(tmp_path, monkeypatch):
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tables, "_TABLES", None)
    built = tables.load_tables()
    cached = list(tmp_path.glob("evaluator-v*.npz"))
    assert len(cached) == 1
    monkeypatch.setattr(tables, "_TABLES", None)
    reloaded = tables.load_tables()
    for name in tables.EvalTables._fields:
        np.testing.assert_array_equal(getattr(built, name), getattr(reloaded, name))


def test_corrupt_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tables, "_TABLES", None)
    (tmp_path / f"evaluator-v{tables.TABLE_FORMAT_VERSION}.npz").write_bytes(b"not a zip file")
    rebuilt = tables.load_tables()
    assert rebuilt.rank_values.size > 100_000 and rebuilt.flush_values[0x1F00] == 7462
