"""An exact solver for Belote de comptoir at small k: the expectimax over the deals of the
cards hidden from a seat, each deal solved with full information (catalogue
``belote_comptoir.md``, "Simulation notes": "exact expectimax over the deals of the unseen
cards is feasible for k <= 3"). It checks the search player (``players.search_move``).

What it computes, for a decision of the seat to move (a card, the contract, or, for the
auction, the chance to make each level):

1. every deal of the cards hidden from the seat consistent with what it sees
   (``exact_worlds``: the other hands' hidden cards, its own face-down cards, hand sizes,
   the voids and other absences its seat infers from the play), each equally likely;
2. in each deal, after each legal move, the rest of the card play solved exactly with
   every hand open (``solve``: a full game-tree search, no pruning);
3. the mean over the deals of the seat's result, per move; the moves ranked by it.

The objective of the full-information play. After the contract a deal's marks depend only
on whether the bidder reaches his bid: he marks 1 if he does, else every other player
marks 1. Every non-bidder therefore has the same preferences, so max-n (each player
maximizing his own result) is exactly a two-sided minimax, the bidder against the rest,
with the key ``1000 * made + the bidder's points`` (``leaf_key``): the bidder maximizes
it, every other seat minimizes it. The bidder's points only break ties between lines
with the same made/failed result (more for the bidder, fewer for the others), the same
lexicographic order as the search player's ``players.outcome``, which ``key_outcome``
reproduces from a solved key (the seat's margin over the others, x (n - 1), in
thousands, plus the tie-break). For the auction the key is the bidder's points alone:
the bidder makes level L in a deal exactly when that minimax value is >= L.

What it is exact for, and what it is not: it is the exact value of the *determinized*
expectimax (the average over consistent deals of the perfect-information value), which
is what the search player estimates with sampled worlds and heuristic play-outs. It is
not a solution of the imperfect-information game: within a deal every player sees every
card (strategy fusion: a line may depend on cards the player could not see), and the
deals are weighted uniformly, ignoring what the other players' bids and choice of
cards (beyond their legality) reveal. The auction is not solved as a game either: only
each level's make chance for the seat as bidder is exact, and the search's bid ceiling is
checked against it.

Cost: the deals are enumerated in Python with numpy (a product of card combinations per
hidden place) and solved in a numba kernel; fine for 2 players up to k = 3 and 3
players up to k = 2 (at most 164 430 deals at a 3-player first decision).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from simlab.engine.jit import batch, hot
from simlab.games.belote_comptoir.players import (
    allowed,
    heuristic_move,
    outcome,
    playout,
    search_move,
    search_work,
    seat_information,
)
from simlab.games.belote_comptoir.rules import (
    MAX_MOVES,
    MAX_PLAYERS,
    N_CARDS,
    N_CONTRACTS,
    N_STATE,
    P_AUCTION,
    P_DONE,
    S_BID,
    S_FACE_DOWN,
    S_FACE_UP,
    S_HAND,
    S_N,
    S_PHASE,
    S_REST,
    S_TAKER,
    S_TO_MOVE,
    ComptoirKnobs,
    _rules,
    _vector,
    apply_contract,
    apply_move,
    deal,
    kernel_tables,
    legal_cards_now,
    legal_moves,
    taker_points,
)
from simlab.mechanics.tricks import EMPTY, ONE, lowest

MADE = 1000  # above any bidder's points: a made bid outranks any number of points
POINTS_ONLY = 1 << 40  # a target never reached: the key is the bidder's points alone
MAX_PLIES = N_CARDS + 1  # depth of the play tree and its root


@hot
def leaf_key(state: np.ndarray, target: int) -> int:
    """The bidder's side's value of a finished deal: ``MADE`` if his points reach
    ``target`` (his bid), plus his points (the tie-break)."""
    pts = taker_points(state)
    return pts + (MADE if pts >= target else 0)


@hot
def solve(state: np.ndarray, target: int, kv: np.ndarray, rules: np.ndarray, tb: tuple,
          stack: np.ndarray, left: np.ndarray, best: np.ndarray) -> int:
    """The minimax ``leaf_key`` of the card play from ``state`` (phase ``P_PLAY`` or
    over), every hand open: the bidder maximizes, the other seats minimize. Depth-first
    over an explicit stack (``stack[d]`` the state at depth d, ``left[d]`` its legal cards
    not yet tried, ``best[d]`` the best key found there), so no recursion in numba."""
    if state[S_PHASE] == P_DONE:
        return leaf_key(state, target)
    for i in range(N_STATE):
        stack[0, i] = state[i]
    d = 0
    left[0] = legal_cards_now(stack[0], rules, tb)
    best[0] = -1 if stack[0, S_TO_MOVE] == stack[0, S_TAKER] else POINTS_ONLY * 4
    while True:
        if left[d] != EMPTY:
            card = lowest(left[d])
            left[d] &= left[d] - ONE
            for i in range(N_STATE):
                stack[d + 1, i] = stack[d, i]
            apply_move(stack[d + 1], card, kv, tb)
            if stack[d + 1, S_PHASE] == P_DONE:
                value = leaf_key(stack[d + 1], target)
            else:
                d += 1
                left[d] = legal_cards_now(stack[d], rules, tb)
                best[d] = -1 if stack[d, S_TO_MOVE] == stack[d, S_TAKER] else POINTS_ONLY * 4
                continue
        else:
            value = best[d]
            if d == 0:
                return value
            d -= 1
        if stack[d, S_TO_MOVE] == stack[d, S_TAKER]:
            best[d] = max(best[d], value)
        else:
            best[d] = min(best[d], value)


@hot
def key_margin(key: int, seat: int, taker: int, n: int) -> int:
    """The seat's mark margin (its mark minus the others', x (n - 1), as
    ``players.outcome``) in a deal whose solved key is ``key``."""
    made = key >= MADE
    if seat == taker:
        return (n - 1) if made else -(n - 1)
    return -1 if made else 1


@hot
def key_outcome(key: int, seat: int, taker: int, n: int) -> int:
    """``players.outcome`` of a deal whose solved key is ``key``: 1000 x the margin, then
    the bidder's points (for him, against the others)."""
    pts = key - MADE if key >= MADE else key
    return 1000 * key_margin(key, seat, taker, n) + (pts if seat == taker else -pts)


