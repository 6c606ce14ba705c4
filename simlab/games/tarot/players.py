"""Tarot players: the heuristic and random policies, what a seat sees, and the search player.

* the heuristic: bids by a hand-value count (knobs ``bid_*``), calls the King of a suit
  where it holds the Queen (holding the four Kings under ``call_rule=ladder_or_king``,
  himself with enough trumps: knob ``self_call_trumps``), discards to void short suits,
  announces a chelem on a sure slam (:func:`sure_slam`) or a likely one, when its odds
  (:func:`slam_odds`) pass the primes' break-even (:func:`announces_chelem`), declares
  poignées, and plays
  cards by the rules of thumb of ``lead_card`` / ``follow_card`` (the Petit: saved when
  short of trumps, :func:`petit_saved_here`, kept for the last trick once safe; the taker
  counts his écart as seen, :func:`seen_cards`); :func:`heuristic_move` picks its move
  for any decision of a state;
* the random player: uniform over the legal moves (:func:`random_move`);
* a seat's information (:func:`seat_information`): its hand, the cards played, the chien
  when it was shown, its own écart, the écart's trumps (shown), the voids and missing
  high trumps revealed by the play, the called card; everything else is hidden;
* the search player (``--policy search``, :func:`search_move`, :func:`search_ecart`):
  determinized Monte Carlo over worlds sampled from the seat's information
  (:func:`sample_world`, dealing through ``search.sample_owners``), each legal move
  played out with heuristic
  players (:func:`playout`); the écart compares a few candidate écarts
  (:func:`ecart_candidates`). The shared pieces are in ``simlab/mechanics/search.py``.

Every function steps the state of ``rules.py`` with ``rules.legal_moves`` /
``rules.apply_move``; the batch kernels (``kernels.py``) use these same functions.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot, hot_inline
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    all_in_pile_pct,
    lowest,
    outlasts_leads,
    popcount,
    select_cards,
    settled_odds,
    wbest_in,
    wis_master,
    wrandom_card,
    wwinners,
)

from .rules import (
    ALL0,
    ALL1,
    EXCUSE,
    EXCUSE1,
    FACES14,
    GARDE,
    GARDE_CONTRE,
    HIGH_TRUMPS1,
    K_BID,
    K_BID_WORLDS,
    K_CH_AM,
    K_CH_EXC,
    K_CH_FAIL,
    K_CH_UN,
    K_CHELEM_AT,
    K_CHELEM_LIKELY,
    K_CHELEM_SURE,
    K_CHIEN,
    K_DRAW_PCT,
    K_ECART_SEEN,
    K_EXC_SAVE,
    K_HAND,
    K_HUNT_PETIT,
    K_PETIT_KEEP,
    K_PETIT_SAVE,
    K_POIGNEE_DEF,
    K_ROLLOUTS,
    K_SELF_CALL_TRUMPS,
    K_WIN_MIN,
    K_WORLDS,
    KINGS0,
    N_CARDS,
    N_S,
    NO_POIGNEE,
    PASS,
    PETIT,
    PETIT1,
    PH_BID,
    PH_CALL,
    PH_CHELEM,
    PH_DONE,
    PH_ECART,
    PH_PLAY,
    RK,
    RQ,
    S_ATT_TRICKS,
    S_CALLED,
    S_CH0,
    S_CH1,
    S_CHELEM_ANN,
    S_CONTRACT,
    S_EC0,
    S_EC1,
    S_ECART_N,
    S_EXCL,
    S_G0,
    S_G1,
    S_HAND,
    S_LED,
    S_N,
    S_ON_TABLE,
    S_PARTNER,
    S_PHASE,
    S_PLY,
    S_POS,
    S_REVEALED,
    S_TAKER,
    S_TRACK,
    S_TRICK,
    S_TURN,
    S_VOIDS,
    S_WIN,
    S_WIN_SEAT,
    SUIT_BITS,
    T21_1,
    TRUMP_SUIT,
    TRUMPS1,
    apply_move,
    bid_floor,
    call_move,
    call_rank,
    ecart_choices,
    hand_of,
    highest,
    is_attack,
    legal_cards,
    legal_moves,
    may_call_king_too,
    n_call_moves,
    poignee_level,
    seat_outcome,
    word,
)


# --- the heuristic: bidding, call, écart ------------------------------------------------
@hot
def hand_value(h0: np.uint64, h1: np.uint64) -> int:
    """The catalogue's bidding count (see knob ``bid_prise``)."""
    trumps = h1 & TRUMPS1
    nt = popcount(trumps)
    v = nt + popcount(trumps & HIGH_TRUMPS1)
    if h1 & T21_1 != EMPTY:
        v += 10
    if h1 & PETIT1 != EMPTY:
        v += 8 if nt >= 5 else 6
    if h1 & EXCUSE1 != EMPTY:
        v += 7
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        c = popcount(m)
        king = (m >> np.uint64(RK)) & ONE != EMPTY
        queen = (m >> np.uint64(RQ)) & ONE != EMPTY
        if king:
            v += 6
            if queen:
                v += 3
        if c == 0 and nt >= 6:
            v += 5
        elif c == 1:
            v += 3
    return v




@hot
def heuristic_bid(h0: np.uint64, h1: np.uint64, floor: int, kv: np.ndarray) -> int:
    """The highest contract from ``floor`` up whose threshold the hand value reaches, else
    PASS."""
    v = hand_value(h0, h1)
    for c in range(GARDE_CONTRE, floor - 1, -1):
        if v >= kv[K_BID + c]:
            return c
    return PASS


