"""What trick-taking games share: legal cards, the trick winner, card points, and the
building blocks of heuristic card play.

Conventions (all kernels):

* a card is an int id into the game's deck; ``suit_of[c]`` is its suit code
  (``simlab.decks``), ``strength[c]`` its rank order *for this deal* (the game fills it
  from its trump and plain tables once trump is known), ``points[c]`` its card points;
* a hand is a row of card ids, ``hand[:n]``; a trick is ``cards[:n]`` with the seat that
  played each card in ``seats[:n]``; ``team_of[seat]`` gives each seat's side (a seat's
  own number in games without partners);
* ``trump`` is a suit code, or -1 when there is no trump;
* Excuse-like cards (suit ``EXCUSE_SUIT``) may always be played and never win.

A game states its obligations of play as a ``rules`` int64 array indexed by the ``R_*``
constants below (build it with ``make_rules``), so one ``legal_mask`` serves Belote,
Manille, Tarot, ...
"""

from __future__ import annotations

import numpy as np

from simlab.decks import EXCUSE_SUIT
from simlab.jit import hot
from simlab.rng import below

# --- obligations of play, as rule flags -------------------------------------------------
R_MUST_TRUMP = 0  # void in the led suit -> must trump
# partner exemption: 0 never; 1 any partner currently winning; 2 only the leader's partner while the lead is master
R_PARTNER_EXEMPT = 1
R_MUST_OVERTRUMP = 2  # a trump onto a trick holding a trump (or following a trump lead) must beat it if it can
# obliged to trump but cannot overtrump: 1 = must still play a trump, 0 = may discard anything
R_UNDERTRUMP = 3
R_OVERTRUMP_PARTNER = 4  # exempt (partner winning) but choosing to trump: must overtrump if able
R_MUST_BEAT_LED = 5  # following the led suit while no trump is on the trick: must beat its best card if able
R_BEAT_LED_PARTNER_EXEMPT = 6  # ... except when a partner is winning
N_RULES = 7

PARTNER_NEVER, PARTNER_ANY, PARTNER_LEADER_ONLY = 0, 1, 2


def make_rules(
    *,
    must_trump: bool = True,
    partner_exempt: int = PARTNER_ANY,
    must_overtrump: bool = True,
    undertrump: bool = True,
    overtrump_partner: bool = True,
    must_beat_led: bool = False,
    beat_led_partner_exempt: bool = False,
) -> np.ndarray:
    r = np.zeros(N_RULES, dtype=np.int64)
    r[R_MUST_TRUMP] = must_trump
    r[R_PARTNER_EXEMPT] = partner_exempt
    r[R_MUST_OVERTRUMP] = must_overtrump
    r[R_UNDERTRUMP] = undertrump
    r[R_OVERTRUMP_PARTNER] = overtrump_partner
    r[R_MUST_BEAT_LED] = must_beat_led
    r[R_BEAT_LED_PARTNER_EXEMPT] = beat_led_partner_exempt
    return r


# --- trick state -----------------------------------------------------------------------
@hot
def led_suit(cards: np.ndarray, n: int, suit_of: np.ndarray) -> int:
    """Suit of the first card that is not an Excuse (-1 if none yet)."""
    for k in range(n):
        s = suit_of[cards[k]]
        if s != EXCUSE_SUIT:
            return s
    return -1


@hot
def beats(card: int, best: int, led: int, suit_of: np.ndarray, strength: np.ndarray,
          trump: int) -> bool:
    """Does ``card`` beat ``best`` (the current winner, or -1) in a trick led in ``led``?"""
    s = suit_of[card]
    if s == EXCUSE_SUIT:
        return False
    if best < 0:
        return True
    b = suit_of[best]
    if s == trump:
        return b != trump or strength[card] > strength[best]
    if b == trump or s != led:
        return False
    return strength[card] > strength[best]


@hot
def winner_index(cards: np.ndarray, n: int, suit_of: np.ndarray, strength: np.ndarray,
                 trump: int) -> int:
    """Position in the trick of the card currently winning it (-1 if only Excuses).

    Between equal cards (multi-pack decks) the first one played wins."""
    led = led_suit(cards, n, suit_of)
    best = -1
    for k in range(n):
        if beats(cards[k], cards[best] if best >= 0 else -1, led, suit_of, strength, trump):
            best = k
    return best