@batch
def move_values(state: np.ndarray, hands: np.ndarray, own_down: np.ndarray, rest: np.ndarray,
                moves: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple
                ) -> tuple[np.ndarray, np.ndarray]:
    """For a contract or card decision: per move, the sum over the deals (rows of
    ``hands``: every seat's hand; ``own_down``, ``rest``) of the seat's ``outcome`` after
    the move and exact play (``solve``), and the sum of its mark margin alone."""
    seat = state[S_TO_MOVE]
    n = state[S_N]
    totals = np.zeros(len(moves))
    margins = np.zeros(len(moves))
    world = np.zeros(N_STATE, dtype=np.int64)
    sim = np.zeros(N_STATE, dtype=np.int64)
    stack = np.zeros((MAX_PLIES, N_STATE), dtype=np.int64)
    left = np.zeros(MAX_PLIES, dtype=np.uint64)
    best = np.zeros(MAX_PLIES, dtype=np.int64)
    for w in range(hands.shape[0]):
        for i in range(N_STATE):
            world[i] = state[i]
        for q in range(n):
            world[S_HAND + q] = hands[w, q]
        world[S_FACE_DOWN] = own_down[w]
        world[S_REST] = rest[w]
        for m in range(len(moves)):
            for i in range(N_STATE):
                sim[i] = world[i]
            apply_move(sim, moves[m], kv, tb)
            key = solve(sim, sim[S_BID], kv, rules, tb, stack, left, best)
            totals[m] += key_outcome(key, seat, sim[S_TAKER], n)
            margins[m] += key_margin(key, seat, sim[S_TAKER], n)
    return totals, margins


