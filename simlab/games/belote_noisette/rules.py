"""Belote Noisette rules: deck and tables, knobs, result columns, the state of a deal and
its moves, the hazelnut economy, scoring of a deal, of a manche and of the match
(seed 000 "# Belote Noisette", lines 967-1103; catalogue ``belote_noisette.md``).

Read top to bottom like the rulebook (seed section numbers in the headings). Who decides
what (heuristic, random, search) is in ``players.py``; the batch kernels in
``kernels.py``; the balance questions in ``questions.py``.

Seats 0..2 clockwise; the player on the dealer's left is ``dealer + 1`` (mod 3): he speaks
first and is the forced taker. A deal is a small int64 vector (``S_*`` slots below) with
hands and card sets as 24-bit masks; its moves are card ids (0..23) and the bids ``PASS``
and ``NAME + suit``. ``legal_moves`` lists what the player to move may do, ``apply_move``
does it; when the eighth trick is gathered the deal is settled (``settle``: the pot's
hazelnuts are paid out) and the phase becomes ``P_DONE``.

Where the seed is silent or contradicts itself, the catalogue's resolutions are the
defaults: the plain-suit order (knob ``plain_ten``; ``below_jack`` is the seed as
printed), the defenders as partners for the trumping obligation (``defenders_partners``),
overtrumping on a trump lead, ties (a taker level with an opponent loses; opponents level
in a partial win take nothing, ``tied_opponents``; ``partial_tie``), the manche's end
checked after the payouts. The belote is announced at its holder's choice, as printed
("il peut choisir d'annoncer", ``belote_announce``): a move of its own. No place was found where the catalogue misreads
the seed. Deal rows are independent deals, each the first of a manche (10 hazelnuts each,
an empty pot); match rows play manches with the hazelnuts and the pot carried over.

Card order, card points and the trick rules are Belote's: the tables are imported from
``simlab.games.belote`` (the 24-card pack is the 32-card pack without clubs, card ids
0..23 are the same cards) and the obligations of play are ``simlab.mechanics.tricks.legal_cards``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import SUITS, get_deck
from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.games.belote.rules import DECK as BELOTE_DECK
from simlab.games.belote.rules import RK, RQ, STRENGTH_PLAIN, STRENGTH_TRUMP, point_tables
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    PARTNER_ANY,
    PARTNER_NEVER,
    R_PARTNER_EXEMPT,
    TrickTables,
    bit,
    cards_of,
    count,
    has,
    legal_cards,
    make_rules,
    partner_winning,
    trick_tables,
    update_trick,
)

# --- §1 Matériel: 32 cards less one suit = 24 cards; 30 hazelnuts; a pot ---------------
# Card id = suit * 8 + r, r = 0..7 for 7, 8, 9, 10, J, Q, K, A; suits ♠ ♥ ♦ (clubs removed:
# "on enlève une couleur", which one does not matter).
DECK = get_deck("24_noisette")
N_CARDS = 24
N_SUITS = 3
N_PLAYERS = 3
HAND = 8  # 24 cards / 3 players; every hand is completed to 8 cards (§5)
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
assert BELOTE_DECK.labels[:N_CARDS] == DECK.labels  # Belote's tables apply card by card

# --- §3 Ordre et valeur des cartes: "les mêmes qu'à la belote" ------------------------
# Trump J > 9 > A > 10 > K > Q > 8 > 7; plain A > 10 > K > Q > J > 9 > 8 > 7 (catalogue
# ambiguity 1: the seed's 6-rank lists omit 7 and 8 and misplace the plain 10, against its
# own "order and value are consistent" and 132-point total; Belote's order is the reading
# that fits both; knob ``plain_ten`` reproduces the printed plain order). Points: J 20 / 2,
# 9 14 / 0, A 11, 10 10, K 4, Q 3, 8 and 7 0.
PTS_TRUMP, PTS_PLAIN = (t[:N_CARDS] for t in point_tables(3))
# §3.3 "132 points dans le jeu": 62 in trump + 30 in each plain suit + the dix de der
CARD_POINTS = int(PTS_TRUMP[:8].sum() + 2 * PTS_PLAIN[8:16].sum())  # 122




# --- knobs --------------------------------------------------------------------------------
PARTIAL_TIE = ("split_down", "each_full")
TIED_OPPONENTS = ("none", "each")
BELOTE_ANNOUNCE = ("choice", "always")


@dataclass(frozen=True)
class NoisetteKnobs(Knobs):
    # §4 hazelnuts
    start_nuts: int = knob(10, "hazelnuts each player receives at the start of a manche "
                           "(§4)", lo=1, hi=1000)
    manche_target_nuts: int = knob(21, "a player holding this many hazelnuts wins the manche "
                                   "outright (§7.2)", lo=2, hi=3000)
    ante: int = knob(1, "hazelnuts each player puts in the pot at the start of a deal (§4)",
                     lo=0, hi=100)
    take_cost_round1: int = knob(1, "hazelnuts a round-1 taker adds to the pot (§5; paid "
                                 "as far as he can)", lo=0, hi=100)
    take_cost_round2: int = knob(2, "hazelnuts a round-2 taker adds to the pot (§5)", lo=0,
                                 hi=100)
    forced_take_cost: int = knob(0, "hazelnuts the forced taker adds to the pot (§5: none)",
                                 lo=0, hi=100)
    # §7.1 settling the pot
    partial_win_taker: int = knob(3, "taker short of half the points but ahead of each "
                                  "opponent: hazelnuts he takes from the pot", lo=0, hi=100)
    low_pot_partial_taker: int = knob(2, "the same when the pot holds fewer than "
                                      "low_pot_threshold", lo=0, hi=100)
    partial_win_best_opp: int = knob(1, "... and what the better opponent takes ('le "
                                     "meilleur des adversaires'; opponents level: "
                                     "tied_opponents)", lo=0, hi=100)
    tied_opponents: str = knob("none", "a partial win with the two opponents level for "
                               "best (the seed is silent): none takes the better "
                               "opponent's share, it stays in the pot (none, catalogue "
                               "ambiguity 5) or each takes it, as far as the pot holds "
                               "(each)", choices=TIED_OPPONENTS)
    loss_each_opp: int = knob(2, "taker not ahead of each opponent (a tie loses, "
                              "'plus que chacun'): hazelnuts each opponent takes", lo=0, hi=100)
    low_pot_loss_each_opp: int = knob(1, "the same when the pot holds fewer than "
                                      "low_pot_threshold", lo=0, hi=100)
    low_pot_threshold: int = knob(4, "a pot below this pays the low-pot amounts (§7.1 'moins "
                                  "de 4 noisettes')", lo=0, hi=1000)
    belote_value: int = knob(10, "Belote-Rebelote (K+Q of trump in one hand), added to the "
                             "announcer's points and to the deal's total (§3.1: 10, not 20)",
                             lo=0, hi=100)
    belote_announce: str = knob("choice", "choice: the holder of trump K+Q decides whether "
                                "to announce the belote as he plays the first of the two, "
                                "the seed's literal wording ('il peut choisir d'annoncer "
                                "une Belote'); always: it is announced whenever held "
                                "(catalogue ambiguity 10)", choices=BELOTE_ANNOUNCE,
                                seed_value="choice")
    dix_de_der: int = knob(10, "bonus for the last trick (§3.2)", lo=0, hi=100)
    initial_deal: int = knob(5, "cards dealt to each player before the first upcard (§5)",
                             lo=3, hi=5)
    plain_ten: str = knob("below_ace", "rank of the 10 in a plain suit: Belote's A > 10 > K "
                          "(catalogue ambiguity 1; the seed's own 'order and value are "
                          "consistent') or as the seed prints it, 9 < 10 < J (below_jack)",
                          choices=("below_ace", "below_jack"), seed_value="below_jack",
                          seed_case="contradicts",
                          seed_why="§3 prints the plain order '9 < 10 < Valet < Dame < Roi "
                          "< As' and says at once 'L'ordre et la valeur sont cohérents', "
                          "which a 10 (10 points) below the Jack (2) breaks")
    # §6 play
    defenders_partners: bool = knob(True, "the two defenders count as partners for the "
                                    "trumping obligation (catalogue ambiguity 2; false: "
                                    "everyone must trump when void)")
    must_undertrump: bool = knob(True, "void and unable to overtrump an opponent's trump: "
                                 "must still trump ('il doit couper')")
    # §7.2 manche, §7.3 match
    points_complete: int = knob(3, "match points of a complete manche (a player reaches "
                                "manche_target_nuts)", lo=1, hi=100)
    points_partial_first: int = knob(2, "match points of the leader when a manche ends "
                                     "because a player has no hazelnut left", lo=1, hi=100)
    points_partial_second: int = knob(1, "match points of the second in that case", lo=0,
                                      hi=100)
    partial_tie: str = knob("split_down", "players tied in a partial manche's ranking share "
                            "the places' points rounded down (split_down: 2+1 -> 1 each) or "
                            "each get the higher place's (each_full)", choices=PARTIAL_TIE)
    match_target: int = knob(6, "match points that win the match (§7.3)", lo=1, hi=1000)
    tie_push: int = knob(2, "two players reaching the target together push it up by this "
                         "(§7.3)", lo=1, hi=100)
    max_deals: int = knob(5000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=1_000_000)
    # analysis
    round1_counterfactual: bool = knob(True, "deal level: also play each deal with the "
                                       "dealer's left forced to take, then to pass, in round "
                                       "1 (heuristic players), for the take-or-pass question",
                                       policy=True, per_seat=False)
    # heuristic policy (players.py)
    # the two thresholds are where taking starts to beat passing in the same deals played
    # both ways (heuristic players; round 1: the round1_counterfactual columns)
    take_threshold_1: int = knob(18, "heuristic: take in round 1 when the hand's trump "
                                 "strength for the upcard's suit (upcard included) reaches "
                                 "this (see players.trump_strength)", lo=0, hi=200, policy=True)
    take_threshold_2: int = knob(21, "heuristic: take in round 2 the better upcard suit when "
                                 "its strength (both upcards included) reaches this", lo=0,
                                 hi=200, policy=True)
    win_min_points: int = knob(18, "heuristic: second to play, win a trick only when it would "
                               "hold at least this many points", lo=0, hi=200, policy=True)
    # search policy (players.py)
    search_worlds: int = search.worlds_knob(16)
    search_rollouts: int = search.rollouts_knob(1)

    def check(self) -> None:
        if self.manche_target_nuts <= self.start_nuts:
            raise SimlabError(f"knob 'manche_target_nuts'={self.manche_target_nuts} must exceed "
                              f"start_nuts={self.start_nuts}")
        if 2 * self.manche_target_nuts <= N_PLAYERS * self.start_nuts:
            raise SimlabError(f"knob 'manche_target_nuts'={self.manche_target_nuts} must exceed "
                              f"half of the {N_PLAYERS * self.start_nuts} hazelnuts in play "
                              "(else two players could win one manche)")


# The seed's plain order as printed, "9 < 10 < Valet < Dame < Roi < As", with the 7 and 8
# below (knob ``plain_ten``): the 10 between the 9 and the Jack.
STRENGTH_PLAIN_SEED = DECK.table({"7": 0, "8": 1, "9": 2, "10": 3, "J": 4, "Q": 5, "K": 6, "A": 7})


def tables(knobs: NoisetteKnobs | None = None) -> TrickTables:
    seed_order = knobs is not None and knobs.plain_ten == "below_jack"
    plain = STRENGTH_PLAIN_SEED if seed_order else STRENGTH_PLAIN[:N_CARDS]
    return trick_tables(DECK.suit, STRENGTH_TRUMP[:N_CARDS], plain, PTS_TRUMP, PTS_PLAIN)


# Knob vector layout for the kernels.
(K_START, K_TARGET_NUTS, K_ANTE, K_COST1, K_COST2, K_COST_FORCED, K_PART_T, K_LOW_PART_T,
 K_PART_OPP, K_LOSS_OPP, K_LOW_LOSS_OPP, K_LOW_POT, K_BELOTE, K_DER, K_INITIAL, K_PTS_COMPLETE,
 K_PTS_FIRST, K_PTS_SECOND, K_SPLIT_DOWN, K_MATCH_TARGET, K_PUSH, K_MAX_DEALS, K_CF, K_TAKE1,
 K_TAKE2, K_WIN_MIN, K_WORLDS, K_ROLLOUTS, K_TIED_EACH, K_BELOTE_CHOICE, N_K) = range(31)


def _vector(k: NoisetteKnobs) -> np.ndarray:
    return np.array([
        k.start_nuts, k.manche_target_nuts, k.ante, k.take_cost_round1, k.take_cost_round2,
        k.forced_take_cost, k.partial_win_taker, k.low_pot_partial_taker, k.partial_win_best_opp,
        k.loss_each_opp, k.low_pot_loss_each_opp, k.low_pot_threshold, k.belote_value,
        k.dix_de_der, k.initial_deal, k.points_complete, k.points_partial_first,
        k.points_partial_second, k.partial_tie == "split_down", k.match_target, k.tie_push,
        k.max_deals, k.round1_counterfactual, k.take_threshold_1, k.take_threshold_2,
        k.win_min_points, k.search_worlds, k.search_rollouts, k.tied_opponents == "each",
        k.belote_announce == "choice"], dtype=np.int64)


def _rules(k: NoisetteKnobs) -> np.ndarray:
    """§6 "comme à la belote": follow suit; void -> must trump unless the partner (the
    other defender; the taker has none) is master; must overtrump an opponent's trump if
    able (and, catalogue ambiguity 3, go higher on a trump lead); trumping over a master
    partner, "il doit s'efforcer de monter"."""
    return make_rules(must_trump=True,
                      partner_exempt=PARTNER_ANY if k.defenders_partners else PARTNER_NEVER,
                      must_overtrump=True, undertrump=k.must_undertrump, overtrump_partner=True,
                      must_beat_led=False, raise_trump_lead=True)


# Teams for the partner rule, per taker: the taker alone (team 0), the defenders (team 1).
TEAMS_BY_TAKER = np.array([[0 if p == t else 1 for p in range(N_PLAYERS)]
                           for t in range(N_PLAYERS)], dtype=np.int64)

# --- result columns -------------------------------------------------------------------------
CONTRACTS = ("round1", "round2", "forced")
OUTCOMES = ("full", "partial", "lost")
FULL, PARTIAL, LOST = range(3)
(C_DEAL, C_DEALER, C_SCORE, C_TAKER, C_CONTRACT, C_MADE, C_OUTCOME, C_TRUMP, C_UP1, C_UP2,
 C_POINTS, C_TRICKS, C_BELOTE_SEAT, C_TOTAL, C_POT, C_POT_LEFT, C_PAID, C_BEST_OPP, C_CF_TAKE,
 C_CF_PASS, C_FIRST_STRENGTH, C_FIRST_TOOK, C_BELOTE_ANNOUNCED) = (
    0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 15, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28)
N_DEAL_COLS = 29
BOTH_OPPONENTS = N_PLAYERS  # best_opponent when both tied opponents were paid


def deal_columns(_: NoisetteKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer")]
    cols += [Column(f"score_s{i}", help="net hazelnuts this deal: won from the pot less ante "
                    "and take cost") for i in range(3)]
    cols += [Column("taker"), Column("contract", CONTRACTS, help="how he took: round 1, "
                                     "round 2 or forced"),
             Column("made", OPT_BOOL, help="taker ahead of each opponent (full or partial)"),
             Column("outcome", OUTCOMES, help="full: more than half the points, the whole "
                    "pot; partial: ahead of each opponent; lost"),
             Column("trump", SUITS[:N_SUITS]), Column("upcard1", DECK.labels),
             Column("upcard2", DECK.labels, help="second upcard (round 2), null if none")]
    cols += [Column(f"points_s{i}", help="card points, dix de der and belote") for i in range(3)]
    cols += [Column(f"tricks_s{i}") for i in range(3)]
    cols += [Column("belote_seat", help="holder of trump K+Q, -1 if none"),
             Column("total_points", help="132, or 142 with a belote"),
             Column("pot", help="hazelnuts in the pot when the deal is settled"),
             Column("pot_left", help="hazelnuts left in the pot (carried to the next deal)"),
             Column("take_paid", help="hazelnuts the taker paid to take"),
             Column("best_opponent", help="the opponent paid 1 in a partial win (-1: none; "
                    "3: both, level, with tied_opponents = each)"),
             Column("cf_take_nuts", help="dealer's left's net hazelnuts had he taken in round "
                    "1 (heuristic players; 0 without round1_counterfactual)"),
             Column("cf_pass_nuts", help="... had he passed in round 1"),
             Column("first_strength", help="dealer's left's heuristic trump strength for the "
                    "upcard's suit, upcard included"),
             Column("first_took_round1", BOOL, help="the dealer's left took in round 1"),
             Column("belote_announced", BOOL, help="the belote's holder announced it (it "
                    "counted)")]
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST, M_WINNER, M_MANCHES, M_DEALS, M_MP, M_TARGET, M_COMPLETE, M_PARTIAL,
 M_CARRY, M_CARRY_START, M_DECIDED_CARRY, M_MAX_POT, M_WIN_POS, M_CAPPED) = (
    0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 18)
N_MATCH_COLS = 19


def match_columns(_: NoisetteKnobs | None = None) -> list[Column]:
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="seat that won the match, -1 if capped"),
            Column("n_manches"), Column("n_deals")]
    cols += [Column(f"match_points_s{i}") for i in range(3)]
    cols += [Column("final_target", help="match target after §7.3 pushes"),
             Column("n_complete", help="manches won by reaching the hazelnut target"),
             Column("n_partial", help="manches ended by a player with no hazelnut left"),
             Column("n_carry", help="deals that left hazelnuts in the pot"),
             Column("n_carry_start", help="deals that started with hazelnuts carried over"),
             Column("n_decided_by_carry", help="manches whose last deal started with a "
                    "carried pot"),
             Column("max_pot", help="largest pot settled in the match")]
    cols += [Column(f"manche_wins_pos{k}", help=f"manches won (complete, or leader of a "
                    f"partial) by the seat dealer+{k} of the manche's first deal")
             for k in range(3)]
    cols += [Column("capped", BOOL)]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- the state of a deal ----------------------------------------------------------------------
# Phases: round 1, round 2, the forced take, the 8 tricks, over.
P_BID1, P_BID2, P_FORCED, P_PLAY, P_DONE = range(5)
PASS = N_CARDS  # 24
NAME = N_CARDS + 1  # NAME + suit: take with that trump
ANNOUNCE = NAME + N_SUITS  # ANNOUNCE + c: play card c announcing "Belote" (§3.1)
MAX_MOVES = HAND + 2  # a hand's cards, and K and Q of trump each also played announcing
MAX_STOCK = N_CARDS
(S_PHASE, S_DEALER, S_TO_MOVE, S_PLY, S_UP1, S_UP2, S_TAKER, S_TRUMP, S_ROUND, S_N_SPOKEN,
 S_STOCK_POS, S_STOCK_N, S_POT, S_POT0, S_PAID, S_LEADER, S_TRICK, S_N_TABLE, S_LED, S_WIN,
 S_WIN_SEAT, S_ON_TABLE, S_GONE, S_BELOTE_SEAT, S_BELOTE_SHOWN, S_OUTCOME, S_BEST_OPP,
 S_TOTAL, S_POT_SETTLED) = range(29)
S_HAND = 29  # 3 slots: each seat's hand (card mask)
S_NUTS = 32  # 3 slots: hazelnuts held now
S_NUTS0 = 35  # 3 slots: hazelnuts held before this deal's ante
S_TRICKS = 38  # 3 slots: tricks won
S_TPTS = 41  # 3 slots: card points won (dix de der included)
S_STOCK = 44  # 24 slots: the undealt cards in dealing order (upcards excluded)
S_HIST = 68  # 24 slots: the cards played, in order (the taker leads the first trick)
S_BELOTE_CHOICE = 92  # 1: the belote is announced at its holder's choice (knob)
N_STATE = 93
# S_BELOTE_SHOWN: 0 while the holder has played neither K nor Q of trump, 1 announced
# (it counts), 2 not announced as he played the first (it is lost: "au moment de jouer la
# première de ses deux cartes il dit « Belote »")


@hot
def hand_of(state: np.ndarray, p: int) -> np.uint64:
    return np.uint64(state[S_HAND + p])


@hot
def next_stock(state: np.ndarray) -> int:
    c = state[S_STOCK + state[S_STOCK_POS]]
    state[S_STOCK_POS] += 1
    return c


@hot
def give(state: np.ndarray, p: int, n: int) -> None:
    """``n`` cards from the stock to seat ``p``."""
    h = hand_of(state, p)
    for _ in range(n):
        h |= bit(next_stock(state))
    state[S_HAND + p] = np.int64(h)


# --- §4 Mise en place, §5 Distribution ----------------------------------------------------------
@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, nuts: np.ndarray, carry: int,
         kv: np.ndarray, dealt: np.ndarray) -> None:
    """Start a deal from a shuffled ``deck``: everybody antes (§4, as far as he can; the
    pot already holds ``carry`` from the previous deal), the dealer gives ``initial_deal``
    cards each from his left in two packets (2 then 3), and turns the next card up (§5).
    ``nuts``: each seat's hazelnuts before the ante. Writes ``dealt[p, :]``."""
    for i in range(N_STATE):
        state[i] = 0
    state[S_DEALER] = dealer
    state[S_POT] = carry
    state[S_POT0] = carry
    for p in range(N_PLAYERS):
        pay = min(kv[K_ANTE], nuts[p])
        state[S_NUTS0 + p] = nuts[p]
        state[S_NUTS + p] = nuts[p] - pay
        state[S_POT] += pay
    initial = kv[K_INITIAL]
    pos = 0
    first_packet = initial // 2
    for packet, start in ((first_packet, 0), (initial - first_packet, first_packet)):
        for k in range(N_PLAYERS):
            p = (dealer + 1 + k) % N_PLAYERS
            h = hand_of(state, p)
            for i in range(packet):
                dealt[p, start + i] = deck[pos]
                h |= bit(deck[pos])
                pos += 1
            state[S_HAND + p] = np.int64(h)
    state[S_UP1] = deck[pos]  # "il retourne la carte suivante": the proposed trump
    pos += 1
    state[S_UP2] = -1
    state[S_STOCK_N] = N_CARDS - pos
    for i in range(N_CARDS - pos):
        state[S_STOCK + i] = deck[pos + i]
    state[S_PHASE] = P_BID1
    state[S_TO_MOVE] = (dealer + 1) % N_PLAYERS  # "en commençant par le joueur qui suit le donneur"
    state[S_TAKER] = -1
    state[S_TRUMP] = -1
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_BELOTE_SEAT] = -1
    state[S_BELOTE_CHOICE] = kv[K_BELOTE_CHOICE]
    state[S_OUTCOME] = -1
    state[S_BEST_OPP] = -1


