"""The hand evaluator against exhaustive counts (tests/oracles/evaluator.json) and a separate reference."""

from itertools import combinations

import numpy as np
import pytest
from numba import njit

from pokerlab import (
    DuplicateCardError,
    InvalidCardError,
    InvalidHandError,
    category,
    describe,
    evaluate,
    evaluate_batch,
    evaluate_hand,
)
from pokerlab.cards.evaluator import seven_card_category_counts, seven_card_value_counts_all
from pokerlab.cards.tables import CATEGORIES
from reference_evaluator import cards_from_indices, reference_score


@njit(cache=True)
def all_combinations(n_cards):
    """Every n-card subset of the 52-card deck as rows of an array, in lexicographic order."""
    total = 1
    for i in range(n_cards):
        total = total * (52 - i) // (i + 1)
    out = np.empty((total, n_cards), dtype=np.uint8)
    current = np.arange(n_cards)
    for row in range(total):
        out[row] = current
        position = n_cards - 1
        while position >= 0 and current[position] == 52 - n_cards + position:
            position -= 1
        if position < 0:
            break
        current[position] += 1
        for later in range(position + 1, n_cards):
            current[later] = current[later - 1] + 1
    return out


def test_categories_are_the_oracle_list(oracle):
    assert list(CATEGORIES) == oracle("evaluator")["categories"]


def test_five_card_exhaustive_counts_and_classes(oracle):
    expected = oracle("evaluator")["five_card"]
    values = evaluate_batch(all_combinations(5), validate=False)
    assert len(values) == expected["hands"]
    distinct, counts = np.unique(values, return_counts=True)
    assert len(distinct) == expected["distinct_ranks"]
    by_category = np.zeros(9, dtype=np.int64)
    for value, count in zip(distinct, counts, strict=True):
        by_category[CATEGORIES.index(category(int(value)))] += count
    assert by_category.tolist() == expected["counts"]
    assert distinct.min() == 1 and distinct.max() == 7462


@pytest.mark.slow
def test_six_card_exhaustive_classes(oracle):
    expected = oracle("evaluator")["six_card"]
    values = evaluate_batch(all_combinations(6), validate=False)
    assert len(values) == expected["hands"]
    assert len(np.unique(values)) == expected["distinct_ranks"]


@pytest.mark.slow
def test_seven_card_exhaustive_counts_and_classes(oracle):
    expected = oracle("evaluator")["seven_card"]
    per_value = seven_card_value_counts_all()
    assert per_value.sum() == expected["hands"]
    assert np.count_nonzero(per_value) == expected["distinct_ranks"]
    assert seven_card_category_counts().tolist() == expected["counts"]


@pytest.mark.parametrize("first, second", [(0, 1), (0, 5), (3, 40), (20, 33), (44, 45)])
def test_exhaustive_count_per_value_matches_evaluating_each_hand(first, second):
    # The exhaustive count groups hands that cannot flush by the ranks of their last one or two cards; here the
    # hands whose two smallest cards are (first, second) are evaluated one by one instead, value by value.
    from pokerlab.cards.kernels import _count_pair
    from pokerlab.cards.tables import load_tables

    @njit
    def counted(first, second, tables):
        counts = np.zeros(7463, dtype=np.int64)
        _count_pair(first, second, counts, tables)
        return counts

    above = np.arange(second + 1, 52, dtype=np.uint8)
    rest = np.array(list(combinations(above.tolist(), 5)), dtype=np.uint8).reshape(-1, 5)
    hands = np.hstack([np.full((len(rest), 2), (first, second), dtype=np.uint8), rest])
    expected = np.bincount(evaluate_batch(hands), minlength=7463)
    assert np.array_equal(counted(first, second, load_tables()), expected)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_random_hands_order_like_the_reference_evaluator(size):
    rng = np.random.default_rng(size)
    hands = np.argsort(rng.random((100_000, 52)), axis=1)[:, :size].astype(np.uint8)
    fast = evaluate_batch(hands)
    reference = [reference_score(cards_from_indices(row)) for row in hands.tolist()]
    order = sorted(range(len(hands)), key=reference.__getitem__)
    for before, after in zip(order, order[1:], strict=False):
        if reference[before] == reference[after]:
            assert fast[before] == fast[after], (hands[before], hands[after])
        else:
            assert fast[before] < fast[after], (hands[before], hands[after])
    # categories agree too
    for row in range(0, len(hands), 97):
        assert CATEGORIES.index(category(int(fast[row]))) == reference[row][0]