@batch
def bidder_points(state: np.ndarray, hands: np.ndarray, own_down: np.ndarray,
                  rest: np.ndarray, allowed: np.ndarray, kv: np.ndarray, rules: np.ndarray,
                  tb: tuple) -> np.ndarray:
    """For an auction decision: [deal, contract] = the points the seat to move takes as
    the bidder at that contract with exact play (the minimax of his points), -1 where the
    contract is not allowed."""
    seat = state[S_TO_MOVE]
    n = state[S_N]
    out = np.full((hands.shape[0], N_CONTRACTS), -1, dtype=np.int64)
    sim = np.zeros(N_STATE, dtype=np.int64)
    stack = np.zeros((MAX_PLIES, N_STATE), dtype=np.int64)
    left = np.zeros(MAX_PLIES, dtype=np.uint64)
    best = np.zeros(MAX_PLIES, dtype=np.int64)
    for w in range(hands.shape[0]):
        for c in range(N_CONTRACTS):
            if not allowed[c]:
                continue
            for i in range(N_STATE):
                sim[i] = state[i]
            for q in range(n):
                sim[S_HAND + q] = hands[w, q]
            sim[S_REST] = rest[w]
            sim[S_TAKER] = seat  # as if the auction were over with this seat the bidder
            sim[S_FACE_DOWN] = 0
            apply_contract(sim, c, kv)
            out[w, c] = solve(sim, POINTS_ONLY, kv, rules, tb, stack, left, best)
    return out


# --- the deals of the hidden cards -------------------------------------------------------------
def _masks(pool: list[int], size: int) -> np.ndarray:
    return np.array([sum(1 << c for c in combo) for combo in itertools.combinations(pool, size)],
                    dtype=np.int64).reshape(-1)


