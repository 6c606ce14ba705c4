"""Duel à Las Vegas: result columns, the batch kernels and the runner's entry points.

A deal is one partie (rules.py): each seat's pack shuffled from its own stream (seed,
deal, seat), then ``apply_move`` stepped with each seat's player until the partie is
over. A match is the same partie (the seed's game has no level above it: 6 rounds or
both packs exhausted) reported with match columns: its winner, its length in rounds,
the rounds won as the final score.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import BOOL, Column, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import seat_vectors
from simlab.games.duel_las_vegas.players import choose, search_work
from simlab.games.duel_las_vegas.rules import (
    DECK,
    KV_SIZE,
    KV_TARGET,
    N_ST,
    PACK_MAX,
    PH_OVER,
    S_AUTO,
    S_CONCEDES,
    S_DECISIONS,
    S_DRAWS,
    S_FIRST_WINNER,
    S_LEAD3,
    S_MAX_HAND,
    S_PHASE,
    S_POS,
    S_ROUNDS,
    S_TIES,
    S_VOID,
    S_WINS,
    DuelLasVegasKnobs,
    apply_move,
    card_at,
    knob_vector,
    new_partie,
    outcome,
    policy_vector,
    to_move,
    winner_of,
)
from simlab.mechanics import poker

DEALT_SHOWN = PACK_MAX  # recorded "dealt" cards: the whole pack in draw order

# --- result columns -----------------------------------------------------------------
PER_SEAT = (("rounds", "rounds (mains) won"),
            ("cards", "cards drawn from the pack (flips, tie draws and draws)"),
            ("draws", "cards drawn by choice (draw moves)"),
            ("concedes", "rounds conceded by choice"),
            ("auto_concedes", "rounds conceded because the pack was empty (or on a tie "
                              "it could not answer)"),
            ("decisions", "concede-or-draw decisions made"),
            ("max_hand", "largest hand (cards on the table) in the partie"))
(C_DEAL, C_DEALER, C_SCORE, C_WINNER) = (0, 1, 2, 4)
C_SEAT = 5  # per-seat blocks of 2
C_FIXED = C_SEAT + 2 * len(PER_SEAT)
(F_ROUNDS, F_VOID, F_EXHAUSTED, F_DRAWN, F_TIES, F_FIRST, F_LEAD3, N_FIXED) = range(8)
N_DEAL_COLS = C_FIXED + N_FIXED


def deal_columns(k: DuelLasVegasKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer", help="no dealer in this game (both flip at "
                                   "once): deal index mod 2, kept for the common metrics"),
            Column("score_s0", help="+1 partie won, -1 lost, 0 drawn"), Column("score_s1"),
            Column("winner", help="seat that won the partie, -1 = drawn")]
    for name, text in PER_SEAT:
        cols += [Column(f"{name}_s{i}", help=text) for i in range(2)]
    cols += [Column("n_rounds", help="rounds played"),
             Column("void_rounds", help="rounds nobody won (both packs empty on a tie)"),
             Column("exhausted", BOOL, help="the partie ended with both packs exhausted "
                                            "before anybody reached the target"),
             Column("drawn", BOOL, help="no winner (equal rounds, both packs exhausted)"),
             Column("tie_draws", help="times both hands were exactly equal, so both drew"),
             Column("first_round_winner", help="seat that won the first round (-1: none)"),
             Column("leader_after_3", help="seat ahead in rounds after 3 rounds (-1: "
                                           "level, or fewer rounds)")]
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST_DEALER, M_WINNER, M_N_DEALS, M_FINAL, M_EXHAUSTED, M_DRAWN, M_CARDS,
 N_MATCH_COLS) = (0, 1, 2, 3, 4, 6, 7, 8, 10)


def match_columns(k: DuelLasVegasKnobs | None = None) -> list[Column]:
    return [Column("match"), Column("first_dealer", help="always 0: no dealer"),
            Column("winner", help="seat that won the partie, -1 = drawn"),
            Column("n_deals", help="rounds (mains) played"),
            Column("final_score_s0", help="rounds won"), Column("final_score_s1"),
            Column("exhausted", BOOL, help="both packs exhausted before the target"),
            Column("drawn", BOOL, help="no winner"),
            Column("cards_s0", help="cards drawn from the pack"), Column("cards_s1")]


# --- one partie ----------------------------------------------------------------------------
@hot
def shuffle_packs(seed: np.uint64, index: int, size: int, packs: np.ndarray) -> None:
    """§5 "chaque joueur, après avoir mélangé son jeu": each seat's pack from its own
    stream (seed, deal, seat)."""
    for p in range(2):
        for c in range(size):
            packs[p, c] = c
        rng.shuffle(rng.stream(seed, index, p, rng.SHUFFLE), packs[p], size)


@batch
def packs_of(seed: np.uint64, index: int, size: int) -> np.ndarray:
    """Both packs of deal ``index`` in draw order [2, size] (for traces and tests)."""
    packs = np.zeros((2, PACK_MAX), dtype=np.int64)
    shuffle_packs(seed, index, size, packs)
    return packs[:, :size].copy()


@hot
def play_partie(seed: np.uint64, index: int, pol: np.ndarray, kv: np.ndarray,
                pp: np.ndarray, n_worlds: np.ndarray, st: np.ndarray, packs: np.ndarray,
                sw: tuple, work: np.ndarray, log: np.ndarray) -> int:
    """Partie ``index``: shuffle both packs, play it out into ``st``. ``log`` [L, 2]
    records (seat, move) of the first L decisions. Returns the number of decisions."""
    shuffle_packs(seed, index, kv[KV_SIZE], packs)
    new_partie(st, kv, packs[0], packs[1], work)
    state = rng.stream(seed, index, 0, rng.POLICY)
    t = 0
    while st[S_PHASE] != PH_OVER:
        seat = to_move(st)
        # each seat decides with its own policy values (simlab.engine.seatknobs)
        state, move = choose(pol[seat], state, seed, index, 0, st, kv, pp[seat],
                             n_worlds[seat, 0], sw, work)
        if t < log.shape[0]:
            log[t, 0] = seat
            log[t, 1] = move
        t += 1
        apply_move(st, kv, move, work)
    return t


@hot
def fill_row(st: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """The deal row's columns from C_SCORE on."""
    for p in range(2):
        row[C_SCORE + p] = outcome(st, p)
    row[C_WINNER] = winner_of(st)
    for j, slot in enumerate((S_WINS, S_POS, S_DRAWS, S_CONCEDES, S_AUTO, S_DECISIONS,
                              S_MAX_HAND)):
        row[C_SEAT + 2 * j] = st[slot]
        row[C_SEAT + 2 * j + 1] = st[slot + 1]
    f = C_FIXED
    row[f + F_ROUNDS] = st[S_ROUNDS]
    row[f + F_VOID] = st[S_VOID]
    reached = max(st[S_WINS], st[S_WINS + 1]) >= kv[KV_TARGET]
    row[f + F_EXHAUSTED] = not reached
    row[f + F_DRAWN] = winner_of(st) < 0
    row[f + F_TIES] = st[S_TIES]
    row[f + F_FIRST] = st[S_FIRST_WINNER]
    row[f + F_LEAD3] = st[S_LEAD3]


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 pp: np.ndarray, n_worlds: np.ndarray, record: bool, log_len: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T  # column-major
    n_rec = count if record else 1
    dealt = np.full((n_rec, 2, DEALT_SHOWN), -1, dtype=np.int64)
    drawn = np.full((n_rec, 2, PACK_MAX), -1, dtype=np.int64)
    log = np.full((log_len, 2), -1, dtype=np.int64)
    st = np.zeros(N_ST, dtype=np.int64)
    packs = np.zeros((2, PACK_MAX), dtype=np.int64)
    sw = search_work()
    work = np.zeros(poker.WORK_SIZE, dtype=np.int64)  # simlab.mechanics.poker.work_array
    for i in range(count):
        d = start + i
        out[i, C_DEAL] = d
        out[i, C_DEALER] = d % 2
        play_partie(seed, d, pol, kv, pp, n_worlds, st, packs, sw, work, log)
        fill_row(st, kv, out[i])
        if record:
            for p in range(2):
                for c in range(kv[KV_SIZE]):
                    dealt[i, p, c] = packs[p, c]
                for c in range(st[S_POS + p]):
                    drawn[i, p, c] = card_at(st, p, c)
    return out, dealt, drawn, log


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   pp: np.ndarray, n_worlds: np.ndarray) -> np.ndarray:
    out = np.zeros((N_MATCH_COLS, count), dtype=np.int64).T
    st = np.zeros(N_ST, dtype=np.int64)
    packs = np.zeros((2, PACK_MAX), dtype=np.int64)
    sw = search_work()
    work = np.zeros(poker.WORK_SIZE, dtype=np.int64)  # simlab.mechanics.poker.work_array
    log = np.empty((0, 2), dtype=np.int64)
    for i in range(count):
        m = start + i
        play_partie(seed, m, pol, kv, pp, n_worlds, st, packs, sw, work, log)
        o = out[i]
        o[M_MATCH] = m
        o[M_WINNER] = winner_of(st)
        o[M_N_DEALS] = st[S_ROUNDS]
        o[M_FINAL] = st[S_WINS]
        o[M_FINAL + 1] = st[S_WINS + 1]
        o[M_EXHAUSTED] = max(st[S_WINS], st[S_WINS + 1]) < kv[KV_TARGET]
        o[M_DRAWN] = winner_of(st) < 0
        o[M_CARDS] = st[S_POS]
        o[M_CARDS + 1] = st[S_POS + 1]
    return out


