"""Caisse players: the heuristic (declarations, contracts, contres, exchange, défi, card
play), the random player, what a seat sees, the worlds consistent with it, and the search
player (``--policy search``).

Every policy chooses among ``rules.legal_moves`` and the kernels apply the choice with
``rules.apply_move``: one code path for real deals, playouts and the search.

Search (determinized Monte Carlo, ``simlab/mechanics/search.py``): at a decision with more than one
legal move it samples ``search_worlds`` deals of the cards hidden from its seat — the two
other hands, every face-down card still on the table (its own 3 included, unseen until
picked up: §4), the talon — consistently with what the seat knows: its own cards, the
proposal card and the indicator (face up), the swapped 7 and the talon cards turned in
an exchange, the cards shown (taken in the exchange, melds disclosed at validation, §9.3),
the cards played and the voids / missing trumps each play reveals
(``trickinfo.replay_exclusions``); the exchanger's discards are non-trumps; each seat's
meld announcement (its longest sequence's length, a four or not: §9.2) holds in the world
(rejection, at most ``MELD_TRIES`` draws). It plays each
move out with heuristic players and keeps the best mean margin (its marks minus the mean
of the two others').
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.caisse.rules import (
    ACES,
    ALL_CARDS,
    ANNOUNCE,
    CONTRE,
    CT_44,
    CT_ATOUTS,
    CT_CAISSE,
    CT_CAPOT,
    CT_CENT,
    CT_CLARTE,
    CT_DEUX_CENTS,
    CT_FAMILLE,
    CT_TROIS,
    CT_ULTIME,
    DEFI_ACCEPT,
    DEFI_CONCEDE,
    DEFI_RAISE,
    G_MG,
    G_MISERE,
    G_SA,
    K_BELOTE,
    K_CENT_MIN,
    K_CENT_SA,
    K_CLARTE6_MIN,
    K_CLARTE_MIN,
    K_CLARTE_SA,
    K_CONCEDE_MAX,
    K_CONTRE_MIN,
    K_DEFI_MIN,
    K_DEUX_CENTS_MIN,
    K_MISERE,
    K_ROLLOUTS,
    K_SURCONTRE_MIN,
    K_TAKE1,
    K_TAKE2,
    K_TAKE_SA,
    K_ULTIME_TRUMPS,
    K_WORLDS,
    MAX_MOVES,
    MELD_CARRE,
    MELD_SEQ,
    MISERE,
    N_CARDS,
    N_STATE,
    NAME,
    NCT,
    NP,
    P_CONTRACT1,
    P_DECL1,
    P_DECL3,
    P_DEFI,
    P_DISCARD,
    P_DONE,
    P_EXCH_IND,
    P_EXCHANGE,
    P_MELD,
    P_PLAY,
    PASS,
    POINTS_PLAIN,
    POINTS_TRUMP,
    R7,
    R8,
    R9,
    R10,
    RA,
    RJ,
    RK,
    RQ,
    S_ANNOUNCED,
    S_BELOTE_SEAT,
    S_CARRE_DISCLOSED,
    S_CT,
    S_DEFI_TURN,
    S_DOWN,
    S_EXCH_SEAT,
    S_EXCHANGED,
    S_FIRST_LEADER,
    S_GAME,
    S_GONE,
    S_HAND,
    S_HIST,
    S_IND_ON_TALON,
    S_INDICATOR,
    S_MELD,
    S_N_TABLE,
    S_ON_TABLE,
    S_OUT_UP,
    S_PHASE,
    S_PLY,
    S_PROPOSAL,
    S_SEQ_DISCLOSED,
    S_SHOWN,
    S_START,
    S_TAKER,
    S_TALON,
    S_TO_MOVE,
    S_TPTS,
    S_TRICK,
    S_TRUMP,
    S_WIN,
    S_WIN_SEAT,
    SANS_ATOUT,
    SEATS,
    SWAP,
    TAKE,
    TAKE_IND,
    announcement,
    apply_move,
    belote_seat,
    carres,
    contract_allowed,
    contre_allowed,
    first_trick_speaking,
    hand_of,
    legal_cards_now,
    legal_moves,
    marks,
    sequences,
    suit_cards,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import replay_exclusions, sample_places
from simlab.mechanics.tricks import EMPTY, ONE, best_in, bit, count, follow_heuristic, has, is_master, lowest


# --- hand measures ------------------------------------------------------------------------------
@hot
def suit_score(hand: np.uint64, trump: int) -> int:
    """Card points of ``hand`` with ``trump`` as trump (-1: none) + 5 per trump."""
    total = 0
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if c // 8 == trump:
            total += POINTS_TRUMP[c] + 5
        else:
            total += POINTS_PLAIN[c]
    return total


@hot
def misere_danger(hand: np.uint64) -> int:
    """How likely a hand is to take a trick without trump: A 4, 10 3, K 2, Q 1, J 1."""
    d = 0
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        r = c % 8
        d += 4 if r == RA else 3 if r == 3 else 2 if r == RK else 1 if r == RQ or r == RJ else 0
    return d


@hot
def holds_j_or_9(hand: np.uint64, s: int) -> bool:
    return has(hand, s * 8 + RJ) or has(hand, s * 8 + R9)


# --- the heuristic player --------------------------------------------------------------------------
@hot
def heuristic_declaration(state: np.ndarray, kv: np.ndarray, moves: np.ndarray, n: int) -> int:
    """Round 1: take the proposal suit with a strong 6-card trump score holding its J or 9.
    Round 2: Sans-Atout with ``take_sa`` aces, else the best allowed suit when strong
    enough. Round 3: Misère with a low hand."""
    hand = hand_of(state, state[S_TO_MOVE])
    phase = state[S_PHASE]
    if phase == P_DECL1:
        t = state[S_PROPOSAL] // 8
        if suit_score(hand, t) >= kv[K_TAKE1] and holds_j_or_9(hand, t):
            return TAKE
        return PASS
    if phase == P_DECL3:
        return MISERE if misere_danger(hand) <= kv[K_MISERE] else PASS
    best = PASS
    best_score = -1
    for i in range(n):
        m = moves[i]
        if m == SANS_ATOUT:
            if count(hand & ACES) >= kv[K_TAKE_SA]:
                return SANS_ATOUT
        elif m != PASS:
            s = m - NAME
            sc = suit_score(hand, s)
            if sc >= kv[K_TAKE2] and holds_j_or_9(hand, s) and sc > best_score:
                best_score = sc
                best = m
    return best


@hot
def top_trumps(hand: np.uint64, t: int) -> int:
    """How many of the highest trumps (J, 9, A, 10, K, Q, 8, 7) ``hand`` holds unbroken
    from the Jack down."""
    n = 0
    for r in (RJ, R9, RA, R10, RK, RQ, R8, R7):
        if not has(hand, t * 8 + r):
            break
        n += 1
    return n


@hot
def side_losers(hand: np.uint64, t: int) -> int:
    """Cards of ``hand`` outside trump (-1: none) below the unbroken top of their suit
    (A, 10, K, Q...): the cards that may lose a trick once trumps are drawn."""
    n = 0
    for s in range(4):
        if s == t:
            continue
        held = count(hand & suit_cards(s))
        top = 0
        for r in (RA, R10, RK, RQ, RJ, R9, R8, R7):
            if not has(hand, s * 8 + r):
                break
            top += 1
        n += held - top
    return n


@hot
def holds_all(hand: np.uint64, t: int, r1: int, r2: int, r3: int) -> bool:
    return has(hand, t * 8 + r1) and has(hand, t * 8 + r2) and has(hand, t * 8 + r3)


@hot
def heuristic_contract(state: np.ndarray, kv: np.ndarray) -> int:
    """The contract the seat to move announces now (-1: none), any seat, each only when
    measured to pay (made rates from heuristic deals, in the knobs' help). With 9 cards:
    Capot holding 5+ trumps headed by J 9 and no side loser; Tous les Atouts holding the
    six; Ultime holding the trump 7 among ``ultime_trumps`` trumps; Cent / Clarté / Deux
    Cents from the score (a Cent first: after it no Clarté, §7.1); Famille holding A K Q
    with the J and 9 (or one of them among 6+ trumps); Tous les Trois holding J 9 7;
    Quarante-Quatre holding the four Aces in Sans-Atout or with 3+ trumps. With 6 cards
    (doubled) only what the hand already all but guarantees: Tous les Atouts, Famille
    with J 9 (or one of them among 5 trumps), Tous les Trois among 6 trumps, the four
    Aces in Sans-Atout, a Clarté with a 6-card score of ``clarte6_min``."""
    p = state[S_TO_MOVE]
    g = state[S_GAME]
    if g >= G_MISERE:
        return -1
    t = state[S_TRUMP]
    hand = hand_of(state, p)
    six = state[S_PHASE] == P_CONTRACT1
    sa = g == G_SA
    score = suit_score(hand, t)
    n_trumps = count(hand & suit_cards(t))
    top = top_trumps(hand, t) if not sa else 0
    aces = count(hand & ACES)
    if p == state[S_TAKER] and contract_allowed(state, p, CT_CAISSE):
        return CT_CAISSE  # measured: made ~90 % even with 6 cards
    if not sa and top >= 6 and contract_allowed(state, p, CT_ATOUTS):
        return CT_ATOUTS  # the six highest trumps: every one wins its trick
    if not sa and holds_all(hand, t, RA, RK, RQ) and contract_allowed(state, p, CT_FAMILLE) \
            and ((has(hand, t * 8 + RJ) and has(hand, t * 8 + R9))
                 or (holds_j_or_9(hand, t) and n_trumps >= (5 if six else 6))):
        return CT_FAMILLE
    if not sa and holds_all(hand, t, RJ, R9, R7) and contract_allowed(state, p, CT_TROIS) \
            and (not six or n_trumps >= 6):
        return CT_TROIS
    if aces == 4 and (sa or (not six and n_trumps >= 3)) and contract_allowed(state, p, CT_44):
        return CT_44
    if six:
        if not sa and score >= kv[K_CLARTE6_MIN] and contract_allowed(state, p, CT_CLARTE):
            return CT_CLARTE
        return -1
    if not sa and top >= 2 and n_trumps >= 5 and side_losers(hand, t) == 0 \
            and contract_allowed(state, p, CT_CAPOT):
        return CT_CAPOT
    if not sa and has(hand, t * 8 + R7) and n_trumps >= kv[K_ULTIME_TRUMPS] \
            and contract_allowed(state, p, CT_ULTIME):
        return CT_ULTIME
    if score >= kv[K_CENT_SA if sa else K_CENT_MIN] and contract_allowed(state, p, CT_CENT):
        return CT_CENT
    if score >= kv[K_CLARTE_SA if sa else K_CLARTE_MIN] and contract_allowed(state, p, CT_CLARTE):
        return CT_CLARTE
    melds = sequences(hand, t, kv)[0] + carres(hand, t, kv)[0]
    if not sa and has(hand, t * 8 + RK) and has(hand, t * 8 + RQ):
        melds += kv[K_BELOTE]
    if score + melds >= kv[K_DEUX_CENTS_MIN] - (20 if sa else 0) \
            and contract_allowed(state, p, CT_DEUX_CENTS):
        return CT_DEUX_CENTS
    return -1


@hot
def heuristic_speech(state: np.ndarray, kv: np.ndarray) -> int:
    """Contract rounds (catalogue heuristic): any seat announces the contracts that pay
    (``heuristic_contract``); an opponent contres a trump game with a strong 9-card
    trump score (the taker surcontres it with a very strong one); anyone contres the other
    party's contracts it can see failing (``hopeless_contract``). Returns PASS when
    nothing is said."""
    p = state[S_TO_MOVE]
    g = state[S_GAME]
    t = state[S_TRUMP]
    hand = hand_of(state, p)
    taker = p == state[S_TAKER]
    six = state[S_PHASE] == P_CONTRACT1
    k = heuristic_contract(state, kv)
    if k >= 0:
        return ANNOUNCE + k
    c = hopeless_contract(state, kv)
    if c >= 0:
        return CONTRE + c
    if taker and not six and g < G_SA and contre_allowed(state, p, 0, kv) \
            and suit_score(hand, t) >= kv[K_SURCONTRE_MIN]:
        return CONTRE  # surcontre the opponents' contre on a very strong game
    if not taker and not six and g < G_SA and contre_allowed(state, p, 0, kv) \
            and suit_score(hand, t) >= kv[K_CONTRE_MIN]:
        return CONTRE
    return PASS


@hot
def heuristic_meld_speech(state: np.ndarray) -> int:
    """§9.2 before one's first card: announce one's sequence and one's four, except a
    sequence shorter than one already announced (the seed's own example of silence: it
    cannot win, and announcing it only tells the others about one's hand)."""
    if state[S_GAME] >= G_MISERE:
        return PASS
    p = state[S_TO_MOVE]
    said = state[S_ANNOUNCED + p]
    held = announcement(hand_of(state, p))
    length = held // 10
    if length > 0 and said < 10:
        beaten = False
        for q in range(NP):
            if q != p and state[S_ANNOUNCED + q] // 10 > length:
                beaten = True
        if not beaten:
            return MELD_SEQ
    if held % 10 == 1 and (said < 0 or said % 10 == 0):
        return MELD_CARRE
    return PASS


@hot
def hopeless_contract(state: np.ndarray, kv: np.ndarray) -> int:
    """A contract of the other party the seat to move can see failing, as a contre target
    (-1: none): the seat holds a card the contract needs its contractor to win (an Ace for
    a Quarante-Quatre, the trump 7 for an Ultime, one of the named trumps, an Ace or the
    trump J against a Capot), or a Deux Cents whose contractor announced no meld. Only first
    contres: the heuristic never surcontres."""
    p = state[S_TO_MOVE]
    t = state[S_TRUMP]
    hand = hand_of(state, p)
    trumps = suit_cards(t)
    for target in range(1, 1 + NP * NCT):
        i = target - 1
        if state[S_CT + i] == 0 or state[S_CT + NP * NCT + i] != 0:
            continue
        if not contre_allowed(state, p, target, kv):
            continue
        k = i % NCT
        need = EMPTY
        if k == CT_44:
            need = ACES
        elif k == CT_ULTIME:
            need = bit(t * 8 + R7)
        elif k == CT_TROIS:
            need = bit(t * 8 + RJ) | bit(t * 8 + R9) | bit(t * 8 + R7)
        elif k == CT_FAMILLE:
            need = bit(t * 8 + RA) | bit(t * 8 + RK) | bit(t * 8 + RQ)
        elif k == CT_ATOUTS:
            need = trumps & ~bit(t * 8 + R7) & ~bit(t * 8 + R8)
        elif k == CT_CAPOT:
            need = ACES | (bit(t * 8 + RJ) if t >= 0 else EMPTY)
        # a Deux Cents needs 38+ of melds and belote: hopeless when its contractor,
        # done speaking, announced no meld (§9.2)
        if hand & need != EMPTY or (k == CT_DEUX_CENTS and state[S_ANNOUNCED + i // NCT] == 0):
            return target
    return -1


@hot
def heuristic_defi(state: np.ndarray, kv: np.ndarray) -> int:
    """§11: an opponent challenges a trump game with a strong remaining trump score; the
    taker concedes with a weak one and otherwise accepts; the opponents accept a
    re-challenge (the heuristic never re-challenges, nor challenges a Misère or a
    Sans-Atout)."""
    p = state[S_TO_MOVE]
    turn = state[S_DEFI_TURN]
    t = state[S_TRUMP]
    sc = suit_score(hand_of(state, p), t)
    if state[S_GAME] >= G_SA:  # no trump score to read: never raise, always accept
        return PASS if turn <= 1 else DEFI_ACCEPT
    if turn <= 1:
        return DEFI_RAISE if sc >= kv[K_DEFI_MIN] else PASS
    if turn == 2:  # the taker: his remaining hand, the first trick and his melds
        sc += state[S_TPTS + p] + state[S_MELD + p]
        return DEFI_CONCEDE if sc <= kv[K_CONCEDE_MAX] else DEFI_ACCEPT
    return DEFI_ACCEPT


@hot
def avoid_card(legal: np.uint64, win: int, n_table: int, strength: np.ndarray,
               above: np.ndarray, suit_of: np.ndarray) -> int:
    """Play to take no trick (no trump): lead the lowest card; follow with the highest card
    that stays under the winning one; forced to win, the lowest winner (a later player
    may still overtake) or, last to play, the highest card."""
    if n_table == 0:
        return best_low(legal, strength)
    losers = legal & ~above[win]
    if losers != EMPTY:
        return best_high(losers, strength)
    if n_table == NP - 1:
        return best_high(legal, strength)
    return best_low(legal, strength)


@hot
def best_low(mask: np.uint64, strength: np.ndarray) -> int:
    best = -1
    m = mask
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if best < 0 or strength[c] < strength[best]:
            best = c
    return best


@hot
def best_high(mask: np.uint64, strength: np.ndarray) -> int:
    best = -1
    m = mask
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if best < 0 or strength[c] > strength[best]:
            best = c
    return best


@hot
def heuristic_card(state: np.ndarray, legal: np.uint64, tb: tuple) -> int:
    """Trump / Sans-Atout: the opponents share the taker's defeat, so they play as partners
    (Belote-style: draw trumps as taker, cash masters, load points on a winning ally,
    win cheaply when worth it). Misère: the taker avoids tricks, the opponents duck under
    him; Misère Générale: everyone avoids tricks."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    p = state[S_TO_MOVE]
    t = state[S_TRUMP]
    row = t + 1
    n_table = state[S_N_TABLE]
    win = state[S_WIN]
    g = state[S_GAME]
    taker = state[S_TAKER]
    if g == G_MG or (g == G_MISERE and p == taker):
        return avoid_card(legal, win, n_table, strength[row], above[row], suit_of)
    if g == G_MISERE:  # opponents: never overtake the taker, stay low otherwise
        if n_table > 0 and state[S_WIN_SEAT] == taker:
            losers = legal & ~above[row][win]
            if losers != EMPTY:
                return best_high(losers, strength[row])
        return best_low(legal, strength[row])
    if n_table == 0:  # a lead: any legal card (all but an Ultime's trump 7, §7.1)
        unseen = ALL_CARDS & ~np.uint64(state[S_GONE]) & ~hand_of(state, p)
        trumps = suit_cards(t)
        if p == taker and t >= 0 and unseen & trumps != EMPTY:
            m = legal & trumps
            while m != EMPTY:
                c = lowest(m)
                m &= m - ONE
                if is_master(c, unseen, above[row]):
                    return c
        m = legal & ~trumps
        masters = EMPTY
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if is_master(c, unseen, above[row]):
                masters |= bit(c)
        if masters != EMPTY:
            return best_in(masters, rich[row])
        return best_in(legal, cheap[row])
    ws = state[S_WIN_SEAT]
    ally_wins = p != taker and ws != taker and ws != p
    return follow_heuristic(legal, win, ally_wins, n_table == NP - 1, state[S_ON_TABLE], t,
                            suit_of, suit_mask, excuse_mask, above[row], points[row],
                            cheap[row], rich[row], win_rank[row], 10)


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                   moves: np.ndarray) -> int:
    """The heuristic player's move for the seat to move (``moves``: scratch)."""
    phase = state[S_PHASE]
    if phase <= P_DECL3:
        n = legal_moves(state, kv, rules, tb, moves)
        return heuristic_declaration(state, kv, moves, n)
    if phase == P_CONTRACT1:
        return heuristic_speech(state, kv)
    if phase == P_EXCHANGE:
        return SWAP  # the proposal card is never worse than the 7 or 8 given for it
    if phase == P_EXCH_IND:
        return TAKE_IND  # more trumps and Aces; the discards shed the cheapest cards
    if phase == P_DISCARD:
        p = state[S_TO_MOVE]
        row = state[S_TRUMP] + 1
        return best_in(hand_of(state, p) & ~suit_cards(state[S_TRUMP]), tb[6][row])
    if phase == P_DEFI:
        return heuristic_defi(state, kv)
    if phase == P_MELD:
        return PASS  # keep one's claims: the points are worth more than the secret
    if first_trick_speaking(state):
        m = heuristic_speech(state, kv)
        if m == PASS:
            m = heuristic_meld_speech(state)
        if m != PASS:
            return m
    row = state[S_TRUMP] + 1
    legal = legal_cards_now(state, rules, tb[0], tb[1], tb[2], tb[5][row])
    return heuristic_card(state, legal, tb)


@hot
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, rules: np.ndarray,
                tb: tuple, moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves, except at a speech point (contract round 1, or the
    first trick before one's card), where a coin decides first whether to say something:
    heads, a uniform announcement or contre; tails, a pass (or a uniform card). Uniform
    over some 40 speeches would announce and contre nearly everything every deal."""
    n = legal_moves(state, kv, rules, tb, moves)
    n_quiet = 0  # PASS or the cards come first in the move list
    while n_quiet < n and moves[n_quiet] <= PASS:
        n_quiet += 1
    if n_quiet < n and (state[S_PHASE] == P_CONTRACT1 or first_trick_speaking(state)):
        st, heads = rng.below(st, 2)
        if heads:
            st, k = rng.below(st, n - n_quiet)
            return st, moves[n_quiet + k]
        st, k = rng.below(st, n_quiet)
        return st, moves[k]
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
            moves: np.ndarray) -> None:
    """Heuristic players for every seat until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, rules, tb, moves), kv, tb)


# --- what a seat sees, and worlds consistent with it -------------------------------------------------
SEARCH_SLOTS = 6  # two other hands, three face-down packets, the talon
MELD_TRIES = 64
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@hot
def seat_information(state: np.ndarray, seat: int, rules: np.ndarray, tb: tuple,
                     excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask); ``excluded[q]`` gets the cards seat q
    certainly does not hold in hand (what its plays revealed; the cards shown by another
    seat) and ``played_by[q]`` the cards q played. Reads only the seat's hand and public
    facts (see the module docstring)."""
    for q in range(NP):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    visible = hand_of(state, seat) | np.uint64(state[S_GONE]) | np.uint64(state[S_OUT_UP])
    if state[S_IND_ON_TALON]:
        visible |= bit(state[S_INDICATOR])
    if state[S_EXCHANGED] == 2 and seat == state[S_EXCH_SEAT]:
        visible |= np.uint64(state[S_TALON])  # its own discards
    if state[S_PHASE] >= P_PLAY:
        n_plays = state[S_TRICK] * NP + state[S_N_TABLE]
        t = state[S_TRUMP]
        replay_exclusions(state[S_HIST:S_HIST + 27], n_plays, state[S_FIRST_LEADER], t,
                          N_CARDS, rules, tb[0], tb[1], tb[2], tb[5][t + 1], SEATS,
                          excluded, played_by)
    for q in range(NP):
        shown = np.uint64(state[S_SHOWN + q])
        for r in range(NP):
            if r != q:
                excluded[r] |= shown
    return ALL_CARDS & ~visible


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple, kv: np.ndarray) -> np.uint64:
    """``world`` = ``state`` with the cards hidden from ``seat`` dealt again at random into
    their hidden places, consistently with ``seat_information`` (filled in ``work[7]`` and
    ``work[8]``). The seat's own hand never moves."""
    moves, totals, sim, cards, allowed, owner, capacity, excluded, played_by, slot_excl, \
        slot_cards, sample_work, place, _ = work
    for i in range(N_STATE):
        world[i] = state[i]
    n = 0
    shown_all = EMPTY
    for q in range(NP):
        shown_all |= np.uint64(state[S_SHOWN + q])
    for q in range(NP):
        if q != seat:
            place[n] = S_HAND + q
            slot_excl[n] = excluded[q]
            capacity[n] = count(hand_of(state, q))
            n += 1
    for q in range(NP):
        down = np.uint64(state[S_DOWN + q])
        if down != EMPTY:  # unseen face-down packets (the seat's own included, §4)
            place[n] = S_DOWN + q
            slot_excl[n] = shown_all
            capacity[n] = count(down)
            n += 1
    talon = np.uint64(state[S_TALON])
    if talon != EMPTY and not (state[S_EXCHANGED] == 2 and seat == state[S_EXCH_SEAT]):
        place[n] = S_TALON
        slot_excl[n] = shown_all
        if state[S_EXCHANGED] == 2:
            # the talon is the exchanger's discards: never a trump (§6), maybe a shown Ace
            trumps = suit_cards(state[S_TRUMP])
            slot_excl[n] = (shown_all & ~np.uint64(state[S_SHOWN + state[S_EXCH_SEAT]])) | trumps
        capacity[n] = count(talon)
        n += 1
    # Worlds must also agree with the meld announcements heard (§9.2: each seat's longest
    # sequence length and whether it holds a four): drawn again until they do (at most
    # MELD_TRIES times; the last draw is kept if none agrees).
    for _try in range(MELD_TRIES):
        st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
        if not ok:  # unreachable with sound exclusions; drop them rather than fail
            for j in range(n):
                slot_excl[j] = EMPTY
            st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                                   sample_work, slot_cards)
        for j in range(n):
            world[place[j]] = np.int64(slot_cards[j])
        if state[S_PHASE] < P_PLAY:
            break
        agree = True
        for q in range(NP):
            if q != seat:
                world[S_START + q] = world[S_HAND + q] | np.int64(played_by[q])
                if not agrees_with_melds(state, q, np.uint64(world[S_START + q]), kv):
                    agree = False
        if agree:
            break
    if state[S_PHASE] >= P_PLAY:  # the hands at the start of play: melds and belote
        world[S_START + seat] = state[S_START + seat]
        world[S_BELOTE_SEAT] = belote_seat(world)
    return st


@hot
def agrees_with_melds(state: np.ndarray, q: int, hand: np.uint64, kv: np.ndarray) -> bool:
    """Could seat ``q`` have started play with ``hand``, given what it said (§9.2: the
    parts it announced are exact; silence says nothing) and what a tie made it disclose
    (§9.3)?"""
    said = state[S_ANNOUNCED + q]
    if said > 0:
        held = announcement(hand)
        if said >= 10 and held // 10 != said // 10:
            return False
        if said % 10 == 1 and held % 10 == 0:
            return False
    trump = state[S_TRUMP]
    if state[S_SEQ_DISCLOSED + q] >= 0 and \
            sequences(hand, trump, kv)[1] // 10 != state[S_SEQ_DISCLOSED + q]:
        return False
    if state[S_CARRE_DISCLOSED + q] >= 0 and \
            carres(hand, trump, kv)[1] != state[S_CARRE_DISCLOSED + q]:
        return False
    return True


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, rules: np.ndarray, tb: tuple,
                world: np.ndarray, work: tuple, kv: np.ndarray) -> np.uint64:
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, world, work, kv)


# --- the search player ------------------------------------------------------------------------------
@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(NP, dtype=np.uint64),
            np.zeros(NP, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64), np.zeros(SAMPLE_WORK, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64))


@hot
def margin(sim: np.ndarray, seat: int, kv: np.ndarray) -> int:
    """Twice the seat's marks minus the two others' (its edge over their mean, x2)."""
    m0, m1, m2 = marks(sim, kv)
    mine = m0 if seat == 0 else m1 if seat == 1 else m2
    return 3 * mine - (m0 + m1 + m2)


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal moves and ``work[1]`` with each one's summed margin
    over the worlds; returns the number of moves."""
    moves, totals, sim = work[0], work[1], work[2]
    scratch = work[13]
    seat = state[S_TO_MOVE]
    n = legal_moves(state, kv, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work, kv)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv, tb)
                playout(sim, kv, rules, tb, scratch)
                totals[m] += margin(sim, seat, kv)
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]

