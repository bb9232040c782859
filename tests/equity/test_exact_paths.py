"""The exact engine's faster routes against its general matchup loop (``breakdown=True`` forces it) and the
suit-orbit grouping of combos against a count by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.ranges import COMBOS, parse_range
from pokerlab.equity import equity
from pokerlab.equity.exact import ChunkedWork, _fixed_hands, _headsup_preflop
from pokerlab.equity.problem import prepare_problem
from pokerlab.equity.symmetry import ALL_SUIT_PERMUTATIONS, combo_orbits, symmetry_group

pytestmark = pytest.mark.usefixtures("kernels_only")  # the compiled routes, even for small problems


@pytest.mark.parametrize(
    "players, board, dead",
    [
        (["AA", "random"], "Js8s5d", ""),  # one orbit: AsAh against a random hand, six times
        (["72o", "random"], "Js8s5d2c", ""),
        (["random", "KQs"], "Td9d2h", ""),  # the orbit player second
        (["QQ+, AKs", "TT+, AQs+"], "2c7d9h", ""),  # both symmetric: the smaller orbit count is split
        (["AKs, 76s", "JJ"], "Ah8h2d", "3c"),  # board and dead card shrink the group
        (["AhKh", "QQ"], "Qs8h2c", ""),  # an exact hand second: the mirrored lean loop
        (["QQ", "AhKh"], "Qs8h2c", ""),
        (["AsAh", "QdQc", "9c3d"], "7h6h5d", ""),  # known hands: by board ranks, then the flush boards
        (["AhKh", "QhJh"], "", ""),  # both suited in one suit: three hearts on the board already count
        (["AhKh", "QsJs", "7d6d"], "2h3s4c", "4d"),
        (["2c3c", "AdKd", "9h9s", "7s6s", "TcJd", "QhQc"], "8c4c5h", ""),  # six players, two clubs on the board
        (["AhKh", "QsQd"], "2h7h9h", ""),  # a three-flush board
        (["AhKd", "QsQc"], "2h7h9h4h", ""),  # a four-flush board, one card to come
        (["2c3d", "4s5s"], "AhKhQhJh9h", ""),  # complete board, a five-flush for everyone
        (["2c3d", "4s5s"], "AhKhQhJh9d", "8h"),
        (["QQ+", "AKs, AQs", "JJ-99"], "2c7d9h", ""),  # three ranges: one deal of known hands per orbit
        (["KK+, AKs", "QQ, JTs"], "2c7d9h8h", ""),
        (["AKo", "TT"], "", "2c"),  # a dead card: fewer relabellings, more orbits
    ],
)
def test_fast_routes_count_like_the_general_loop(players, board, dead):
    fast = equity(players, board=board, dead=dead, method="exact")
    general = equity(players, board=board, dead=dead, method="exact", breakdown=True)
    assert fast.showdowns == general.showdowns
    assert fast.wins == general.wins and fast.ties == general.ties
    assert fast.equity == general.equity


def test_a_range_costs_its_orbits_and_counts_its_combos():
    """AA against a random hand is AsAh against it: the same equity, six times the showdowns."""
    pair = equity(["AA", "random"], method="exact")
    single = equity(["AsAh", "random"], method="exact")
    assert pair.showdowns == 6 * single.showdowns
    assert pair.wins == tuple(6 * w for w in single.wins)  # type: ignore[union-attr]
    assert pair.equity == pytest.approx(single.equity, abs=1e-15)


def _orbits_by_hand(indices: np.ndarray, group: np.ndarray) -> list[tuple[int, int]]:
    """Orbits by applying every relabelling to the two cards of each combo and sorting the results."""
    seen: dict[int, frozenset[tuple[int, int]]] = {}
    for index in indices:
        images = set()
        for perm in group:
            a, b = (4 * (int(c) >> 2) + int(perm[int(c) & 3]) for c in COMBOS[index])
            images.add((max(a, b), min(a, b)))
        seen[int(index)] = frozenset(images)
    members = {tuple(sorted((int(a), int(b)), reverse=True)): int(i) for i, (a, b) in
               ((i, COMBOS[i]) for i in indices)}
    orbits = {}
    for images in seen.values():
        inside = sorted(members[image] for image in images if image in members)
        orbits[inside[0]] = len(inside)
    return sorted(orbits.items())


@pytest.mark.parametrize("text", ["AA", "AKs", "AKo", "72o, 33, T9s", "random"])
@pytest.mark.parametrize("fixed", [[], [1 << 48], [(1 << 48) | (1 << 49)]])
def test_combo_orbits_against_a_count_by_hand(text, fixed):
    group = symmetry_group(fixed, [])
    indices = parse_range(text).indices
    orbits = combo_orbits(indices, group)
    assert orbits == _orbits_by_hand(indices, group)
    assert sum(size for _, size in orbits) == len(indices)
    if not fixed:
        assert len(group) == len(ALL_SUIT_PERMUTATIONS)
        assert len(orbits) == {"AA": 1, "AKs": 1, "AKo": 1, "72o, 33, T9s": 3, "random": 169}[text]


@pytest.mark.parametrize("texts", [["AsKs"], ["AsKs", "AhKh"], ["AA", "KQs"], ["AKs:0.5, QQ", "random"],
                                   ["JhTh, 9c8c"], ["72o, 33"]])
@pytest.mark.parametrize("fixed", [[], [1 << 48], [(1 << 48) | (1 << 5), 1 << 20]])
def test_symmetry_group_against_its_definition(texts, fixed):
    # the definition, by hand: a relabelling belongs when it maps every fixed card set onto itself and every
    # range's weights onto themselves, over all 52 cards and all 1,326 combos
    weights = [parse_range(text).weights for text in texts]

    def image_of_card(card: int, perm: tuple[int, ...]) -> int:
        return 4 * (card >> 2) + perm[card & 3]

    expected = []
    index_of = {frozenset((int(a), int(b))): i for i, (a, b) in enumerate(COMBOS)}
    for perm in ALL_SUIT_PERMUTATIONS:
        cards_kept = all(sum(1 << image_of_card(c, perm) for c in range(52) if mask >> c & 1) == mask
                         for mask in fixed)
        image = np.array([index_of[frozenset((image_of_card(int(a), perm), image_of_card(int(b), perm)))]
                          for a, b in COMBOS])
        if cards_kept and all(np.array_equal(w[image], w) for w in weights):
            expected.append(perm)
    assert symmetry_group(fixed, weights).tolist() == [list(perm) for perm in expected]


@pytest.mark.parametrize("players", [["AhAs", "KdKc"], ["KdKc", "AhAs"], ["AsKs", "QdQc"], ["7c2d", "7h2s"],
                                     ["AhKh", "AsKs"], ["5c4c", "AdKh"], ["2c2d", "2h2s"]])
def test_headsup_preflop_table_counts_like_the_known_hands_kernel(players):
    # two known hands preflop are answered from the shipped table (built by a full walk of the boards); the
    # known-hands kernel counts the same boards by rank multisets
    problem = prepare_problem(players, "", "")
    deal = np.array([[int(reduced.indices[0]) for reduced in problem.ranges]])
    kernel = _fixed_hands(problem, deal, np.ones(1), ChunkedWork(None), 1.0)
    assert np.array_equal(_headsup_preflop(int(deal[0, 0]), int(deal[0, 1])), kernel)
    result = equity(players, method="exact")
    assert result.showdowns == kernel[2, 0] == 1_712_304
    assert result.wins == tuple(int(x) for x in kernel[:2, 0]) and result.ties == tuple(int(x) for x in kernel[:2, 1])
    assert result.equity == tuple(float(x) for x in kernel[:2, 2] / (2520 * kernel[2, 0]))