def exact_worlds(state: np.ndarray, rules: np.ndarray, tb: tuple
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every deal of the cards hidden from the seat to move consistent with what it sees:
    (hands [deals, n] every seat's full hand, own face-down cards [deals], undealt rest
    [deals]). Each hidden place keeps its size, each other hand avoids the cards its plays
    excluded, visible cards never move; the deals are equally likely (the uniform
    weighting of the search's sampler, ``players.sample_world``)."""
    seat = int(state[S_TO_MOVE])
    n = int(state[S_N])
    excluded = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    played_by = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    hidden = int(seat_information(state, seat, rules, tb, excluded, played_by))
    up = int(state[S_FACE_UP])
    down = int(state[S_FACE_DOWN])
    others = [(seat + 1 + j) % n for j in range(n - 1)]
    # places: the other hands' hidden cards, then the seat's own face-down cards
    sizes = [bin(int(state[S_HAND + q]) & ~up).count("1") for q in others]
    sizes.append(bin(int(state[S_HAND + seat]) & down).count("1"))
    forbidden = [int(excluded[q]) for q in others] + [0]
    combos = np.zeros((1, 0), dtype=np.int64)
    used = np.zeros(1, dtype=np.int64)
    for size, no in zip(sizes, forbidden, strict=True):
        cards = [c for c in range(N_CARDS) if hidden >> c & 1 and not no >> c & 1]
        place = _masks(cards, size)
        fits = (used[:, None] & place[None, :]) == 0
        rows, cols = np.nonzero(fits)
        combos = np.concatenate([combos[rows], place[cols, None]], axis=1)
        used = used[rows] | place[cols]
    hands = np.zeros((len(combos), n), dtype=np.int64)
    for q in range(n):
        hands[:, q] = int(state[S_HAND + q])
    for j, q in enumerate(others):
        hands[:, q] = (int(state[S_HAND + q]) & up) | combos[:, j]
    own = combos[:, n - 1]
    hands[:, seat] = (int(state[S_HAND + seat]) & ~down) | own
    rest = hidden & ~used
    return hands, own, rest


# --- the exact values of a decision --------------------------------------------------------
@dataclass(frozen=True)
class ExactDecision:
    """The exact values of a contract or card decision of the seat to move: per legal move
    the mean ``outcome`` (margin x 1000 plus the points tie-break, as the search ranks
    moves) and the mean margin alone (the seat's mark minus the others' mean, x (n - 1)),
    over ``deals`` deals."""

    moves: list[int]
    values: np.ndarray
    margins: np.ndarray
    deals: int

    def best(self) -> int:
        """The move with the highest exact value (the first such in move order)."""
        return self.moves[int(np.argmax(self.values))]

    def loss(self, move: int) -> float:
        """Margin lost by ``move`` against the best move, in marks (>= 0 up to ties)."""
        return float(self.margins[int(np.argmax(self.values))] - self.margins[self.moves.index(move)])

    def gap(self) -> float:
        """Margin between the best move and the best other move (how clear the choice is)."""
        top = int(np.argmax(self.values))
        others = np.delete(self.margins, top)
        return float(self.margins[top] - others.max()) if len(others) else 0.0


def exact_decision(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple
                   ) -> ExactDecision:
    """``ExactDecision`` for the contract or card decision of the seat to move."""
    assert state[S_PHASE] != P_AUCTION, "auction: use exact_make_chances"
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    n_moves = legal_moves(state, kv, rules, tb, moves)
    hands, own, rest = exact_worlds(state, rules, tb)
    totals, margins = move_values(state, hands, own, rest, moves[:n_moves].copy(), kv, rules, tb)
    deals = len(hands)
    return ExactDecision([int(m) for m in moves[:n_moves]], totals / deals, margins / deals, deals)


def exact_make_chances(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                       max_level: int) -> np.ndarray:
    """For an auction decision: [contract, level] = the share of the deals of
    ``exact_worlds`` in which the seat to move, bidder at that contract, makes at least
    that level with exact play (0 for a contract not allowed), levels 0..max_level; and,
    last row, the share when the bidder names the contract once he has seen his own
    cards (his face-down cards, blind modes), the best contract for that level and hand.
    With every own card seen the last row is the best contract's row."""
    hands, own, rest = exact_worlds(state, rules, tb)
    ok = np.array([allowed(c, kv) for c in range(N_CONTRACTS)], dtype=np.bool_)
    pts = bidder_points(state, hands, own, rest, ok, kv, rules, tb)
    width = max_level + 2  # points above max_level all land in the last bin
    groups, group_of, sizes = np.unique(own, return_inverse=True, return_counts=True)
    index = ((group_of[:, None] * N_CONTRACTS + np.arange(N_CONTRACTS)[None, :]) * width
             + np.clip(pts, 0, max_level + 1))
    hist = np.bincount(index[:, ok].ravel(), minlength=len(groups) * N_CONTRACTS * width)
    hist = hist.reshape(len(groups), N_CONTRACTS, width)
    at_least = np.cumsum(hist[:, :, ::-1], axis=2)[:, :, ::-1][:, :, :max_level + 1]
    deals = len(hands)
    per_contract = at_least.sum(axis=0) / deals
    seen_first = (at_least.max(axis=1)).sum(axis=0) / deals  # best contract per own hand
    return np.vstack([per_contract, seen_first[None, :]])


def exact_ceiling(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  max_level: int, risk: float = 0.5) -> int:
    """The highest level the seat to move makes in at least ``risk`` of the deals with
    exact play, naming the best contract once it sees its cards (the last row of
    ``exact_make_chances``); what ``players.search_ceiling`` estimates with sampled
    worlds and heuristic play-outs. 0 if none."""
    chances = exact_make_chances(state, kv, rules, tb, max_level)[-1]
    made = np.nonzero(chances >= risk - 1e-12)[0]
    return int(made.max()) if len(made) else 0


def heuristic_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple
                     ) -> tuple[list[int], list[float], int]:
    """(legal moves, each one's mean ``players.outcome`` over every deal of
    ``exact_worlds`` with heuristic play after the move, number of deals): the exact
    expectation the search player estimates from sampled worlds (at k = 1 the play is
    forced, so it equals ``exact_decision``'s values)."""
    seat = int(state[S_TO_MOVE])
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    n_moves = legal_moves(state, kv, rules, tb, moves)
    hands, own, rest = exact_worlds(state, rules, tb)
    totals = np.zeros(n_moves)
    sim = state.copy()
    for w in range(len(hands)):
        for j in range(n_moves):
            sim[:] = state
            sim[S_HAND:S_HAND + len(hands[w])] = hands[w]
            sim[S_FACE_DOWN] = own[w]
            sim[S_REST] = rest[w]
            apply_move(sim, moves[j], kv, tb)
            playout(sim, kv, rules, tb)
            totals[j] += outcome(sim, seat)
    return [int(m) for m in moves[:n_moves]], list(totals / len(hands)), len(hands)


# --- judging a player against the solver ---------------------------------------------------------
@dataclass(frozen=True)
class Judged:
    """One contract or card decision judged exactly: its phase, the exact gap between the
    best and the next move (marks), and for each player judged the move it chose, whether
    that is the exact best, and the marks it loses against it."""

    phase: int
    gap: float
    deals: int
    chosen: dict[str, int]
    best: dict[str, bool]
    loss: dict[str, float]


def judge_deals(knobs: ComptoirKnobs, seeds: range, players: dict) -> list[Judged]:
    """Deal each seed (a numpy permutation of the pack, the dealer ``seed % n``), play it
    out with heuristic players, and at every contract or card decision with two or more
    legal moves judge each of ``players`` (name -> ``f(state, kv, rules, tb, seed) ->
    move``) against ``exact_decision``."""
    kv, rules, tb = _vector(knobs), _rules(knobs), kernel_tables(knobs)
    out = []
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    for seed in seeds:
        state = np.zeros(N_STATE, dtype=np.int64)
        deck = np.random.default_rng(seed).permutation(N_CARDS).astype(np.int64)
        deal(state, deck, seed % knobs.players, kv,
             np.zeros((knobs.players, knobs.k), dtype=np.int64))
        while state[S_PHASE] != P_DONE:
            if state[S_PHASE] != P_AUCTION and legal_moves(state, kv, rules, tb, moves) > 1:
                d = exact_decision(state, kv, rules, tb)
                chosen = {name: int(f(state, kv, rules, tb, seed)) for name, f in players.items()}
                out.append(Judged(int(state[S_PHASE]), d.gap(), d.deals, chosen,
                                  {name: m == d.best() for name, m in chosen.items()},
                                  {name: d.loss(m) for name, m in chosen.items()}))
            apply_move(state, heuristic_move(state, kv, rules, tb), kv, tb)
    return out


def search_player(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: int) -> int:
    """``players.search_move`` with its decision stream keyed by ``seed``."""
    world = np.zeros(N_STATE, dtype=np.int64)
    return int(search_move(state, kv, rules, tb, np.uint64(seed), 0, 0, world, search_work()))


def heuristic_player(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                     seed: int) -> int:
    """``players.heuristic_move`` (``seed`` unused: the heuristic is deterministic)."""
    return int(heuristic_move(state, kv, rules, tb))


def summary(judged: list[Judged], name: str, clear: float = 0.1) -> dict:
    """Agreement with the exact best move where the exact gap exceeds ``clear`` marks, and
    the mean marks lost per decision with its standard error, for player ``name``."""
    gaps = np.array([j.gap for j in judged])
    agree = np.array([j.best[name] for j in judged])[gaps > clear]
    loss = np.array([j.loss[name] for j in judged])
    return {"decisions": len(judged), "clear": len(agree),
            "agree": float(agree.mean()) if len(agree) else float("nan"),
            "agree_se": float(np.sqrt(agree.mean() * (1 - agree.mean()) / len(agree)))
            if len(agree) else float("nan"),
            "loss": float(loss.mean()), "loss_se": float(loss.std(ddof=1) / np.sqrt(len(loss)))}