def test_scalar_and_batch_agree_with_seven_cards_as_best_five():
    rng = np.random.default_rng(11)
    for _ in range(300):
        cards = rng.permutation(52)[:7].tolist()
        best_five = max(evaluate(list(five)) for five in combinations(cards, 5))
        assert evaluate(cards) == best_five
        assert evaluate(cards[:6]) == max(evaluate(list(five)) for five in combinations(cards[:6], 5))


@pytest.mark.parametrize(
    ("cards", "kind", "text"),
    [
        ("AsKs QsJsTs 2d 3c", "straight flush", "Royal flush"),
        ("9h8h7h6h5h", "straight flush", "Straight flush, nine high"),
        ("5d4d3d2dAd", "straight flush", "Straight flush, five high"),
        ("Kc Kd Kh 7s 7d", "full house", "Full house, kings full of sevens"),
        ("7c7d7hKsKd", "full house", "Full house, sevens full of kings"),
        ("5c4d3h2sAc", "straight", "Straight, five high"),
        ("AcKdQhJsTc", "straight", "Straight, ace high"),
        ("2c2d2h2s Ac", "four of a kind", "Four of a kind, twos, ace kicker"),
        ("AcAd KsKh 9c 2d 3d", "two pair", "Two pair, aces and kings, nine kicker"),
        ("9h 9d 4c 3s 2h", "pair", "Pair of nines, kickers 4 3 2"),
        ("7c5d4h3s2c", "high card", "High card, seven (7 5 4 3 2)"),
        ("As9s7s4s2s Kd", "flush", "Flush, ace high (A 9 7 4 2)"),
        ("QcQdQh 8s 3d", "three of a kind", "Three of a kind, queens, kickers 8 3"),
    ],
)
def test_categories_and_descriptions(cards, kind, text):
    hand = evaluate_hand(cards)
    assert (hand.category, hand.description) == (kind, text)
    assert describe(hand.rank) == text


def test_extreme_values():
    assert evaluate("7c5d4h3s2c") == 1
    assert evaluate("AsKsQsJsTs") == 7462
    assert evaluate("5c4d3h2sAc") < evaluate("6c5d4h3s2c")  # the wheel is the lowest straight


def test_suits_do_not_matter_without_flush_and_ties_compare_equal():
    assert evaluate("AcKdQh9s2c") == evaluate("AdKhQs9c2d")
    assert evaluate("AcAd KsKh 9c 2d 3d") == evaluate("AhAs KcKd 9d 4c 3h")  # same best five


@pytest.mark.parametrize("cards", ["AsKs", "AsKsQsJsTs9s8s7s"])
def test_wrong_number_of_cards(cards):
    with pytest.raises(InvalidHandError, match="5, 6 or 7 cards"):
        evaluate(cards)


def test_batch_validation():
    with pytest.raises(DuplicateCardError, match="hand 1 repeats a card"):
        evaluate_batch(np.array([[0, 1, 2, 3, 4], [0, 0, 2, 3, 4]]))
    with pytest.raises(InvalidCardError):
        evaluate_batch(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(InvalidHandError):
        evaluate_batch(np.zeros((3, 4), dtype=np.uint8))
    with pytest.raises(InvalidHandError):
        category(0)


@pytest.mark.parametrize("dtype", [np.uint8, np.int64])
@pytest.mark.parametrize("bad_row", [0, 777, 9_999])
def test_batch_validation_finds_the_first_bad_row_of_a_large_batch(dtype, bad_row):
    rng = np.random.default_rng(bad_row)
    hands = np.argsort(rng.random((10_000, 52)), axis=1)[:, :7].astype(dtype)
    assert evaluate_batch(hands).tolist() == evaluate_batch(hands, validate=False).tolist()
    repeated = hands.copy()
    repeated[bad_row, 6] = repeated[bad_row, 2]
    repeated[-1, 1] = repeated[-1, 0]  # a later bad row: the message names the first one
    with pytest.raises(DuplicateCardError, match=f"hand {bad_row} repeats a card"):
        evaluate_batch(repeated)
    out_of_range = hands.copy()
    out_of_range[bad_row, 3] = 52
    with pytest.raises(InvalidCardError, match="0..51"):
        evaluate_batch(out_of_range)



@pytest.mark.parametrize("width", [5, 6, 7])
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64, np.uint64])
def test_checked_batch_equals_unchecked_and_refuses_every_kind_of_bad_card(width, dtype):
    """Every valid batch gets the unchecked values, and each kind of bad card (repeated, 52, 255, a value that
    wraps to a valid uint8, a negative) is refused whatever the dtype: in the first and last row of a vector of the
    vectorised check, on the edge of one call's rows, in the last row a call covers, in the rows after it (checked
    one by one), and the message names the first bad row."""
    from pokerlab.cards.kernels import check_rows

    rng = np.random.default_rng(width)
    count = 3_000
    group_rows, overread = check_rows(width)
    vector_rows = (count * width - overread) // (group_rows * width) * group_rows  # rows the vector calls cover
    assert 0 < vector_rows < count
    per_vector = 64 // width
    rows = (0, per_vector - 1, per_vector, group_rows - 1, group_rows, 1_000, vector_rows - 1, vector_rows, count - 1)
    hands = np.argsort(rng.random((count, 52)), axis=1)[:, :width].astype(dtype)
    assert evaluate_batch(hands).tolist() == evaluate_batch(hands, validate=False).tolist()
    kinds = [lambda row: row[1], lambda row: 52, lambda row: 255, lambda row: 256 + 7, lambda row: -1]
    for index, row in enumerate(rows):
        for kind in kinds:
            column = (0, width - 1)[index % 2]  # the first card, or the last
            bad = hands.astype(np.int64)
            card = kind(bad[row]) if column else kind(bad[row][::-1])
            if not np.iinfo(dtype).min <= card <= np.iinfo(dtype).max:
                continue  # only cards the dtype can hold
            bad[row, column] = card
            with pytest.raises((DuplicateCardError, InvalidCardError), match=f"hand {row}[ :]"):
                evaluate_batch(bad.astype(dtype))


