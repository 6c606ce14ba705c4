"""Players of the Manille variants (``variants.py``): the heuristic's estimate of a hand,
its decisions (trump or Sans-Atout, contre, bids) and cards, the random player's
decisions, what a seat sees, the worlds consistent with it, and the search player.

* **Estimate** (``hand_value``): the points a hand should take with a given trump: each
  card's chance to win its trick (a master 1; a card with one higher card out 1/2 if
  guarded once, with two out 1/4 if guarded twice; long trumps ruff) times its points
  plus the trick point and ``COLLECTED`` points gathered from the others' cards.
* **Decisions** (the catalogue's "Heuristic policies"): trump = the suit (or SA) with the
  best estimate; in folle the suit of least ``folle_trump_cost`` (few and low cards of
  it, best none; fitted on the search's values) and never Sans-Atout (it lost against
  every suit on average in the search's values; formerly, named whenever its estimate
  tied the lowest, it measured 17.9 points taken by the dealer per deal against 14.5
  with a trump, on 20,000 deals: a trump forces the others to ruff);
  the belge / coinchée dealer passes the choice to his partner below
  ``choose_pass_below``, and announces Sans-Atout when no trump improves an estimate of
  at least ``sans_atout_min``; contre when the estimate plus an average partner's share
  (``PARTNER_SHARE``) reaches ``contre_min`` (surcontre, by the announcer's partner:
  ``surcontre_min``); bid the smallest raise while it stays within ``bid_percent`` % of
  the best estimate.
* **Cards**: the classic heuristic (``players.lead_heuristic`` and
  ``tricks.follow_heuristic``) with the variant's sides; in folle the aim is reversed
  (``folle_card``): lead low, duck under the winning card with the richest card that
  still loses, and when every legal card wins, win low unless last (then shed the
  richest).
* **Search** decides everything its player decides, determinized as in ``players.py``
  (``simlab/mechanics/search.py``), from what the deciding player sees: his own hand, every
  dummy's face-up cards, the cards played and what the rules make certain. When a dummy
  is to play, its owner decides and sees the same. ``oracle_team`` makes a team's search
  players read the true deal (perfect information, question 6).

  - *Cards* (``search_card``): ``search_worlds`` worlds, each legal card played out to
    the end of the play by heuristic players.
  - *Decisions before the play* (``search_decision``: trump or Sans-Atout, passing the
    choice to the partner, contre, surcontre, every legal bid or pass): as Belote's and
    Tarot's bids, each option is applied in each of ``search_decision_worlds`` worlds and
    the deal is played out to its end with heuristic players at every seat (the
    decisions still to come, then the cards, each distinct play once per world:
    ``play_out_once``; an all-pass enchères deal is worth 0), the
    best summed value for the player wins (ties: the first option, i.e. pass / no
    contre / the lowest bid). Before the play the player knows only his own hand and
    the public announcements (the trump named, a contre, the bid to beat), which change
    the state the worlds are played from but not where the hidden cards lie: what an
    opponent's bid or pass says about his hand is not modelled, so the hidden cards are
    dealt uniformly among the other hands, as the rules allow. The value is
    ``outcome``, the cards' measure: in belge and coinchée twice (his team's marks minus
    the other's); in enchères and folle three times (his marks minus the mean of the three
    others') whichever side he ends on (a defender's partners mark what he marks), so a
    bid and a pass are valued on one scale.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.game import HEURISTIC, RANDOM
from simlab.engine.jit import batch, hot
from simlab.engine.rng import below
from simlab.games.manille.players import lead_heuristic, manille_exclusions
from simlab.games.manille.rules import (
    ALL_CARDS,
    K_BID_PERCENT,
    K_CONTRE_MIN,
    K_DECISION_WORLDS,
    K_ORACLE,
    K_PASS_BELOW,
    K_ROLLOUTS,
    K_SA_MIN,
    K_SURCONTRE_MIN,
    K_WIN_MIN,
    K_WORLDS,
    N_CARDS,
    P_DONE,
    P_PLAY,
    POINTS,
    S_DEALER,
    S_GONE,
    S_HAND,
    S_HIST,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_TO_MOVE,
    S_TPTS,
    S_TRICK,
    S_TRICKS,
    S_TRUMP,
    S_TURNED,
    S_WIN,
    S_WIN_SEAT,
    STRENGTH,
    V_BELGE,
    V_COINCHEE,
    V_FOLLE,
)
from simlab.games.manille.variants import (
    MAX_DECISIONS,
    N_VSTATE,
    NO_TRUMP,
    P_BID,
    P_CONTRE,
    P_SURCONTRE,
    P_THROWN,
    P_TRUMP,
    PASS,
    PASS_CHOICE,
    S_BID,
    S_DOWN,
    S_FIRST_LEADER,
    S_OWNER,
    S_STACK,
    S_TAKER,
    S_TEAM,
    S_VARIANT,
    apply_card,
    apply_decision,
    deal_marks,
    decision_options,
    is_done,
    is_dummy,
    legal_card_moves,
    legal_now,
    trick_point,
    visible_hand,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import sample_places
from simlab.mechanics.tricks import EMPTY, best_in, bit, count, follow_heuristic, has, lowest, random_card, winners

# --- the estimate of a hand ----------------------------------------------------------------
COLLECTED = 3  # points a won trick gathers from the other cards, on average (measured ~3)
PARTNER_SHARE = 17  # an average partner's share of a 68-point deal (68 / 4)
RANKS_DOWN = np.array([3, 7, 6, 5, 4, 2, 1, 0], dtype=np.int64)  # 10, A, K, Q, J, 9, 8, 7


@hot
def hand_value(hand: np.uint64, trump: int, tp: int) -> int:
    """The heuristic's estimate of the points ``hand`` takes with ``trump`` (-1: none) and
    ``tp`` points per trick (see the module docstring)."""
    value = 0.0
    for s in range(4):
        length = 0
        for r in range(8):
            if has(hand, s * 8 + r):
                length += 1
        out_above = 0
        win = 0.0
        for k in range(8):
            c = s * 8 + RANKS_DOWN[k]
            if has(hand, c):
                p = 0.0
                if out_above == 0:
                    p = 1.0
                elif out_above == 1 and length >= 2:
                    p = 0.5
                elif out_above == 2 and length >= 3:
                    p = 0.25
                win += p
                value += p * POINTS[c]
            else:
                out_above += 1
        if s == trump and length > 3:
            win += 0.8 * (length - 3)  # long trumps ruff the others' suits
        value += win * (tp + COLLECTED)
    return int(value)


@hot
def best_value(hand: np.uint64, tp: int, with_sa: bool) -> int:
    best = -1
    for t in range(-1 if with_sa else 0, 4):
        v = hand_value(hand, t, tp)
        if v > best:
            best = v
    return best


# Folle: what a trump costs the dealer who names it. Fitted on the search's values of the
# four suits (400 dealer hands, 48 worlds each; R^2 0.96 within a hand): each card of the
# trump suit costs about 2.7 times as much per card as per point of rank strength.
FOLLE_PER_TRUMP = 8  # per card of the named suit held
FOLLE_PER_STRENGTH = 3  # per rank step of those cards (7 = 0 ... 10 = 7)


@hot
def folle_trump_cost(hand: np.uint64, trump: int) -> int:
    """Folle: how much naming ``trump`` should make the dealer take (the lower, the
    better): its cards of that suit, longer and higher worse, for a trump must ruff when
    void, overtrump when able, and beats every plain card; a suit he lacks costs nothing
    (he is never forced to ruff, the others are)."""
    cost = 0
    for r in range(8):
        c = trump * 8 + r
        if has(hand, c):
            cost += FOLLE_PER_TRUMP + FOLLE_PER_STRENGTH * STRENGTH[c]
    return cost



# --- heuristic decisions --------------------------------------------------------------------
@hot
def heuristic_decision(state: np.ndarray, kv: np.ndarray, options: np.ndarray, n: int) -> int:
    """The heuristic's move in a decision phase (``options``: ``decision_options``)."""
    phase = state[S_PHASE]
    p = state[S_TO_MOVE]
    variant = state[S_VARIANT]
    hand = np.uint64(state[S_HAND + p])
    tp = trick_point(kv, variant)
    if phase == P_TRUMP and variant == V_FOLLE:
        # the cheapest suit (folle_trump_cost); Sans-Atout, where folle_allow_sa allows
        # it, never: against the search's values it lost on average in every class of
        # hands measured (by strength, high cards, the cheapest suit's cost), by 13
        # points a deal overall (400 hands), as a trump makes the others ruff
        best = -1
        best_cost = 0
        for i in range(n):
            m = options[i]
            if m == NO_TRUMP:
                continue
            cost = folle_trump_cost(hand, m)
            if best < 0 or cost < best_cost:
                best = m
                best_cost = cost
        return best
    if phase == P_TRUMP:
        best = -1
        best_v = 0
        for i in range(n):
            m = options[i]
            if m == PASS_CHOICE:
                continue
            v = hand_value(hand, -1 if m == NO_TRUMP else m, tp)
            # Sans-Atout when no trump improves the estimate and the hand is strong enough
            # to hold its masters without ruffs (a weak hand does better with a trump)
            if m == NO_TRUMP:
                better = v >= best_v and v >= kv[K_SA_MIN]
            else:
                better = v > best_v
            if best < 0 or better:
                best = m
                best_v = v
        if (variant == V_BELGE or variant == V_COINCHEE) and p == state[S_DEALER] \
                and best_v < kv[K_PASS_BELOW]:
            for i in range(n):
                if options[i] == PASS_CHOICE:
                    return PASS_CHOICE
        return best
    if phase == P_CONTRE:
        return 1 if hand_value(hand, state[S_TRUMP], tp) + PARTNER_SHARE >= kv[K_CONTRE_MIN] else 0
    if phase == P_SURCONTRE:  # the announcer's partner, with an average announcer's share
        v = hand_value(hand, state[S_TRUMP], tp)
        return 1 if v + PARTNER_SHARE >= kv[K_SURCONTRE_MIN] else 0
    if phase == P_BID:
        limit = best_value(hand, tp, False) * kv[K_BID_PERCENT] // 100
        if n > 1 and options[1] <= limit:
            return options[1]  # the smallest raise
        return PASS
    return options[0]