# --- §5 the two rounds of taking and the forced taker ------------------------------------------
@hot
def bid_moves(state: np.ndarray, out: np.ndarray) -> int:
    """Round 1: pass or take the upcard's suit. Round 2: pass or take either upcard's suit
    (one move when both are of the same suit). Forced: the dealer's left picks one."""
    n = 0
    if state[S_PHASE] != P_FORCED:
        out[0] = PASS
        n = 1
    s1 = state[S_UP1] // 8
    out[n] = NAME + s1
    n += 1
    if state[S_PHASE] != P_BID1 and state[S_UP2] // 8 != s1:
        out[n] = NAME + state[S_UP2] // 8
        n += 1
    return n


@hot
def apply_bid(state: np.ndarray, move: int, kv: np.ndarray) -> None:
    p = state[S_TO_MOVE]
    state[S_PLY] += 1
    dealer = state[S_DEALER]
    if move == PASS:
        state[S_N_SPOKEN] += 1
        state[S_TO_MOVE] = (p + 1) % N_PLAYERS
        if state[S_N_SPOKEN] == N_PLAYERS:  # everybody passed this round
            state[S_N_SPOKEN] = 0
            if state[S_PHASE] == P_BID1:
                # "le donneur distribue 1 carte supplémentaire à chaque joueur ... puis
                # retourne la carte suivante": two upcards now
                for k in range(N_PLAYERS):
                    give(state, (dealer + k + 1) % N_PLAYERS, 1)
                state[S_UP2] = next_stock(state)
                state[S_PHASE] = P_BID2
            else:
                # "le joueur qui suit le donneur est obligé de prendre"
                state[S_PHASE] = P_FORCED
                state[S_TO_MOVE] = (dealer + 1) % N_PLAYERS
        return
    # A take: pay the round's cost into the pot, as far as one can ("s'il n'en a plus, il
    # se contente de dire qu'il prend, s'il n'en a qu'une, il la met au pot").
    cost = kv[K_COST1] if state[S_PHASE] == P_BID1 else \
        kv[K_COST2] if state[S_PHASE] == P_BID2 else kv[K_COST_FORCED]
    pay = min(cost, state[S_NUTS + p])
    state[S_NUTS + p] -= pay
    state[S_POT] += pay
    state[S_PAID] = pay
    state[S_TAKER] = p
    state[S_TRUMP] = move - NAME
    state[S_ROUND] = state[S_PHASE] - P_BID1 + 1  # 1, 2, or 3 = forced
    complete_hands(state, kv)


