"""River spots against independent oracles: a sequence-form LP (scipy HiGHS) of the same game written here from
the rules (every deal enumerated, hands ranked by the evaluator pair by pair), a brute-force best response, and
the clairvoyance toy game's closed form."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.sparse import lil_matrix

from pokerlab.cards.classes import COMBOS
from pokerlab.cards.evaluator import evaluate
from pokerlab.games.postflop.bettree import TreeConfig, parse_street_sizes
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.kernels import DECISION_NODE, FOLD_NODE
from pokerlab.solvers.postflop_cfr import PostflopSolver

BOARD = "Kh9d5c2s2h"


def _config(bets: str, raises: str = "", pot: int = 100, stack: int = 150, rake: float = 0.0,
            rake_cap: float | None = None) -> TreeConfig:
    return TreeConfig(pot=pot, stack=stack, street=2, bets=parse_street_sizes(bets),
                      raises=parse_street_sizes(raises, raises=True) if raises else ((), (), ()), rake=rake,
                      rake_cap=rake_cap)


def _deals(game: PostflopGame) -> list[tuple[int, int, float, float]]:
    """Every compatible (OOP hand, IP hand, probability, OOP's showdown result in {-1, 0, 1})."""
    board = list(game.board)
    out = []
    names = [[tuple(int(c) for c in COMBOS[k]) for k in game.combos(p)] for p in range(2)]
    w = [game.initial_weights(p) for p in range(2)]
    for i, a in enumerate(names[0]):
        for j, b in enumerate(names[1]):
            if set(a) & set(b):
                continue
            va, vb = evaluate(list(a) + board), evaluate(list(b) + board)
            out.append((i, j, w[0][i] * w[1][j] / game.pairs_weight, float(np.sign(va - vb))))
    return out


def _payoff(game: PostflopGame, node: int, result: float) -> float:
    """OOP's chips at a terminal, net of its half of the pot."""
    stake = game.half_pot + game.tree.amount[node]
    if game.tree.kind[node] == FOLD_NODE:
        return -stake if game.tree.player[node] == 0 else stake
    return stake * result


def _sequences(game: PostflopGame, player: int) -> tuple[dict[tuple[int, int], int], dict[int, int]]:
    """Sequence index of each (node, action) of ``player`` and the parent sequence (-1: empty) of each node."""
    seq: dict[tuple[int, int], int] = {}
    parent_seq: dict[int, int] = {}
    stack = [(0, -1)]
    while stack:
        node, last = stack.pop()
        parent_seq[node] = last
        if game.tree.kind[node] != DECISION_NODE:
            continue
        for a in range(int(game.tree.num_children[node])):
            child = int(game.tree.first_child[node]) + a
            mine = int(game.tree.player[node]) == player
            if mine:
                seq[(node, a)] = len(seq)
            stack.append((child, seq[(node, a)] if mine else last))
    return seq, parent_seq


def lp_solution(game: PostflopGame, fixed: dict[tuple[int, int], np.ndarray] | None = None,
                ) -> tuple[float, list[np.ndarray]]:
    """Game value for OOP (chips per deal) and both players' behaviour strategies (node x hand x action
    blocks as the solver stores them), from max_{x, q} f.q s.t. F'q <= A'x, E x = e, x >= 0; ``fixed``: OOP's
    (node, hand) rows held to a mix (x of each action = mix times x of the parent sequence)."""
    seqs = [_sequences(game, p) for p in range(2)]
    hands = [game.num_private_hands(p) for p in range(2)]
    n = [hands[p] * (len(seqs[p][0]) + 1) for p in range(2)]  # per hand: the empty sequence, then the rest

    def index(p: int, h: int, s: int) -> int:
        return h * (len(seqs[p][0]) + 1) + s + 1

    terminals = [i for i in range(len(game.tree.kind)) if game.tree.kind[i] not in (DECISION_NODE,)]
    a_matrix = lil_matrix((n[0], n[1]))
    deals = _deals(game)
    for t in terminals:
        s0, s1 = seqs[0][1][t], seqs[1][1][t]
        for i, j, prob, result in deals:
            a_matrix[index(0, i, s0), index(1, j, s1)] += prob * _payoff(game, t, result)

    def constraints(p: int) -> tuple[lil_matrix, np.ndarray]:
        seq, parent_seq = seqs[p]
        nodes = [v for v in range(len(game.tree.kind)) if game.tree.kind[v] == DECISION_NODE
                 and game.tree.player[v] == p]
        rows = lil_matrix((hands[p] * (len(nodes) + 1), n[p]))
        rhs = np.zeros(rows.shape[0])
        r = 0
        for h in range(hands[p]):
            rows[r, index(p, h, -1)] = 1.0
            rhs[r] = 1.0
            r += 1
            for v in nodes:
                rows[r, index(p, h, parent_seq[v])] = -1.0
                for a in range(int(game.tree.num_children[v])):
                    rows[r, index(p, h, seq[(v, a)])] = 1.0
                r += 1
        return rows, rhs

    e_matrix, e = constraints(0)
    if fixed:  # rows x(v, a) - mix[a] x(parent of v) = 0, appended to E
        seq, parent_seq = seqs[0]
        locked = lil_matrix((sum(len(m) for m in fixed.values()), n[0]))
        r = 0
        for (v, h), mix in fixed.items():
            for a, share in enumerate(mix):
                locked[r, index(0, h, seq[(v, a)])] = 1.0
                locked[r, index(0, h, parent_seq[v])] = -share
                r += 1
        e_matrix = lil_matrix(np.vstack([e_matrix.toarray(), locked.toarray()]))
        e = np.concatenate([e, np.zeros(r)])
    f_matrix, f = constraints(1)
    # variables: x (n0, >= 0), q (rows of F, free); maximise f.q
    nq = f_matrix.shape[0]
    cost = np.concatenate([np.zeros(n[0]), -f])
    a_ub = lil_matrix((n[1], n[0] + nq))
    a_ub[:, :n[0]] = -a_matrix.T
    a_ub[:, n[0]:] = f_matrix.T
    a_eq = lil_matrix((e_matrix.shape[0], n[0] + nq))
    a_eq[:, :n[0]] = e_matrix
    bounds = [(0, None)] * n[0] + [(None, None)] * nq
    res = linprog(cost, A_ub=a_ub.tocsr(), b_ub=np.zeros(n[1]), A_eq=a_eq.tocsr(), b_eq=e, bounds=bounds,
                  method="highs")
    assert res.status == 0
    x = res.x[:n[0]]
    # player 1's plan: the dual of the inequality rows
    y = -res.ineqlin.marginals
    plans = [x, y]
    blocks = []
    for p in range(2):
        seq, parent_seq = seqs[p]
        block = np.zeros(game.storage_size)
        for (v, a), s in seq.items():
            na = int(game.tree.num_children[v])
            for h in range(hands[p]):
                up = plans[p][index(p, h, parent_seq[v])]
                value = plans[p][index(p, h, s)]
                block[game.tree.offset[v] + a * hands[p] + h] = value / up if up > 1e-12 else 1.0 / na
        blocks.append(block)
    return -float(res.fun), blocks


def _with_strategy(game: PostflopGame, blocks: list[np.ndarray]) -> PostflopSolver:
    """A solver whose average strategy is the LP's (``blocks``: each player's probabilities at its nodes'
    offsets, actions by hands)."""
    strategy = {}
    for v in range(len(game.tree.kind)):
        if game.tree.kind[v] == DECISION_NODE:
            p = int(game.tree.player[v])
            lo, na = int(game.tree.offset[v]), int(game.tree.num_children[v])
            strategy[v] = blocks[p][lo:lo + game.num_private_hands(p) * na].reshape(na, -1)
    return PostflopSolver(game, game.strategy_storage(strategy), weight=1.0)


def brute_force_value(game: PostflopGame, solver: PostflopSolver, player: int, best: bool = True) -> float:
    """``player``'s value (chips per deal, net of its half pot) against the opponent's average strategy: its
    best response (``best``) or its own average strategy; per hand of ``player``, the opponent's hands carried as
    a vector of reach probabilities, every terminal valued deal by deal, the rake (``config.rake`` of the final
    pot, at most ``config.rake_cap``) paid by the winner, half by each on a tie."""
    deals = _deals(game)
    other = 1 - player
    hands = game.num_private_hands(player)
    result = np.zeros((hands, game.num_private_hands(other)))  # OOP's showdown result per (mine, theirs)
    prob = np.zeros_like(result)
    for i, j, p, r in deals:
        mine, theirs = (i, j) if player == 0 else (j, i)
        result[mine, theirs] = r if player == 0 else -r
        prob[mine, theirs] = p
    average = game.average_strategy(solver.cumulative, solver.weight)
    config = game.config

    def sigma_of(node: int, actor: int) -> np.ndarray:
        return average[node].T  # (hands, actions)

    def walk(node: int, h: int, reach: np.ndarray) -> float:
        kind = game.tree.kind[node]
        if kind != DECISION_NODE:
            amount = float(game.tree.amount[node])
            stake = game.half_pot + amount
            rake = config.rake * (config.pot + 2 * amount)
            if config.rake_cap is not None:
                rake = min(rake, config.rake_cap)
            mass = reach * prob[h]
            if kind == FOLD_NODE:
                return float((-stake if game.tree.player[node] == player else stake - rake) * mass.sum())
            won = np.where(result[h] > 0, stake - rake, np.where(result[h] < 0, -stake, -rake / 2))
            return float((mass * won).sum())
        na = int(game.tree.num_children[node])
        first = int(game.tree.first_child[node])
        actor = int(game.tree.player[node])
        if actor == player:
            values = [walk(first + a, h, reach) for a in range(na)]
            return max(values) if best else float(np.dot(sigma_of(node, actor)[h], values))
        sigma = sigma_of(node, actor)
        return sum(walk(first + a, h, reach * sigma[:, a]) for a in range(na))

    ones = np.ones(game.num_private_hands(other))
    return sum(walk(0, h, ones) for h in range(hands))


SPOTS = [
    ("QQ, 99, 55, AKo, T8s", "KK, AA, JTs, 76s", "75%, a", "a"),
    ("K9s, 22, QJo:0.5, 87s", "AA, 99, KQs, 64s", "33%, 150%", "2x"),
]


@pytest.mark.parametrize(("oop", "ip", "bets", "raises"), SPOTS)
def test_river_against_sequence_form_lp(oop: str, ip: str, bets: str, raises: str) -> None:
    game = PostflopGame(BOARD, oop, ip, _config(bets, raises))
    value, blocks = lp_solution(game)
    equilibrium = _with_strategy(game, blocks)
    pot = game.config.pot
    # the LP's equilibrium: our exact exploitability says 0 and our evaluation gives the LP's value
    assert equilibrium.exploitability() <= 1e-6 * pot
    assert equilibrium.value(0) == pytest.approx(value, abs=1e-6 * pot)
    assert equilibrium.value(1) == pytest.approx(-value, abs=1e-6 * pot)
    # our DCFR solve: value within twice its exploitability of the LP's; both best responses against brute force
    solver = PostflopSolver(game)
    solver.run(iterations=1500)
    eps = solver.exploitability()
    assert 0 <= eps < 1e-3 * pot
    assert abs(solver.value(0) - value) <= 2 * eps + 1e-9
    for p in (0, 1):
        assert solver.value(p, best=True) == pytest.approx(brute_force_value(game, solver, p),
                                                           abs=1e-9 * pot)


def test_clairvoyance_toy_game() -> None:
    """OOP holds the nuts (AA, set) or air (65s); IP a bluff-catcher (QQ); OOP bets the pot all-in or checks.
    Closed form for a bet of s pots (here s = 1/2, pot 100, stack 50): bluffs per value bet s / (1 + s) (the
    caller is indifferent), IP calls 1 / (1 + s) (the bluffer is indifferent), the value bets always bet."""
    config = TreeConfig(pot=100, stack=50, street=2, bets=parse_street_sizes("a"), raises=((), (), ()),
                        add_allin=0.0)
    game = PostflopGame("AhKd7c4s2h", "AA, 65s", "QQ", config)
    solver = PostflopSolver(game)
    solver.run(iterations=3000)
    assert solver.exploitability_percent() < 0.01
    average = game.average_strategy(solver.cumulative, solver.weight)
    root = game.tree
    names = game.hand_names(0)
    bet = average[0][1]
    value = [bet[i] for i, n in enumerate(names) if n.startswith("A")]
    bluffs = [bet[i] for i, n in enumerate(names) if not n.startswith("A")]
    assert len(value) == 3 and len(bluffs) == 4
    assert min(value) > 0.999
    s = 0.5
    assert sum(bluffs) == pytest.approx(3 * s / (1 + s), abs=0.01)
    call_node = int(root.first_child[0]) + 1
    call = average[call_node][game.labels[call_node].index("call")]
    assert call == pytest.approx(np.full(len(call), 1 / (1 + s)), abs=0.01)
    # OOP's value net of its half pot (50): a value bet wins 50 when folded to (1 - c), 100 when called (c);
    # air loses its 50 checking and bluffing alike (indifferent); per deal over 3 + 4 equally likely combos
    c = 1 / (1 + s)
    total = (3 * ((1 - c) * 50 + c * 100) + 4 * -50) / 7
    assert solver.value(0) == pytest.approx(total, abs=1e-3)


@pytest.mark.parametrize(("rake", "cap"), [(0.05, None), (0.05, 8.0)])
def test_clairvoyance_with_rake(rake: float, cap: float | None) -> None:
    """The clairvoyance game raked: with pot P, bet B, rake R_P on a pot won uncalled and R_C on a called one,
    the caller is indifferent at B / (P + B - R_C) bluffs per value bet (a call wins P + B - R_C against a
    bluff, loses B against value) and the bluffer at a call frequency (P - R_P) / (P - R_P + B) (a bluff
    wins P - R_P when folded to, loses B when called, a check wins nothing). Here P = 100, B = 50, 5% of the
    pot: R_P = 5; R_C = 10, or 8 under a cap of 8."""
    config = TreeConfig(pot=100, stack=50, street=2, bets=parse_street_sizes("a"), raises=((), (), ()),
                        add_allin=0.0, rake=rake, rake_cap=cap)
    game = PostflopGame("AhKd7c4s2h", "AA, 65s", "QQ", config)
    solver = PostflopSolver(game)
    solver.run(iterations=3000)
    assert solver.exploitability_percent() < 0.01
    pot, bet = 100.0, 50.0
    raked_uncalled = min(rake * pot, cap or np.inf)
    raked_called = min(rake * (pot + 2 * bet), cap or np.inf)
    average = game.average_strategy(solver.cumulative, solver.weight)
    tree = game.tree
    names = game.hand_names(0)
    bets = average[0][1]
    assert min(b for b, n in zip(bets, names, strict=True) if n.startswith("A")) > 0.999
    bluffs = sum(b for b, n in zip(bets, names, strict=True) if not n.startswith("A"))
    assert bluffs == pytest.approx(3 * bet / (pot + bet - raked_called), abs=0.01)
    call_node = int(tree.first_child[0]) + 1
    call = average[call_node][game.labels[call_node].index("call")]
    c = (pot - raked_uncalled) / (pot - raked_uncalled + bet)
    assert call == pytest.approx(np.full(len(call), c), abs=0.01)
    # OOP's value net of its half pot: a value bet wins P/2 - R_P folded to, P/2 + B - R_C called; air -P/2
    # (within twice the exploitability, 0.01 chips: a rake charged on the wrong pot moves it by 0.5 or more)
    total = (3 * ((1 - c) * (pot / 2 - raked_uncalled) + c * (pot / 2 + bet - raked_called)) + 4 * -pot / 2) / 7
    assert solver.value(0) == pytest.approx(total, abs=2 * solver.exploitability() + 1e-9)


def test_raked_spot_against_brute_force() -> None:
    """A raked river spot with ties (a paired board): both players' values on the average strategies and both
    best responses against the deal-by-deal brute force; the exploitability is the mean gain over the former
    (the game is not zero-sum: the values sum to minus the expected rake); rake 0 gives the zero-sum figures."""
    oop, ip = "K9s, 22, QJo:0.5, 87s, AKo", "AA, 99, KQs, 64s, AKo"
    game = PostflopGame(BOARD, oop, ip, _config("33%, 150%", "2x", rake=0.05, rake_cap=6))
    assert game.raked and not game.game_type.zero_sum
    solver = PostflopSolver(game)
    solver.run(iterations=200)
    values = [brute_force_value(game, solver, p, best=False) for p in (0, 1)]
    best = [brute_force_value(game, solver, p) for p in (0, 1)]
    for p in (0, 1):
        assert solver.value(p) == pytest.approx(values[p], abs=1e-9 * 100)
        assert solver.value(p, best=True) == pytest.approx(best[p], abs=1e-9 * 100)
    assert sum(values) < -0.5  # the rake taken: at least 5% of the 100 pot at most showdowns
    assert solver.exploitability() == pytest.approx(0.5 * (best[0] - values[0] + best[1] - values[1]), abs=1e-9)
    unraked = PostflopGame(BOARD, oop, ip, _config("33%, 150%", "2x"))
    assert not unraked.raked
    terminal = unraked.tree.kind <= 1
    assert float(unraked.tree.rake[terminal].sum()) == 0.0 and float(game.tree.rake[terminal].max()) > 0
    assert unraked.tree.rake is unraked.tree.factor  # the terminals' rake shares the chance factors' array


def test_tree_counts_against_postflop_solver() -> None:
    """The issue's river tree (pot 200, stack 900, bets 33%, 75%, 150%, a; raises 3x, a) has postflop-solver's
    28 decision nodes; its turn tree 5,016 (48 river cards, no merging on a rainbow turn)."""
    from pokerlab.games.postflop.bettree import build_action_tree, count_nodes

    config = TreeConfig(pot=200, stack=900, street=2, bets=parse_street_sizes("33%, 75%, 150%, a"),
                        raises=parse_street_sizes("3x, a", raises=True))
    assert count_nodes(build_action_tree(config))[0] == 28
    game = PostflopGame("Td9d6hQc", "AA", "KK", TreeConfig(
        pot=200, stack=900, street=1, bets=parse_street_sizes("50%, 100%, a"),
        raises=parse_street_sizes("2.5x, a", raises=True)))
    assert game.decision_count == 5016
    # per node the action lists: the root's and the reply to the 150 bet
    g = PostflopGame("Td9d6hQc2s", "AA", "KK", config)
    assert g.labels[0] == ("check", "bet 66", "bet 150", "bet 300", "all-in 900")
    reply = int(g.tree.first_child[0]) + 2
    assert g.labels[reply] == ("fold", "call", "raise to 450", "all-in 900")
    # chips rounded as postflop-solver rounds (halves up): its action tree for pot 245, bets 50%, a; raises 2.5x
    # reads Check, Bet(123), AllIn(900), then Fold, Call, Raise(308) (Python's round would bet 122)
    odd = PostflopGame("Td9d6hQc2s", "AA", "KK", TreeConfig(pot=245, stack=900, street=2,
                                                            bets=parse_street_sizes("50%, a"),
                                                            raises=parse_street_sizes("2.5x", raises=True)))
    assert odd.labels[0] == ("check", "bet 123", "all-in 900")
    assert odd.labels[int(odd.tree.first_child[0]) + 1] == ("fold", "call", "raise to 308")
    # storage: hands x (2 actions - 1) per decision node (the regrets, the cumulative strategy but the last
    # action's), hands x actions in each of the compressed storage's two arrays
    sizes = [g.num_private_hands(int(g.tree.player[v])) * (2 * int(g.tree.num_children[v]) - 1)
             for v in range(len(g.tree.kind)) if g.tree.kind[v] == DECISION_NODE]
    assert g.storage_size == sum(sizes)
    assert list(itertools.accumulate(sizes))[-1] == g.storage_size
    packed = PostflopGame("Td9d6hQc2s", "AA", "KK", config, compress=True)
    assert packed.storage_size == sum(g.num_private_hands(int(g.tree.player[v])) * int(g.tree.num_children[v])
                                      for v in range(len(g.tree.kind)) if g.tree.kind[v] == DECISION_NODE)
