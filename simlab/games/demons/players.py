"""Démons players: the heuristic and random policies, the six-swap and reveal-swap
choices, what a seat sees, the worlds consistent with it, and the search player.

Every policy chooses among ``rules.legal_moves`` (the heuristic builds its move directly,
but only from legal pieces) and the kernels play it with ``rules.apply_move``.

What a seat sees: its own hand (and whether it is the Diable: it holds the designating
Démon), the turned cards, every card played (possessed ones too), the shown 6s and the
card the revealed Diable took, the bets, the announcements, how many cards each seat
discarded face down in its six-swap (and which, for its own), and what plays revealed:
a seat that did not follow a led suit holds none of it; a seat that did not answer a
pure-Démon lead with a Démon holds no Démon. Hidden: the other hands, the others'
six-swap discards and **who the Diable is** until he plays his designating Démon.

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) decides the
card plays (the bets, swaps and announcements are the heuristic's): it samples
``search_worlds`` worlds — the hidden cards dealt to the two other hands and the face-down
discards with ``search.sample_owners`` under the constraints above (the designating Démon,
when not the seat's and not played, is in one of the other hands, never discarded: no
policy discards a Démon) — and the Diable of each world is the holder of the designating
Démon there, so the role is sampled with the cards. It plays each candidate out with
heuristic players and keeps the best mean of its deal score minus the others' mean.

May import: simlab.engine.*, simlab.mechanics.*, simlab.games.demons.rules.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.demons.rules import (
    A_NONE,
    A_PAREIL,
    A_SUITE,
    ALL_CARDS,
    B_COMPLETE,
    B_PARTIAL,
    B_PASS,
    COMBO_RANK,
    DEMON_MASK,
    DEMON_NO,
    HEARTS,
    K_BET_COMPLETE,
    K_BET_PARTIAL,
    K_HOLD,
    K_NEAR,
    K_RAISE,
    K_SCORE_BEFORE,
    K_TARGET,
    K_V6,
    K_WORLDS,
    LED_NONE,
    LED_PURE,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    ORDINARY_MASK,
    P_DONE,
    P_OPEN,
    P_PLAY,
    P_RESPOND,
    P_REVEAL_SWAP,
    R_CONCEDE,
    R_HOLD,
    R_RAISE,
    RS_BASE,
    RS_NONE,
    S_BR_KIND,
    S_CA_LEN,
    S_CA_TYPE,
    S_COLOUR,
    S_DEMON_CARD,
    S_DIABLE,
    S_GONE,
    S_HAND,
    S_KNOWN,
    S_LED,
    S_N_PLAYED,
    S_PHASE,
    S_PLY,
    S_REMOVED,
    S_REMOVED_BY,
    S_REMOVED_OWN,
    S_TC,
    S_TO_MOVE,
    S_TP,
    S_TRICKS,
    S_VOID,
    SIX_MASK,
    SUIT,
    SUIT_MASK,
    TRICK_RANK,
    VALUE_INDEX,
    VOID_DEMONS,
    apply_move,
    can_open_complete,
    can_open_partial,
    can_raise,
    combo_card,
    continues,
    deal_score,
    hand_of,
    legal_moves,
    play_move,
    playable_demons,
    playable_plain,
    possessable,
    pure_allowed,
    trick_key,
    trick_winner_index,
    turned,
)
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, lowest


# --- the heuristic player -----------------------------------------------------------------
@hot
def usefulness(c: int) -> int:
    """How much a card helps to win tricks: a Démon most (by its number), then K, C, Q, J,
    6. The six-swap and the reveal-swap trade up by it."""
    if DEMON_NO[c] > 0:
        return 20 - DEMON_NO[c]
    return TRICK_RANK[c] * 2


@hot
def my_value(state: np.ndarray, p: int, c: int, kv: np.ndarray) -> int:
    """A card's points for ``p`` if he won it (base + colour): what he gives away least."""
    v = VALUE_INDEX[c]
    if v < 0:
        return 0
    diable = state[S_DIABLE] == p
    pts = 1 if diable else kv[K_V6 + v]
    if v > 0 and (SUIT[c] == state[S_COLOUR + p] or (diable and SUIT[c] == HEARTS)):
        pts += 1
    return pts


@hot
def unseen_by(state: np.ndarray, p: int) -> np.uint64:
    """Cards ``p`` has not seen: not in his hand, not turned, not played, not his own
    six-swap discards."""
    return ALL_CARDS & ~hand_of(state, p) & ~turned(state) & ~np.uint64(state[S_GONE]) \
        & ~np.uint64(state[S_REMOVED_OWN + p])