@hot
def complete_hands(state: np.ndarray, kv: np.ndarray) -> None:
    """The taker receives the upcard(s) (round 1: the one; round 2 and forced: both) and
    the stock completes every hand to 8 cards from the dealer's left (§5); the taker
    leads the first trick (§6 "C'est le preneur qui a la main au départ")."""
    taker = state[S_TAKER]
    dealer = state[S_DEALER]
    up = bit(state[S_UP1])
    if state[S_UP2] >= 0:
        up |= bit(state[S_UP2])
    state[S_HAND + taker] = np.int64(hand_of(state, taker) | up)
    for k in range(N_PLAYERS):
        p = (dealer + 1 + k) % N_PLAYERS
        give(state, p, HAND - count(hand_of(state, p)))
    state[S_BELOTE_SEAT] = belote_holder(state, state[S_TRUMP], kv)
    state[S_PHASE] = P_PLAY
    state[S_LEADER] = taker
    state[S_TO_MOVE] = taker


# --- §3.1 la Belote ---------------------------------------------------------------------------
@hot
def belote_holder(state: np.ndarray, trump: int, kv: np.ndarray) -> int:
    """The seat holding K and Q of trump when play starts, -1 if none (or no belote in the
    knobs). The announcement is optional ("il peut choisir d'annoncer", knob
    ``belote_announce``): made or not as the holder plays the first of the two
    (``S_BELOTE_SHOWN``, ``can_announce``); with ``always`` it is always made."""
    if kv[K_BELOTE] == 0:
        return -1
    for p in range(N_PLAYERS):
        h = hand_of(state, p)
        if has(h, trump * 8 + RK) and has(h, trump * 8 + RQ):
            return p
    return -1


