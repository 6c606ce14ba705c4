"""Démons punisseurs players: the heuristic, the random player, what a seat sees, the
worlds consistent with it, and the search player (``--policy search``).

May import: ``simlab.engine.*``, ``simlab.mechanics.*``, this game's ``rules`` and
``tables``.

Every policy chooses among ``rules.legal_moves`` (bets, answers, cards with their names)
and the kernels apply the choice with ``rules.apply_move``; the dealer's swaps are
chosen by ``swap_heuristic`` / ``swap_random`` right after the deal.

The heuristic estimates its chance to win each objective (``win_pct``): for Pareil and
Suite, the chance that both opponents hold a worse combination, from the distribution of
a random seat's best combination (``tables.py``), lowered when answering a bet (the
bettor showed a strong hand: only the part of his range below ours counts); for the Jeu,
from its tricks and the Démons and high trumps it still holds. It bets at
``bet_pct``, holds at ``hold_pct`` and pushes at ``push_pct``. In play it races for the
Jeu when it is likely to make it or engaged on it, blocks a seat about to reach it, and
otherwise throws its cheapest ordinary card, keeping its Démons free (a Démon in hand is
wild at the exposition).

What a seat sees: its hand, the turned cards (and the dealer's swaps: the Démons he took
are known to be in his hand), every card played with its name, the voids a seat showed
by playing neither the led suit nor trump, the sizes of the hands. Hidden: the other
hands and the undealt cards. ``sample_world`` deals the hidden cards to the two other
hands and the undealt pile with ``search.sample_owners`` under those constraints.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.demons_punisseurs.rules import (
    ALL_CARDS,
    DEMON_ORDER,
    K_BET_PCT,
    K_HOLD_PCT,
    K_JEU,
    K_PUSH_PCT,
    K_WORLDS,
    M_BET,
    M_CONCEDE,
    M_HOLD,
    M_LATER_PUSH,
    M_PASS,
    M_PUSH,
    M_SILENT,
    MAX_MOVES,
    N_CARDS,
    N_IDENT,
    N_STATE,
    O_JEU,
    O_PAREIL,
    P_BET,
    P_DONE,
    P_RESPOND,
    PLAYERS,
    RA,
    RK,
    S_CAP,
    S_CLUB_ORDER,
    S_DEALER,
    S_ELIG,
    S_GONE,
    S_HAND,
    S_KNOWN,
    S_LIAB,
    S_N_SWAP_CHANCES,
    S_N_TABLE,
    S_PHASE,
    S_PLY,
    S_R_ANS1,
    S_R_LEVEL,
    S_R_OBJ,
    S_R_STEP,
    S_TO_MOVE,
    S_TRICKS,
    S_TRUMP,
    S_TURNED,
    S_VOID,
    S_WIN_KEY,
    S_WIN_SEAT,
    SUIT_MASK,
    apply_move,
    combo_value,
    deal_scores,
    demons_of,
    do_swap,
    fill_identity,
    hand_of,
    legal_moves,
    must_follow,
    pareil_value,
    play_key,
    suite_value,
    swap_options,
)
from simlab.games.demons_punisseurs.tables import PAREIL_BELOW, SUITE_BELOW
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, ONE, bit, lowest, popcount

BIG = 1 << 40
SAMPLER_WORK = search.work_size(N_CARDS, 3)


# --- chances ---------------------------------------------------------------------------------
@hot
def below_permille(state: np.ndarray, p: int, o: int) -> int:
    """Chance (per mille) that a random seat's best combination of kind ``o`` is worse
    than seat ``p``'s."""
    v = combo_value(state, p, o)
    return PAREIL_BELOW[v] if o == O_PAREIL else SUITE_BELOW[v]


@hot
def jeu_pct(state: np.ndarray, p: int, kv: np.ndarray) -> int:
    """A rough chance to win the Jeu: tricks won, plus the Démons (each can be named the
    trump Ace) and ordinary trump Aces and Kings still in hand, against the tricks
    needed; lower when another seat is one trick away."""
    if state[S_TRICKS + p] >= kv[K_JEU]:
        return 100
    h = hand_of(state, p)
    dm = demons_of(state)
    t = state[S_TRUMP]
    strength = 2 * (state[S_TRICKS + p] + popcount(h & dm))
    strength += popcount(h & ~dm & SUIT_MASK[t] & (bit(t * 8 + RA) | bit(t * 8 + RK)))
    need = 2 * kv[K_JEU]
    if strength >= need + 2:
        pct = 85
    elif strength >= need:
        pct = 65
    elif strength >= need - 2:
        pct = 30
    else:
        pct = 5
    for q in range(PLAYERS):
        if q != p and state[S_TRICKS + q] >= kv[K_JEU] - 1:
            pct -= 25
    return max(pct, 0)