@hot
def expected_tricks(state: np.ndarray, p: int) -> int:
    """Tricks (in tenths) ``p`` may expect: those won, plus 10 for a Démon no unseen one
    beats less 1 per stronger unseen Démon, 6 a King, 3 a Cavalier, 1 a Queen."""
    est = state[S_TRICKS + p] * 10
    h = hand_of(state, p)
    hidden_demons = unseen_by(state, p) & DEMON_MASK
    m = h
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if DEMON_NO[c] > 0:
            stronger = 0
            d = hidden_demons
            while d != EMPTY:
                x = lowest(d)
                d &= d - ONE
                if DEMON_NO[x] < DEMON_NO[c]:
                    stronger += 1
            est += max(10 - 2 * stronger, 4)
        else:
            r = TRICK_RANK[c]
            est += 6 if r == 4 else 3 if r == 3 else 1 if r == 2 else 0
    return est


@hot
def near_target(kv: np.ndarray, p: int) -> bool:
    """§12 only a seat that bet can win the match: close to the target, bet and hold."""
    return kv[K_SCORE_BEFORE + p] + kv[K_NEAR] >= kv[K_TARGET]


@hot
def heuristic_bet(state: np.ndarray, kv: np.ndarray) -> int:
    """Open a complete bet from ``bet_complete_at`` expected tricks (tenths), a partial
    one from ``bet_partial_at``; answer: raise from ``raise_at``, hold from ``hold_at``
    (each + 15 on a complete bet), else concede; near the target always bet and hold."""
    p = state[S_TO_MOVE]
    est = expected_tricks(state, p)
    near = near_target(kv, p)
    if state[S_PHASE] == P_OPEN:
        if can_open_complete(state, kv) and est >= kv[K_BET_COMPLETE]:
            return B_COMPLETE
        if can_open_partial(state, kv) and (est >= kv[K_BET_PARTIAL] or near):
            return B_PARTIAL
        return B_PASS
    shift = 0 if state[S_BR_KIND] == 0 else 15
    if can_raise(state, kv) and est >= kv[K_RAISE] + shift:
        return R_RAISE
    if est >= kv[K_HOLD] + shift or near:
        return R_HOLD
    return R_CONCEDE


@hot
def heuristic_announce(state: np.ndarray, p: int, card: int, possessed: int) -> int:
    """Announce a card only when it continues the attempt in progress, or when the hand
    keeps a card to continue it next (catalogue: ">= 90% completion"): a Suite (15)
    before a Pareil (10)."""
    c = combo_card(card, possessed)
    if c < 0:
        return A_NONE
    if continues(state, p, c, A_SUITE):
        return A_SUITE
    if continues(state, p, c, A_PAREIL):
        return A_PAREIL
    rest = hand_of(state, p) & ~bit(card) & ORDINARY_MASK
    r = COMBO_RANK[c]
    m = rest
    pareil = False
    while m != EMPTY:
        x = lowest(m)
        m &= m - ONE
        rx = COMBO_RANK[x]
        if rx < 0:
            continue
        if SUIT[x] == SUIT[c] and (rx == r + 1 or rx == r - 1):
            return A_SUITE
        if rx == r:
            pareil = True
    return A_PAREIL if pareil else A_NONE


@hot
def continuation(state: np.ndarray, p: int, cards: np.uint64) -> int:
    """A card of ``cards`` continuing ``p``'s attempt in progress, -1 none."""
    if state[S_CA_TYPE + p] == A_NONE or state[S_CA_LEN + p] == 0:
        return -1
    m = cards
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if COMBO_RANK[c] >= 0 and continues(state, p, c, state[S_CA_TYPE + p]):
            return c
    return -1


@hot
def cheapest(state: np.ndarray, p: int, cards: np.uint64, kv: np.ndarray) -> int:
    """The card of ``cards`` to give away: fewest points for ``p``, then least useful."""
    best = -1
    best_score = 1 << 30
    m = cards
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        s = my_value(state, p, c, kv) * 100 + usefulness(c)
        if s < best_score:
            best_score = s
            best = c
    return best


@hot
def top_of_suit(c: int, unseen: np.uint64, pool: np.uint64) -> bool:
    """No unseen card of its suit, nor a turned one a Démon could possess, beats ``c``."""
    m = (unseen | pool) & SUIT_MASK[SUIT[c]]
    while m != EMPTY:
        x = lowest(m)
        m &= m - ONE
        if TRICK_RANK[x] > TRICK_RANK[c]:
            return False
    return True


