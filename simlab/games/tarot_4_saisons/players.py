"""Tarot 4 saisons players: the heuristic and random policies, what a seat sees, the world
sampler and the search player (the rules are in ``rules.py``).

Every policy answers one question: which of ``rules.legal_moves`` the seat to move makes.

* heuristic: bids by a hand-strength count (``hand_value``), turns the optional chien cards
  when its hand is weak, discards to make voids, contracts from its hand alone, contres
  when strong, declares every suite; in play it draws trumps as a strong taker, cashes
  masters, wins tricks cheaply when worth it, loads points on a winning ally, and dumps
  the Excuse before the last two tricks;
* random: uniform over the legal moves (``rng.below`` over ``legal_moves``);
* search (``search_move``): determinized Monte Carlo (``simlab.mechanics.search``). For each of
  ``search_worlds`` worlds it re-deals the cards hidden from the seat consistently with
  what the seat has seen (``sample_world``), plays every legal move out to the end of the
  deal with heuristic players, and makes the move with the best mean value for itself.
  Every decision is searched over all its legal moves (a bid: pass and every higher place;
  the écart: one card at a time, every card allowed); a move with no alternative is not.

  The value (knob ``search_objective``) is by default the seat's *margin*: its mark minus
  the mean of the two others'. Scoring is not zero-sum: a failed bid costs the taker
  nothing and pays each opponent the stake, so a player maximizing its own mark alone
  (``own``) bids on most hands; it marks more per deal than the heuristic (+1.7 points
  per deal in duplicate play at 8 worlds) but wins only ~15 % of matches against two
  heuristic players, where the margin player marks nearly as much (+1.6) and wins ~43 %
  (measured; 1/3 is parity).

What a seat sees (``sample_world`` uses nothing else): its own hand; the turned chien
cards and its discards if it is the taker; every card played and by whom, hence every
trick won and the Excuse's exchanges; bids, the option, refusals, contracts, contres and
declared suites (the declared cards are known to stay in their owner's hand until
played); declared Misères (no face card in that hand); and what each play reveals: a
void, or no trump above the trick's trump (``rules._learn_from_play``). Hidden: the other
hands, the chien cards never turned, and, for the opponents, the taker's discards (never
a card the écart rule forbids, ``forbid_discard``). Faults to come (``fault_per_mille``...)
are not known: the worlds hold none.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot, hot_inline
from simlab.games.tarot import highest
from simlab.games.tarot_4_saisons.rules import (
    ABOVE,
    ALL,
    B_CAPOT,
    B_KINGS,
    B_PAB,
    B_QUASI,
    B_RESIST,
    B_TWO,
    BOUTS,
    C_CHIEN,
    C_CONTRACTS,
    C_MISERE,
    CHEAP,
    CHIEN,
    EXCUSE,
    EXCUSE_B,
    EXCUSE_MASK,
    FACES,
    HAND,
    K_BID_BASE,
    K_BID_CLEAR,
    K_BID_STEP,
    K_CAPOT,
    K_CAPOT_ANN,
    K_CAPOT_AT,
    K_CAPOT_LIKELY,
    K_CONTRE_AT,
    K_DRAW_PCT,
    K_EXC_LAST,
    K_EXC_SAVE,
    K_KEEP_CONTRACT_CARD,
    K_KINGS_TR,
    K_MARGIN,
    K_OPT_BELOW,
    K_PAB_TR,
    K_PASS_BELOW,
    K_QUASI_A,
    K_QUASI_C,
    K_QUASI_LIKELY,
    K_REFUSE_AT,
    K_RES_AT,
    K_ROLLOUTS,
    K_TAKER_CONTRE_AT,
    K_WIN_MIN,
    K_WORLDS,
    KINGS,
    M_DISC,
    M_GONE,
    M_HAND,
    M_KNOWN,
    M_WON,
    NO_FAULT,
    NP,
    PASS,
    PETIT,
    PETIT_B,
    PH_BID,
    PH_CONTRACT,
    PH_CONTRE,
    PH_DISCARD,
    PH_END,
    PH_OPTION,
    PH_PLAY,
    PH_REFUSE,
    POINTS,
    QUEENS,
    RICH,
    RK,
    S_CBIT,
    S_CHIEN,
    S_CHIEN_FAULT,
    S_FAULT_SEAT,
    S_FAULT_TRICK,
    S_FORBID,
    S_HIST,
    S_LEAD0,
    S_NTRICK,
    S_ONTABLE,
    S_PHASE,
    S_PLY,
    S_POS,
    S_ROW,
    S_TAKE,
    S_TAKER,
    S_TRICK,
    S_TVOIDS,
    S_WIN,
    S_WINSEAT,
    SAISONS,
    SUIT_BITS,
    SUIT_MASK,
    SUIT_OF,
    T2,
    T2_B,
    TRUMP_SUIT,
    TRUMPS,
    WIN_RANK,
    WORTHLESS,
    apply_move,
    bid_of,
    copy_state,
    discardable,
    legal_mask,
    legal_moves,
    outcome,
    play_reveals,
    to_move,
)
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    all_in_pile_pct,
    best_in,
    bit,
    count,
    is_master,
    lowest,
    outlasts_leads,
    popcount,
    select_cards,
    settled_odds,
    update_trick,
    winners,
)


# --- the heuristic ------------------------------------------------------------------------------
@hot
def hand_value(h: np.uint64) -> int:
    """The catalogue's bidding count: 10 per bout, 4 per saison, 1.5 per trump (rounded
    down), 6 per Roi, 3 per Dame, 2 per void (with >= 5 trumps), 1 per singleton."""
    nt = count(h & TRUMPS)
    v = 10 * count(h & BOUTS) + 4 * count(h & SAISONS) + (3 * nt) // 2
    v += 6 * count(h & KINGS) + 3 * count(h & QUEENS)
    for s in range(4):
        c = count((h >> np.uint64(7 * s)) & SUIT_BITS)
        if c == 0 and nt >= 5:
            v += 2
        elif c == 1:
            v += 1
    return v


@hot
def heuristic_bid(v: int, kv: np.ndarray) -> int:
    """The highest ladder place the hand value affords (-1: pass). A rung needs
    ``bid_base + rung * bid_step`` (+ ``bid_clear_extra`` for its clear version)."""
    for pos in range(13, -1, -1):
        rung, clear = bid_of(pos, kv)
        if v >= kv[K_BID_BASE] + rung * kv[K_BID_STEP] + clear * kv[K_BID_CLEAR]:
            return pos
    return -1


@hot
def heuristic_discard(hand: np.uint64, allowed: np.uint64, points: np.ndarray) -> int:
    """The card to put back, among ``allowed`` (``rules.discardable``): void the shortest
    suits without a Roi first, richest card first (their points are safe in the chien);
    trumps only when forced, lowest first, the Excuse last."""
    plain = allowed & ~TRUMPS & ~EXCUSE_B
    if plain == EMPTY:
        return lowest(allowed)
    c = -1
    best_key = 1 << 40
    for s in range(4):
        sh = np.uint64(7 * s)
        cand = (plain >> sh) & SUIT_BITS
        if cand == EMPTY:
            continue
        suit = (hand >> sh) & SUIT_BITS
        x = 7 * s + highest(cand)
        key = (np.int64((suit >> np.uint64(RK)) & ONE) * 100 + count(suit)) * 1000 \
            - points[x] * 20 + (x - 7 * s)
        if key < best_key:
            best_key = key
            c = x
    return c


@hot_inline
def heuristic_contract(h: np.uint64, b: int, is_taker: bool, kv: np.ndarray) -> bool:
    """Contract Petit au bout (2 avant-dernier) holding the Petit (the 2) and many trumps,
    4 Rois holding them, résistance when strong, a capot when very strong without the
    Excuse (it never wins a trick); quasi is :func:`announces_quasi`'s (it reads the
    cards seen)."""
    if b == B_PAB:
        return h & PETIT_B != EMPTY and count(h & TRUMPS) >= kv[K_PAB_TR]
    if b == B_TWO:
        return h & T2_B != EMPTY and count(h & TRUMPS) >= kv[K_PAB_TR]
    if b == B_KINGS:
        return h & KINGS == KINGS and count(h & TRUMPS) >= kv[K_KINGS_TR]
    if b == B_RESIST:
        return not is_taker and hand_value(h) >= kv[K_RES_AT]
    if b == B_CAPOT:
        return is_taker and hand_value(h) >= kv[K_CAPOT_AT] and h & EXCUSE_B == EMPTY
    return False


CAPOT_SAMPLES = 128  # deals of the hidden cards per capot_odds call


@hot
def capot_odds(h: np.uint64, hidden: np.uint64, hand: int, stop_below: int) -> int:
    """The chance (%) that the taker's hand ``h`` takes every trick leading from the first
    (an announced capot), the two other hands of ``hand`` cards dealt at random from the
    ``hidden`` cards (the rest lie in the chien, never winning a trick), each opponent
    keeping his best cards for last (``tricks.outlasts_leads``; more trumps than the
    taker, and he ruffs later). Reads only what the taker sees; the deals come from a
    stream keyed by it. The Excuse never wins a trick: no capot with it. A hand that
    cards out beat for sure has at most the chance that they all lie in the chien
    (``tricks.all_in_pile_pct``); below 1/2 that bound is the answer (it keeps the
    heuristic fast: most hands stop there). Dealing stops as soon as the odds cannot
    reach ``stop_below`` % (the caller's threshold; 0: never), and the upper bound reached
    is returned; or, every 16 deals, when the odds so far are 3 standard errors below it
    (``tricks.settled_odds``)."""
    if h & EXCUSE_B != EMPTY:
        return 0
    mine = h & TRUMPS
    # cards that beat the hand from any opponent's hand: a trump above all the taker's,
    # a card above the top of a suit he holds. All of them must lie in the unseen chien:
    # when that bound is below 1/2 it is returned as it is, without dealing.
    beat = EMPTY
    out = hidden & TRUMPS
    if out != EMPTY:
        top = highest(mine) if mine != EMPTY else -1
        m = out
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if c > top:
                beat |= bit(c)
    for s in range(4):
        sh = np.uint64(7 * s)
        ms = (h >> sh) & SUIT_BITS
        if ms != EMPTY:
            beat |= ((hidden >> sh) & SUIT_BITS & ~((ONE << np.uint64(highest(ms) + 1)) - ONE)) << sh
    bound = all_in_pile_pct(popcount(beat), popcount(hidden), popcount(hidden) - 2 * hand)
    if bound < 50:
        return bound
    state = rng.stream(np.uint64(h), np.int64(hidden), hand, 19)
    # Only the trumps and the suits the taker holds can take a trick from him: deal those
    # cards alone (``tricks.select_cards``); the other cards only fill the hands.
    held = TRUMPS
    for s in range(4):
        sh = np.uint64(7 * s)
        if (h >> sh) & SUIT_BITS != EMPTY:
            held |= SUIT_BITS << sh
    rel = hidden & held
    n_other = popcount(hidden) - popcount(rel)
    made = 0
    for i in range(CAPOT_SAMPLES):
        settled = settled_odds(made, i, CAPOT_SAMPLES, stop_below)
        if settled >= 0:
            return settled
        pool = rel
        other = n_other
        beaten = False
        for _o in range(2):
            state, d = select_cards(state, pool, hand, popcount(pool) + other)
            other -= hand - popcount(d)
            pool &= ~d
            theirs = d & TRUMPS
            if popcount(theirs) > popcount(mine) or outlasts_leads(mine, theirs):
                beaten = True
                break
            for s in range(4):
                sh = np.uint64(7 * s)
                if outlasts_leads((h >> sh) & SUIT_BITS, (d >> sh) & SUIT_BITS):
                    beaten = True
                    break
            if beaten:
                break
        made += not beaten
    return made * 100 // CAPOT_SAMPLES


@hot
def announces_capot(st: np.ndarray, cs: np.ndarray, p: int, kv: np.ndarray) -> bool:
    """The taker's capot: by hand value (knob ``capot_announce_at``, the former rule), or
    when ``capot_odds`` pass the break-even of the multiples by knob
    ``capot_likely_margin``: announced a (failed: each opponent marks a x the stake),
    unannounced u, so announcing gains (a - u) with odds p and loses a otherwise:
    p > a / (2a - u)."""
    h = cs[M_HAND + p]
    if h & EXCUSE_B != EMPTY:
        return False
    if hand_value(h) >= kv[K_CAPOT_AT]:
        return True
    a = kv[K_CAPOT_ANN]
    den = 2 * a - kv[K_CAPOT]
    if kv[K_CAPOT_LIKELY] > 100 or den <= 0:
        return False
    need = 100 * a + kv[K_CAPOT_LIKELY] * den
    odds = capot_odds(h, hidden_cards(st, cs, p), count(cs[M_HAND + (p + 1) % NP]),
                      need // den)
    return odds * den > need


@hot
def announces_quasi(st: np.ndarray, cs: np.ndarray, p: int, kv: np.ndarray) -> bool:
    """The taker's quasi (every trick but one): holding the Excuse, which never wins a
    trick, so that a hand which would otherwise take them all takes all but one, when
    ``capot_odds`` of his other cards pass the break-even of the quasi values by knob
    ``quasi_likely_margin``: contracted c (failed: each opponent marks c), uncontracted
    u, so contracting gains (c - u) with odds q and loses c otherwise: q > c / (2c - u).
    Without the Excuse a hand that takes all but one trick is rarely foreseen: never."""
    h = cs[M_HAND + p]
    if p != st[S_TAKER] or h & EXCUSE_B == EMPTY or kv[K_QUASI_LIKELY] > 100:
        return False
    c = kv[K_QUASI_C]
    den = 2 * c - kv[K_QUASI_A]
    if den <= 0:
        return False
    need = 100 * c + kv[K_QUASI_LIKELY] * den
    odds = capot_odds(h & ~EXCUSE_B, hidden_cards(st, cs, p),
                      count(cs[M_HAND + (p + 1) % NP]), need // den)
    return odds * den > need


@hot_inline
def lead_card(hand: np.uint64, legal: np.uint64, attack: bool, gone: np.uint64,
              taker_voids: int, tricks_left: int, keep_excuse: bool, kv: np.ndarray) -> int:
    """Heuristic lead. The Excuse goes on the last trick before the forbidden ones. The
    taker draws trumps while holding enough of the unseen ones (master trump first, else
    a low one); everyone cashes master suit cards (defenders in suits the taker still
    follows), defenders then lead a suit the taker is void in; else the cheapest card.
    The Petit is kept while another card may be led."""
    if legal & EXCUSE_B != EMPTY and tricks_left == kv[K_EXC_LAST] + 1 and not keep_excuse:
        return EXCUSE
    unseen = ALL & ~gone & ~hand
    out_trumps = unseen & TRUMPS
    no_petit = legal & TRUMPS & ~PETIT_B
    if attack and no_petit != EMPTY and out_trumps != EMPTY and \
            count(hand & TRUMPS) * 100 >= kv[K_DRAW_PCT] * count(out_trumps):
        top = highest(no_petit)
        if is_master(top, unseen, ABOVE):
            return top
        return lowest(no_petit)
    masters = EMPTY
    for s in range(4):
        if (taker_voids >> s) & 1:
            continue
        mine = legal & SUIT_MASK[s]
        if mine != EMPTY:
            top = highest(mine | (unseen & SUIT_MASK[s]))
            if (mine >> np.uint64(top)) & ONE != EMPTY:
                masters |= bit(top)
    if masters != EMPTY:
        return best_in(masters, RICH)
    if not attack and taker_voids & 15 != 0:
        m = EMPTY
        for s in range(4):
            if (taker_voids >> s) & 1:
                m |= legal & SUIT_MASK[s]
        if m != EMPTY:
            return best_in(m, CHEAP)
    c = best_in(legal & ~PETIT_B & ~EXCUSE_B, CHEAP)
    if c >= 0:
        return c
    if legal & PETIT_B != EMPTY:
        return PETIT
    return EXCUSE


@hot_inline
def follow_card(legal: np.uint64, hand: np.uint64, win: int, ally_wins: bool, last: bool,
                on_table: int, keep_excuse: bool, can_keep_excuse: bool, tricks_left: int,
                gone: np.uint64, kv: np.ndarray) -> int:
    """Heuristic second or third card: the Excuse on the last trick before the forbidden
    ones, or on a lost trick to save a valuable card once it would be kept (a 2 or 4 in
    the player's tricks); on an ally's safe winner load the richest plain card (the Petit
    first); otherwise win cheaply when the trick is worth it (never with the Petit unless
    last), else shed the cheapest."""
    has_exc = legal & EXCUSE_B != EMPTY and not keep_excuse
    safe_left = tricks_left - kv[K_EXC_LAST]  # tricks where the Excuse is still allowed
    if has_exc and safe_left == 1:
        return EXCUSE
    n = legal & ~EXCUSE_B
    if n == EMPTY:
        return EXCUSE
    if ally_wins:
        unseen = ALL & ~gone & ~hand
        if last or is_master(win, unseen, ABOVE):
            if n & PETIT_B != EMPTY:
                return PETIT
            c = best_in(n & ~TRUMPS, RICH)
            if c >= 0:
                return c
        c = best_in(n & ~PETIT_B, CHEAP)
        return c if c >= 0 else PETIT
    w = winners(n, win, TRUMP_SUIT, SUIT_OF, SUIT_MASK, EXCUSE_MASK, ABOVE)
    if not last:
        w &= ~PETIT_B
    c = best_in(w, WIN_RANK)
    if c >= 0 and (last or on_table + POINTS[c] >= kv[K_WIN_MIN]):
        return c
    c = best_in(n & ~PETIT_B, CHEAP)
    if c < 0:
        c = PETIT
    if has_exc and safe_left > 1 and can_keep_excuse and POINTS[c] >= kv[K_EXC_SAVE]:
        return EXCUSE
    return c


@hot_inline
def heuristic_move(st: np.ndarray, cs: np.ndarray, kv: np.ndarray, rules: np.ndarray) -> int:
    """The heuristic's move for the seat to move."""
    ph = st[S_PHASE]
    p = to_move(st)
    taker = st[S_TAKER]
    h = cs[M_HAND + p]
    if ph == PH_PLAY:
        legal = legal_mask(st, cs, rules)
        tricks_left = HAND - st[S_TRICK]
        # A contracted Petit au bout / 2 avant-dernier: the card is kept for its trick
        # and played there (played earlier, the contract is lost for sure).
        mine = st[S_ROW + C_CONTRACTS + p] if kv[K_KEEP_CONTRACT_CARD] else 0
        if (mine >> B_TWO) & 1 and legal & T2_B != EMPTY and tricks_left == 2:
            return T2
        keep = EMPTY
        if (mine >> B_PAB) & 1:
            keep |= PETIT_B
        if (mine >> B_TWO) & 1 and tricks_left > 2:
            keep |= T2_B
        if legal & ~keep != EMPTY:
            legal &= ~keep
        # after an Excuse lead the next card sets the suit: that player leads in effect
        if st[S_NTRICK] == 0 or st[S_WIN] < 0:
            attack = p == taker
            return lead_card(h, legal, attack, cs[M_GONE], 0 if attack else st[S_TVOIDS],
                             tricks_left, False, kv)
        ally = st[S_WINSEAT] != taker and p != taker
        return follow_card(legal, h, st[S_WIN], ally, st[S_NTRICK] == NP - 1, st[S_ONTABLE],
                           False, cs[M_WON + p] & WORTHLESS != EMPTY, tricks_left, cs[M_GONE],
                           kv)
    if ph == PH_CONTRACT:
        if st[S_CBIT] == B_CAPOT:
            return 1 if p == taker and announces_capot(st, cs, p, kv) else 0
        if st[S_CBIT] == B_QUASI:
            return 1 if announces_quasi(st, cs, p, kv) else 0
        return 1 if heuristic_contract(h, st[S_CBIT], p == taker, kv) else 0
    if ph == PH_BID:
        v = hand_value(h)
        if v < kv[K_PASS_BELOW]:
            return PASS
        b = heuristic_bid(v, kv)
        return b if b > st[S_POS] else PASS
    if ph == PH_DISCARD:
        return heuristic_discard(h, discardable(h, st), POINTS)
    if ph == PH_CONTRE:
        at = kv[K_TAKER_CONTRE_AT] if p == taker else kv[K_CONTRE_AT]
        return 1 if hand_value(h) >= at else 0
    if ph == PH_OPTION:
        return 1 if hand_value(h) < kv[K_OPT_BELOW] else 0
    if ph == PH_REFUSE:
        return 1 if hand_value(h) >= kv[K_REFUSE_AT] else 0
    return 1  # declare a Misère or a suite, lead an announced capot


@hot
def random_move(st: np.ndarray, cs: np.ndarray, state: np.uint64, moves: np.ndarray,
                kv: np.ndarray, rules: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves (``moves``: work array of ``MAX_MOVES``)."""
    n = legal_moves(st, cs, moves, kv, rules)
    state, i = rng.below(state, n)
    return state, moves[i]


@hot
def playout(st: np.ndarray, cs: np.ndarray, kv: np.ndarray, rules: np.ndarray) -> None:
    """Heuristic players play the deal to its end."""
    while st[S_PHASE] != PH_END:
        apply_move(st, cs, heuristic_move(st, cs, kv, rules), kv)


# --- what a seat sees, and worlds consistent with it ----------------------------------------------
N_SLOTS = 4  # hidden places: the two other hands, the chien never turned, the discards
SLOT_CHIEN, SLOT_DISC = 2, 3


@hot
def revealed_exclusions(st: np.ndarray, kv: np.ndarray, excl: np.ndarray) -> None:
    """``excl[seat]``: the cards each seat has shown it cannot hold, replaying the cards
    played so far (``rules.play_reveals``: voids, no trump above a trick's trump)."""
    for p in range(NP):
        excl[p] = EMPTY
    leader = st[S_LEAD0]
    led = -1
    win = -1
    ws = -1
    n = st[S_TRICK] * NP + st[S_NTRICK] if st[S_PHASE] == PH_PLAY or st[S_PHASE] == PH_END \
        else 0
    for i in range(n):
        k = i % NP
        if k == 0:
            led = -1
            win = -1
            ws = -1
        p = (leader + k) % NP
        c = st[S_HIST + i]
        if c != EXCUSE:
            excl[p] |= play_reveals(c, led, win, kv)
        led, win, ws = update_trick(c, p, led, win, ws, TRUMP_SUIT, SUIT_OF, ABOVE)
        if k == NP - 1:
            leader = ws


@hot
def hidden_cards(st: np.ndarray, cs: np.ndarray, me: int) -> np.uint64:
    """The cards ``me`` cannot see: not in its hand, not played, not its own discards."""
    mine = cs[M_HAND + me] | cs[M_GONE]
    if me == st[S_TAKER]:
        mine |= cs[M_DISC]
    return ALL & ~mine


@hot
def hidden_places(st: np.ndarray, cs: np.ndarray, me: int, excl: np.ndarray,
                  cards: np.ndarray, allowed: np.ndarray, capacity: np.ndarray) -> int:
    """The seat's information as constraints: ``cards`` (ascending ids) the hidden cards,
    ``allowed[i]`` the hidden places card i may be in (bit 0: the next seat's hand, 1: the
    one after, 2: the chien cards never turned, 3: the taker's discards, for an opponent),
    ``capacity`` the number of cards each place holds (public counts). Returns how many
    hidden cards."""
    taker = st[S_TAKER]
    take = st[S_TAKE]
    n = 0
    hid = hidden_cards(st, cs, me)
    for k in range(2):
        o = (me + 1 + k) % NP
        capacity[k] = count(cs[M_HAND + o])
    capacity[SLOT_CHIEN] = CHIEN - take
    capacity[SLOT_DISC] = count(cs[M_DISC]) if me != taker else 0
    while hid != EMPTY:
        c = lowest(hid)
        hid &= hid - ONE
        b = bit(c)
        a = 0
        for k in range(2):
            if cs[M_KNOWN + (me + 1 + k) % NP] & b != EMPTY:  # a declared suite card
                a = 1 << k
        if a == 0:
            for k in range(2):
                o = (me + 1 + k) % NP
                out = excl[o] & b != EMPTY
                # a declared Misère: no face card among the cards dealt; the taker's chien
                # cards are unknown, so the constraint is kept only while he has taken none
                if st[S_ROW + C_MISERE + o] == 1 and FACES & b != EMPTY and \
                        not (o == taker and take > 0):
                    out = True
                if not out:
                    a |= 1 << k
            a |= 1 << SLOT_CHIEN
            if capacity[SLOT_DISC] > 0 and np.uint64(st[S_FORBID]) & b == EMPTY:
                a |= 1 << SLOT_DISC
        cards[n] = c
        allowed[n] = a
        n += 1
    return n


@hot
def sample_world(st: np.ndarray, cs: np.ndarray, me: int, state: np.uint64, wst: np.ndarray,
                 wcs: np.ndarray, sw: tuple) -> tuple[np.uint64, bool]:
    """A world for ``me``: a copy of the deal (``wst``, ``wcs``) whose hidden cards are
    re-dealt to the hidden places at random, consistently with ``me``'s information. The
    chien cards never turned are put in a random order (they are turned from the top).
    ``sw``: ``search_work()``, whose last array must hold ``revealed_exclusions``."""
    moves, total, sst, scs, cards, allowed, capacity, owner, work, tmp, excl = sw
    n = hidden_places(st, cs, me, excl, cards, allowed, capacity)
    n_slots = N_SLOTS if capacity[SLOT_DISC] > 0 else N_SLOTS - 1
    state, ok = search.sample_owners(state, allowed, capacity, n, n_slots, owner, work)
    if not ok:
        return state, False
    copy_state(st, cs, wst, wcs)
    taker = st[S_TAKER]
    take = st[S_TAKE]
    o1 = (me + 1) % NP
    o2 = (me + 2) % NP
    wcs[M_HAND + o1] = EMPTY
    wcs[M_HAND + o2] = EMPTY
    if me != taker:
        wcs[M_DISC] = EMPTY
        for j in range(take):  # the taker's turned cards: unknown to me
            wst[S_CHIEN + j] = -1
    for j in range(CHIEN):
        wst[S_ROW + C_CHIEN + j] = -1  # the chien as dealt: a result column, hidden
    # faults to come are hidden too: the playouts assume none (as in Tarot double détente)
    wst[S_FAULT_SEAT] = NO_FAULT
    wst[S_FAULT_TRICK] = NO_FAULT
    wst[S_CHIEN_FAULT] = 0
    n_ch = 0
    for i in range(n):
        c = cards[i]
        s = owner[i]
        if s == 0:
            wcs[M_HAND + o1] |= bit(c)
        elif s == 1:
            wcs[M_HAND + o2] |= bit(c)
        elif s == SLOT_CHIEN:
            tmp[n_ch] = c
            n_ch += 1
        else:
            wcs[M_DISC] |= bit(c)
    state = rng.shuffle(state, tmp, n_ch)
    for j in range(n_ch):
        wst[S_CHIEN + take + j] = tmp[j]
    return state, True


def search_work() -> tuple:
    """Work arrays of ``search_move`` (allocated once per batch)."""
    from simlab.games.tarot_4_saisons.rules import MAX_MOVES, N_M, state_arrays
    st, _ = state_arrays()
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros_like(st), np.zeros(N_M, dtype=np.uint64),
            np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64),
            np.zeros(N_SLOTS, dtype=np.int64), np.zeros(64, dtype=np.int64),
            np.zeros(search.work_size(64, N_SLOTS), dtype=np.int64),
            np.zeros(CHIEN, dtype=np.int64), np.zeros(NP, dtype=np.uint64))


@hot
def playout_value(st: np.ndarray, me: int, kv: np.ndarray) -> int:
    """What a finished deal is worth to ``me``: its mark, or (``search_objective`` margin)
    twice its mark minus the two others' (integers, same order as the margin)."""
    if kv[K_MARGIN]:
        return 3 * outcome(st, me) - outcome(st, 0) - outcome(st, 1) - outcome(st, 2)
    return outcome(st, me)


@hot
def search_totals(st: np.ndarray, cs: np.ndarray, seed: np.uint64, index: int, sub: int,
                  kv: np.ndarray, rules: np.ndarray, wst: np.ndarray, wcs: np.ndarray,
                  sw: tuple) -> tuple[int, int]:
    """Evaluate the legal moves of the seat to move: ``sw[0][:n]`` the moves, ``sw[1][:n]``
    the seat's summed marks over the worlds (each move played out with heuristic players,
    ``search_rollouts`` times per world; the playouts are deterministic, so 1 is enough).
    Returns (n moves, worlds used). Uses only the seat's own stream
    (``search.decision_stream``: seed, deal ``index``, deal ``sub`` of a match, seat, ply)
    and what the seat sees (``sample_world``)."""
    moves, total, sst, scs, cards, allowed, capacity, owner, work, tmp, excl = sw
    n = legal_moves(st, cs, moves, kv, rules)
    for m in range(n):
        total[m] = 0
    if n <= 1:
        return n, 0
    me = to_move(st)
    state = search.decision_stream(seed, index, sub, me, st[S_PLY])
    revealed_exclusions(st, kv, excl)
    done = 0
    for _ in range(kv[K_WORLDS]):
        state, ok = sample_world(st, cs, me, state, wst, wcs, sw)
        if not ok:
            continue
        done += 1
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                copy_state(wst, wcs, sst, scs)
                apply_move(sst, scs, moves[m], kv)
                playout(sst, scs, kv, rules)
                total[m] += playout_value(sst, me, kv)
    return n, done


@hot
def search_move(st: np.ndarray, cs: np.ndarray, seed: np.uint64, index: int, sub: int,
                kv: np.ndarray, rules: np.ndarray, wst: np.ndarray, wcs: np.ndarray,
                sw: tuple) -> int:
    """The search player's move: the legal move with the best summed mark for the seat over
    the sampled worlds (``search_totals``), ties to the first move. ``wst``/``wcs`` and
    ``sw`` (``search_work()``) are work arrays."""
    n, done = search_totals(st, cs, seed, index, sub, kv, rules, wst, wcs, sw)
    if n == 1:
        return sw[0][0]
    if done == 0:  # no world fits the seat's information (never seen): play the heuristic
        return heuristic_move(st, cs, kv, rules)
    return sw[0][search.best_move(sw[1], n)]
