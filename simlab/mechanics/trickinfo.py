"""What a seat knows in a trick game played with one-word card sets (Belote, Manille),
and the worlds consistent with it: shared by the games' search players.

A seat sees its own hand, every card played and by whom, the trick on the table and the
public cards of its game (Belote: the turned card, which goes to the taker). A play also
reveals cards the player cannot hold: the rules made the played card legal, so any card
whose presence would have made it illegal is not in that hand (a failure to follow
reveals a void; a failure to trump, to overtrump or to raise on a trump lead reveals the
absence of the trumps that would have been forced). ``play_exclusions`` derives exactly
these from the game's own ``legal_cards`` rule flags: card ``x`` is excluded from the
player's hand when ``c`` is not legal from the two-card hand {c, x}. That is sound
because legality only shrinks as cards are added to a hand (a larger hand never makes a
forbidden card playable; ``tests/test_belote_search.py`` and ``test_manille_search.py``
check it against the real hands of randomly played deals), and it infers nothing a rule
does not force (a discard while the partner wins reveals nothing).
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import hot
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    R_PARTNER_EXEMPT,
    bit,
    cards_of,
    has,
    legal_cards,
    partner_winning,
    update_trick,
)


@hot
def play_exclusions(hist: np.ndarray, n_plays: int, first_leader: int, trump: int,
                    n_cards: int, rules: np.ndarray, tb: tuple, team_of: np.ndarray,
                    excluded: np.ndarray, played_by: np.ndarray) -> None:
    """Replay the ``n_plays`` cards of ``hist`` (in play order, the first trick led by
    ``first_leader``) and add to ``excluded[p]`` (uint64 masks) the cards seat ``p``
    certainly does not hold; ``played_by[p]`` gets the cards ``p`` played. The number of
    seats (one card each per trick) is the length of ``team_of``; ``tb`` is the game's
    ``TrickTables.kernel_args()``, whose rows are indexed by ``trump + 1``."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    replay_exclusions(hist, n_plays, first_leader, trump, n_cards, rules, suit_of, suit_mask,
                      excuse_mask, above[trump + 1], team_of, excluded, played_by)


@hot
def replay_exclusions(hist: np.ndarray, n_plays: int, first_leader: int, trump: int,
                      n_cards: int, rules: np.ndarray, suit_of: np.ndarray,
                      suit_mask: np.ndarray, excuse_mask: np.uint64, above_t: np.ndarray,
                      team_of: np.ndarray, excluded: np.ndarray, played_by: np.ndarray) -> None:
    """``play_exclusions`` with the deal's rank table ``above_t`` and rule flags given
    directly (games whose tables are indexed otherwise, e.g. by contract)."""
    mode = rules[R_PARTNER_EXEMPT]
    n_seats = team_of.shape[0]
    leader = first_leader
    led = -1
    win = -1
    win_seat = -1
    for i in range(n_plays):
        k = i % n_seats
        if k == 0:
            led = -1
            win = -1
            win_seat = -1
        p = (leader + k) % n_seats
        c = hist[i]
        played_by[p] |= bit(c)
        if k > 0:
            pw = partner_winning(win, win_seat, leader, p, team_of, mode)
            for x in range(n_cards):
                if x != c and not has(excluded[p], x):
                    two = bit(c) | bit(x)
                    if not has(legal_cards(two, led, win, pw, trump, suit_of, suit_mask,
                                           excuse_mask, above_t, rules), c):
                        excluded[p] |= bit(x)
        led, win, win_seat = update_trick(c, p, led, win, win_seat, trump, suit_of, above_t)
        if k == n_seats - 1:
            leader = win_seat


@hot
def sample_places(st: np.uint64, hidden: np.uint64, n_slots: int, slot_excluded: np.ndarray,
                  capacity: np.ndarray, cards: np.ndarray, allowed: np.ndarray,
                  owner: np.ndarray, work: np.ndarray, slot_cards: np.ndarray
                  ) -> tuple[np.uint64, bool]:
    """Deal the ``hidden`` cards (a mask) into ``n_slots`` hidden places: place ``s``
    gets ``capacity[s]`` cards, none of ``slot_excluded[s]``. Cards are listed in
    ascending id (canonical: the result depends only on the mask and the stream), then
    dealt by ``search.sample_owners``. Writes ``slot_cards[s]`` (masks); returns (stream,
    ok) — ok is False only if no deal fits, which sound exclusions never cause."""
    n = cards_of(hidden, cards)
    full = (1 << n_slots) - 1
    for i in range(n):
        a = full
        for s in range(n_slots):
            if has(slot_excluded[s], cards[i]):
                a &= ~(1 << s)
        allowed[i] = a
    st, ok = search.sample_owners(st, allowed, capacity, n, n_slots, owner, work)
    for s in range(n_slots):
        slot_cards[s] = EMPTY
    if ok:
        for i in range(n):
            slot_cards[owner[i]] |= bit(cards[i])
    return st, ok