@hot
def win_pct(state: np.ndarray, p: int, o: int, kv: np.ndarray, against: int) -> int:
    """Seat ``p``'s estimated chance (percent) to win objective ``o``; ``against`` > 0:
    a bettor who asked at least that chance (percent) stands against it, so only his
    range below ours counts."""
    if o == O_JEU:
        pct = jeu_pct(state, p, kv)
        return pct - 15 if against > 0 else pct
    f = below_permille(state, p, o) / 1000.0
    if against <= 0:
        return int(100 * f * f)
    f0 = np.sqrt(min(against, 99) / 100.0)  # his own chance was f_b**2 >= against
    beat = max(0.0, f - f0) / (1.0 - f0)
    return int(100 * f * beat)


# --- the heuristic player -----------------------------------------------------------------
@hot
def heuristic_bet(state: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: int) -> int:
    """Open the bet (or later push) with the best chance, if it reaches ``bet_pct``
    (``push_pct`` for a push); else pass."""
    p = state[S_TO_MOVE]
    best = M_PASS
    best_pct = -1
    for i in range(n):
        m = moves[i]
        if m == M_PASS:
            continue
        if m >= M_LATER_PUSH:
            pct = win_pct(state, p, m - M_LATER_PUSH, kv, 0)
            need = kv[K_PUSH_PCT]
        else:
            pct = win_pct(state, p, m - M_BET, kv, 0)
            need = kv[K_BET_PCT]
        if pct >= need and pct > best_pct:
            best_pct = pct
            best = m
    return best


@hot
def heuristic_answer(state: np.ndarray, kv: np.ndarray, o: int) -> int:
    """§6.4's answers by chance: hold at ``hold_pct``, push at ``push_pct`` (when the
    cap allows), else "c'est bon" (or stay silent after a hold)."""
    p = state[S_TO_MOVE]
    level = state[S_R_LEVEL]
    against = kv[K_BET_PCT] if level == 1 else kv[K_PUSH_PCT]
    pct = win_pct(state, p, o, kv, against)
    can_push = state[S_R_LEVEL] + 2 <= state[S_CAP]
    if state[S_R_STEP] == 1:
        return M_HOLD if pct >= kv[K_HOLD_PCT] else M_CONCEDE
    if can_push and pct >= kv[K_PUSH_PCT]:
        return M_PUSH
    if state[S_R_ANS1] == M_HOLD:
        return M_SILENT
    return M_HOLD if pct >= kv[K_HOLD_PCT] else M_CONCEDE