@hot
def card_points(cards: np.ndarray, n: int, points: np.ndarray) -> int:
    t = 0
    for k in range(n):
        t += points[cards[k]]
    return t


# --- legality --------------------------------------------------------------------------
@hot
def legal_mask(hand: np.ndarray, n_hand: int, cards: np.ndarray, seats: np.ndarray, n: int,
               seat: int, team_of: np.ndarray, trump: int, suit_of: np.ndarray,
               strength: np.ndarray, rules: np.ndarray, legal: np.ndarray) -> int:
    """Fill ``legal[:n_hand]`` for the seat about to play; return the number of legal cards."""
    led = led_suit(cards, n, suit_of)
    if led < 0:  # leading (or only an Excuse on the table): anything goes
        for i in range(n_hand):
            legal[i] = True
        return n_hand

    win = winner_index(cards, n, suit_of, strength, trump)
    win_card = cards[win]
    trump_on_trick = trump >= 0 and suit_of[win_card] == trump
    partner_winning = False
    mode = rules[R_PARTNER_EXEMPT]
    if seats[win] != seat and team_of[seats[win]] == team_of[seat]:
        if mode == PARTNER_ANY:
            partner_winning = True
        elif mode == PARTNER_LEADER_ONLY:
            partner_winning = win == 0

    # Counts, written without branches: with random hands these tests are unpredictable.
    win_strength = strength[win_card]
    win_is_led = suit_of[win_card] == led
    n_follow = 0
    n_trumps = 0
    n_higher_trump = 0
    n_higher_led = 0
    for i in range(n_hand):
        c = hand[i]
        s = suit_of[c]
        higher = strength[c] > win_strength
        is_led = s == led
        is_trump = s == trump
        n_follow += is_led
        n_higher_led += is_led & higher & win_is_led
        n_trumps += is_trump
        n_higher_trump += is_trump & (higher | (not trump_on_trick))

    # kind 0: any card; 1: led suit; 2: led suit, higher; 3: trumps; 4: higher trumps;
    # 5: any non-trump or a higher trump
    kind = 0
    if n_follow > 0:
        kind = 1
        if led == trump:
            if (rules[R_MUST_OVERTRUMP] or rules[R_MUST_BEAT_LED]) and n_higher_trump > 0:
                kind = 4
        elif (rules[R_MUST_BEAT_LED] and not trump_on_trick and n_higher_led > 0
              and not (rules[R_BEAT_LED_PARTNER_EXEMPT] and partner_winning)):
            kind = 2
    elif n_trumps > 0:
        if rules[R_MUST_TRUMP] and not partner_winning:
            if trump_on_trick and rules[R_MUST_OVERTRUMP]:
                if n_higher_trump > 0:
                    kind = 4
                elif rules[R_UNDERTRUMP]:
                    kind = 3
            else:
                kind = 3
        elif (trump_on_trick and rules[R_MUST_OVERTRUMP] and rules[R_OVERTRUMP_PARTNER]
              and n_higher_trump > 0):
            kind = 5

    count = 0
    for i in range(n_hand):
        c = hand[i]
        s = suit_of[c]
        higher = strength[c] > win_strength
        if kind == 0:
            ok = True
        elif kind == 1:
            ok = s == led
        elif kind == 2:
            ok = (s == led) & higher
        elif kind == 3:
            ok = s == trump
        elif kind == 4:
            ok = (s == trump) & (higher | (not trump_on_trick))
        else:
            ok = (s != trump) | higher
        ok = ok | (s == EXCUSE_SUIT)
        legal[i] = ok
        count += ok
    return count


# --- heuristic play building blocks -----------------------------------------------------
@hot
def cheapest(hand: np.ndarray, n_hand: int, legal: np.ndarray, suit_of: np.ndarray,
             strength: np.ndarray, points: np.ndarray, trump: int) -> int:
    """Slot of the legal card that costs least to give away: fewest points, a non-trump
    before a trump, then the lowest rank."""
    best = -1
    best_key = 1 << 30
    for i in range(n_hand):
        if legal[i]:
            c = hand[i]
            key = points[c] * 10000 + (suit_of[c] == trump) * 1000 + strength[c]
            if key < best_key:
                best_key = key
                best = i
    return best