@hot
def can_announce(state: np.ndarray, c: int) -> bool:
    """Playing ``c`` now may come with the announcement: the belote is at the holder's
    choice, he is to move, has played neither K nor Q of trump yet, and ``c`` is one."""
    trump = state[S_TRUMP]
    return (state[S_BELOTE_CHOICE] == 1 and state[S_TO_MOVE] == state[S_BELOTE_SEAT]
            and state[S_BELOTE_SHOWN] == 0 and (c == trump * 8 + RK or c == trump * 8 + RQ))


# --- §6 Jeu: 8 tricks of 3 cards --------------------------------------------------------------
@hot
def partner_wins_now(state: np.ndarray, rules: np.ndarray) -> bool:
    p = state[S_TO_MOVE]
    return partner_winning(state[S_WIN], state[S_WIN_SEAT], state[S_LEADER], p,
                           TEAMS_BY_TAKER[state[S_TAKER]], rules[R_PARTNER_EXEMPT])


@hot
def legal_cards_now(state: np.ndarray, rules: np.ndarray, suit_of: np.ndarray,
                    suit_mask: np.ndarray, excuse_mask: np.uint64, above_t: np.ndarray
                    ) -> np.uint64:
    """The cards the player to move may play (a mask), see ``_rules``. ``above_t``: row
    ``trump + 1`` of ``tables().above``."""
    p = state[S_TO_MOVE]
    return legal_cards(hand_of(state, p), state[S_LED], state[S_WIN], partner_wins_now(state, rules),
                       state[S_TRUMP], suit_of, suit_mask, excuse_mask, above_t, rules)