@hot
def heuristic_card(state: np.ndarray, kv: np.ndarray) -> int:
    """The heuristic's card play (a move), see the module docstring of ``rules`` for the
    encoding:

    * lead: the continuation of a combination in progress; the strongest Démon when no
      unseen Démon beats it and some are out (a pure lead draws them); the best card of a
      suit no unseen card beats; else the cheapest card of its longest suit;
    * answer a pure Démon: the weakest Démon that wins, else the weakest;
    * follow suit: the cheapest card that wins the trick now, else (when it is worth it)
      a Démon possessing a turned card of the suit that wins, else a continuation or the
      cheapest card;
    * void: a pure Démon that wins a trick worth 2 points or more, or a possessed turned
      card of the suit that wins; else a continuation or the cheapest card.
    """
    p = state[S_TO_MOVE]
    h = hand_of(state, p)
    led = state[S_LED]
    unseen = unseen_by(state, p)
    pool = turned(state) & ORDINARY_MASK
    if led == LED_NONE:
        plain = h & ORDINARY_MASK
        cont = continuation(state, p, plain)
        if cont >= 0:
            return play_move(cont, -1, heuristic_announce(state, p, cont, -1))
        dem = h & DEMON_MASK
        if dem != EMPTY:
            top = lowest(dem)  # the lowest id is the strongest Démon
            hidden = unseen & DEMON_MASK
            if hidden != EMPTY and lowest(hidden) > top:
                return play_move(top, -1, A_NONE)
        best = -1
        best_r = -1
        m = plain
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if TRICK_RANK[c] > best_r and top_of_suit(c, unseen, pool):
                best_r = TRICK_RANK[c]
                best = c
        if best >= 0 and best_r >= 3:
            return play_move(best, -1, heuristic_announce(state, p, best, -1))
        if plain == EMPTY:
            return play_move(highest_id(dem), -1, A_NONE)  # the weakest Démon
        long_s = 0
        long_n = -1
        for s in range(4):
            k = count(plain & SUIT_MASK[s])
            if k > long_n:
                long_n = k
                long_s = s
        c = cheapest(state, p, plain & SUIT_MASK[long_s], kv)
        return play_move(c, -1, heuristic_announce(state, p, c, -1))
    wi = trick_winner_index(state)
    best_key = trick_key(state[S_TC + wi], state[S_TP + wi], led)
    last = state[S_N_PLAYED] == 2
    worth = 0
    for i in range(state[S_N_PLAYED]):
        for c in (state[S_TC + i], state[S_TP + i]):
            if c >= 0:
                worth += my_value(state, p, c, kv)
    dem = playable_demons(state, kv, p)
    if led == LED_PURE and dem != EMPTY:
        m = dem
        pick = -1
        while m != EMPTY:
            d = lowest(m)
            m &= m - ONE
            if 1000 - DEMON_NO[d] > best_key:
                pick = d  # ascending ids: the last that wins is the weakest winner
        if pick < 0:
            pick = highest_id(dem)
        return play_move(pick, -1, A_NONE)
    plain = playable_plain(state, kv, p)
    winner = -1
    if led != LED_PURE:
        m = plain
        wv = 1 << 30
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if trick_key(c, -1, led) > best_key:
                v = my_value(state, p, c, kv) * 100 + usefulness(c)
                if v < wv and (last or top_of_suit(c, unseen, pool)):
                    wv = v
                    winner = c
    if winner >= 0:
        return play_move(winner, -1, heuristic_announce(state, p, winner, -1))
    following = led != LED_PURE and h & SUIT_MASK[led] != EMPTY
    if dem != EMPTY and led != LED_PURE and (worth >= 2 or last):
        weakest = highest_id(dem)
        if not following and pure_allowed(state, kv, p) and best_key < 900:
            # the weakest Démon that beats every pure Démon already played
            return play_move(weakest, -1, A_NONE)
        pm = possessable(state, p)
        pick = -1
        pr = -1
        while pm != EMPTY:
            t = lowest(pm)
            pm &= pm - ONE
            if SUIT[t] == led and trick_key(weakest, t, led) > best_key \
                    and TRICK_RANK[t] > pr:
                pr = TRICK_RANK[t]
                pick = t
        if pick >= 0:
            return play_move(weakest, pick, heuristic_announce(state, p, weakest, pick))
    if plain != EMPTY:
        cont = continuation(state, p, plain)
        c = cont if cont >= 0 else cheapest(state, p, plain, kv)
        return play_move(c, -1, heuristic_announce(state, p, c, -1))
    # only Démons left: a pure one when allowed, else possess the cheapest turned card
    weakest = highest_id(dem)
    if pure_allowed(state, kv, p):
        return play_move(weakest, -1, A_NONE)
    pm = possessable(state, p)
    t = cheapest(state, p, pm, kv)
    return play_move(weakest, t, A_NONE)