@hot
def richest(hand: np.ndarray, n_hand: int, legal: np.ndarray, suit_of: np.ndarray,
            strength: np.ndarray, points: np.ndarray, trump: int) -> int:
    """Slot of the legal non-trump card with the most points (to load a partner's trick);
    falls back to the cheapest card when only trumps are legal."""
    best = -1
    best_key = -1
    for i in range(n_hand):
        if legal[i] and suit_of[hand[i]] != trump:
            c = hand[i]
            key = points[c] * 100 + strength[c]
            if key > best_key:
                best_key = key
                best = i
    if best < 0:
        return cheapest(hand, n_hand, legal, suit_of, strength, points, trump)
    return best


@hot
def cheapest_winner(hand: np.ndarray, n_hand: int, legal: np.ndarray, cards: np.ndarray,
                    n: int, suit_of: np.ndarray, strength: np.ndarray, points: np.ndarray,
                    trump: int) -> int:
    """Slot of the lowest legal card that would take the lead of the trick (-1 if none);
    a card of the led suit before a trump."""
    led = led_suit(cards, n, suit_of)
    win = winner_index(cards, n, suit_of, strength, trump)
    win_card = cards[win] if win >= 0 else -1
    best = -1
    best_key = 1 << 30
    for i in range(n_hand):
        if legal[i]:
            c = hand[i]
            if beats(c, win_card, led, suit_of, strength, trump):
                key = (suit_of[c] == trump) * 1000 + strength[c] * 10 + points[c] // 10
                if key < best_key:
                    best_key = key
                    best = i
    return best


@hot
def random_legal(state: np.uint64, legal: np.ndarray, n_hand: int,
                 n_legal: int) -> tuple[np.uint64, int]:
    """Uniformly random legal slot."""
    state, k = below(state, n_legal)
    for i in range(n_hand):
        if legal[i]:
            if k == 0:
                return state, i
            k -= 1
    return state, -1


@hot
def follow_heuristic(hand: np.ndarray, n_hand: int, legal: np.ndarray, cards: np.ndarray,
                     seats: np.ndarray, n: int, seat: int, n_players: int,
                     team_of: np.ndarray, suit_of: np.ndarray, strength: np.ndarray,
                     points: np.ndarray, trump: int, win_min_points: int) -> int:
    """Second-or-later card of a trick: load points on a winning partner; otherwise win as
    cheaply as possible when the trick is worth it (or nobody plays after us); otherwise
    shed the cheapest card."""
    win = winner_index(cards, n, suit_of, strength, trump)
    if win >= 0 and team_of[seats[win]] == team_of[seat]:
        return richest(hand, n_hand, legal, suit_of, strength, points, trump)
    w = cheapest_winner(hand, n_hand, legal, cards, n, suit_of, strength, points, trump)
    if w >= 0:
        last = n == n_players - 1
        on_table = card_points(cards, n, points)
        if last or on_table + points[hand[w]] >= win_min_points:
            return w
    return cheapest(hand, n_hand, legal, suit_of, strength, points, trump)


@hot
def is_master(card: int, gone: np.ndarray, hand: np.ndarray, n_hand: int,
              strength: np.ndarray, suit_lo: int, suit_hi: int) -> bool:
    """No card of the same suit still unseen by this player (not played, not in hand) ranks
    higher. ``gone[c]`` is nonzero for cards already played; the suit's cards are ids
    ``suit_lo .. suit_hi - 1`` (decks are suit-major)."""
    for c in range(suit_lo, suit_hi):
        if strength[c] > strength[card] and not gone[c]:
            mine = False
            for i in range(n_hand):
                if hand[i] == c:
                    mine = True
                    break
            if not mine:
                return False
    return True


@hot
def remove_slot(hand: np.ndarray, n_hand: int, slot: int) -> int:
    """Remove ``hand[slot]`` keeping the other cards' order; returns the new size."""
    for i in range(slot, n_hand - 1):
        hand[i] = hand[i + 1]
    return n_hand - 1