@hot
def play_card(state: np.ndarray, c: int, kv: np.ndarray, suit_of: np.ndarray,
              points_t: np.ndarray, above_t: np.ndarray) -> None:
    """The player to move plays ``c``; a full trick goes to its winner ("le plus fort
    Atout, ou sinon la plus forte carte à la couleur demandée"), who leads the next; the
    last trick earns the dix de der (§3.2), and then the deal is settled."""
    p = state[S_TO_MOVE]
    trump = state[S_TRUMP]
    state[S_HAND + p] = np.int64(hand_of(state, p) & ~bit(c))
    state[S_GONE] = np.int64(np.uint64(state[S_GONE]) | bit(c))
    state[S_HIST + state[S_TRICK] * N_PLAYERS + state[S_N_TABLE]] = c
    state[S_PLY] += 1
    state[S_ON_TABLE] += points_t[c]
    if (p == state[S_BELOTE_SEAT] and state[S_BELOTE_SHOWN] == 0
            and (c == trump * 8 + RK or c == trump * 8 + RQ)):
        # the first of the two, played without ANNOUNCE: at the holder's choice the belote
        # is lost; else it is announced ("Belote") whenever held
        state[S_BELOTE_SHOWN] = 2 if state[S_BELOTE_CHOICE] else 1
    led, win, win_seat = update_trick(c, p, state[S_LED], state[S_WIN], state[S_WIN_SEAT],
                                      trump, suit_of, above_t)
    n_table = state[S_N_TABLE] + 1
    if n_table < N_PLAYERS:
        state[S_LED] = led
        state[S_WIN] = win
        state[S_WIN_SEAT] = win_seat
        state[S_N_TABLE] = n_table
        state[S_TO_MOVE] = (p + 1) % N_PLAYERS
        return
    trick = state[S_TRICK]
    state[S_TRICKS + win_seat] += 1
    state[S_TPTS + win_seat] += state[S_ON_TABLE] + (kv[K_DER] if trick == HAND - 1 else 0)
    state[S_TRICK] = trick + 1
    state[S_LEADER] = win_seat
    state[S_TO_MOVE] = win_seat
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_ON_TABLE] = 0
    state[S_N_TABLE] = 0
    if trick == HAND - 1:
        settle(state, kv)
        state[S_PHASE] = P_DONE


