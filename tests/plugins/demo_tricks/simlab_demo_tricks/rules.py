"""Demo tricks rules: the deck, the knobs, and the game as a state and a step.

A small trick-taking game (edit it into yours):

* a 32-card pack (7 8 9 10 J Q K A in ♠ ♥ ♦ ♣, Ace high); each of ``players`` seats gets
  ``hand_size`` cards; with ``trumps`` the next card is turned up and its suit is trump
  (the turned card stays out of play);
* the seat left of the dealer (dealer + 1) leads the first trick; each seat must follow
  the suit led if it can, otherwise it may play any card;
* the highest trump wins the trick, or, without a trump in it, the highest card of the
  suit led; the trick's winner leads the next;
* each trick scores 1 point to its winner, and the last trick ``last_trick_bonus`` more.

The state-and-step contract: ``deal`` makes a ``State``, ``legal_moves`` lists the cards the
seat to play may play, ``apply`` plays one (a new ``State``), ``is_over`` / ``outcome``
end it, and ``view`` is what one seat sees (its own hand, the turned card, every card
played so far): the players decide from a ``SeatView`` only, never from a ``State``.

May import: simlab.engine.*, numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from simlab.engine.decks import CardKind, Deck
from simlab.engine.game import BOOL, Column
from simlab.engine.knobs import Knobs, SimlabError, knob

# --- deck ------------------------------------------------------------------------------
SUITS = ("♠", "♥", "♦", "♣")
RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")  # low to high
DECK = Deck("32_demo_tricks",
            "a 32-card pack, 7 to Ace in four suits (Demo tricks)",
            tuple(CardKind(s, r, f"{r}{SUITS[s]}") for s in range(4) for r in RANKS))
N_CARDS = 32


def suit_of(card: int) -> int:
    return card // 8


def rank_of(card: int) -> int:
    """0 (a 7) .. 7 (an Ace)."""
    return card % 8


def label(card: int) -> str:
    return DECK.labels[card]


def card(text: str) -> int:
    """The card id of a label such as ``"A♠"`` (tests and hand-built positions)."""
    return DECK.index(text)


# --- knobs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class GameKnobs(Knobs):
    players: int = knob(3, "number of players", lo=2, hi=4)
    hand_size: int = knob(5, "cards dealt to each player (= tricks per deal)", lo=1, hi=8)
    trumps: bool = knob(True, "the card after the hands is turned up and its suit is trump "
                        "(false: no trump suit)")
    last_trick_bonus: int = knob(1, "extra points for winning the last trick", lo=0, hi=5)
    target: int = knob(15, "a match ends after the deal in which a player reaches this many "
                       "points (the most points wins; equal tops play another deal)",
                       lo=1, hi=200)

    def check(self) -> None:
        if self.players * self.hand_size + 1 > N_CARDS:
            raise SimlabError(f"players * hand_size + 1 (the turned card) must be at most "
                              f"{N_CARDS}; got {self.players} * {self.hand_size} + 1")


# --- the state and the step ------------------------------------------------------------
@dataclass(frozen=True)
class State:
    players: int
    dealer: int
    trump: int  # suit index, -1 = no trump
    turned: int  # the turned-up card, -1 = none
    hands: tuple[frozenset[int], ...]
    to_play: int
    trick: tuple[tuple[int, int], ...]  # (seat, card) of the trick in progress, in order
    tricks: tuple[tuple[tuple[int, int], ...], ...]  # finished tricks, in order
    winners: tuple[int, ...]  # winner of each finished trick
    last_trick_bonus: int


def deal(knobs: GameKnobs, rng: np.random.Generator, dealer: int) -> State:
    """Shuffle with ``rng`` and deal ``hand_size`` cards to each seat, starting left of the
    dealer; with trumps, turn up the next card."""
    order = rng.permutation(N_CARDS)
    n, k = knobs.players, knobs.hand_size
    hands = [frozenset()] * n
    for i in range(n):
        seat = (dealer + 1 + i) % n
        hands[seat] = frozenset(int(c) for c in order[i * k:(i + 1) * k])
    turned = int(order[n * k]) if knobs.trumps else -1
    return position(knobs, hands, dealer, turned)


def position(knobs: GameKnobs, hands: list[frozenset[int]] | list[set[int]], dealer: int,
             turned: int = -1) -> State:
    """A hand-built start of a deal (tests): these hands, this dealer, this turned card."""
    return State(players=knobs.players, dealer=dealer,
                 trump=suit_of(turned) if turned >= 0 else -1, turned=turned,
                 hands=tuple(frozenset(h) for h in hands), to_play=(dealer + 1) % knobs.players,
                 trick=(), tricks=(), winners=(), last_trick_bonus=knobs.last_trick_bonus)


def legal_moves(state: State) -> list[int]:
    """The cards the seat to play may play, lowest id first: the suit led if it holds one,
    else any card."""
    hand = state.hands[state.to_play]
    if state.trick:
        led = suit_of(state.trick[0][1])
        follow = [c for c in hand if suit_of(c) == led]
        if follow:
            return sorted(follow)
    return sorted(hand)


def trick_winner(trick: tuple[tuple[int, int], ...], trump: int) -> int:
    """The seat that wins a full trick: the highest trump, else the highest of the suit led."""
    led = suit_of(trick[0][1])

    def strength(play: tuple[int, int]) -> int:
        c = play[1]
        if suit_of(c) == trump:
            return 100 + rank_of(c)
        return rank_of(c) if suit_of(c) == led else -1

    return max(trick, key=strength)[0]


def apply(state: State, move: int) -> State:
    """The state after the seat to play plays ``move`` (which must be legal)."""
    seat = state.to_play
    if move not in legal_moves(state):
        raise ValueError(f"seat {seat} cannot play {label(move)}")
    hands = tuple(h - {move} if i == seat else h for i, h in enumerate(state.hands))
    trick = (*state.trick, (seat, move))
    if len(trick) < state.players:
        return replace(state, hands=hands, trick=trick, to_play=(seat + 1) % state.players)
    winner = trick_winner(trick, state.trump)
    return replace(state, hands=hands, trick=(), tricks=(*state.tricks, trick),
                   winners=(*state.winners, winner), to_play=winner)


def is_over(state: State) -> bool:
    return not state.trick and not any(state.hands)


def outcome(state: State) -> list[int]:
    """Each seat's points: one per trick won, plus the last-trick bonus."""
    points = [0] * state.players
    for w in state.winners:
        points[w] += 1
    if state.winners:
        points[state.winners[-1]] += state.last_trick_bonus
    return points


