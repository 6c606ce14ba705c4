"""Sept rules: deck and tables, knobs, result columns, the state of a deal and its moves,
the deal, the variable-length trick, the refill from the stock, scoring (seed 000 "Sept",
lines 761-819; catalogue ``sept.md``).

Read top to bottom like the rulebook. The players (heuristic, random, search) are in
``players.py``, the batch kernels and the match in ``kernels.py``, the balance questions
in ``questions.py``.

Two seats, 0 and 1; the non-dealer is ``1 - dealer`` and leads the first trick. Cards
have no order and suits do not matter: a trick is won by the last player to have played
a card of the *target rank* (the rank of the card that opened the trick) or a 7.

A deal is a small int64 vector (``S_*`` slots below) with hands and card sets as 32-bit
masks. A move is a card id (0..31) or ``STOP`` (the leader ends the trick). The phases of
a trick: ``P_LEAD`` (the leader opens), ``P_REPLY`` (the follower answers with any card),
``P_DECIDE`` (the leader stops, or continues with a target-rank card or a 7, and the
follower answers again). ``legal_moves`` lists what the seat to move (``to_move``) may
do, ``apply_move`` does it; the phase becomes ``P_DONE`` after the deal's last trick and
``score_deal`` scores it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, lowest

# --- deck and tables ----------------------------------------------------------------
# 32 cards, card id = suit * 8 + r with r = 0..7 for 7, 8, 9, 10, J, Q, K, A.
DECK = get_deck("32")
N_CARDS = 32
PLAYERS = 2
R7, R8, R9, R10, RJ, RQ, RK, RA = range(8)
RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)


def _rank_masks() -> np.ndarray:
    out = np.zeros(8, dtype=np.uint64)
    for c in range(N_CARDS):
        out[c % 8] |= np.uint64(1 << c)
    return out


RANK_MASK = _rank_masks()  # RANK_MASK[r]: the four cards of rank r
# §3 "Les 10 et les As valent 10 points chacun, les autres cartes n'ont pas de valeur."
COUNTING_MASK = RANK_MASK[R10] | RANK_MASK[RA]
N_COUNTING = 8  # 10s and Aces in the pack
STOP = N_CARDS  # the move "the leader stops the trick"
NO_RANK = -1


@hot
def rank_of(c: int) -> int:
    return c % 8


# --- knobs --------------------------------------------------------------------------
WILD_CHOICES = ("7", "8", "9", "10", "J", "Q", "K", "A", "none")
DEALER_RULES = ("loser", "alternate", "winner")


@dataclass(frozen=True)
class SeptKnobs(Knobs):
    hand_size: int = knob(4, "cards in each hand, dealt two at a time and refilled from the "
                          "stock after every trick (seed: 4)", lo=1, hi=8)
    wild_rank: str = knob("7", "the wild rank: a card of it wins a trick like a card of the "
                          "target rank (seed: the 7s; none: no wild card)", choices=WILD_CHOICES)
    card_value: int = knob(10, "points of each 10 and each Ace (seed: 10, 80 in the pack)",
                           lo=1, hi=1000)
    last_trick_bonus: int = knob(10, "points for winning the deal's last trick (seed: 10, "
                                 "making 90 in all; an even total allows ties, then nobody "
                                 "marks)", lo=0, hi=1000)
    score_all_cards: int = knob(3, "marked by a player who won every card (the opponent won "
                                "no trick)", lo=1, hi=1000)
    score_all_points: int = knob(2, "otherwise, marked by a player who won all the points "
                                 "(90 with the seed's values)", lo=1, hi=1000)
    score_more_points: int = knob(1, "otherwise, marked by the player with more points",
                                  lo=1, hi=1000)
    target: int = knob(10, "the first player to reach this total wins the match", lo=1,
                       hi=100000)
    dealer_rule: str = knob("loser", "match: who deals the next deal: the loser of the last "
                            "one (seed), its winner, or the players in turn (alternate); "
                            "after a tie the same dealer deals again", choices=DEALER_RULES)
    max_deals: int = knob(1000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    # heuristic policy (players.py)
    capture_min: int = knob(10, "heuristic: the follower takes the trick (with a target-rank "
                            "card or a 7) when it holds at least this many points, counting "
                            "the last-trick bonus when the answer ends the deal", lo=0,
                            hi=100000, policy=True)
    continue_min: int = knob(10, "heuristic: a leader whose trick was taken always takes it "
                             "back with a target-rank card, and with a 7 while the stock "
                             "lasts as stock_wild_min says; once it is out, with a 7 only when the trick holds at "
                             "least this many points or the follower (whose hand is then "
                             "known) cannot take it again", lo=0, hi=100000, policy=True)
    # 0 (issue 32): search valued stopping a pointless trick the follower took over taking
    # it back with a 7 while the stock lasts at +6.0 +- 1.4 (marks x 91 + points) on 1,170
    # such chances (3,000 heuristic deals, 64 worlds x 2 stock orders), but 10 (stop
    # there) loses 0.024 [0.023, 0.025] marks a deal against 0 in duplicate (200,000
    # deals, seed 99).
    stock_wild_min: int = knob(0, "heuristic: while the stock lasts, a leader whose trick "
                               "was taken takes it back with a 7 (having no target-rank "
                               "card) only when it holds at least this many points (0: "
                               "always)", lo=0, hi=100000, policy=True)
    take_pointless: bool = knob(True, "heuristic: the follower also takes a trick without "
                                "points when it can with a worthless target-rank card (not a "
                                "7): the same card it would throw, and it wins the lead",
                                policy=True)
    # search policy (players.py)
    search_worlds: int = search.worlds_knob(32)
    search_rollouts: int = knob(1, "search player: stock orders played out per world (the "
                                "opponent's hand is drawn once per world, the stock reshuffled "
                                "for each rollout)", lo=1, hi=1000, policy=True)
    search_caution: float = knob(2.0, "search player: another move replaces the heuristic's "
                                 "only when its mean gain over it, less this many standard "
                                 "errors of that gain (paired over the worlds), is positive; "
                                 "0 = plain best mean", lo=0.0, hi=10.0, policy=True)


# Knob vector layout for the kernels (plain ints keep the kernels' signature stable).
(K_HAND, K_WILD, K_CARD_VALUE, K_LAST_BONUS, K_SCORE_ALL_CARDS, K_SCORE_ALL_POINTS,
 K_SCORE_MORE, K_TARGET, K_DEALER_RULE, K_MAX_DEALS, K_CAPTURE_MIN, K_CONTINUE_MIN, K_WORLDS,
 K_ROLLOUTS, K_TAKE_POINTLESS, K_CAUTION_MILLI, K_STOCK_WILD_MIN, N_K) = range(18)
DR_LOSER, DR_ALTERNATE, DR_WINNER = range(3)


def _vector(k: SeptKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[K_HAND] = k.hand_size
    v[K_WILD] = NO_RANK if k.wild_rank == "none" else RANK_NAMES.index(k.wild_rank)
    v[K_CARD_VALUE] = k.card_value
    v[K_LAST_BONUS] = k.last_trick_bonus
    v[K_SCORE_ALL_CARDS] = k.score_all_cards
    v[K_SCORE_ALL_POINTS] = k.score_all_points
    v[K_SCORE_MORE] = k.score_more_points
    v[K_TARGET] = k.target
    v[K_DEALER_RULE] = DEALER_RULES.index(k.dealer_rule)
    v[K_MAX_DEALS] = k.max_deals
    v[K_CAPTURE_MIN] = k.capture_min
    v[K_CONTINUE_MIN] = k.continue_min
    v[K_WORLDS] = k.search_worlds
    v[K_ROLLOUTS] = k.search_rollouts
    v[K_TAKE_POINTLESS] = k.take_pointless
    v[K_CAUTION_MILLI] = round(k.search_caution * 1000)
    v[K_STOCK_WILD_MIN] = k.stock_wild_min
    return v


@hot
def deal_total(kv: np.ndarray) -> int:
    """Points in a deal: §3 "ce qui porte le nombre de points contenus dans le jeu à un
    total de 90 points" (8 x 10 + 10 for the last trick)."""
    return N_COUNTING * kv[K_CARD_VALUE] + kv[K_LAST_BONUS]