@pytest.mark.parametrize("width", [5, 6, 7])
def test_card_check_against_a_brute_force(width):
    """The vectorised check against Python sets on batches of 0 or 1 bad rows (a repeat at every distance inside
    a row, any byte value), on rows that repeat the row before (equal cards in neighbouring rows are no repeat,
    nor is a card equal to one of the bytes after a vector's last whole row), and on every pair of columns."""
    from pokerlab.cards.kernels import check_rows, holds_invalid_card

    rng = np.random.default_rng(100 + width)
    same = np.tile(np.arange(width, dtype=np.uint8), (500, 1))  # byte k equals byte k + width
    assert not holds_invalid_card(same)
    group_rows, _ = check_rows(width)
    base = np.argsort(rng.random((3 * group_rows, 52)), axis=1)[:, :width].astype(np.uint8)
    assert not holds_invalid_card(base)
    for row in range(group_rows, 2 * group_rows):  # every row of a call, every pair of columns
        for first in range(width):
            for second in range(width):
                if first != second:
                    repeated = base.copy()
                    repeated[row, second] = repeated[row, first]
                    assert holds_invalid_card(repeated), (row, first, second)
    for _ in range(150):
        count = int(rng.integers(1, 400))
        hands = np.argsort(rng.random((count, 52)), axis=1)[:, :width].astype(np.uint8)
        if rng.random() < 0.5:
            row, column = int(rng.integers(count)), int(rng.integers(width))
            hands[row, column] = rng.integers(0, 256) if rng.random() < 0.3 else hands[row, rng.integers(width)]
        expected = any(len(set(row_)) < width or max(row_) > 51 for row_ in hands.tolist())
        assert holds_invalid_card(hands) == expected


def test_card_check_of_a_batch_split_over_threads():
    """From PARALLEL_CHECK_ROWS rows the check runs in parallel chunks: a bad row is found in the first row, on
    the edges of a chunk, in the last row the vector calls cover and in the rows after them."""
    from pokerlab.cards.kernels import CHECK_CHUNKS, PARALLEL_CHECK_ROWS, check_rows, holds_invalid_card

    width = 7
    count = PARALLEL_CHECK_ROWS + 33
    hands = np.empty((count, width), dtype=np.uint8)
    hands[:] = np.arange(0, 52, 7)[:width]  # distinct cards, one row repeated
    hands[1::2] = np.arange(45, 52)[:width]
    assert not holds_invalid_card(hands)
    group_rows, overread = check_rows(width)
    groups = (count * width - overread) // (group_rows * width)
    chunk_edge = groups // CHECK_CHUNKS * group_rows  # the first row of the second chunk
    for row in (0, chunk_edge - 1, chunk_edge, groups * group_rows - 1, groups * group_rows, count - 1):
        for card in (hands[row, 0], 52):
            bad = hands.copy()
            bad[row, 3] = card
            assert holds_invalid_card(bad), (row, card)


def test_batch_refuses_non_integer_cards():
    with pytest.raises(InvalidCardError, match="integers"):
        evaluate_batch(np.zeros((2, 5)))