@hot
def card_cost(state: np.ndarray, c: int, ident: int) -> int:
    """What a card is worth keeping: a Démon most (by its order), then trumps, then by
    rank."""
    d = DEMON_ORDER[state[S_CLUB_ORDER], state[S_TRUMP], c]
    if d >= 0:
        return 100 + d
    return (ident % 8) + (10 if ident // 8 == state[S_TRUMP] else 0)


@hot
def heuristic_card(state: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: int) -> int:
    p = state[S_TO_MOVE]
    jeu = kv[K_JEU]
    race = state[S_ELIG + O_JEU * 3 + p] == 1 and \
        (state[S_LIAB + O_JEU * 3 + p] > 0 or jeu_pct(state, p, kv) >= 50)
    # the name that keeps a Démon's worth (only asked when the hand holds a Démon)
    fill = -1
    if hand_of(state, p) & demons_of(state) != EMPTY:
        fill = fill_identity(state, p, must_follow(state, p))
    if state[S_N_TABLE] == 0:
        # lead: racing, the strongest card; else the cheapest ordinary one
        best = moves[0]
        best_score = -BIG
        for i in range(n):
            m = moves[i]
            c = m // N_IDENT
            ident = m % N_IDENT
            d = DEMON_ORDER[state[S_CLUB_ORDER], state[S_TRUMP], c]
            if race:
                score = play_key(state, c, ident) - (5 if d >= 0 else 0)
            else:
                score = -card_cost(state, c, ident) * 2 - (1 if d >= 0 and ident != fill else 0)
            if score > best_score:
                best_score = score
                best = m
        return best
    w = state[S_WIN_SEAT]
    block = state[S_TRICKS + w] >= jeu - 1
    last = state[S_N_TABLE] == PLAYERS - 1
    want = race or block
    best = -1
    best_cost = BIG
    if want:
        for i in range(n):
            m = moves[i]
            c = m // N_IDENT
            ident = m % N_IDENT
            if play_key(state, c, ident) > state[S_WIN_KEY]:
                cost = card_cost(state, c, ident)
                if cost < best_cost:
                    best_cost = cost
                    best = m
        if best >= 0:
            return best
    # throw: the cheapest card; a Démon thrown takes the name that fits its combinations
    for i in range(n):
        m = moves[i]
        c = m // N_IDENT
        ident = m % N_IDENT
        d = DEMON_ORDER[state[S_CLUB_ORDER], state[S_TRUMP], c]
        cost = card_cost(state, c, ident) * 2
        if d >= 0 and ident != fill:
            cost += 1
        if last and not want and play_key(state, c, ident) > state[S_WIN_KEY] and d < 0:
            cost -= 1  # taking a trick for free with a card as cheap is no loss
        if cost < best_cost:
            best_cost = cost
            best = m
    return best


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, moves: np.ndarray) -> int:
    """The heuristic player's move (module docstring)."""
    n = legal_moves(state, kv, moves)
    if n == 1:
        return moves[0]
    ph = state[S_PHASE]
    if ph == P_BET:
        return heuristic_bet(state, kv, moves, n)
    if ph == P_RESPOND:
        return heuristic_answer(state, kv, state[S_R_OBJ])
    return heuristic_card(state, kv, moves, n)


@hot
def combo_score(state: np.ndarray, p: int) -> int:
    return PAREIL_BELOW[pareil_value(state, p)] + SUITE_BELOW[suite_value(state, p)]


@hot
def swap_heuristic(state: np.ndarray, kv: np.ndarray) -> None:
    """The dealer always swaps (a Démon is worth more than any ordinary card: it can be
    any card), taking the strongest Démon on offer and giving the ordinary card whose
    loss hurts his Pareil and Suite least."""
    d = state[S_DEALER]
    for kind in range(2):
        club_d, club_o, trump_d, trump_o = swap_options(state, kv)
        take_from = club_d if kind == 0 else trump_d
        give_from = club_o if kind == 0 else trump_o
        if take_from == EMPTY or give_from == EMPTY:
            continue
        state[S_N_SWAP_CHANCES] += 1
        take = -1
        best_order = -1
        m = take_from
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            o = DEMON_ORDER[state[S_CLUB_ORDER], state[S_TRUMP], c]
            if o > best_order:
                best_order = o
                take = c
        h = hand_of(state, d)
        give = -1
        best = -BIG
        m = give_from
        while m != EMPTY:
            g = lowest(m)
            m &= m - ONE
            state[S_HAND + d] = np.int64((h & ~bit(g)) | bit(take))
            v = combo_score(state, d) * 8 - (g % 8)
            if v > best:
                best = v
                give = g
        state[S_HAND + d] = np.int64(h)
        do_swap(state, give, take)


@hot
def swap_random(state: np.ndarray, kv: np.ndarray, st: np.uint64) -> np.uint64:
    """Each possible swap made or not at random, with a random Démon and a random card."""
    for kind in range(2):
        club_d, club_o, trump_d, trump_o = swap_options(state, kv)
        take_from = club_d if kind == 0 else trump_d
        give_from = club_o if kind == 0 else trump_o
        if take_from == EMPTY or give_from == EMPTY:
            continue
        state[S_N_SWAP_CHANCES] += 1
        st, yes = rng.below(st, 2)
        if yes == 0:
            continue
        st, i = rng.below(st, popcount(take_from))
        st, j = rng.below(st, popcount(give_from))
        take = nth_card(take_from, i)
        give = nth_card(give_from, j)
        do_swap(state, give, take)
    return st


@hot
def nth_card(mask: np.uint64, k: int) -> int:
    m = mask
    for _ in range(k):
        m &= m - ONE
    return lowest(m)