@hot
def random_decision(st: np.uint64, state: np.ndarray, options: np.ndarray, n: int
                    ) -> tuple[np.uint64, int]:
    """The random player: uniform among the options; in the auction, pass or the smallest
    raise (uniform among every bid would end most auctions at once on absurd bids)."""
    if state[S_PHASE] == P_BID:
        n = min(n, 2)
    st, k = below(st, n)
    return st, options[k]


# --- heuristic cards ---------------------------------------------------------------------------
@hot
def folle_card(state: np.ndarray, legal: np.uint64, tb: tuple) -> int:
    """Folle: take as few points as possible (see the module docstring)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    t = state[S_TRUMP] + 1
    if state[S_N_TABLE] == 0:
        return best_in(legal, win_rank[t])  # the lowest card, trumps kept
    win = winners(legal, state[S_WIN], state[S_TRUMP], suit_of, suit_mask, excuse_mask, above[t])
    losers = legal & ~win
    if losers != EMPTY:
        return best_in(losers, rich[t])  # duck, shedding the richest card that loses
    if state[S_N_TABLE] == 3:
        return best_in(legal, rich[t])  # the trick is ours anyway: shed the richest
    return best_in(legal, win_rank[t])  # win low: a later card may still overtake


@hot
def heuristic_card(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic's card for the seat to move (a dummy's by its owner's heuristic)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    legal = legal_now(state, rules, tb)
    if state[S_VARIANT] == V_FOLLE:
        return folle_card(state, legal, tb)
    p = state[S_TO_MOVE]
    t = state[S_TRUMP] + 1
    n_table = state[S_N_TABLE]
    if n_table == 0:
        # the variants keep their own lead (knob lead_keep_trumps is the classic game's)
        return lead_heuristic(visible_hand(state, p), np.uint64(state[S_GONE]), above[t],
                              cheap[t], rich[t], EMPTY)
    partner = state[S_TEAM + state[S_WIN_SEAT]] == state[S_TEAM + p]
    return follow_heuristic(legal, state[S_WIN], partner, n_table == 3, state[S_ON_TABLE],
                            state[S_TRUMP], suit_of, suit_mask, excuse_mask, above[t], points[t],
                            cheap[t], rich[t], win_rank[t], kv[K_WIN_MIN])


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players at every seat until the end of the play."""
    while sim[S_PHASE] == P_PLAY:
        apply_card(sim, heuristic_card(sim, kv, rules, tb), tb)