# --- entry points for the runner -----------------------------------------------------
def _setup(knobs: DuelLasVegasKnobs, policies: tuple[str, ...]) -> tuple:
    if len(policies) != 2:
        raise SimlabError(f"duel_las_vegas needs 2 policies, got {len(policies)}")
    # the players' vectors, one row per seat: policy values, search worlds
    return (policy_codes(policies), knob_vector(knobs), seat_vectors(knobs, policies, policy_vector),
            seat_vectors(knobs, policies, _worlds))


def _worlds(knobs: DuelLasVegasKnobs) -> np.ndarray:
    return np.array([knobs.search_worlds], dtype=np.int64)


def run_deals(knobs: DuelLasVegasKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, kv, pp, worlds = _setup(knobs, policies)
    rows, dealt, drawn, _ = deals_kernel(np.uint64(seed), start, count, pol, kv, pp,
                                         worlds, record_hands, 0)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=drawn)


def run_matches(knobs: DuelLasVegasKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, kv, pp, worlds = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, kv, pp,
                                       worlds))


def trace_deal(knobs: DuelLasVegasKnobs, policies: tuple[str, ...], seed: int, d: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal ``d`` of a deal-level run: (row, each pack in draw order [2, size], decisions
    [n, 2] of (seat, move)). For tests and debugging."""
    pol, kv, pp, worlds = _setup(knobs, policies)
    rows, _, drawn, log = deals_kernel(np.uint64(seed), d, 1, pol, kv, pp,
                                       worlds, True, 4096)
    n = int((log[:, 0] >= 0).sum())
    return rows[0], packs_of(np.uint64(seed), d, int(kv[KV_SIZE])), log[:n]


def hand_text(cards: list[int] | np.ndarray) -> str:
    """Readable hand, e.g. ``K♠ 7♥ Joker``."""
    return " ".join(DECK.labels[int(c)] for c in cards)