# --- any decision ----------------------------------------------------------------------------
@hot
def to_move(state: np.ndarray) -> int:
    """The seat to decide, -1 when the deal is over."""
    return -1 if state[S_PHASE] == P_DONE else state[S_TO_MOVE]


@hot
def legal_moves(state: np.ndarray, rules: np.ndarray, tb: tuple, out: np.ndarray) -> int:
    """The moves of the player to move in the game's order (bids: pass first; cards:
    ascending id, then ``ANNOUNCE + c`` for K and Q of trump when ``can_announce``);
    returns how many."""
    if state[S_PHASE] == P_PLAY:
        n = cards_of(legal_cards_now(state, rules, tb[0], tb[1], tb[2],
                                     tb[5][state[S_TRUMP] + 1]), out)
        n_cards = n
        for i in range(n_cards):
            if can_announce(state, out[i]):
                out[n] = ANNOUNCE + out[i]
                n += 1
        return n
    if state[S_PHASE] == P_DONE:
        return 0
    return bid_moves(state, out)


@hot
def apply_move(state: np.ndarray, move: int, kv: np.ndarray, tb: tuple) -> None:
    """Play a card (announcing the belote with it: ``ANNOUNCE + c``) or make a bid
    (``tb``: ``tables().kernel_args()``)."""
    if move < N_CARDS or move >= ANNOUNCE:
        c = move
        if move >= ANNOUNCE:
            c = move - ANNOUNCE
            state[S_BELOTE_SHOWN] = 1  # "Belote"
        t = state[S_TRUMP] + 1
        play_card(state, c, kv, tb[0], tb[4][t], tb[5][t])
    else:
        apply_bid(state, move, kv)