# --- result columns -----------------------------------------------------------------
OUTCOMES = ("more points", "all points", "all cards")
O_MORE, O_ALL_POINTS, O_ALL_CARDS = range(3)
(C_DEAL, C_DEALER, C_SCORE, C_POINTS, C_TRICKS, C_CARDS_WON, C_WINNER, C_OUTCOME,
 C_LEADER_WON, C_LAST_TRICK, C_N_TRICKS, C_LONGEST, C_CONTINUES, C_ANSWER_CHANCES,
 C_ANSWERS, C_WILDS) = (0, 1, 2, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
N_DEAL_COLS = 21


def deal_columns(_: SeptKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer", help="the non-dealer (1 - dealer) leads first")]
    cols += [Column(f"score_s{i}", help="points the seat marks this deal (3 / 2 / 1 by "
                    "default, 0 for the loser)") for i in range(2)]
    cols += [Column(f"points_s{i}", help="card points won, last-trick bonus included "
                    "(90 in all by default)") for i in range(2)]
    cols += [Column(f"tricks_s{i}", help="tricks won") for i in range(2)]
    cols += [Column(f"cards_won_s{i}", help="cards in the tricks won") for i in range(2)]
    cols += [Column("winner", help="the seat that marks, -1 on a tie (only possible with an "
                    "even deal total)"),
             Column("outcome", OUTCOMES, help="how the winner scored: more points (1), all "
                    "the points (2), all the cards (3); null on a tie"),
             Column("leader_won", OPT_BOOL, help="the non-dealer (first leader) won the deal; "
                    "null on a tie"),
             Column("last_trick_winner", help="seat winning the deal's last trick"),
             Column("n_tricks", help="tricks played"),
             Column("longest_trick", help="most cards a player put into one trick"),
             Column("continues", help="times a leader continued a trick (both seats)"),
             Column("answer_chances", help="times a leader, its trick just taken by the "
                    "follower, held a target-rank card or a 7"),
             Column("answers", help="of these, times it continued (took the trick back)")]
    cols += [Column(f"wilds_s{i}", help="wild cards (7s) among the seat's first cards")
             for i in range(2)]
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST, M_WINNER, M_N_DEALS, M_FINAL, M_N_TIES, M_REPEATS, M_REPEAT_CHANCES,
 M_SECOND_REPEAT, M_FIRST_DEAL_WINNER_WON, M_LEADER_WINS, M_CAPPED) = (
    0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12)
N_MATCH_COLS = 13


def match_columns(_: SeptKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat 0/1, -1 if capped"), Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(2)]
    cols += [Column("n_ties", help="tied deals (nobody marks; only with an even deal total)"),
             Column("repeat_wins", help="deals won by the winner of the deal before"),
             Column("repeat_chances", help="deals following a won deal, themselves won by "
                    "somebody (the base of repeat_wins)"),
             Column("second_deal_repeat", OPT_BOOL, help="the first deal's winner also won "
                    "the second; null if either was tied or the match had one deal"),
             Column("first_deal_winner_won", BOOL, help="the match went to the first deal's "
                    "winner"),
             Column("leader_wins", help="deals won by their first leader (the non-dealer)"),
             Column("capped", BOOL)]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- the state of a deal ----------------------------------------------------------------
P_LEAD, P_REPLY, P_DECIDE, P_DONE = range(4)
MAX_HAND = 8  # the hand_size knob's upper bound
MAX_MOVES = MAX_HAND + 1  # a hand's cards, or STOP
(S_PHASE, S_DEALER, S_TO_MOVE, S_PLY, S_LEADER, S_TARGET, S_HOLDER, S_TABLE, S_TABLE_PTS,
 S_N_TABLE, S_TRICK, S_STOCK_POS, S_GONE, S_LAST_WINNER, S_LONGEST, S_CONTINUES,
 S_ANSWER_CHANCES, S_ANSWERS) = range(18)
S_HAND = 18  # 2 slots: each seat's hand (card mask)
S_TRICKS = 20  # 2 slots: tricks won per seat
S_PTS = 22  # 2 slots: points won per seat (cards, then the last-trick bonus)
S_WON = 24  # 2 slots: cards won per seat
S_WILDS = 26  # 2 slots: wild cards among each seat's first cards
S_DECK = 28  # 32 slots: the pack, top card first; the stock is its undealt tail
N_STATE = 60


@hot
def hand_of(state: np.ndarray, p: int) -> np.uint64:
    return np.uint64(state[S_HAND + p])


@hot
def wild_mask(kv: np.ndarray) -> np.uint64:
    w = kv[K_WILD]
    return EMPTY if w < 0 else RANK_MASK[w]


@hot
def stock_left(state: np.ndarray) -> int:
    return N_CARDS - state[S_STOCK_POS]


@hot
def card_points(c: int, kv: np.ndarray) -> int:
    return kv[K_CARD_VALUE] if COUNTING_MASK >> np.uint64(c) & ONE else 0


# §4 "Le donneur donne 4 cartes à chaque joueur, deux par deux. Le reste des cartes, faces
# cachées, constitue la pile de pioche." The first packet goes to the non-dealer (the
# usual order; the seed does not say, and a uniform shuffle makes it immaterial).
PACKET = 2


@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, kv: np.ndarray,
         dealt: np.ndarray) -> None:
    """Deal ``kv[K_HAND]`` cards each, two at a time, the non-dealer first, from ``deck``
    (top card first); the rest is the stock. ``dealt[p]``: the seat's cards in dealing
    order. §5 "C'est l'adversaire du donneur qui a la main au départ"."""
    for i in range(N_STATE):
        state[i] = 0
    hand = kv[K_HAND]
    wilds = wild_mask(kv)
    state[S_DEALER] = dealer
    for i in range(N_CARDS):
        state[S_DECK + i] = deck[i]
    pos = 0
    for packet in range((hand + PACKET - 1) // PACKET):
        for k in range(2):
            p = (dealer + 1 + k) % 2
            for i in range(packet * PACKET, min(hand, (packet + 1) * PACKET)):
                c = deck[pos]
                pos += 1
                dealt[p, i] = c
                state[S_HAND + p] = np.int64(hand_of(state, p) | bit(c))
    for p in range(2):
        state[S_WILDS + p] = count(hand_of(state, p) & wilds)
    state[S_STOCK_POS] = pos
    leader = (dealer + 1) % 2
    state[S_PHASE] = P_LEAD
    state[S_LEADER] = leader
    state[S_TO_MOVE] = leader
    state[S_TARGET] = NO_RANK
    state[S_HOLDER] = -1
    state[S_LAST_WINNER] = -1


# --- the trick -----------------------------------------------------------------------------
@hot
def matching(state: np.ndarray, kv: np.ndarray) -> np.uint64:
    """The cards that win the trick now: §5 "une carte du même rang que la première carte
    qui a entamé le pli, ou ... un 7" (the wild rank, knob ``wild_rank``). When the lead is
    a 7 the target rank is 7 (catalogue ambiguity 3)."""
    return RANK_MASK[state[S_TARGET]] | wild_mask(kv)


@hot
def legal_cards_now(state: np.ndarray, kv: np.ndarray) -> np.uint64:
    """The cards the seat to move may play (a mask): any card to open the trick or to
    answer (§5 "n'importe laquelle"); to continue, only a target-rank card or a 7 (§5
    "il doit alors jouer une carte du même rang ... ou un 7")."""
    ph = state[S_PHASE]
    if ph == P_DONE:
        return EMPTY
    h = hand_of(state, state[S_TO_MOVE])
    if ph == P_DECIDE:
        return h & matching(state, kv)
    return h


@hot
def can_stop(state: np.ndarray) -> bool:
    """Only the leader, after each answer, may stop; without a card to continue he must
    (catalogue ambiguity 2)."""
    return state[S_PHASE] == P_DECIDE


@hot
def to_move(state: np.ndarray) -> int:
    """The seat to play, -1 when the deal is over."""
    return -1 if state[S_PHASE] == P_DONE else state[S_TO_MOVE]


@hot
def legal_moves(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """The legal moves of the seat to move: ``STOP`` first when it may stop, then its legal
    cards ascending; returns how many."""
    n = 0
    if can_stop(state):
        out[0] = STOP
        n = 1
    m = legal_cards_now(state, kv)
    while m != EMPTY:
        out[n] = lowest(m)
        m &= m - ONE
        n += 1
    return n


@hot
def put_on_table(state: np.ndarray, c: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    state[S_HAND + p] = np.int64(hand_of(state, p) & ~bit(c))
    state[S_TABLE] = np.int64(np.uint64(state[S_TABLE]) | bit(c))
    state[S_TABLE_PTS] += card_points(c, kv)
    state[S_N_TABLE] += 1


@hot
def apply_move(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    """The seat to move plays ``move`` (a legal card, or ``STOP``)."""
    ph = state[S_PHASE]
    leader = state[S_LEADER]
    follower = 1 - leader
    if ph == P_DECIDE and state[S_HOLDER] == follower and \
            hand_of(state, leader) & matching(state, kv) != EMPTY:
        state[S_ANSWER_CHANCES] += 1  # the leader could take his trick back
    if ph == P_DECIDE and move == STOP:
        state[S_PLY] += 1
        end_trick(state, kv)
        return
    put_on_table(state, move, kv)
    state[S_PLY] += 1
    if ph == P_LEAD:
        # §5 "Le joueur qui a la main joue une de ses cartes": its rank is the target
        state[S_TARGET] = rank_of(move)
        state[S_HOLDER] = leader  # the lead card counts as a target-rank card
        state[S_PHASE] = P_REPLY
        state[S_TO_MOVE] = follower
        return
    if ph == P_DECIDE:
        # §5 continuer: "il doit alors jouer une carte du même rang ... ou un 7"
        if state[S_HOLDER] == follower:
            state[S_ANSWERS] += 1
        state[S_CONTINUES] += 1
        state[S_HOLDER] = leader
        state[S_PHASE] = P_REPLY
        state[S_TO_MOVE] = follower
        return
    # P_REPLY: "Son adversaire répond en jouant également une de ses cartes, n'importe
    # laquelle"; a target-rank card or a 7 takes the trick for now.
    if bit(move) & matching(state, kv) != EMPTY:
        state[S_HOLDER] = follower
    rounds = state[S_N_TABLE] // 2
    if rounds > state[S_LONGEST]:
        state[S_LONGEST] = rounds
    # "Le pli s'arrête ... quand chaque joueur a épuisé sa main" (hands are always equal)
    if hand_of(state, leader) == EMPTY:
        end_trick(state, kv)
        return
    state[S_PHASE] = P_DECIDE
    state[S_TO_MOVE] = leader


@hot
def end_trick(state: np.ndarray, kv: np.ndarray) -> None:
    """§5 "le pli est gagné par le joueur qui a joué en dernier une carte du même rang que
    la première carte ... ou ... un 7" (``S_HOLDER``). The winner sets the cards aside,
    both refill from the stock (``refill``), the winner leads. The trick that empties
    both hands and the stock is the deal's last: §3 "Le dernier pli rapporte 10 points"."""
    w = state[S_HOLDER]
    state[S_TRICKS + w] += 1
    state[S_PTS + w] += state[S_TABLE_PTS]
    state[S_WON + w] += state[S_N_TABLE]
    state[S_GONE] = np.int64(np.uint64(state[S_GONE]) | np.uint64(state[S_TABLE]))
    state[S_TRICK] += 1
    state[S_TABLE] = 0
    state[S_TABLE_PTS] = 0
    state[S_N_TABLE] = 0
    state[S_TARGET] = NO_RANK
    state[S_HOLDER] = -1
    if hand_of(state, 0) == EMPTY and stock_left(state) == 0:
        state[S_PTS + w] += kv[K_LAST_BONUS]
        state[S_LAST_WINNER] = w
        state[S_PHASE] = P_DONE
        state[S_TO_MOVE] = -1
        return
    refill(state, w, kv)
    state[S_LEADER] = w
    state[S_TO_MOVE] = w
    state[S_PHASE] = P_LEAD


@hot
def refill(state: np.ndarray, winner: int, kv: np.ndarray) -> None:
    """§5 "les joueurs reconstituent leur main de 4 cartes en piochant l'un après l'autre
    dans la pile de pioche, une carte à la fois, en commençant par le gagnant du pli".
    Both hands hold as many cards and the stock is even, so both get as many cards
    (catalogue ambiguity 5); once the stock is out, play goes on without drawing."""
    hand = kv[K_HAND]
    pos = state[S_STOCK_POS]
    while pos < N_CARDS and count(hand_of(state, winner)) < hand:
        for k in range(2):
            p = (winner + k) % 2
            if pos < N_CARDS and count(hand_of(state, p)) < hand:
                state[S_HAND + p] = np.int64(hand_of(state, p) | bit(state[S_DECK + pos]))
                pos += 1
    state[S_STOCK_POS] = pos


# --- scoring -----------------------------------------------------------------------------------
@hot
def score_deal(points0: int, points1: int, tricks0: int, tricks1: int, kv: np.ndarray
               ) -> tuple[int, int, int, int]:
    """(winner, outcome, marked by seat 0, marked by seat 1), §6:

    * "Si un joueur a remporté toutes les cartes, il marque 3 points" — the opponent won
      no trick (catalogue ambiguity 1: all 32 cards in one pile);
    * "sinon, si un joueur a remporté 90 points, il marque 2 points" — all the deal's
      points, the opponent none;
    * "sinon le joueur qui a remporté le plus de points marque 1 point".

    90 is odd in units of 10, so the seed's deal never ties; with an even total (knobs)
    a tie marks nothing: winner -1, outcome -1."""
    if tricks1 == 0 or tricks0 == 0:
        w = 0 if tricks1 == 0 else 1
        o = O_ALL_CARDS
        mark = kv[K_SCORE_ALL_CARDS]
    elif points1 == 0 or points0 == 0:
        w = 0 if points1 == 0 else 1
        o = O_ALL_POINTS
        mark = kv[K_SCORE_ALL_POINTS]
    elif points0 != points1:
        w = 0 if points0 > points1 else 1
        o = O_MORE
        mark = kv[K_SCORE_MORE]
    else:
        return -1, -1, 0, 0
    return w, o, mark if w == 0 else 0, mark if w == 1 else 0


@hot
def deal_result(state: np.ndarray, kv: np.ndarray) -> tuple[int, int, int, int]:
    """``score_deal`` of a finished deal."""
    return score_deal(state[S_PTS], state[S_PTS + 1], state[S_TRICKS], state[S_TRICKS + 1], kv)


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """Deal columns from C_SCORE on, for a finished deal."""
    w, o, mark0, mark1 = deal_result(state, kv)
    row[C_SCORE] = mark0
    row[C_SCORE + 1] = mark1
    for p in range(2):
        row[C_POINTS + p] = state[S_PTS + p]
        row[C_TRICKS + p] = state[S_TRICKS + p]
        row[C_CARDS_WON + p] = state[S_WON + p]
        row[C_WILDS + p] = state[S_WILDS + p]
    row[C_WINNER] = w
    row[C_OUTCOME] = o
    row[C_LEADER_WON] = -1 if w < 0 else (1 if w == 1 - state[S_DEALER] else 0)
    row[C_LAST_TRICK] = state[S_LAST_WINNER]
    row[C_N_TRICKS] = state[S_TRICK]
    row[C_LONGEST] = state[S_LONGEST]
    row[C_CONTINUES] = state[S_CONTINUES]
    row[C_ANSWER_CHANCES] = state[S_ANSWER_CHANCES]
    row[C_ANSWERS] = state[S_ANSWERS]