@hot
def highest_id(m: np.uint64) -> int:
    c = -1
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
    return c


@hot
def swap_choice(state: np.ndarray, p: int, allow_six: bool) -> tuple[int, int]:
    """(give, take) for a swap that trades up (``usefulness``), or (-1, -1): take the most
    useful turned card, give the least useful hand card that is no Démon (and, for the
    six-swap, no shown 6: the shown cards stay known)."""
    t = turned(state)
    take = -1
    tu = -1
    m = t
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if usefulness(c) > tu:
            tu = usefulness(c)
            take = c
    give = -1
    gu = 1 << 30
    m = hand_of(state, p) & ~DEMON_MASK
    if not allow_six:
        m &= ~SIX_MASK
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if usefulness(c) < gu:
            gu = usefulness(c)
            give = c
    if take < 0 or give < 0 or tu <= gu:
        return -1, -1
    return give, take


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray) -> int:
    ph = state[S_PHASE]
    if ph == P_OPEN or ph == P_RESPOND:
        return heuristic_bet(state, kv)
    if ph == P_REVEAL_SWAP:
        g, t = swap_choice(state, state[S_TO_MOVE], True)
        return RS_NONE if g < 0 else RS_BASE + g * 64 + t
    return heuristic_card(state, kv)


@hot
def random_move(state: np.ndarray, kv: np.ndarray, st: np.uint64, moves: np.ndarray
                ) -> tuple[np.uint64, int]:
    """A uniformly random legal move."""
    n = legal_moves(state, kv, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def random_six_swap(state: np.ndarray, p: int, st: np.uint64) -> tuple[np.uint64, int, int]:
    """The random player's six-swap: with probability 1/2, a random non-Démon, non-6 hand
    card for a random turned card (no discarded Démon: see the module docstring)."""
    st, k = rng.below(st, 2)
    give_set = hand_of(state, p) & ~DEMON_MASK & ~SIX_MASK
    t = turned(state)
    if k == 0 or give_set == EMPTY or t == EMPTY:
        return st, -1, -1
    st, a = rng.below(st, count(give_set))
    st, b = rng.below(st, count(t))
    return st, nth_card(give_set, a), nth_card(t, b)


@hot
def nth_card(m: np.uint64, k: int) -> int:
    for _ in range(k):
        m &= m - ONE
    return lowest(m)


# --- worlds consistent with a seat's view ------------------------------------------------
SAMPLE_WORK = search.work_size(N_CARDS, 3)
@batch
def search_work() -> tuple:
    """Preallocated arrays of the search player (one set per batch kernel): candidate
    moves, summed values, the playout state, hidden cards, their owners, allowed slots,
    slot capacities, the sampler's scratch, the world."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.float64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(3, dtype=np.int64), np.zeros(SAMPLE_WORK, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64))


@hot
def seat_hidden(state: np.ndarray, seat: int) -> np.uint64:
    """The cards hidden from ``seat``: the other hands and the others' face-down six-swap
    discards (``unseen_by``)."""
    return unseen_by(state, seat)


@hot
def sample_world(state: np.ndarray, seat: int, st: np.uint64, world: np.ndarray,
                 work: tuple) -> tuple[np.uint64, bool]:
    """``world`` = ``state`` with the hidden cards dealt again, consistently with what
    ``seat`` saw (module docstring), and the Diable set to the designating Démon's holder
    there. Reads only the seat's view: its hand, public facts, its own discards."""
    cards, owner, allowed, cap, swork = work[3], work[4], work[5], work[6], work[7]
    hidden = seat_hidden(state, seat)
    o1 = (seat + 1) % 3
    o2 = (seat + 2) % 3
    dcard = state[S_DEMON_CARD]
    n = 0
    m = hidden
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        a = 7
        for k in range(2):
            o = o1 if k == 0 else o2
            v = state[S_VOID + o]
            if DEMON_NO[c] > 0:
                if v & (1 << VOID_DEMONS):
                    a &= ~(1 << k)
            elif v & (1 << SUIT[c]):
                a &= ~(1 << k)
            if np.uint64(state[S_KNOWN + o]) & bit(c) != EMPTY:
                a = 1 << k
        if DEMON_NO[c] > 0 or c == dcard:
            a &= 3  # no policy discards a Démon face down
        cards[n] = c
        allowed[n] = a
        n += 1
    cap[0] = count(hand_of(state, o1))
    cap[1] = count(hand_of(state, o2))
    cap[2] = state[S_REMOVED_BY + o1] + state[S_REMOVED_BY + o2]
    st, ok = search.sample_owners(st, allowed, cap, n, 3, owner, swork)
    for i in range(N_STATE):
        world[i] = state[i]
    if not ok:
        return st, False
    h1 = EMPTY
    h2 = EMPTY
    rem = np.uint64(state[S_REMOVED_OWN + seat])
    for i in range(n):
        if owner[i] == 0:
            h1 |= bit(cards[i])
        elif owner[i] == 1:
            h2 |= bit(cards[i])
        else:
            rem |= bit(cards[i])
    world[S_HAND + o1] = np.int64(h1)
    world[S_HAND + o2] = np.int64(h2)
    world[S_REMOVED] = np.int64(rem)
    world[S_REMOVED_OWN + o1] = 0
    world[S_REMOVED_OWN + o2] = 0
    d = bit(dcard)
    if hand_of(state, seat) & d != EMPTY:
        world[S_DIABLE] = seat
    elif h1 & d != EMPTY:
        world[S_DIABLE] = o1
    elif h2 & d != EMPTY:
        world[S_DIABLE] = o2
    # else: the Démon was played, the Diable is public (the state's value stays)
    return st, True


# --- the search player ------------------------------------------------------------------------
@hot
def playout(sim: np.ndarray, kv: np.ndarray) -> None:
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv), kv)