@hot
def heuristic_call(h0: np.uint64, kv: np.ndarray) -> int:
    """The called slot: the suit where he holds the card just below the called rank,
    else his longest suit lacking it (a self-call only when he holds all four)."""
    r = call_rank(h0, kv)
    best = -1
    best_key = -1
    for s in range(4):
        m = (h0 >> np.uint64(14 * s)) & SUIT_BITS
        if (m >> np.uint64(r)) & ONE != EMPTY:
            continue
        key = popcount(m) + (100 if (m >> np.uint64(r - 1)) & ONE != EMPTY else 0)
        if key > best_key:
            best_key = key
            best = s
    if best < 0:
        best = 0
    return best * 14 + r


@hot
def heuristic_call_move(h0: np.uint64, h1: np.uint64, kv: np.ndarray) -> int:
    """The heuristic's call: holding the four Kings under ladder_or_king, one of his Kings
    (he plays alone) with at least ``self_call_trumps`` trumps, the Excuse counted; else
    :func:`heuristic_call`."""
    if may_call_king_too(h0, kv) and popcount(h1 & (TRUMPS1 | EXCUSE1)) >= kv[K_SELF_CALL_TRUMPS]:
        return self_call_king(h0)
    return heuristic_call(h0, kv)


@hot
def self_call_king(h0: np.uint64) -> int:
    """The King he calls to play alone: that of his shortest suit, where the first lead is
    then barred (measured: which King hardly matters, within 3 points a deal)."""
    best = 0
    best_len = 99
    for s in range(4):
        c = popcount((h0 >> np.uint64(14 * s)) & SUIT_BITS)
        if c < best_len:
            best_len = c
            best = s
    return best * 14 + RK


@hot
def choose_call(h0: np.uint64, heuristic: bool, kv: np.ndarray, state: np.uint64
                ) -> tuple[np.uint64, int]:
    """(state, called slot): :func:`heuristic_call` (the ladder's card; the self-call
    decision, which reads the whole hand, is :func:`heuristic_call_move`'s), or uniform
    over the legal calls (``rules.call_move``, self-calls included)."""
    if not heuristic:
        state, i = rng.below(state, n_call_moves(h0, kv))
        return state, call_move(h0, i, kv)
    return state, heuristic_call(h0, kv)


@hot
def heuristic_discard(h0: np.uint64, h1: np.uint64, kv: np.ndarray, points: np.ndarray,
                      avoid: int) -> int:
    """The next card of the heuristic écart: void the shortest suits without a King first
    (their points are safe in the écart), richest first within a suit; trumps only when
    forced, lowest first. ``avoid`` (0..3, or -1): a suit to keep while another can go
    (the search player's écart variants)."""
    plain, trumps = ecart_choices(h0, h1, kv)
    if plain == EMPTY:
        return 64 + lowest(trumps)
    c = -1
    best_key = 1 << 60
    for s in range(4):
        sh = np.uint64(14 * s)
        cand = (plain >> sh) & SUIT_BITS
        if cand == EMPTY:
            continue
        suit = (h0 >> sh) & SUIT_BITS
        faces = cand & FACES14
        r = highest(faces) if faces != EMPTY else lowest(cand)
        x = 14 * s + r
        key = (np.int64(suit >> np.uint64(RK)) * 100 + popcount(suit)) * 1000 \
            - points[x] * 20 + r
        if s == avoid:
            key += 1 << 40
        if key < best_key:
            best_key = key
            c = x
    return c


@hot
def make_ecart(h0: np.uint64, h1: np.uint64, nc: int, heuristic: bool, kv: np.ndarray,
               points: np.ndarray, state: np.uint64, out: np.ndarray
               ) -> tuple[np.uint64, np.uint64, np.uint64, int]:
    """The taker discards ``nc`` slots into ``out``; returns (state, new h0, new h1,
    trumps discarded): :func:`heuristic_discard` card by card, or uniform over the
    allowed cards."""
    n_tr = 0
    for i in range(nc):
        if heuristic:
            c = heuristic_discard(h0, h1, kv, points, -1)
        else:
            plain, trumps = ecart_choices(h0, h1, kv)
            state, c = wrandom_card(state, plain, trumps)
        out[i] = c
        if c < 64:
            h0 &= ~(ONE << np.uint64(c))
        else:
            h1 &= ~(ONE << np.uint64(c - 64))
            n_tr += 1
    return state, h0, h1, n_tr


# --- the heuristic: card play -------------------------------------------------------------
@hot
def knows_ally(p: int, w: int, taker: int, partner: int, revealed: bool) -> bool:
    """Does seat ``p`` know that ``w`` plays on his side? The 5-player partner is secret
    until the called card is played (or shown in the chien)."""
    if w == p:
        return True
    if p == taker:
        return revealed and w == partner
    if p == partner:
        return w == taker
    if w == taker:
        return False
    return revealed and w != partner