# --- what a player sees, and worlds consistent with it -----------------------------------
@hot
def known_cards(state: np.ndarray, brain: int) -> np.uint64:
    """What player ``brain`` sees of the cards not yet played: his hand and every dummy's
    face-up cards (public; a trois dummy lies all face up by default)."""
    known = np.uint64(state[S_HAND + brain])
    for q in range(4):
        if is_dummy(state, q):
            known |= visible_hand(state, q)
    return known


@hot
def place_seats(state: np.ndarray, brain: int, seats: np.ndarray) -> int:
    """The seats holding cards hidden from ``brain``: the other players, and dummies with
    face-down cards; returns how many (canonical order)."""
    n = 0
    for j in range(1, 4):
        q = (brain + j) % 4
        if is_dummy(state, q):
            if state[S_DOWN + q] != 0:
                seats[n] = q
                n += 1
        elif count(np.uint64(state[S_HAND + q])) > 0:
            seats[n] = q
            n += 1
    return n


@hot
def seat_information(state: np.ndarray, brain: int, rules: np.ndarray, tb: tuple,
                     excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``brain`` (a mask), and ``excluded[q]``: cards a player q
    certainly does not hold (his plays, replayed under the rules; the turned card is the
    dealer's). A dummy's face-down cards are unconstrained: its plays were judged on its
    face-up cards only."""
    for q in range(4):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    if state[S_TURNED] >= 0:
        for q in range(4):
            if q != state[S_DEALER]:
                excluded[q] = bit(state[S_TURNED])
    n_plays = state[S_TRICK] * 4 + state[S_N_TABLE]
    manille_exclusions(state[S_HIST:S_HIST + 32], n_plays, state[S_FIRST_LEADER],
                       state[S_TRUMP], rules, tb, state[S_TEAM:S_TEAM + 4], excluded, played_by)
    return ALL_CARDS & ~known_cards(state, brain) & ~np.uint64(state[S_GONE])


@hot
def sample_world(state: np.ndarray, brain: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with the ``hidden`` cards dealt again to the places hiding them
    (each its number of cards; a player none of his exclusions). A dummy's sampled
    face-down cards go under its still covered stacks, in order."""
    cards, allowed, owner, capacity = work[3], work[4], work[5], work[6]
    excluded, slot_excl, slot_cards, sample_work, seats = work[7], work[9], work[10], work[11], \
        work[13]
    for i in range(N_VSTATE):
        world[i] = state[i]
    n = place_seats(state, brain, seats)
    for j in range(n):
        q = seats[j]
        if is_dummy(state, q):
            # nothing is known of a dummy's face-down cards but that the turned card, the
            # dealer's, is not among them
            slot_excl[j] = EMPTY
            if state[S_TURNED] >= 0 and q != state[S_DEALER]:
                slot_excl[j] = bit(state[S_TURNED])
            capacity[j] = count(np.uint64(state[S_DOWN + q]))
        else:
            slot_excl[j] = excluded[q]
            capacity[j] = count(np.uint64(state[S_HAND + q]))
    st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                           sample_work, slot_cards)
    if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
        for j in range(n):
            slot_excl[j] = EMPTY
        st, ok = sample_places(st, hidden, n, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
    for j in range(n):
        q = seats[j]
        if is_dummy(state, q):
            world[S_HAND + q] = np.int64(visible_hand(state, q) | slot_cards[j])
            world[S_DOWN + q] = np.int64(slot_cards[j])
            rest = slot_cards[j]
            down = np.uint64(state[S_DOWN + q])
            for k in range(4):
                pair = state[S_STACK + 4 * q + k]
                if pair >= 0 and has(down, pair % 64):
                    c = lowest(rest)
                    rest &= ~bit(c)
                    world[S_STACK + 4 * q + k] = (pair // 64) * 64 + c
        else:
            world[S_HAND + q] = np.int64(slot_cards[j])
    return st


# --- the search player --------------------------------------------------------------------------
SEARCH_SLOTS = 3  # at most three places hide cards: the other hands or face-down piles
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_card``, ``search_decision`` and the kernels:
    0 the moves (cards or decision options), 1 their summed values, 2 a playout's state,
    3-11 ``sample_world``'s, 12 marks, 13 seats, 14 the playouts' decision options, 15
    ``play_out_once``'s memo."""
    return (np.zeros(MAX_DECISIONS, dtype=np.int64), np.zeros(MAX_DECISIONS, dtype=np.int64),
            np.zeros(N_VSTATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(4, dtype=np.uint64),
            np.zeros(4, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(4, dtype=np.int64), np.zeros(MAX_DECISIONS, dtype=np.int64),
            np.zeros(N_PLAY_KEYS * MEMO_ROW, dtype=np.int64))


@hot
def outcome(state: np.ndarray, kv: np.ndarray, brain: int, marks: np.ndarray) -> int:
    """A finished deal's value for ``brain``: his marks times the number of opposing seats
    minus their marks (his marks minus their mean, kept integral)."""
    deal_marks(state, kv, marks)
    team = state[S_TEAM + brain]
    n_opp = 0
    opp = 0
    for q in range(4):
        if state[S_TEAM + q] != team:
            n_opp += 1
            opp += marks[q]
    return marks[brain] * n_opp - opp


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal cards and ``work[1]`` with each one's summed value
    for the player deciding (the seat to move's owner) over the worlds; returns how many
    cards. One card: nothing is searched."""
    moves, totals, sim, marks = work[0], work[1], work[2], work[12]
    seat = state[S_TO_MOVE]
    brain = state[S_OWNER + seat]
    n = legal_card_moves(state, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    oracle = kv[K_ORACLE] >= 0 and state[S_TEAM + brain] == kv[K_ORACLE]
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, brain, rules, tb, work[7], work[8])
    n_worlds = 1 if oracle else kv[K_WORLDS]
    for _ in range(n_worlds):
        if oracle:
            for i in range(N_VSTATE):
                world[i] = state[i]
        else:
            st = sample_world(state, brain, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):
                for i in range(N_VSTATE):
                    sim[i] = world[i]
                apply_card(sim, moves[m], tb)
                playout(sim, kv, rules, tb)
                totals[m] += outcome(sim, kv, brain, marks)
    return n


@hot
def search_card(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]


@hot
def card_move(state: np.ndarray, code: int, kv: np.ndarray, rules: np.ndarray, tb: tuple,
              st: np.uint64, seed: np.uint64, index: int, sub: int, world: np.ndarray,
              work: tuple) -> tuple[np.uint64, int]:
    """The card of the seat to move under policy ``code`` (its owner's policy)."""
    if code == HEURISTIC:
        return st, heuristic_card(state, kv, rules, tb)
    if code == RANDOM:
        return random_card(st, legal_now(state, rules, tb))
    return st, search_card(state, kv, rules, tb, seed, index, sub, world, work)



# --- the search player's decisions before the play ----------------------------------------------
@hot
def decision_ply(state: np.ndarray) -> int:
    """The decision's key in its seat's search stream (``search.decision_stream``'s ply):
    past every card ply (0..31), and distinct for each decision a seat takes in a deal (a
    seat speaks again in the auction only after someone raised the bid to beat)."""
    return N_CARDS + 1 + state[S_PHASE] * 1024 + state[S_BID]  # a bid is at most 860


@hot
def finish_decisions(sim: np.ndarray, kv: np.ndarray, options: np.ndarray) -> None:
    """Heuristic players take the decisions left before the play (or the throw-in)."""
    while sim[S_PHASE] != P_PLAY and not is_done(sim):
        n = decision_options(sim, kv, options)
        apply_decision(sim, kv, heuristic_decision(sim, kv, options, n))


# The cards played after the decisions depend on the trump and the taker only (the leader
# and the sides follow from them; a bid's value, the contre and who chose trump change
# the marks, not the play), so in one world each (trump, taker) is played out once and
# its tricks reused: an auction's dozens of bids lead to a few plays.
N_PLAY_KEYS = 25  # (trump or none) x (taker or none)
MEMO_ROW = 9  # the world it was played in, then the 4 seats' card points and tricks


@hot
def play_key(sim: np.ndarray) -> int:
    return (sim[S_TRUMP] + 1) * 5 + sim[S_TAKER] + 1


@hot
def play_out_once(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  memo: np.ndarray, stamp: int) -> None:
    """Play ``sim`` (at the first card) to its end with heuristic players, or copy the
    tricks of the same play met earlier in this world (``stamp``)."""
    k = play_key(sim) * MEMO_ROW
    if memo[k] == stamp:
        for q in range(4):
            sim[S_TPTS + q] = memo[k + 1 + q]
            sim[S_TRICKS + q] = memo[k + 5 + q]
        sim[S_PHASE] = P_DONE
        return
    playout(sim, kv, rules, tb)
    memo[k] = stamp
    for q in range(4):
        memo[k + 1 + q] = sim[S_TPTS + q]
        memo[k + 5 + q] = sim[S_TRICKS + q]


@hot
def deal_value(sim: np.ndarray, kv: np.ndarray, brain: int, marks: np.ndarray) -> int:
    """``outcome`` of a finished deal; a thrown-in one (all passed) marks nothing: 0."""
    if sim[S_PHASE] == P_THROWN:
        return 0
    return outcome(sim, kv, brain, marks)


@hot
def search_decision_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                           seed: np.uint64, index: int, sub: int, world: np.ndarray,
                           work: tuple) -> int:
    """Fill ``work[0]`` with the options of the decision to take (``decision_options``)
    and ``work[1]`` with each one's summed value for the player over
    ``search_decision_worlds`` worlds, each option played out to the end of the deal;
    returns how many options. One option (the compulsory Sans-Atout): nothing searched."""
    options, totals, sim, marks, rest = work[0], work[1], work[2], work[12], work[14]
    seat = state[S_TO_MOVE]
    brain = state[S_OWNER + seat]
    n = decision_options(state, kv, options)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    oracle = kv[K_ORACLE] >= 0 and state[S_TEAM + brain] == kv[K_ORACLE]
    st = search.decision_stream(seed, index, sub, seat, decision_ply(state))
    # before the play nothing is excluded: the hidden cards are every card but his own
    hidden = seat_information(state, brain, rules, tb, work[7], work[8])
    n_worlds = 1 if oracle else kv[K_DECISION_WORLDS]
    memo = work[15]
    for k in range(N_PLAY_KEYS):
        memo[k * MEMO_ROW] = 0  # no play of this call's worlds yet
    for w in range(n_worlds):
        if oracle:
            for i in range(N_VSTATE):
                world[i] = state[i]
        else:
            st = sample_world(state, brain, hidden, st, world, work)
        for m in range(n):
            for i in range(N_VSTATE):
                sim[i] = world[i]
            apply_decision(sim, kv, options[m])
            finish_decisions(sim, kv, rest)
            if sim[S_PHASE] == P_PLAY:
                play_out_once(sim, kv, rules, tb, memo, w + 1)
            totals[m] += deal_value(sim, kv, brain, marks)
    return n


@hot
def search_decision(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                    seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple
                    ) -> int:
    """The search player's move in a decision phase (one of ``decision_options``)."""
    n = search_decision_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]


@hot
def decision_move(state: np.ndarray, code: int, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  st: np.uint64, seed: np.uint64, index: int, sub: int, world: np.ndarray,
                  work: tuple) -> tuple[np.uint64, int]:
    """The move of the seat to move in a decision phase under policy ``code``."""
    if code == HEURISTIC or code == RANDOM:
        options = work[0]
        n = decision_options(state, kv, options)
        if code == RANDOM:
            return random_decision(st, state, options, n)
        return st, heuristic_decision(state, kv, options, n)
    return st, search_decision(state, kv, rules, tb, seed, index, sub, world, work)
