"""Manille players: the heuristic policy, the random policy, what a seat sees, the worlds
consistent with it, and the search player (``--policy search``).

Rules are in ``rules.py``; every policy chooses among ``rules.legal_moves`` and the kernels
play the choice with ``rules.play_card``, so the heuristic run, the search's playouts and
the real deal follow one code path.

The search player (determinized Monte Carlo, see ``simlab/mechanics/search.py``) decides every card
(the classic game has no other decision). At a choice of more than one card it samples
``search_worlds`` deals of the cards hidden from its seat, consistent with
``seat_information`` (the trick-game information of ``simlab/games/belote/trickinfo.py``:
voids and every other absence the rules of play make certain; the turned trump card is
the dealer's until played), plays each legal card out to the end of the deal with
heuristic players, and keeps the card with the best summed margin (its team's marks minus
the other's).
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import batch, hot, hot_inline
from simlab.games.manille.rules import (
    ALL_CARDS,
    K_CAREFUL,
    K_DISCARD_PLAIN,
    K_DRAW_TRUMPS,
    K_KEEP_TRUMPS,
    K_ROLLOUTS,
    K_SAFE_CASH,
    K_WIN_MIN,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    P_DONE,
    R10,
    RA,
    S_DEALER,
    S_GONE,
    S_HAND,
    S_HIST,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_TO_MOVE,
    S_TRICK,
    S_TRUMP,
    S_TURNED,
    S_WIN,
    S_WIN_SEAT,
    TEAM_OF,
    apply_move,
    hand_of,
    legal_cards_now,
    legal_moves,
    manille_legal,
    play_card,
    team_marks,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import sample_places
from simlab.mechanics.tricks import (
    EMPTY,
    ONE,
    best_in,
    bit,
    count,
    follow_heuristic,
    has,
    is_master,
    load_on_partner,
    lowest,
    update_trick,
)


# --- the heuristic player ----------------------------------------------------------------
@hot_inline
def lead_heuristic(hand: np.uint64, gone: np.uint64, above: np.ndarray,
                   cheap_rank: np.ndarray, rich_rank: np.ndarray, keep: np.uint64) -> int:
    """The former lead (knobs ``draw_trumps`` and ``safe_cash`` false): ``lead_card``
    with no trump drawn and no suit thought ruffable."""
    return lead_card(hand, gone, -1, EMPTY, above, cheap_rank, rich_rank, keep, 0, False)


@hot_inline
def lead_card(hand: np.uint64, gone: np.uint64, trump: int, trumps: np.uint64,
              above: np.ndarray, cheap_rank: np.ndarray, rich_rank: np.ndarray,
              keep: np.uint64, danger: int, draw: bool) -> int:
    """Lead a master card (the manille of a suit, the manillon once the manille is gone,
    ...); otherwise the cheapest card outside ``keep`` (knob ``lead_keep_trumps``: the
    last trump, kept to ruff an enemy manille), the cheapest of ``keep`` only when nothing
    else is left.

    Among the masters: with ``draw`` (knob ``draw_trumps``) a master trump first while a
    trump is still out, so that no trump is left to ruff the plain masters that follow;
    then the plain masters of suits not in ``danger`` (``ruff_danger``, bit per suit), the
    richest first; then the others, the richest first (plain before trump).

    ``trumps`` is the trump suit's mask (``EMPTY`` with no trump); ``above``,
    ``cheap_rank`` and ``rich_rank`` are the rows of the deal's trump. A card is master
    when no card still unseen (neither gone nor in hand) beats it in its suit; among a
    suit's masters the richest is its highest card (points rise with rank), which
    ``rich_rank`` prefers."""
    unseen = ALL_CARDS & ~gone & ~hand
    safe = EMPTY
    other = EMPTY
    t_masters = EMPTY
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if not is_master(c, unseen, above):
            continue
        if has(trumps, c):
            t_masters |= bit(c)
        elif danger >> (c // 8) & 1:  # card id = suit * 8 + rank
            other |= bit(c)
        else:
            safe |= bit(c)
    if draw and t_masters != EMPTY and unseen & trumps != EMPTY:
        return best_in(t_masters, rich_rank)
    if safe != EMPTY:
        return best_in(safe, rich_rank)
    if other | t_masters != EMPTY:
        return best_in(other | t_masters, rich_rank)
    c = best_in(hand & ~keep, cheap_rank)
    return c if c >= 0 else best_in(hand, cheap_rank)


@hot_inline
def ruffable_honour(hand: np.uint64, gone: np.uint64, trump: int, suit_mask: np.ndarray
                    ) -> bool:
    """Is a manille (10) or manillon (ace) still out in a plain suit this hand is void
    in (so a trump kept could ruff it)?"""
    for s in range(4):
        if s == trump or hand & suit_mask[s] != EMPTY:
            continue
        honours = bit(s * 8 + R10) | bit(s * 8 + RA)
        if honours & ~gone != EMPTY:
            return True
    return False


@hot_inline
def cash_order_matters(hand: np.uint64, gone: np.uint64, trump: int, suit_mask: np.ndarray,
                       above: np.ndarray, draw: bool) -> bool:
    """Can ``ruff_danger`` change ``lead_card``'s choice? Only with a trump still out,
    plain masters in two suits or more, and no master trump led first (``draw``).
    Replaying the play for the voids at every lead cost 40% of the heuristic's speed."""
    unseen = ALL_CARDS & ~gone & ~hand
    trumps = suit_mask[trump]
    if unseen & trumps == EMPTY:
        return False
    suits = 0
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if is_master(c, unseen, above):
            if has(trumps, c):
                if draw:
                    return False
            else:
                suits |= 1 << (c // 8)
    return suits & (suits - 1) != 0


@hot_inline
def known_voids(state: np.ndarray, suit_of: np.ndarray, above_t: np.ndarray) -> int:
    """The suits each seat has shown it lacks, from the cards played so far: bit
    ``4 * seat + suit``. Not following the led suit shows a void in it; not trumping
    either, while an opponent wins the trick without a trump (trumping was then an
    obligation under every partner_exception), shows a void in trumps."""
    trump = state[S_TRUMP]
    voids = 0
    leader = (state[S_DEALER] + 1) % 4
    led = -1
    win = -1
    win_seat = -1
    for i in range(state[S_TRICK] * 4 + state[S_N_TABLE]):
        k = i % 4
        if k == 0:
            led = -1
            win = -1
            win_seat = -1
        q = (leader + k) % 4
        c = state[S_HIST + i]
        s = suit_of[c]
        if k > 0 and s != led:
            voids |= 1 << (4 * q + led)
            if trump >= 0 and s != trump and suit_of[win] != trump and \
                    TEAM_OF[win_seat] != TEAM_OF[q]:
                voids |= 1 << (4 * q + trump)
        led, win, win_seat = update_trick(c, q, led, win, win_seat, trump, suit_of, above_t)
        if k == 3:
            leader = win_seat
    return voids


@hot_inline
def ruff_danger(voids: int, p: int, unseen: np.uint64, trump: int, suit_mask: np.ndarray
                ) -> int:
    """The plain suits (bit per suit) an opponent of seat ``p`` may ruff: a trump is still
    unseen (``unseen``: neither played nor in ``p``'s hand), and an opponent not shown void
    in trumps is void in the suit: shown so (``known_voids``), or no card of the suit is
    left unseen. (Counting a suit with one unseen card as ruffable too measured no
    different.)"""
    danger = 0
    if trump < 0 or unseen & suit_mask[trump] == EMPTY:
        return 0
    for s in range(4):
        if s == trump:
            continue
        gone_round = unseen & suit_mask[s] == EMPTY  # every other hand lacks it
        for j in (1, 3):
            q = (p + j) % 4
            if voids >> (4 * q + trump) & 1:
                continue
            if gone_round or voids >> (4 * q + s) & 1:
                danger |= 1 << s
    return danger


@hot_inline
def discard_card(legal: np.uint64, trumps: np.uint64, points: np.ndarray, cheap_rank: np.ndarray,
                 upto: int) -> int:
    """A card thrown on the opponents' trick (knob ``discard_plain_upto``): the cheapest
    plain card worth at most ``upto`` points, else the cheapest card. A small trump is worth
    more kept: it may ruff a manille or manillon later."""
    plain = EMPTY
    m = legal & ~trumps
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if points[c] <= upto:
            plain |= bit(c)
    return best_in(plain if plain != EMPTY else legal, cheap_rank)


@hot_inline
def heuristic_card(state: np.ndarray, legal: np.uint64, kv: np.ndarray, suit_of: np.ndarray,
                   suit_mask: np.ndarray, excuse_mask: np.uint64, points_t: np.ndarray,
                   above_t: np.ndarray, cheap_t: np.ndarray, rich_t: np.ndarray,
                   win_t: np.ndarray) -> int:
    """Lead: ``lead_card`` (knobs ``draw_trumps``, ``safe_cash``, ``lead_keep_trumps``); on
    the partner's winning trick, ``tricks.load_on_partner`` (knob ``careful_load``); a
    discard under the opponents' trump, ``discard_card`` (knob ``discard_plain_upto``);
    otherwise ``tricks.follow_heuristic``. The ``*_t`` tables are the deal's trump rows
    (``trump + 1``) of ``tables()``."""
    p = state[S_TO_MOVE]
    n_table = state[S_N_TABLE]
    trump = state[S_TRUMP]
    hand = hand_of(state, p)
    gone = np.uint64(state[S_GONE])
    if n_table == 0:
        keep = EMPTY
        if kv[K_KEEP_TRUMPS] and trump >= 0 and count(hand & suit_mask[trump]) == 1 and \
                ruffable_honour(hand, gone, trump, suit_mask):
            keep = hand & suit_mask[trump]  # the last trump: kept to ruff a manille
        if trump < 0:
            return lead_heuristic(hand, gone, above_t, cheap_t, rich_t, keep)
        danger = 0
        if kv[K_SAFE_CASH] and cash_order_matters(hand, gone, trump, suit_mask, above_t,
                                                  kv[K_DRAW_TRUMPS] != 0):
            danger = ruff_danger(known_voids(state, suit_of, above_t), p,
                                 ALL_CARDS & ~gone & ~hand, trump, suit_mask)
        return lead_card(hand, gone, trump, suit_mask[trump], above_t, cheap_t, rich_t, keep,
                         danger, kv[K_DRAW_TRUMPS] != 0)
    partner_wins = TEAM_OF[state[S_WIN_SEAT]] == TEAM_OF[p]
    if partner_wins and n_table < 3 and kv[K_CAREFUL]:
        # a manille (5 points) or manillon (4) only on a sure winner
        return load_on_partner(legal, state[S_WIN], trump, ALL_CARDS & ~gone & ~hand,
                               suit_of, suit_mask, above_t, points_t, cheap_t, rich_t, 4)
    trumps = suit_mask[trump] if trump >= 0 else EMPTY
    if kv[K_DISCARD_PLAIN] and not partner_wins and legal & trumps != EMPTY and \
            legal & ~trumps != EMPTY:
        # both kinds legal with an opponent winning: a trump on the trick we cannot beat
        return discard_card(legal, trumps, points_t, cheap_t, kv[K_DISCARD_PLAIN])
    return follow_heuristic(legal, state[S_WIN], partner_wins, n_table == 3,
                            state[S_ON_TABLE], trump, suit_of, suit_mask, excuse_mask, above_t,
                            points_t, cheap_t, rich_t, win_t, kv[K_WIN_MIN])


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic player's card (``tb``: ``tables().kernel_args()``). The kernels' loops
    call ``heuristic_card`` directly with the trump's table rows (faster)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    t = state[S_TRUMP] + 1
    legal = legal_cards_now(state, rules, suit_of, suit_mask, excuse_mask, above[t])
    return heuristic_card(state, legal, kv, suit_of, suit_mask, excuse_mask, points[t], above[t],
                          cheap[t], rich[t], win_rank[t])


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players for every seat until the deal is over."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    t = sim[S_TRUMP] + 1
    points_t, above_t, cheap_t, rich_t, win_t = points[t], above[t], cheap[t], rich[t], win_rank[t]
    while sim[S_PHASE] != P_DONE:
        legal = legal_cards_now(sim, rules, suit_of, suit_mask, excuse_mask, above_t)
        c = heuristic_card(sim, legal, kv, suit_of, suit_mask, excuse_mask, points_t, above_t,
                           cheap_t, rich_t, win_t)
        play_card(sim, c, suit_of, points_t, above_t)


# --- what a seat sees, and worlds consistent with it ---------------------------------------
@hot
def manille_exclusions(hist: np.ndarray, n_plays: int, first_leader: int, trump: int,
                       rules: np.ndarray, tb: tuple, team_of: np.ndarray,
                       excluded: np.ndarray, played_by: np.ndarray) -> None:
    """``simlab.mechanics.trickinfo.play_exclusions`` under Manille's rules of play
    (``rules.manille_legal``: the last card of the led suit to beat, the partner's trump
    not to overtrump): replay the ``n_plays`` cards of ``hist`` and add to
    ``excluded[p]`` every card seat p would have had to play instead of the one it
    played; ``played_by[p]`` gets its cards."""
    suit_of, suit_mask, excuse_mask = tb[0], tb[1], tb[2]
    above_t = tb[5][trump + 1]
    leader = first_leader
    led = -1
    win = -1
    win_seat = -1
    for i in range(n_plays):
        k = i % 4
        if k == 0:
            led = -1
            win = -1
            win_seat = -1
        p = (leader + k) % 4
        c = hist[i]
        played_by[p] |= bit(c)
        if k > 0:
            for x in range(N_CARDS):
                if x != c and not has(excluded[p], x):
                    two = bit(c) | bit(x)
                    if not has(manille_legal(two, hist[i - k:i], k, led, win, win_seat, leader,
                                             p, team_of, trump, suit_of, suit_mask,
                                             excuse_mask, above_t, rules), c):
                        excluded[p] |= bit(x)
        led, win, win_seat = update_trick(c, p, led, win, win_seat, trump, suit_of, above_t)
        if k == 3:
            leader = win_seat


@hot
def seat_information(state: np.ndarray, seat: int, rules: np.ndarray, tb: tuple,
                     excluded: np.ndarray, played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask): not in its hand and not played. Fills
    ``excluded[q]`` with the cards seat q certainly does not hold (from its plays, and the
    turned card for every seat but the dealer, who keeps it) and ``played_by[q]``. Reads
    only the seat's hand and public facts (the turned card, the cards played)."""
    for q in range(4):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    turned = bit(state[S_TURNED])
    for q in range(4):
        if q != state[S_DEALER]:
            excluded[q] = turned
    n_plays = state[S_TRICK] * 4 + state[S_N_TABLE]
    manille_exclusions(state[S_HIST:S_HIST + 32], n_plays, (state[S_DEALER] + 1) % 4,
                       state[S_TRUMP], rules, tb, TEAM_OF, excluded, played_by)
    return ALL_CARDS & ~hand_of(state, seat) & ~np.uint64(state[S_GONE])


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with the ``hidden`` cards dealt again at random to the other
    three seats (their hand sizes, none of its ``work[7]`` exclusions). The seat's own
    hand is never moved."""
    moves, totals, sim, cards, allowed, owner, capacity, excluded, played_by, slot_excl, \
        slot_cards, sample_work = work
    for i in range(N_STATE):
        world[i] = state[i]
    for j in range(3):
        q = (seat + 1 + j) % 4
        slot_excl[j] = excluded[q]
        capacity[j] = count(hand_of(state, q))  # hand sizes follow from the deal: public
    st, ok = sample_places(st, hidden, 3, slot_excl, capacity, cards, allowed, owner,
                           sample_work, slot_cards)
    if not ok:  # unreachable with sound exclusions; drop them rather than fail the deal
        for j in range(3):
            slot_excl[j] = EMPTY
        st, ok = sample_places(st, hidden, 3, slot_excl, capacity, cards, allowed, owner,
                               sample_work, slot_cards)
    for j in range(3):
        world[S_HAND + (seat + 1 + j) % 4] = np.int64(slot_cards[j])
    return st


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, rules: np.ndarray, tb: tuple,
                world: np.ndarray, work: tuple) -> np.uint64:
    """``seat_information`` then ``sample_world``: one world for ``seat``."""
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, world, work)


# --- the search player ------------------------------------------------------------------------
SEARCH_SLOTS = 3  # hidden places: the three other hands
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(4, dtype=np.uint64),
            np.zeros(4, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64))


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the legal cards and ``work[1]`` with each one's summed margin
    for the seat to move (its team's marks minus the other's) over the worlds and
    playouts; returns the number of cards. One card: nothing is searched."""
    moves, totals, sim = work[0], work[1], work[2]
    seat = state[S_TO_MOVE]
    n = legal_moves(state, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    team = TEAM_OF[seat]
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, rules, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):  # heuristic playouts are deterministic here
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], tb)
                playout(sim, kv, rules, tb)
                mark0, mark1 = team_marks(sim, kv)
                totals[m] += mark0 - mark1 if team == 0 else mark1 - mark0
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The search player's card for the seat to move (see the module docstring)."""
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]