@hot
def lead_card(h0: np.uint64, h1: np.uint64, l0: np.uint64, l1: np.uint64, attack: bool,
              g0: np.uint64, g1: np.uint64, taker_voids: int, keep_excuse: bool,
              tricks_left: int, kv: np.ndarray, tb: tuple, hunt: bool = False) -> int:
    """Heuristic lead from the legal set (l0, l1). Attack: draw trumps while holding
    enough of the unseen ones (master trump first, else a low one); cash master suit
    cards. Defence: hunt the Petit with the lowest trump (``hunt``, see
    :func:`hunts_petit`); cash masters in suits the taker still follows, else lead a suit
    he is void in (make him trump). Otherwise the cheapest card. The Petit is kept while
    trumps are out; the Excuse goes when two tricks remain (never stuck on the last).
    ``g0, g1``: the cards the seat has seen leave play (see :func:`seen_cards`)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    if l1 & EXCUSE1 != EMPTY and tricks_left == 2 and not keep_excuse:
        return EXCUSE
    if hunt and l1 & TRUMPS1 & ~PETIT1 != EMPTY:
        return 64 + lowest(l1 & TRUMPS1 & ~PETIT1)
    u0 = ALL0 & ~g0 & ~h0
    u1 = ALL1 & ~g1 & ~h1
    out_trumps = u1 & TRUMPS1
    my_trumps = l1 & TRUMPS1
    no_petit = my_trumps & ~PETIT1
    if attack and no_petit != EMPTY and out_trumps != EMPTY and \
            popcount(h1 & TRUMPS1) * 100 >= kv[K_DRAW_PCT] * popcount(out_trumps):
        top = 64 + highest(no_petit)  # my highest trump but the Petit
        if wis_master(top, u0, u1, above):
            return top
        return 64 + lowest(no_petit)
    masters0 = EMPTY  # my top card of each suit when no unseen card beats it
    for s in range(4):
        if (taker_voids >> s) & 1:
            continue
        sh = np.uint64(14 * s)
        mine = (l0 >> sh) & SUIT_BITS
        if mine != EMPTY:
            top = np.uint64(highest(mine | ((u0 >> sh) & SUIT_BITS)))
            if (mine >> top) & ONE != EMPTY:
                masters0 |= ONE << (top + sh)
    if masters0 != EMPTY:
        return wbest_in(masters0, EMPTY, rich)
    if not attack and taker_voids & 15 != 0:
        m = EMPTY
        for s in range(4):
            if (taker_voids >> s) & 1:
                m |= l0 & suit_mask[s, 0]
        if m != EMPTY:
            return wbest_in(m, EMPTY, cheap)
    c = wbest_in(l0, l1 & ~PETIT1 & ~EXCUSE1, cheap)
    if c >= 0:
        return c
    if l1 & PETIT1 != EMPTY and (l1 & EXCUSE1 == EMPTY or keep_excuse):
        return PETIT
    return wbest_in(l0, l1, cheap)


@hot
def follow_card(l0: np.uint64, l1: np.uint64, h0: np.uint64, h1: np.uint64, win: int,
                ally_wins: bool, last: bool, on_table: int, keep_excuse: bool,
                tricks_left: int, g0: np.uint64, g1: np.uint64, kv: np.ndarray,
                tb: tuple, save_petit: bool = False) -> int:
    """Heuristic second-or-later card: the Excuse when two tricks remain or to save a
    valuable card on a lost trick; the Petit when it takes the trick and ``save_petit``
    (:func:`petit_saved_here`); on a partner's safe winner (last seat, or a master
    card), save the Petit or load the richest plain card; otherwise win cheaply when
    the trick is worth it (never with the Petit unless last), else shed the cheapest."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    has_exc = l1 & EXCUSE1 != EMPTY and not keep_excuse
    if has_exc and tricks_left == 2:
        return EXCUSE
    n0 = l0
    n1 = l1 & ~EXCUSE1
    if n0 | n1 == EMPTY:
        return EXCUSE
    if save_petit and n1 & PETIT1 != EMPTY and (win < 0 or suit_of[win] != TRUMP_SUIT):
        return PETIT
    # a Petit no trump can catch waits for the last trick, while something else may go
    keep_petit = kv[K_PETIT_KEEP] and tricks_left > 1 and TRUMPS1 & ~g1 & ~h1 == EMPTY \
        and (n0 | (n1 & ~PETIT1)) != EMPTY
    if ally_wins:
        u0 = ALL0 & ~g0 & ~h0
        u1 = ALL1 & ~g1 & ~h1
        if last or wis_master(win, u0, u1, above):
            if n1 & PETIT1 != EMPTY and not keep_petit:
                return PETIT
            c = wbest_in(n0, n1 & ~TRUMPS1, rich)
            if c >= 0:
                return c
        c = wbest_in(n0, n1 & ~PETIT1, cheap)
        return c if c >= 0 else PETIT
    w0, w1 = wwinners(n0, n1, win, TRUMP_SUIT, suit_of, suit_mask, excuse_mask, above)
    if not last or keep_petit:
        w1 &= ~PETIT1
    c = wbest_in(w0, w1, win_rank)
    if c >= 0 and (last or on_table + points[c] >= kv[K_WIN_MIN]):
        return c
    c = wbest_in(n0, n1 & ~PETIT1, cheap)
    if c < 0:
        c = PETIT
    if has_exc and tricks_left > 1 and points[c] >= kv[K_EXC_SAVE]:
        return EXCUSE
    return c