# --- §7.1 Marque d'une donne: settling the pot -------------------------------------------------
@hot
def seat_points(state: np.ndarray, p: int, kv: np.ndarray) -> int:
    """Card points with the dix de der, and the belote's 10 for its holder once announced."""
    announced = p == state[S_BELOTE_SEAT] and state[S_BELOTE_SHOWN] == 1
    return state[S_TPTS + p] + (kv[K_BELOTE] if announced else 0)


@hot
def pot_payout(taker_pts: int, opp_a_pts: int, opp_b_pts: int, total: int, pot: int,
               kv: np.ndarray) -> tuple[int, int, int, int]:
    """(outcome, taker's take, opponent a's, opponent b's) from the pot (§7.1):

    * more than half the points ("au moins 67 ou 72") -> the whole pot;
    * else strictly more than each opponent -> 3 to the taker (2 if the pot holds fewer
      than 4) and 1 to the better opponent (opponents level: nobody, ambiguity 5, or
      each, ``tied_opponents``);
    * else (a tie with an opponent included) lost -> 2 to each opponent (1 if the pot
      holds fewer than 4).
    What is not taken stays in the pot for the next deal; nobody takes more than is there."""
    low = pot < kv[K_LOW_POT]
    if 2 * taker_pts > total:
        return FULL, pot, 0, 0
    if taker_pts > opp_a_pts and taker_pts > opp_b_pts:
        t = min(pot, kv[K_LOW_PART_T] if low else kv[K_PART_T])
        left = pot - t
        a = 0
        b = 0
        if opp_a_pts > opp_b_pts:
            a = min(left, kv[K_PART_OPP])
        elif opp_b_pts > opp_a_pts:
            b = min(left, kv[K_PART_OPP])
        elif kv[K_TIED_EACH]:
            a = min(left, kv[K_PART_OPP])
            b = min(left - a, kv[K_PART_OPP])
        return PARTIAL, t, a, b
    each = min(pot // 2, kv[K_LOW_LOSS_OPP] if low else kv[K_LOSS_OPP])
    return LOST, 0, each, each


@hot
def settle(state: np.ndarray, kv: np.ndarray) -> None:
    """Pay the pot out once the 8 tricks are played (§7.1); ``S_NUTS`` and ``S_POT`` hold
    the result (the 30 hazelnuts and the pot are conserved)."""
    taker = state[S_TAKER]
    a = (taker + 1) % N_PLAYERS
    b = (taker + 2) % N_PLAYERS
    total = 0
    for p in range(N_PLAYERS):
        total += seat_points(state, p, kv)
    state[S_TOTAL] = total
    state[S_POT_SETTLED] = state[S_POT]
    outcome, gt, ga, gb = pot_payout(seat_points(state, taker, kv), seat_points(state, a, kv),
                                     seat_points(state, b, kv), total, state[S_POT], kv)
    state[S_OUTCOME] = outcome
    state[S_NUTS + taker] += gt
    state[S_NUTS + a] += ga
    state[S_NUTS + b] += gb
    state[S_POT] -= gt + ga + gb
    state[S_BEST_OPP] = -1
    if outcome == PARTIAL and ga + gb > 0:
        state[S_BEST_OPP] = BOTH_OPPONENTS if ga > 0 and gb > 0 else a if ga > 0 else b


@hot
def net_nuts(state: np.ndarray, p: int) -> int:
    """Seat ``p``'s hazelnuts won this deal less its ante and take cost."""
    return state[S_NUTS + p] - state[S_NUTS0 + p]


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """Deal columns from C_SCORE to C_BEST_OPP, for a finished deal."""
    taker = state[S_TAKER]
    for p in range(N_PLAYERS):
        row[C_SCORE + p] = net_nuts(state, p)
        row[C_POINTS + p] = seat_points(state, p, kv)
        row[C_TRICKS + p] = state[S_TRICKS + p]
    row[C_TAKER] = taker
    row[C_CONTRACT] = state[S_ROUND] - 1
    row[C_OUTCOME] = state[S_OUTCOME]
    row[C_MADE] = state[S_OUTCOME] != LOST
    row[C_TRUMP] = state[S_TRUMP]
    row[C_UP1] = state[S_UP1]
    row[C_UP2] = state[S_UP2]
    row[C_BELOTE_SEAT] = state[S_BELOTE_SEAT]
    row[C_TOTAL] = state[S_TOTAL]
    row[C_POT] = state[S_POT_SETTLED]
    row[C_POT_LEFT] = state[S_POT]
    row[C_PAID] = state[S_PAID]
    row[C_BEST_OPP] = state[S_BEST_OPP]
    row[C_BELOTE_ANNOUNCED] = state[S_BELOTE_SEAT] >= 0 and state[S_BELOTE_SHOWN] == 1


# --- §7.2 Manche, §7.3 Partie ------------------------------------------------------------------
MANCHE_ON, MANCHE_COMPLETE, MANCHE_PARTIAL = range(3)


@hot
def manche_end(nuts: np.ndarray, kv: np.ndarray, points: np.ndarray) -> int:
    """After a deal's payouts (catalogue ambiguity 6): a player holding 21 hazelnuts wins
    a complete manche (3 match points); else a player with none ends a partial manche: the
    leader 2, the second 1 (ties: ``partial_tie``). Both at once: the complete manche
    (its winner reached the target). Writes the match points won to ``points``."""
    for p in range(N_PLAYERS):
        points[p] = 0
    for p in range(N_PLAYERS):
        if nuts[p] >= kv[K_TARGET_NUTS]:
            points[p] = kv[K_PTS_COMPLETE]
            return MANCHE_COMPLETE
    empty = False
    for p in range(N_PLAYERS):
        if nuts[p] <= 0:
            empty = True
    if not empty:
        return MANCHE_ON
    place_points = (kv[K_PTS_FIRST], kv[K_PTS_SECOND], 0)
    for p in range(N_PLAYERS):
        above = 0  # players strictly ahead of p
        tied = 0  # players level with p, p included
        for q in range(N_PLAYERS):
            if nuts[q] > nuts[p]:
                above += 1
            elif nuts[q] == nuts[p]:
                tied += 1
        if kv[K_SPLIT_DOWN]:
            share = 0
            for place in range(above, above + tied):
                share += place_points[place]
            points[p] = share // tied
        else:
            points[p] = place_points[above]
    return MANCHE_PARTIAL


@hot
def match_winner(points: np.ndarray, target: int, push: int) -> tuple[int, int]:
    """(winner or -1, target) after a manche (§7.3): the highest total at or past the
    target wins when alone there ("c'est celui atteint 7 qui a gagné"); two players level
    at the top past the target push it up by 2, "et ainsi de suite"."""
    best = points[0]
    for p in range(1, N_PLAYERS):
        best = max(best, points[p])
    if best < target:
        return -1, target
    n_best = 0
    winner = -1
    for p in range(N_PLAYERS):
        if points[p] == best:
            n_best += 1
            winner = p
    if n_best == 1:
        return winner, target
    while target <= best:
        target += push
    return -1, target