@hot
def random_move(state: np.ndarray, kv: np.ndarray, st: np.uint64, moves: np.ndarray
                ) -> tuple[np.uint64, int]:
    n = legal_moves(state, kv, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, moves: np.ndarray) -> None:
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, moves), kv)


# --- what a seat sees, and worlds consistent with it -------------------------------------
@hot
def seat_hidden(state: np.ndarray, seat: int) -> np.uint64:
    """Cards ``seat`` has not seen: not in its hand, not played, not turned face up, not
    known to be in another hand (the dealer's swapped Démons)."""
    h = ALL_CARDS & ~hand_of(state, seat) & ~np.uint64(state[S_GONE]) \
        & ~np.uint64(state[S_TURNED])
    for q in range(PLAYERS):
        h &= ~np.uint64(state[S_KNOWN + q])
    return h


@hot
def sample_world(state: np.ndarray, seat: int, st: np.uint64, world: np.ndarray,
                 cards: np.ndarray, allowed: np.ndarray, capacity: np.ndarray,
                 owner: np.ndarray, swork: np.ndarray) -> np.uint64:
    """``world`` = ``state`` with the hidden cards dealt again (two other hands of their
    public sizes, the undealt pile) respecting the voids shown, listed in ascending id so
    the world depends only on what the seat sees and the stream."""
    for i in range(N_STATE):
        world[i] = state[i]
    hidden = seat_hidden(state, seat)
    dm = demons_of(state)
    n = 0
    m = hidden
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        cards[n] = c
        a = 7
        if dm >> np.uint64(c) & ONE == EMPTY:
            for k in range(2):
                q = (seat + 1 + k) % PLAYERS
                if state[S_VOID + q] >> (c // 8) & 1:
                    a &= ~(1 << k)
        allowed[n] = a
        n += 1
    total = 0
    for k in range(2):
        q = (seat + 1 + k) % PLAYERS
        known = np.uint64(state[S_KNOWN + q]) & ~np.uint64(state[S_GONE])
        capacity[k] = popcount(hand_of(state, q)) - popcount(known)
        total += capacity[k]
    capacity[2] = n - total
    st, ok = search.sample_owners(st, allowed, capacity, n, 3, owner, swork)
    if not ok:  # cannot happen for a consistent state; keep the true deal's sizes anyway
        for i in range(n):
            owner[i] = 2
        k = 0
        for j in range(2):
            for _ in range(capacity[j]):
                owner[k] = j
                k += 1
    for k in range(2):
        q = (seat + 1 + k) % PLAYERS
        world[S_HAND + q] = np.int64(np.uint64(state[S_KNOWN + q]) & ~np.uint64(state[S_GONE]))
    for i in range(n):
        if owner[i] < 2:
            q = (seat + 1 + owner[i]) % PLAYERS
            world[S_HAND + q] = np.int64(hand_of(world, q) | bit(cards[i]))
    return st


# --- the search player ------------------------------------------------------------------
@batch
def search_work() -> tuple:
    """Preallocated arrays of ``search_move``: moves, totals, the playout state, the
    playout's moves, hidden cards, allowed slots, capacities, owners, sampler scratch,
    scores."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(3, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(SAMPLER_WORK, dtype=np.int64),
            np.zeros(6, dtype=np.int64))


@hot
def search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                world: np.ndarray, work: tuple) -> int:
    """Determinized search: in ``search_worlds`` worlds, each legal move (bet, answer or
    card) is played out by heuristic players to the end of the deal; the move with the
    best summed value — the seat's score times 2 minus the two others' — is played (ties:
    the heuristic's move, listed first)."""
    moves, totals, sim, pmoves, cards, allowed, capacity, owner, swork, scores = work
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, moves)
    if n <= 1:
        return moves[0]
    h = heuristic_move(state, kv, pmoves)
    n = legal_moves(state, kv, moves)
    for m in range(n):
        totals[m] = 0
        if moves[m] == h:
            moves[m] = moves[0]
            moves[0] = h
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, st, world, cards, allowed, capacity, owner, swork)
        for m in range(n):
            for i in range(N_STATE):
                sim[i] = world[i]
            apply_move(sim, moves[m], kv)
            playout(sim, kv, pmoves)
            deal_scores(sim, scores)
            v = 0
            for q in range(PLAYERS):
                v += 3 * scores[q] if q == seat else 0
                v -= scores[q]
            totals[m] += v
    return moves[search.best_move(totals, n)]