@hot
def sure_slam(h0: np.uint64, h1: np.uint64, e0: np.uint64, e1: np.uint64, kv: np.ndarray
              ) -> bool:
    """Does the taker's hand (after the écart ``e0, e1``) win every trick whatever the
    lie of the cards he has not seen, played the heuristic's way (he leads: trumps from
    the top until none is out, then his suit cards, the Petit, the Excuse last)? His
    trumps above the highest one out must be at least as many as the trumps out (one
    defender may hold them all), enough for the heuristic to draw them (knob
    ``draw_trumps_pct``), and each suit card above every unseen card of its suit."""
    out = TRUMPS1 & ~h1 & ~e1
    n_out = popcount(out)
    if n_out > 0:
        above_all = h1 & TRUMPS1 & ~((ONE << np.uint64(highest(out) + 1)) - ONE)
        if popcount(above_all) < n_out:
            return False
        if popcount(h1 & TRUMPS1) * 100 < kv[K_DRAW_PCT] * n_out:
            return False
    for s in range(4):
        sh = np.uint64(14 * s)
        mine = (h0 >> sh) & SUIT_BITS
        if mine == EMPTY:
            continue
        unseen = SUIT_BITS & ~mine & ~((e0 >> sh) & SUIT_BITS)
        if unseen != EMPTY and lowest(mine) < highest(unseen):
            return False
    return True


SLAM_SAMPLES = 128  # deals of the unseen cards per slam_odds call (a 4-point SE at 50 %)


@hot
def defender_beats(d0: np.uint64, d1: np.uint64, h0: np.uint64, h1: np.uint64) -> bool:
    """Can a defender holding ``d0, d1`` win a trick against the taker's hand ``h0, h1``
    leading every trick, trumps from the top first, then each suit from the top? He keeps
    his highest trump (resp. card of a suit) for last, so it meets the taker's k-th
    highest, k = how many he holds (at most the taker's count in that suit); more trumps
    than the taker, and he ruffs later."""
    theirs = d1 & TRUMPS1
    if popcount(theirs) > popcount(h1 & TRUMPS1) or outlasts_leads(h1 & TRUMPS1, theirs):
        return True
    for s in range(4):
        sh = np.uint64(14 * s)
        if outlasts_leads((h0 >> sh) & SUIT_BITS, (d0 >> sh) & SUIT_BITS):
            return True
    return False


@hot
def slam_odds(h0: np.uint64, h1: np.uint64, e0: np.uint64, e1: np.uint64, n_def: int,
              hand: int, pile: int, kv: np.ndarray, stop_below: int) -> int:
    """The chance (%) that the taker's hand ``h0, h1`` after the écart ``e0, e1`` takes
    every trick, leading from the first (an announced chelem), against the ``n_def``
    other hands of ``hand`` cards dealt at random from the cards he has not seen (``pile``
    of them in an unseen chien, which never wins a trick), each defender holding on to
    his best cards (``defender_beats``). Reads only what the taker sees; the deals come
    from a stream keyed by that, so the answer is the same whatever the hidden cards.
    The 5-player partner counts as a defender (an underestimate). A hand that cards out
    beat for sure has at most the chance that they all lie in the chien
    (``tricks.all_in_pile_pct``); below 1/2 that bound is the answer, without dealing.
    Dealing stops as soon as the odds cannot reach ``stop_below`` % (the caller's
    threshold; 0: never), and the upper bound reached is returned; or, every 16 deals,
    when the odds so far are 3 standard errors below it (``tricks.settled_odds``)."""
    if h1 & EXCUSE1 != EMPTY and not kv[K_CH_EXC]:
        return 0  # the Excuse cannot take the last trick: no slam
    u0 = ALL0 & ~h0 & ~e0
    u1 = ALL1 & ~h1 & ~e1
    # cards that beat the hand from any defender's hand: a trump above all the taker's,
    # a card above the top of a suit he holds. All of them must lie in the unseen chien:
    # when that bound is below 1/2 it is returned as it is, without dealing.
    mine = h1 & TRUMPS1
    top = highest(mine) if mine != EMPTY else -1
    k = popcount(u1 & TRUMPS1 & ~((ONE << np.uint64(top + 1)) - ONE))
    for s in range(4):
        sh = np.uint64(14 * s)
        ms = (h0 >> sh) & SUIT_BITS
        if ms != EMPTY:
            k += popcount((u0 >> sh) & SUIT_BITS & ~((ONE << np.uint64(highest(ms) + 1)) - ONE))
    bound = all_in_pile_pct(k, popcount(u0) + popcount(u1), pile)
    if bound < 50:
        return bound
    state = rng.stream(np.uint64(h0) ^ (np.uint64(e0) << np.uint64(3)), np.int64(h1),
                       np.int64(e1), 17)
    # Only the trumps and the suits the taker holds can take a trick from him: deal those
    # cards alone (selection sampling, each card in turn to the next defender with
    # probability room / cards left); the other cards only fill the hands.
    held0 = EMPTY
    for s in range(4):
        sh = np.uint64(14 * s)
        if (h0 >> sh) & SUIT_BITS != EMPTY:
            held0 |= SUIT_BITS << sh
    rel0 = u0 & held0
    rel1 = u1 & TRUMPS1
    n_other = popcount(u0) + popcount(u1) - popcount(rel0) - popcount(rel1)
    made = 0
    for i in range(SLAM_SAMPLES):
        settled = settled_odds(made, i, SLAM_SAMPLES, stop_below)
        if settled >= 0:
            return settled
        p0 = rel0
        p1 = rel1
        other = n_other
        beaten = False
        for _d in range(n_def):
            room = hand
            left = popcount(p0) + popcount(p1) + other
            state, d0 = select_cards(state, p0, room, left)
            room -= popcount(d0)
            left -= popcount(p0)
            state, d1 = select_cards(state, p1, room, left)
            room -= popcount(d1)
            other -= room  # the rest of the hand: cards that cannot take a trick
            p0 &= ~d0
            p1 &= ~d1
            if defender_beats(d0, d1, h0, h1):
                beaten = True
                break
        made += not beaten
    return made * 100 // SLAM_SAMPLES