# --- what a seat sees ------------------------------------------------------------------
@dataclass(frozen=True)
class SeatView:
    seat: int
    players: int
    dealer: int
    trump: int
    turned: int
    hand: frozenset[int]
    to_play: int
    trick: tuple[tuple[int, int], ...]
    tricks: tuple[tuple[tuple[int, int], ...], ...]
    winners: tuple[int, ...]
    last_trick_bonus: int
    hand_sizes: tuple[int, ...]  # cards left in every hand (public: everybody counts)

    def played(self) -> set[int]:
        return {c for t in (*self.tricks, self.trick) for _, c in t}

    def voids(self) -> list[set[int]]:
        """Suits each seat has shown it lacks (it did not follow them)."""
        out: list[set[int]] = [set() for _ in range(self.players)]
        for t in (*self.tricks, self.trick):
            if t:
                led = suit_of(t[0][1])
                for s, c in t[1:]:
                    if suit_of(c) != led:
                        out[s].add(led)
        return out


def view(state: State, seat: int) -> SeatView:
    """What ``seat`` sees: its own hand and everything public, never another hand."""
    return SeatView(seat=seat, players=state.players, dealer=state.dealer, trump=state.trump,
                    turned=state.turned, hand=state.hands[seat], to_play=state.to_play,
                    trick=state.trick, tricks=state.tricks, winners=state.winners,
                    last_trick_bonus=state.last_trick_bonus,
                    hand_sizes=tuple(len(h) for h in state.hands))


def legal_in_view(v: SeatView) -> list[int]:
    """The seat's legal moves, from its own view (the same as ``legal_moves``)."""
    if v.trick:
        led = suit_of(v.trick[0][1])
        follow = [c for c in v.hand if suit_of(c) == led]
        if follow:
            return sorted(follow)
    return sorted(v.hand)


def sample_state(v: SeatView, rng: np.random.Generator, tries: int = 1000) -> State:
    """A full state consistent with what seat ``v.seat`` sees: the unseen cards dealt to
    the other seats (as many as each holds), none of a suit a seat has shown it lacks.
    Rejection sampling (uniform over the consistent deals), then a most-constrained-first
    deal if rejection keeps failing."""
    unseen = sorted(set(range(N_CARDS)) - set(v.hand) - v.played() - {v.turned})
    others = [s for s in range(v.players) if s != v.seat]
    voids = v.voids()
    allowed = {s: [c for c in unseen if suit_of(c) not in voids[s]] for s in others}
    hands: dict[int, frozenset[int]] = {}
    for _ in range(tries):
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        at, ok = 0, True
        for s in others:
            take = order[at:at + v.hand_sizes[s]]
            at += v.hand_sizes[s]
            if any(suit_of(c) in voids[s] for c in take):
                ok = False
                break
            hands[s] = frozenset(take)
        if ok:
            break
    else:
        left = set(unseen)
        for s in sorted(others, key=lambda s: len(allowed[s])):
            pool = sorted(c for c in allowed[s] if c in left)
            if len(pool) < v.hand_sizes[s]:
                raise RuntimeError("no deal is consistent with this view")
            pick = [pool[i] for i in rng.choice(len(pool), v.hand_sizes[s], replace=False)]
            hands[s] = frozenset(pick)
            left -= set(pick)
    hands[v.seat] = v.hand
    return State(players=v.players, dealer=v.dealer, trump=v.trump, turned=v.turned,
                 hands=tuple(hands[s] for s in range(v.players)), to_play=v.to_play,
                 trick=v.trick, tricks=v.tricks, winners=v.winners,
                 last_trick_bonus=v.last_trick_bonus)


# --- result columns --------------------------------------------------------------------
def deal_columns(knobs: GameKnobs) -> list[Column]:
    return ([Column("deal", help="deal index in the run (its random stream)"),
             Column("dealer", help="seat that dealt"),
             Column("leader", help="seat that led the first trick (left of the dealer)"),
             Column("trump", SUITS, help="trump suit (null without trumps)"),
             Column("trump_lead", BOOL, help="the first trick was led with a trump"),
             Column("last_trick", help="seat that won the last trick")]
            + [Column(f"score_s{i}", help=f"points of seat {i} this deal")
               for i in range(knobs.players)])


def match_columns(knobs: GameKnobs) -> list[Column]:
    return ([Column("match", help="match index in the run (its random stream)"),
             Column("winner", help="seat with the most points at the end"),
             Column("n_deals", help="deals played")]
            + [Column(f"score_s{i}", help=f"points of seat {i} over the match")
               for i in range(knobs.players)])