@hot
def candidates(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """The card plays the search compares, the heuristic's first: every legal hand card;
    each pure Démon; each turned card possessed by the weakest Démon (the Démon's number
    only breaks ties); each with the heuristic's announcement."""
    p = state[S_TO_MOVE]
    h = heuristic_card(state, kv)
    out[0] = h
    n = 1
    m = playable_plain(state, kv, p)
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        mv = play_move(c, -1, heuristic_announce(state, p, c, -1))
        if mv != h:
            out[n] = mv
            n += 1
    dem = playable_demons(state, kv, p)
    if dem != EMPTY:
        if pure_allowed(state, kv, p):
            m = dem
            while m != EMPTY:
                d = lowest(m)
                m &= m - ONE
                mv = play_move(d, -1, A_NONE)
                if mv != h:
                    out[n] = mv
                    n += 1
        weakest = highest_id(dem)
        pm = possessable(state, p)
        while pm != EMPTY:
            t = lowest(pm)
            pm &= pm - ONE
            mv = play_move(weakest, t, heuristic_announce(state, p, weakest, t))
            if mv != h:
                out[n] = mv
                n += 1
    return n


@hot
def outcome_value(sim: np.ndarray, kv: np.ndarray, seat: int) -> float:
    """A finished deal for ``seat``: its score minus the others' mean."""
    mine = deal_score(sim, seat, kv)
    others = deal_score(sim, (seat + 1) % 3, kv) + deal_score(sim, (seat + 2) % 3, kv)
    return mine - others / 2.0


@hot
def search_move(state: np.ndarray, kv: np.ndarray, seed: np.uint64, index: int, sub: int,
                work: tuple) -> int:
    """The search player's move: the heuristic's outside card play; for a card play with
    several candidates, the best summed value over the worlds (ties: the heuristic's)."""
    if state[S_PHASE] != P_PLAY:
        return heuristic_move(state, kv)
    moves, totals, sim, world = work[0], work[1], work[2], work[8]
    n = candidates(state, kv, moves)
    if n <= 1:
        return moves[0]
    seat = state[S_TO_MOVE]
    for m in range(n):
        totals[m] = 0.0
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    for _ in range(kv[K_WORLDS]):
        st, ok = sample_world(state, seat, st, world, work)
        if not ok:
            continue
        for m in range(n):
            for i in range(N_STATE):
                sim[i] = world[i]
            apply_move(sim, moves[m], kv)
            playout(sim, kv)
            totals[m] += outcome_value(sim, kv, seat)
    return moves[search.best_move(totals, n)]


@hot
def six_swap_choice(state: np.ndarray, p: int, code: int, st: np.uint64
                    ) -> tuple[np.uint64, int, int]:
    """(stream, give, take) of ``p``'s six-swap under policy ``code`` (0 random; the
    heuristic and the search trade up with ``swap_choice``)."""
    if code == 0:
        return random_six_swap(state, p, st)
    g, t = swap_choice(state, p, False)
    return st, g, t