@hot
def announces_chelem(S: np.ndarray, h0: np.uint64, h1: np.uint64, kv: np.ndarray) -> int:
    """The heuristic's chelem announcement (1) or not (0): a sure slam (knob
    ``chelem_sure``); or odds (``slam_odds``) above the primes' break-even — announced
    made ``m``, failed ``f``, unannounced ``u``: announce when p m - (1 - p) f > p u, i.e.
    p > f / (m + f - u) — by knob ``chelem_likely_margin`` points; or the former hand
    value rule (knob ``chelem_announce_at``)."""
    e0 = word(S, S_EC0)
    e1 = word(S, S_EC1)
    if kv[K_CHELEM_SURE] and sure_slam(h0, h1, e0, e1, kv):
        return 1
    den = kv[K_CH_AM] + kv[K_CH_FAIL] - kv[K_CH_UN]
    if kv[K_CHELEM_LIKELY] <= 100 and den > 0:
        pile = 0 if S[S_CONTRACT] <= GARDE else kv[K_CHIEN]
        need = 100 * kv[K_CH_FAIL] + kv[K_CHELEM_LIKELY] * den
        odds = slam_odds(h0, h1, e0, e1, S[S_N] - 1, kv[K_HAND], pile, kv, need // den)
        if odds * den > need:
            return 1
    return 1 if hand_value(h0, h1) >= kv[K_CHELEM_AT] else 0


@hot
def seen_cards(S: np.ndarray, p: int, kv: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """The cards seat ``p`` knows are out of play: those played, and (knob ``ecart_seen``)
    the écart's trumps, shown to all, and the whole écart for the taker who made it."""
    g0 = word(S, S_G0)
    g1 = word(S, S_G1)
    if kv[K_ECART_SEEN] and chien_shown(S):
        g1 |= word(S, S_EC1)
        if p == S[S_TAKER]:
            g0 |= word(S, S_EC0)
    return g0, g1


@hot
def petit_saved_here(S: np.ndarray, p: int, h0: np.uint64, h1: np.uint64, g0: np.uint64,
                     g1: np.uint64, kv: np.ndarray, tb: tuple) -> bool:
    """Should ``p``, void in the plain suit led and not last, trump with his Petit now?
    Only when it is in danger (the trumps still out outnumber his other trumps, so it
    may be caught later) and likely to hold: no opponent still to play is known void in
    the led suit unless known void in trumps, and the led suit has at least
    ``petit_save_suit`` unseen cards per opponent still to play (knob; 0: never)."""
    suit_mask = tb[1]
    led = S[S_LED]
    if kv[K_PETIT_SAVE] == 0 or h1 & PETIT1 == EMPTY or led < 0 or led == TRUMP_SUIT:
        return False
    if (h0 & suit_mask[led, 0]) != EMPTY:
        return False
    out = TRUMPS1 & ~g1 & ~h1
    if popcount(out) <= popcount(h1 & TRUMPS1 & ~PETIT1):
        return False
    n = S[S_N]
    taker = S[S_TAKER]
    revealed = S[S_REVEALED] != 0
    risky = 0
    for j in range(1, n - S[S_POS]):
        q = (p + j) % n
        if knows_ally(p, q, taker, S[S_PARTNER], revealed):
            continue
        v = S[S_VOIDS + q]
        if (v >> TRUMP_SUIT) & 1:
            continue
        if (v >> led) & 1:
            return False
        risky += 1
    unseen = suit_mask[led, 0] & ~g0 & ~h0
    return popcount(unseen) >= kv[K_PETIT_SAVE] * risky


@hot
def hunts_petit(S: np.ndarray, p: int, h1: np.uint64, g1: np.uint64, kv: np.ndarray) -> bool:
    """Does defender ``p``, on lead, hunt the Petit: it is neither played nor his, the
    taker is not known void in trumps, and he holds at least ``hunt_petit_trumps``?"""
    if is_attack(S, p) or (g1 | h1) & PETIT1 != EMPTY:
        return False
    if (S[S_VOIDS + S[S_TAKER]] >> TRUMP_SUIT) & 1:
        return False
    return popcount(h1 & TRUMPS1) >= kv[K_HUNT_PETIT]


# --- a policy's move for any decision -------------------------------------------------------
@hot_inline
def heuristic_card(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic's card for the seat to play (it reads only what that seat knows: its
    hand, the cards played, the écart it made and the écart's shown trumps, the revealed
    voids, whether the trick's winner is known to be an ally)."""
    n = S[S_N]
    p = S[S_TURN]
    l0, l1 = legal_cards(S, kv, rules, tb)
    h0, h1 = hand_of(S, p)
    taker = S[S_TAKER]
    attack_p = is_attack(S, p)
    keep = S[S_CHELEM_ANN] != 0 and attack_p and S[S_ATT_TRICKS] == S[S_TRICK]
    tricks_left = kv[K_HAND] - S[S_TRICK]
    g0, g1 = seen_cards(S, p, kv)
    if S[S_POS] == 0:
        return lead_card(h0, h1, l0, l1, attack_p, g0, g1,
                         S[S_VOIDS + taker] if not attack_p else 0, keep, tricks_left, kv, tb,
                         hunts_petit(S, p, h1, g1, kv))
    ally = knows_ally(p, S[S_WIN_SEAT], taker, S[S_PARTNER], S[S_REVEALED] != 0)
    last = S[S_POS] == n - 1
    save = not last and petit_saved_here(S, p, h0, h1, g0, g1, kv, tb)
    return follow_card(l0, l1, h0, h1, S[S_WIN], ally, last, S[S_ON_TABLE], keep,
                       tricks_left, g0, g1, kv, tb, save)


@hot_inline
def heuristic_move(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic player's move for the seat to move, at any decision."""
    ph = S[S_PHASE]
    if ph == PH_PLAY:
        return heuristic_card(S, kv, rules, tb)
    p = S[S_TURN]
    h0, h1 = hand_of(S, p)
    if ph == PH_BID:
        return heuristic_bid(h0, h1, bid_floor(S, kv), kv)
    if ph == PH_CALL:
        return heuristic_call_move(h0, h1, kv)
    if ph == PH_ECART:
        return heuristic_discard(h0, h1, kv, tb[4], -1)
    if ph == PH_CHELEM:
        return announces_chelem(S, h0, h1, kv)
    # poignée: the attack always shows it, the defence by knob (p knows his own camp)
    lvl = poignee_level(h1, kv)
    return lvl if is_attack(S, p) or kv[K_POIGNEE_DEF] else NO_POIGNEE


@hot
def random_move(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                state: np.uint64) -> tuple[np.uint64, int]:
    """(state, move): uniform over the legal moves, drawn from the deal's policy stream."""
    ph = S[S_PHASE]
    p = S[S_TURN]
    if ph == PH_PLAY:
        l0, l1 = legal_cards(S, kv, rules, tb)
        return wrandom_card(state, l0, l1)
    h0, h1 = hand_of(S, p)
    if ph == PH_BID:
        lo = bid_floor(S, kv)
        state, x = rng.below(state, GARDE_CONTRE - lo + 2)
        return state, lo + x - 1 if x > 0 else PASS
    if ph == PH_CALL:
        return choose_call(h0, False, kv, state)
    if ph == PH_ECART:
        plain, trumps = ecart_choices(h0, h1, kv)
        return wrandom_card(state, plain, trumps)
    if ph == PH_CHELEM:
        state, x = rng.below(state, 2)
        return state, x
    state, x = rng.below(state, poignee_level(h1, kv) + 2)
    return state, x - 1


@hot
def playout(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Play the dealing to its end with heuristic players at every seat."""
    while S[S_PHASE] != PH_DONE:
        apply_move(S, heuristic_move(S, kv, rules, tb), kv, tb)


# --- what a seat sees ------------------------------------------------------------------------
SAMPLER_WORK = search.work_size(N_CARDS)  # scratch of search.sample_owners
PILE = -1  # the hidden place that is not a hand: the unseen chien, or the écart


@hot
def chien_shown(S: np.ndarray) -> bool:
    """Has the chien been turned face up (a Prise or Garde, once the call is made)?"""
    return 0 <= S[S_CONTRACT] <= GARDE and S[S_PHASE] >= PH_ECART


@hot
def seat_information(S: np.ndarray, seat: int, kv: np.ndarray, cards: np.ndarray,
                     allowed: np.ndarray, capacity: np.ndarray, places: np.ndarray
                     ) -> tuple[int, int]:
    """What ``seat`` knows, as the cards hidden from it and where they may be. Returns
    (hidden cards, hidden places); writes ``cards`` (slots, ascending: a canonical order),
    ``allowed`` (bit i: the card may be in place i), ``places`` (the seat of each hidden
    hand, or PILE) and ``capacity`` (cards each place holds: public counts).

    Known to the seat: its hand; every card played; the chien once shown (Prise/Garde:
    its cards are now in the taker's hand or the écart); the écart if it is the taker; the
    écart's trumps (shown). Hidden places: the other hands, and the chien (before it is
    shown, or never in a Garde sans/contre) or the écart (for the others than the taker).
    Constraints: a seat's revealed voids and missing high trumps (``S_EXCL``); the écart
    holds no King, no Bout and no trump but the shown ones. Reads nothing else: not the
    other hands, not an unseen chien or écart, not the 5-player partner."""
    n = S[S_N]
    taker = S[S_TAKER]
    shown = chien_shown(S)
    n_slots = 0
    for q in range(n):
        if q != seat:
            h0, h1 = hand_of(S, q)
            places[n_slots] = q
            capacity[n_slots] = popcount(h0) + popcount(h1)
            n_slots += 1
    pile = -1
    if not shown or seat != taker:
        pile = n_slots
        places[pile] = PILE
        capacity[pile] = S[S_ECART_N] if shown else kv[K_CHIEN]
        n_slots += 1
    k0, k1 = hand_of(S, seat)
    k0 |= word(S, S_G0)
    k1 |= word(S, S_G1)
    if shown and seat == taker:
        k0 |= word(S, S_EC0)
        k1 |= word(S, S_EC1)
    shown_trumps1 = word(S, S_EC1) if shown else EMPTY
    chien0 = word(S, S_CH0) if shown else EMPTY
    chien1 = word(S, S_CH1) if shown else EMPTY
    taker_slot = -1
    for i in range(n_slots):
        if places[i] == taker:
            taker_slot = i
    k = 0
    for c in range(128):
        if c < 64:
            if c >= 56 or (k0 >> np.uint64(c)) & ONE != EMPTY:
                continue
        elif c - 64 >= 22 or (k1 >> np.uint64(c - 64)) & ONE != EMPTY:
            continue
        a = 0
        for i in range(n_slots):
            q = places[i]
            if q == PILE:
                continue
            x = S[S_EXCL + 2 * q] if c < 64 else S[S_EXCL + 2 * q + 1]
            if (x >> (c & 63)) & 1 == 0:
                a |= 1 << i
        if pile >= 0:
            if not shown:
                a |= 1 << pile  # the unseen chien may hold any card
            elif c >= 64:
                if (shown_trumps1 >> np.uint64(c - 64)) & ONE != EMPTY:
                    a = 1 << pile  # a trump shown in the écart
            elif (KINGS0 >> np.uint64(c)) & ONE == EMPTY:
                a |= 1 << pile
        in_chien = ((chien0 >> np.uint64(c)) & ONE if c < 64
                    else (chien1 >> np.uint64(c - 64)) & ONE) != EMPTY
        if in_chien:  # seen in the chien: now in the taker's hand or the écart
            keep = 1 << pile if pile >= 0 else 0
            if taker_slot >= 0:
                keep |= 1 << taker_slot
            a &= keep
        cards[k] = c
        allowed[k] = a
        k += 1
    return k, n_slots


@batch
def new_search_work() -> tuple:
    """Scratch arrays of the search player (allocated once per batch)."""
    return (np.zeros((2, N_S), dtype=np.int64),  # the sampled world, the playout
            np.zeros(64, dtype=np.int64),  # legal moves
            np.zeros(64, dtype=np.int64),  # summed outcome per move
            np.zeros(N_CARDS, dtype=np.int64),  # hidden cards
            np.zeros(N_CARDS, dtype=np.int64),  # their allowed places
            np.zeros(search.MAX_SLOTS, dtype=np.int64),  # capacity of each place
            np.zeros(search.MAX_SLOTS, dtype=np.int64),  # seat of each place (PILE)
            np.zeros(N_CARDS, dtype=np.int64),  # place drawn for each card
            np.zeros(N_CARDS, dtype=np.int64),  # cards left to draw (indices)
            np.zeros(N_CARDS, dtype=np.int64),  # their allowed places
            np.zeros(N_CARDS, dtype=np.int64),  # the place drawn for each of them
            np.zeros(SAMPLER_WORK, dtype=np.int64),
            np.zeros((16, 2), dtype=np.int64),  # candidate écarts (two words)
            np.zeros(search.MAX_SLOTS, dtype=np.int64))  # room left in each place


@hot
def sample_world(S: np.ndarray, seat: int, kv: np.ndarray, stream: np.uint64,
                 W: np.ndarray, sw: tuple) -> tuple[np.uint64, bool]:
    """A world for ``seat``: a copy of ``S`` whose hidden cards are re-dealt at random
    into their hidden places, consistently with the seat's information
    (:func:`seat_information`, then :func:`deal_world`). Returns (stream, ok)."""
    n_cards, n_slots = seat_information(S, seat, kv, sw[3], sw[4], sw[5], sw[6])
    return deal_world(S, n_cards, n_slots, stream, W, sw)


@hot
def deal_world(S: np.ndarray, n_cards: int, n_slots: int, stream: np.uint64, W: np.ndarray,
               sw: tuple) -> tuple[np.uint64, bool]:
    """:func:`sample_world` once the seat's information is in ``sw`` (computed once per
    decision): cards with one possible place go there, the rest through
    ``search.sample_owners``. The 5-player partner is then whoever holds the called card in
    this world, unless it is public already. Returns (stream, ok)."""
    (_, _, _, cards, allowed, capacity, places, owner, free, free_allowed, drawn, work, _,
     room) = sw
    for s in range(n_slots):
        room[s] = capacity[s]
    n_free = 0
    for i in range(n_cards):
        a = allowed[i]
        if a == 0:
            return stream, False
        if a & (a - 1) == 0:  # one place only
            s = 0
            while a >> s != 1:
                s += 1
            owner[i] = s
            room[s] -= 1
        else:
            free[n_free] = i
            free_allowed[n_free] = a
            n_free += 1
    for s in range(n_slots):
        if room[s] < 0:
            return stream, False
    stream, ok = search.sample_owners(stream, free_allowed, room, n_free, n_slots, drawn, work)
    if not ok:
        return stream, False
    for j in range(n_free):
        owner[free[j]] = drawn[j]
    for i in range(N_S):
        W[i] = S[i]
    for s in range(n_slots):
        q = places[s]
        if q == PILE:
            base = S_EC0 if chien_shown(S) else S_CH0
        else:
            base = S_HAND + 2 * q
        W[base] = 0
        W[base + 1] = 0
    for i in range(n_cards):
        q = places[owner[i]]
        base = (S_EC0 if chien_shown(S) else S_CH0) if q == PILE else S_HAND + 2 * q
        c = cards[i]
        if c < 64:
            W[base] |= np.int64(ONE << np.uint64(c))
        else:
            W[base + 1] |= np.int64(ONE << np.uint64(c - 64))
    W[S_TRACK] = 0  # the playouts' heuristic players do not read S_EXCL
    called = S[S_CALLED]
    if called >= 0 and S[S_REVEALED] == 0:
        W[S_PARTNER] = -1
        cb = np.int64(ONE << np.uint64(called))
        for q in range(S[S_N]):
            if q != S[S_TAKER] and W[S_HAND + 2 * q] & cb != 0:
                W[S_PARTNER] = q
    return stream, True


# --- the search player ---------------------------------------------------------------------
@hot
def copy_state(src: np.ndarray, dst: np.ndarray) -> None:
    for i in range(N_S):
        dst[i] = src[i]


@hot
def search_move(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, seed: np.uint64,
                index: int, sub: int, sw: tuple) -> int:
    """The search player's move for the seat to move (any decision but the écart, see
    :func:`search_ecart`): in each of ``search_worlds`` worlds (``search_bid_worlds``
    before the play) sampled from the seat's information, every legal move is applied and
    the dealing played out by heuristic players (``search_rollouts`` times); the move with
    the best summed mark for the seat wins (ties: the first in ``legal_moves`` order). A
    forced move is played at once."""
    worlds, moves, total = sw[0], sw[1], sw[2]
    points = tb[4]
    seat = S[S_TURN]
    n_moves = legal_moves(S, kv, rules, tb, moves)
    if n_moves == 1:
        return moves[0]
    stream = search.decision_stream(seed, index, sub, seat, S[S_PLY])
    for m in range(n_moves):
        total[m] = 0
    n_ok = 0
    n_worlds = kv[K_WORLDS] if S[S_PHASE] == PH_PLAY else kv[K_BID_WORLDS]
    n_cards, n_slots = seat_information(S, seat, kv, sw[3], sw[4], sw[5], sw[6])
    for _ in range(n_worlds):
        stream, ok = deal_world(S, n_cards, n_slots, stream, worlds[0], sw)
        if not ok:
            continue
        n_ok += 1
        for m in range(n_moves):
            for _r in range(kv[K_ROLLOUTS]):
                copy_state(worlds[0], worlds[1])
                apply_move(worlds[1], moves[m], kv, tb)
                playout(worlds[1], kv, rules, tb)
                total[m] += seat_outcome(worlds[1], seat, kv, points)
    if n_ok == 0:  # no world fits (cannot happen with consistent information)
        return heuristic_move(S, kv, rules, tb)
    return moves[search.best_move(total, n_moves)]


@hot
def ecart_candidates(h0: np.uint64, h1: np.uint64, kv: np.ndarray, points: np.ndarray,
                     out: np.ndarray) -> int:
    """A few complete écarts for the taker's hand (chien included) to compare, distinct,
    as two words in ``out`` [k, 2]; returns k. 0: the heuristic's; 1-4: the heuristic's
    keeping suit s while another can go; 5: the cheapest cards (points, then rank); 6:
    the richest cards. Each is built card by card from ``ecart_choices``, so it is legal."""
    nc = kv[K_CHIEN]
    k = 0
    for variant in range(7):
        a0 = h0
        a1 = h1
        e0 = EMPTY
        e1 = EMPTY
        for _ in range(nc):
            if variant <= 4:
                c = heuristic_discard(a0, a1, kv, points, variant - 1)
            else:
                plain, trumps = ecart_choices(a0, a1, kv)
                c = -1
                best_key = 1 << 60
                for x in range(128):
                    if x < 64:
                        if x >= 56 or (plain >> np.uint64(x)) & ONE == EMPTY:
                            continue
                    elif x - 64 >= 22 or (trumps >> np.uint64(x - 64)) & ONE == EMPTY:
                        continue
                    key = points[x] * 100 + x % 14 if x < 64 else 10000 + x
                    if variant == 6 and x < 64:
                        key = -key
                    if key < best_key:
                        best_key = key
                        c = x
            if c < 64:
                b = ONE << np.uint64(c)
                a0 &= ~b
                e0 |= b
            else:
                b = ONE << np.uint64(c - 64)
                a1 &= ~b
                e1 |= b
        new = True
        for j in range(k):
            if out[j, 0] == np.int64(e0) and out[j, 1] == np.int64(e1):
                new = False
        if new:
            out[k, 0] = np.int64(e0)
            out[k, 1] = np.int64(e1)
            k += 1
    return k


@hot
def apply_ecart(S: np.ndarray, e0: np.uint64, e1: np.uint64, kv: np.ndarray, tb: tuple) -> None:
    """Discard a whole écart, ascending (suit cards before trumps, as the rule wants)."""
    while e0 != EMPTY:
        apply_move(S, lowest(e0), kv, tb)
        e0 &= e0 - ONE
    while e1 != EMPTY:
        apply_move(S, 64 + lowest(e1), kv, tb)
        e1 &= e1 - ONE


@hot
def search_ecart(S: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, seed: np.uint64,
                 index: int, sub: int, sw: tuple) -> tuple[np.uint64, np.uint64]:
    """The search player's écart (the taker, chien in hand): the candidates of
    :func:`ecart_candidates` compared like the moves of :func:`search_move`."""
    worlds, total, cands = sw[0], sw[2], sw[12]
    points = tb[4]
    seat = S[S_TURN]
    h0, h1 = hand_of(S, seat)
    k = ecart_candidates(h0, h1, kv, points, cands)
    if k > 1:
        stream = search.decision_stream(seed, index, sub, seat, S[S_PLY])
        for m in range(k):
            total[m] = 0
        n_cards, n_slots = seat_information(S, seat, kv, sw[3], sw[4], sw[5], sw[6])
        for _ in range(kv[K_BID_WORLDS]):
            stream, ok = deal_world(S, n_cards, n_slots, stream, worlds[0], sw)
            if not ok:
                continue
            for m in range(k):
                for _r in range(kv[K_ROLLOUTS]):
                    copy_state(worlds[0], worlds[1])
                    apply_ecart(worlds[1], np.uint64(cands[m, 0]), np.uint64(cands[m, 1]), kv, tb)
                    playout(worlds[1], kv, rules, tb)
                    total[m] += seat_outcome(worlds[1], seat, kv, points)
        best = search.best_move(total, k)
    else:
        best = 0
    return np.uint64(cands[best, 0]), np.uint64(cands[best, 1])
