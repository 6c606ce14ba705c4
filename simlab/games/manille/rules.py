"""Manille rules: deck and tables, knobs, result columns, the state of a deal and its
moves, deal and trump, card play, scoring (seed 003 "Manille"; catalogue ``manille.md``).

Read top to bottom like the rulebook. The players (heuristic, random, search) are in
``players.py``, the batch kernels and the match in ``kernels.py``, the balance
questions in ``questions.py``. The classic game's only decision is the card to play.

Seats 0..3 clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1; the player on
the dealer's left is ``dealer + 1``.

This file is the classic game. The catalogue's variants (knob ``variant``: belge,
coinchée, enchères, folle, trois, deux) are in ``variants.py``: they reuse this file's
deck, tables, ``play_card`` and ``score_deal`` and replace one phase each (who deals what,
how trump is fixed, who may contre or bid, who plays which hand, how a deal is marked).
The classic game's rows never go through ``variants.py``.

A deal is a small int64 vector (``S_*`` slots below) with hands and card sets as 32-bit
masks; a move is a card id. ``legal_moves``/``legal_cards_now`` list what the player to
move (``state[S_TO_MOVE]``) may play, ``apply_move``/``play_card`` play it; the phase
becomes ``P_DONE`` after the 8th trick and ``team_marks`` scores the deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine import rng
from simlab.engine.decks import SUITS, get_deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot, hot_inline
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import search
from simlab.mechanics.tricks import (
    EMPTY,
    N_RULES,
    PARTNER_ANY,
    PARTNER_LEADER_ONLY,
    R_MUST_TRUMP,
    R_PARTNER_EXEMPT,
    TrickTables,
    bit,
    cards_of,
    legal_cards,
    make_rules,
    partner_winning,
    trick_tables,
    update_trick,
)

# --- deck and tables ----------------------------------------------------------------
# 32 cards, card id = suit * 8 + r with r = 0..7 for 7, 8, 9, 10, J, Q, K, A.
DECK = get_deck("32")
N_CARDS = 32
HAND = 8  # cards per player: the whole pack is dealt
PACKET = 2  # "par lot de deux cartes"
R7, R8, R9, R10, RJ, RQ, RK, RA = range(8)
TEAM_OF = np.array([0, 1, 0, 1], dtype=np.int64)

# Rank in every suit (trump included): 10 (manille) > A (manillon) > K > Q > J > 9 > 8 > 7.
STRENGTH = DECK.table({"7": 0, "8": 1, "9": 2, "J": 3, "Q": 4, "K": 5, "A": 6, "10": 7})
# Card points: 15 per suit, 60 in the pack (the +1 per trick is the knob trick_point).
POINTS = DECK.table({"7": 0, "8": 0, "9": 0, "J": 1, "Q": 2, "K": 3, "A": 4, "10": 5})

ALL_CARDS = np.uint64((1 << N_CARDS) - 1)
MAX_TRICK_POINT = 100  # the knob's bound: an enchères bid goes up to 60 + 8 * it
# The catalogue's variants (seed "Variantes"); their rules are in ``variants.py``.
VARIANTS = ("classic", "belge", "coinchee", "encheres", "folle", "trois", "deux")
V_CLASSIC, V_BELGE, V_COINCHEE, V_ENCHERES, V_FOLLE, V_TROIS, V_DEUX = range(7)


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class ManilleKnobs(Knobs):
    variant: str = knob("classic", "which Manille: classic (turned trump card, fixed "
                        "partnerships), belge (no trick points, trump or Sans-Atout announced, "
                        "contre), coinchee (trump or SA chosen, coinche), encheres (auction, "
                        "one against three), folle (take as few points as possible), trois "
                        "(one player with the dummy against two), deux (each player with a "
                        "dummy); see variants.py", choices=VARIANTS)
    target: int = knob(100, "a team reaching this total wins the match (the seed lists 50, "
                       "100, 150 or 200)", lo=1, hi=100000)
    trick_point: int = knob(1, "points per trick won, on top of the card points (1 makes "
                            "the 68-point deal; belge: always 0, its 60-point deal)",
                            lo=0, hi=MAX_TRICK_POINT)
    mark: str = knob("excess", "what the deal winner marks: its points over half the deal "
                     "(excess, e.g. 48 -> 14) or all its points (full); not stated in the "
                     "seed", choices=("excess", "full"))
    must_overplay_in_suit: bool = knob(
        True, "following the led suit while no trump is on the trick: must beat a card of "
        "the led suit if able (which one: overplay_reference; false: only follow)")
    overplay_reference: str = knob(
        "last", "must_overplay_in_suit: the card to beat is the last card of the led suit "
        "laid on the trick (last, the seed's 'supérieure à la dernière carte posée'), or "
        "the best card of the led suit (best, the common table rule and the catalogue's "
        "former resolution); either way the obligation lapses once a trump is on a plain "
        "trick", choices=("last", "best"), seed_value="last")
    partner_overplay_exempt: bool = knob(
        False, "no overplay obligation in suit while the partner is winning (see "
        "partner_exception for which partner)")
    partner_exception: str = knob(
        "leader_only", "void in the led suit: no obligation to trump only while the "
        "leader's card is still master and you are the leader's partner (leader_only, the "
        "seed's wording: 'le partenaire du joueur qui a détenu la première carte ... si "
        "cette carte est encore maître'), or while any partner is winning the trick "
        "(any_partner, a common table custom)",
        choices=("leader_only", "any_partner"), seed_value="leader_only")
    overtrump_partner: bool = knob(
        False, "void, not exempt, and the trick's best trump is the partner's: must "
        "overtrump it if able (true, the Déroulement's 'en surmontant encore si un atout "
        "est déjà sur table'), or any trump will do (false, the Objectif's 'quand "
        "l'adversaire a coupé, il faut obligatoirement surcouper')", seed_value=False)
    two_in_a_row_end: bool = knob(
        False, "the match also ends when a team wins two consecutive deals (a void deal "
        "breaks the run)")
    reshuffle_each_deal: bool = knob(
        True, "match: shuffle the pack before every deal (true), or only before the first "
        "(false, the seed's 'selon les accords': later deals take the previous deal's "
        "tricks in the order they were won, cut once by the player on the dealer's right, "
        "which correlates the hands); a deal-level run is a row of first deals and "
        "ignores it", seed_value=False, seed_case="silent",
        seed_why="the book makes the cut-only later deals a matter of the players' "
        "agreement ('selon les accords entre les joueurs') and does not say what is done "
        "without one, so the default is the shuffle that keeps deals independent")
    # --- the variants' own knobs (variants.py) ---
    belge_deals: int = knob(20, "belge: deals in a match (the seed's 20: each team "
                            "announces in half of them); the higher total wins", lo=2, hi=1000)
    belge_sa_required: int = knob(1, "belge: Sans-Atout announcements each team must make "
                                  "in its deals of a match (the seed: at least one); the "
                                  "last ones are forced", lo=0, hi=500)
    belge_tie_doubles: bool = knob(True, "belge: a 30-30 deal makes the next deal count "
                                   "double (seed)")
    contre: bool = knob(True, "belge, coinchee: the opponents may contre (coinche) the "
                        "announced trump")
    surcontre: bool = knob(True, "belge: the announcer's partner may surcontre a contre "
                           "(seed: 'son partenaire peut également surcontrer')")
    coinchee_surcoinche: bool = knob(
        False, "coinchee: the demandeur's partner may surcoinche a coinche (x "
        "surcontre_multiplier), borrowed from belge; false: the seed's coinchée, a coinche "
        "that doubles and nothing more", seed_value=False)
    contre_multiplier: int = knob(2, "belge, coinchee: what a contre multiplies the deal's "
                                  "marks by (whoever wins)", lo=1, hi=4)
    surcontre_multiplier: int = knob(4, "belge, coinchee: what a surcontre multiplies the "
                                     "deal's marks by", lo=1, hi=8)
    min_bid: int = knob(20, "encheres: the lowest bid (points the bidder expects to take "
                        "alone, cards + tricks)", lo=1, hi=68)
    fail_mode: str = knob("share", "encheres: a failed bid: the bid is shared among the "
                          "three others, each marking ceil(bid / 3) (share); each of them "
                          "marks the bid (each_full); the bidder marks minus the bid "
                          "(bidder_minus)", choices=("share", "each_full", "bidder_minus"))
    folle_allow_sa: bool = knob(False, "folle: the dealer may also name no trump (true, the "
                                "catalogue's former 'short suit or none'); false: a suit, "
                                "the seed's 'c'est le donneur qui fixe l'atout'",
                                seed_value=False)
    folle_count: str = knob("points", "folle: what a seat takes and wants as low as "
                            "possible: its card points + tricks (points, the seed's 'le "
                            "score le plus bas', the game 'en 100 points'), or its tricks "
                            "only (tricks, the seed's 'le moins de levées possible'); the "
                            "seed names both", choices=("points", "tricks"),
                            seed_value="points")
    dummy_exposure: str = knob("face_up", "trois: the dummy's 8 cards lie face up "
                               "(face_up), or as in deux: 4 face down under 4 face up, "
                               "turned when uncovered (half_hidden)",
                               choices=("face_up", "half_hidden"))
    deux_target: int = knob(44, "deux: a player reaching this total wins the match (the "
                            "seed: 'jouée généralement en 44 points')", lo=1, hi=100000)
    max_deals: int = knob(1000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    renonce_per_mille: int = knob(
        0, "classic: per player and deal, chance (in 1/1000) that the player revokes (a "
        "renonce: breaks a rule of play); the deal is annulled and his team's opponents "
        "mark 34 (seed: 'le coup du moment est alors annulé et l'équipe écope de 34 points "
        "de pénalité qui seront attribués à son adversaire'); the first offender from the "
        "dealer's left counts. A model of a player's error, not a rule: 0 by default",
        lo=0, hi=1000, policy=True, per_seat=False)
    # heuristic policy
    win_min_points: int = knob(3, "heuristic: before the last seat, take a trick from the "
                               "opponents only when it would hold at least this many card "
                               "points (only matters with must_overplay_in_suit=false: "
                               "otherwise every chance to win a trick is an obligation)",
                               lo=0, hi=100, policy=True)
    careful_load: bool = knob(True, "heuristic: on the partner's winning trick with an "
                              "opponent still to play, give a manille (10) or a manillon "
                              "(ace) only when the partner's card is a sure winner (no "
                              "unseen card can beat it, no trump left to ruff it); false: "
                              "the richest card on any winning partner (the former play)",
                              policy=True)
    lead_keep_trumps: bool = knob(True, "heuristic: with no master card to cash, lead the "
                                  "cheapest card outside trumps, keeping the small trumps to "
                                  "ruff the enemy manilles and manillons; false: the "
                                  "cheapest card, a trump included (the former play)",
                                  policy=True)
    draw_trumps: bool = knob(True, "heuristic: leading, play a master trump while any trump "
                             "is still out, before the plain masters (the manilles and "
                             "manillons then come home unruffed); false: the plain masters "
                             "first (the former play)", policy=True)
    safe_cash: bool = knob(True, "heuristic: leading, cash first the plain masters of the "
                           "suits no opponent can be known to ruff (with a trump still out, "
                           "an opponent has shown a void in the suit, or no card of it is left "
                           "unseen), then the others; false: the richest master (the "
                           "former play)", policy=True)
    discard_plain_upto: int = knob(3, "heuristic: discarding on the opponents' trick (void, "
                                   "unable to overtrump), throw a plain card worth at most "
                                   "this many points rather than a small trump, kept to ruff; "
                                   "0: the cheapest card, a trump when it is cheaper (the "
                                   "former play)", lo=0, hi=5, policy=True)
    # heuristic decisions of the variants (variant_players.py), in points of the
    # heuristic's estimate of what a hand takes (``hand_value``)
    choose_pass_below: int = knob(14, "belge, coinchee heuristic: the dealer passes the "
                                  "trump choice to his partner when his best estimate is "
                                  "below this", lo=0, hi=100, policy=True)
    sans_atout_min: int = knob(24, "belge, coinchee heuristic: announce Sans-Atout when no "
                               "trump improves the estimate and it reaches this",
                               lo=0, hi=200, policy=True)
    contre_min: int = knob(40, "belge, coinchee heuristic: an opponent contres when his "
                           "estimate plus an average partner's share (17) reaches this "
                           "(the catalogue's 40)", lo=0, hi=200, policy=True)
    surcontre_min: int = knob(38, "belge, coinchee heuristic: the announcer's partner "
                              "surcontres when his estimate plus an average partner's share "
                              "reaches this", lo=0, hi=200, policy=True)
    bid_percent: int = knob(90, "encheres heuristic: bid up to this percentage of the "
                            "hand's estimate (the catalogue's 90 %)", lo=1, hi=300,
                            policy=True)
    # search policy (players.py)
    search_worlds: int = search.worlds_knob(32)
    search_rollouts: int = search.rollouts_knob(1)
    search_decision_worlds: int = knob(
        48, "search player, variants: worlds per decision before the play (trump or "
        "Sans-Atout, passing the choice, contre, surcontre, bids), each option played out "
        "to the end of the deal; they decide much of the score and an auction has dozens of "
        "bids to tell apart, so they get more worlds than a card", lo=1, hi=10_000,
        policy=True)
    oracle_team: int = knob(-1, "search player: the seats of this team (0: seats 0 and 2, "
                            "1: seats 1 and 3; enchères: 0 the taker, 1 the defence; folle: "
                            "that seat; -1 none) search the true deal instead of sampled "
                            "worlds: perfect information (catalogue question 6, à deux)",
                            lo=-1, hi=1, policy=True)

    def check(self) -> None:
        if self.renonce_per_mille and self.variant != "classic":
            raise SimlabError("knob 'renonce_per_mille' is simulated in the classic game "
                              f"only, not variant={self.variant!r}; set it to 0")


# Knob vector layout for the kernels (plain ints keep the kernels' signature stable).
(K_VARIANT, K_TARGET, K_TRICK_POINT, K_MARK_FULL, K_TWO_IN_A_ROW, K_MAX_DEALS, K_WIN_MIN,
 K_WORLDS, K_ROLLOUTS, K_RESHUFFLE, K_BELGE_DEALS, K_BELGE_SA, K_TIE_DOUBLES, K_CONTRE,
 K_SURCONTRE, K_CONTRE_MULT, K_SURCONTRE_MULT, K_MIN_BID, K_FAIL_MODE, K_FOLLE_SA,
 K_HALF_HIDDEN, K_DEUX_TARGET, K_PASS_BELOW, K_CONTRE_MIN, K_SURCONTRE_MIN, K_BID_PERCENT,
 K_ORACLE, K_SA_MIN, K_DECISION_WORLDS, K_CAREFUL, K_KEEP_TRUMPS, K_DRAW_TRUMPS, K_SAFE_CASH,
 K_DISCARD_PLAIN, K_SURCOINCHE, K_FOLLE_TRICKS, K_RENONCE, N_K) = range(38)
FAIL_MODES = ("share", "each_full", "bidder_minus")


def _vector(k: ManilleKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[K_VARIANT] = VARIANTS.index(k.variant)
    v[K_TARGET] = k.target
    v[K_TRICK_POINT] = k.trick_point
    v[K_MARK_FULL] = k.mark == "full"
    v[K_TWO_IN_A_ROW] = k.two_in_a_row_end
    v[K_MAX_DEALS] = k.max_deals
    v[K_WIN_MIN] = k.win_min_points
    v[K_WORLDS] = k.search_worlds
    v[K_ROLLOUTS] = k.search_rollouts
    v[K_RESHUFFLE] = k.reshuffle_each_deal
    v[K_BELGE_DEALS] = k.belge_deals
    v[K_BELGE_SA] = k.belge_sa_required
    v[K_TIE_DOUBLES] = k.belge_tie_doubles
    v[K_CONTRE] = k.contre
    v[K_SURCONTRE] = k.surcontre
    v[K_CONTRE_MULT] = k.contre_multiplier
    v[K_SURCONTRE_MULT] = k.surcontre_multiplier
    v[K_MIN_BID] = k.min_bid
    v[K_FAIL_MODE] = FAIL_MODES.index(k.fail_mode)
    v[K_FOLLE_SA] = k.folle_allow_sa
    v[K_HALF_HIDDEN] = k.dummy_exposure == "half_hidden"
    v[K_DEUX_TARGET] = k.deux_target
    v[K_PASS_BELOW] = k.choose_pass_below
    v[K_CONTRE_MIN] = k.contre_min
    v[K_SURCONTRE_MIN] = k.surcontre_min
    v[K_BID_PERCENT] = k.bid_percent
    v[K_ORACLE] = k.oracle_team
    v[K_SA_MIN] = k.sans_atout_min
    v[K_DECISION_WORLDS] = k.search_decision_worlds
    v[K_CAREFUL] = k.careful_load
    v[K_KEEP_TRUMPS] = k.lead_keep_trumps
    v[K_DRAW_TRUMPS] = k.draw_trumps
    v[K_SAFE_CASH] = k.safe_cash
    v[K_DISCARD_PLAIN] = k.discard_plain_upto
    v[K_SURCOINCHE] = k.coinchee_surcoinche
    v[K_FOLLE_TRICKS] = k.folle_count == "tricks"
    v[K_RENONCE] = k.renonce_per_mille
    return v


# Manille's own rule flags, after the shared ones of ``simlab.mechanics.tricks`` (which reads only
# its N_RULES first): read by ``manille_legal``.
R_OVERPLAY_LAST = N_RULES  # the card to beat in suit is the last one of the led suit laid
R_OVERTRUMP_PARTNER_TRUMP = N_RULES + 1  # not exempt: overtrump even the partner's trump
N_MANILLE_RULES = N_RULES + 2


def rules_for(k: ManilleKnobs) -> np.ndarray:
    """Obligations of play as ``simlab.mechanics.tricks`` rule flags, then Manille's own two: follow
    suit, overplay in suit while no trump is on the trick (the last card of the led suit
    laid, or the best: ``overplay_reference``); void -> trump unless exempt by
    ``partner_exception``; an opponent's trump on the trick must be overtrumped if able,
    otherwise discard freely (no undertrump); the partner's winning trump need not be
    overtrumped (``overtrump_partner``); no overtrump obligation when exempt. A trump lead
    is an ordinary suit (``raise_trump_lead=False``): following it, the overplay
    obligation and its partner exemption are those of ``must_overplay_in_suit`` and
    ``partner_overplay_exempt``. ``manille_legal`` applies them."""
    partner = PARTNER_ANY if k.partner_exception == "any_partner" else PARTNER_LEADER_ONLY
    # Enchères, seed: the defenders "ne sont pas obligés de monter ni de couper sur les
    # cartes de leur collègue": no overplay nor trump while a fellow defender wins.
    encheres = k.variant == "encheres"
    shared = make_rules(must_trump=True, partner_exempt=PARTNER_ANY if encheres else partner,
                        must_overtrump=True, undertrump=False, overtrump_partner=False,
                        must_beat_led=k.must_overplay_in_suit,
                        beat_led_partner_exempt=k.partner_overplay_exempt or encheres,
                        raise_trump_lead=False)
    own = np.zeros(N_MANILLE_RULES - N_RULES, dtype=np.int64)
    own[R_OVERPLAY_LAST - N_RULES] = k.overplay_reference == "last"
    own[R_OVERTRUMP_PARTNER_TRUMP - N_RULES] = k.overtrump_partner
    return np.concatenate((shared, own))


def tables(knobs: ManilleKnobs | None = None) -> TrickTables:
    """Trick tables: Manille ranks and counts trumps like plain cards."""
    return trick_tables(DECK.suit, STRENGTH, STRENGTH, POINTS, POINTS)


# --- result columns -----------------------------------------------------------------
(C_DEAL, C_DEALER, C_ANNULLED, C_SCORE, C_TRICKS, C_TPTS, C_TRUMP, C_TURNED, C_TEAM_PTS,
 C_VOID, C_WIN_TEAM, C_DEALER_WON) = (0, 1, 2, 3, 7, 11, 15, 16, 17, 19, 20, 21)
N_DEAL_COLS = 22


def classic_deal_columns() -> list[Column]:
    """The classic game's deal columns (a variant's: ``variants.deal_columns``)."""
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="the deal is annulled: 34-34 (le tour est "
                   "annulé), or a renonce (only with renonce_per_mille > 0: void_deal "
                   "false, the offender's opponents mark 34)")]
    cols += [Column(f"score_s{i}", help="points the seat's team marks this deal")
             for i in range(4)]
    cols += [Column(f"tricks_s{i}") for i in range(4)]
    cols += [Column(f"trick_points_s{i}", help="card points captured (without the "
                    "per-trick point)") for i in range(4)]
    cols += [Column("trump", SUITS), Column("turned_card", DECK.labels,
                                            help="the dealer's last card, turned for trump"),
             Column("team_points_t0", help="cards + tricks of seats 0 and 2"),
             Column("team_points_t1", help="cards + tricks of seats 1 and 3"),
             Column("void_deal", BOOL, help="tie (34-34): nobody marks"),
             Column("winning_team", help="-1 on a void deal"),
             Column("dealer_team_won", BOOL)]
    assert len(cols) == N_DEAL_COLS
    return cols


(M_MATCH, M_FIRST, M_WINNER, M_N_DEALS, M_FINAL, M_N_VOID, M_BY_TWO, M_TWO_FIRST,
 M_TWO_DEAL, M_CAPPED) = (0, 1, 2, 3, 4, 8, 9, 10, 11, 12)
N_MATCH_COLS = 13


def classic_match_columns() -> list[Column]:
    """The classic game's match columns (a variant's: ``variants.match_columns``)."""
    cols = [Column("match"), Column("first_dealer"),
            Column("winner", help="team 0/1, -1 if capped"), Column("n_deals")]
    cols += [Column(f"final_score_s{i}") for i in range(4)]
    cols += [Column("n_void", help="void (tied) deals"),
             Column("ended_by_two_in_a_row", BOOL,
                    help="won by two consecutive deals before reaching the target"),
             Column("two_in_a_row_first", BOOL,
                    help="a team won two consecutive deals before either reached the target "
                         "(whatever two_in_a_row_end says): that end would have come first"),
             Column("two_in_a_row_deal", help="the deal at which that happened (1 = first "
                    "deal), -1 if it did not"),
             Column("capped", BOOL)]
    assert len(cols) == N_MATCH_COLS
    return cols


# --- the state of a deal ----------------------------------------------------------------
P_PLAY, P_DONE = 0, 1
MAX_MOVES = HAND
(S_PHASE, S_DEALER, S_TO_MOVE, S_PLY, S_TURNED, S_TRUMP, S_LEADER, S_LED, S_WIN, S_WIN_SEAT,
 S_ON_TABLE, S_N_TABLE, S_TRICK, S_GONE) = range(14)
S_HAND = 14  # 4 slots: each seat's hand (card mask)
S_TRICKS = 18  # 4 slots: tricks won per seat
S_TPTS = 22  # 4 slots: card points won per seat
S_HIST = 26  # 32 slots: the cards played, in order (the first leader is the dealer's left)
N_STATE = 58


@hot
def hand_of(state: np.ndarray, p: int) -> np.uint64:
    return np.uint64(state[S_HAND + p])


@hot
def deal(state: np.ndarray, deck: np.ndarray, dealer: int, dealt: np.ndarray) -> None:
    """8 cards each in packets of 2, clockwise from the dealer's left (``dealt[p]``: card
    ids in dealing order); the last card dealt (the dealer's 8th) is turned and gives
    trump; the dealer's left leads the first trick."""
    for i in range(N_STATE):
        state[i] = 0
    state[S_DEALER] = dealer
    pos = 0
    for packet in range(HAND // PACKET):
        for k in range(4):
            p = (dealer + 1 + k) % 4
            h = hand_of(state, p)
            for i in range(PACKET):
                dealt[p, packet * PACKET + i] = deck[pos]
                h |= bit(deck[pos])
                pos += 1
            state[S_HAND + p] = np.int64(h)
    state[S_TURNED] = deck[pos - 1]
    state[S_TRUMP] = choose_trump(deck[pos - 1])
    state[S_PHASE] = P_PLAY
    state[S_LEADER] = (dealer + 1) % 4
    state[S_TO_MOVE] = (dealer + 1) % 4
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1


# Later deals of a match without reshuffling (knob reshuffle_each_deal=false). The seed:
# "Le donneur ... bat les cartes au tout début d'une partie. Dans les manches suivantes,
# selon les accords entre les joueurs, il donne seulement les cartes à couper par le joueur
# situé à sa droite." It says nothing of how the tricks are put together nor of a minimum
# packet, so: one pile of the tricks in the order they were won (both teams' tricks
# interleaved as played, not one team's pile on the other's), each trick's cards in the
# order they were played, the first trick on top; any proper cut.
CUT_MIN_PACKET = 1  # cards each packet of the cut keeps at least


@hot
def draw_cut(st: np.uint64) -> tuple[np.uint64, int]:
    """Where the player on the dealer's right cuts (``st``: the deal's shuffle stream):
    uniform over the cuts that leave at least ``CUT_MIN_PACKET`` cards in each packet, so
    which seat cuts changes nothing. Returns (advanced stream, number of cards lifted from the top)."""
    st, r = rng.below(st, N_CARDS - 2 * CUT_MIN_PACKET + 1)
    return st, CUT_MIN_PACKET + r


@hot
def cut_gathered_tricks(played: np.ndarray, cut: int, deck: np.ndarray) -> None:
    """The next deal's pack, top card first, in ``deck``: the finished deal's tricks
    gathered as they were won (``played``: its 32 cards in play order, the state's
    ``S_HIST`` slots), then cut: the top ``cut`` cards are lifted and go under the rest."""
    for j in range(N_CARDS):
        deck[j] = played[(cut + j) % N_CARDS]


@hot
def choose_trump(turned: int) -> int:
    """Classic: the suit of the turned card (the last card dealt; the dealer keeps it)."""
    return turned // 8


# --- card play: 8 tricks ----------------------------------------------------------------
# legal_cards_now and play_card (and the heuristic's card choice) are inlined into the
# kernels' loops at numba IR level: the heuristic run measured 1.3-1.5x faster so.
@hot_inline
def manille_legal(hand: np.uint64, table: np.ndarray, n_table: int, led: int, win: int,
                  win_seat: int, leader: int, seat: int, team_of: np.ndarray, trump: int,
                  suit_of: np.ndarray, suit_mask: np.ndarray, excuse_mask: np.uint64,
                  above_t: np.ndarray, rules: np.ndarray) -> np.uint64:
    """The cards of ``hand`` that ``seat`` may play on the trick ``table[:n_table]`` (card
    ids in play order; its led suit, winning card and seat ``led``, ``win``,
    ``win_seat``): ``tricks.legal_cards`` with Manille's two own rules (``rules_for``).

    * In suit (``R_OVERPLAY_LAST``), seed: "mettre une carte de valeur supérieure à la
      dernière carte posée et dans la même couleur": the card to beat is the last card of
      the led suit laid (a discard of another suit is passed over). The obligation lapses
      once a trump is on a plain trick, as with the best card.
    * Void, a trump on the trick that is the partner's, and not exempt: seed, "quand
      l'adversaire a coupé, il faut obligatoirement surcouper si on peut": the partner's
      trump is not the adversary's, so any trump will do (``R_OVERTRUMP_PARTNER_TRUMP``
      off)."""
    pw = partner_winning(win, win_seat, leader, seat, team_of, rules[R_PARTNER_EXEMPT])
    if led >= 0:
        follow = hand & suit_mask[led]
        trump_on = trump >= 0 and suit_of[win] == trump
        if follow != EMPTY:
            if rules[R_OVERPLAY_LAST] and (led == trump or not trump_on):
                ref = win
                for k in range(n_table - 1, -1, -1):
                    if suit_of[table[k]] == led:
                        ref = table[k]
                        break
                return legal_cards(hand, led, ref, pw, trump, suit_of, suit_mask,
                                   excuse_mask, above_t, rules)
        elif trump_on and not pw and rules[R_MUST_TRUMP] \
                and not rules[R_OVERTRUMP_PARTNER_TRUMP] and win_seat != seat \
                and team_of[win_seat] == team_of[seat]:
            trumps = hand & suit_mask[trump]
            return (trumps | (hand & excuse_mask)) if trumps != EMPTY else hand
    return legal_cards(hand, led, win, pw, trump, suit_of, suit_mask, excuse_mask, above_t,
                       rules)


@hot_inline
def legal_cards_now(state: np.ndarray, rules: np.ndarray, suit_of: np.ndarray,
                    suit_mask: np.ndarray, excuse_mask: np.uint64, above_t: np.ndarray) -> np.uint64:
    """The cards the player to move may play (a mask): see ``rules_for`` and
    ``manille_legal``. ``above_t`` is the row of ``tables().above`` for the deal's trump
    (``trump + 1``)."""
    p = state[S_TO_MOVE]
    start = S_HIST + state[S_TRICK] * 4
    return manille_legal(hand_of(state, p), state[start:start + 4], state[S_N_TABLE],
                         state[S_LED], state[S_WIN], state[S_WIN_SEAT], state[S_LEADER], p,
                         TEAM_OF, state[S_TRUMP], suit_of, suit_mask, excuse_mask, above_t,
                         rules)


@hot_inline
def play_card(state: np.ndarray, c: int, suit_of: np.ndarray, points_t: np.ndarray,
              above_t: np.ndarray) -> None:
    """The player to move plays card ``c``; a full trick goes to its winner, who leads the
    next. ``points_t``, ``above_t``: the trump's rows of ``tables()``."""
    p = state[S_TO_MOVE]
    state[S_HAND + p] = np.int64(hand_of(state, p) & ~bit(c))
    state[S_GONE] = np.int64(np.uint64(state[S_GONE]) | bit(c))
    state[S_HIST + state[S_TRICK] * 4 + state[S_N_TABLE]] = c
    state[S_PLY] += 1
    state[S_ON_TABLE] += points_t[c]
    led, win, win_seat = update_trick(c, p, state[S_LED], state[S_WIN], state[S_WIN_SEAT],
                                      state[S_TRUMP], suit_of, above_t)
    n_table = state[S_N_TABLE] + 1
    if n_table < 4:
        state[S_LED] = led
        state[S_WIN] = win
        state[S_WIN_SEAT] = win_seat
        state[S_N_TABLE] = n_table
        state[S_TO_MOVE] = (p + 1) % 4
        return
    state[S_TRICKS + win_seat] += 1
    state[S_TPTS + win_seat] += state[S_ON_TABLE]
    state[S_TRICK] += 1
    state[S_LEADER] = win_seat
    state[S_TO_MOVE] = win_seat
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_ON_TABLE] = 0
    state[S_N_TABLE] = 0
    if state[S_TRICK] == HAND:
        state[S_PHASE] = P_DONE


@hot
def to_move(state: np.ndarray) -> int:
    """The seat to play, -1 when the deal is over."""
    return -1 if state[S_PHASE] == P_DONE else state[S_TO_MOVE]


@hot
def legal_moves(state: np.ndarray, rules: np.ndarray, tb: tuple, out: np.ndarray) -> int:
    """The legal cards of the player to move, ascending (``tb``: ``tables().kernel_args()``);
    returns how many."""
    if state[S_PHASE] == P_DONE:
        return 0
    return cards_of(legal_cards_now(state, rules, tb[0], tb[1], tb[2], tb[5][state[S_TRUMP] + 1]),
                    out)


@hot
def apply_move(state: np.ndarray, c: int, tb: tuple) -> None:
    t = state[S_TRUMP] + 1
    play_card(state, c, tb[0], tb[4][t], tb[5][t])


# --- scoring -----------------------------------------------------------------------------------
@hot
def score_deal(cards0: int, tricks0: int, cards1: int, tricks1: int, trick_point: int,
               mark_full: bool) -> tuple[int, int, int, int, int]:
    """(team points 0, team points 1, marked by team 0, marked by team 1, winning team).

    Team points = card points + trick_point per trick (68 in all with the defaults). A tie
    (34-34) is a void deal: nobody marks, winning team -1. Otherwise the team with more
    points (>= 35) wins and marks its points over half the deal (or all of them with
    ``mark_full``); the loser marks 0."""
    p0 = cards0 + tricks0 * trick_point
    p1 = cards1 + tricks1 * trick_point
    half = (p0 + p1) // 2
    if p0 == p1:
        return p0, p1, 0, 0, -1
    if p0 > p1:
        return p0, p1, p0 if mark_full else p0 - half, 0, 0
    return p0, p1, 0, p1 if mark_full else p1 - half, 1


@hot
def team_marks(state: np.ndarray, kv: np.ndarray) -> tuple[int, int]:
    """What team 0 and team 1 mark for a finished deal."""
    pts0, pts1, mark0, mark1, win_team = score_deal(
        state[S_TPTS] + state[S_TPTS + 2], state[S_TRICKS] + state[S_TRICKS + 2],
        state[S_TPTS + 1] + state[S_TPTS + 3], state[S_TRICKS + 1] + state[S_TRICKS + 3],
        kv[K_TRICK_POINT], kv[K_MARK_FULL] != 0)
    return mark0, mark1


# --- renonce (knob renonce_per_mille): a player's error, drawn apart from the play ---------
FAULT = 3  # rng purpose of the renonce draws: shuffles and decisions keep their streams
RENONCE_PENALTY = 34  # seed: "34 points de pénalité qui seront attribués à son adversaire"


@hot
def draw_renonce(fstate: np.uint64, dealer: int, per_mille: int) -> int:
    """The seat that revokes in this deal, or -1 (``fstate``: the deal's ``FAULT``
    stream): each seat from the dealer's left in turn with chance ``per_mille`` / 1000,
    the first drawn counts. No draw at all when the rate is 0."""
    if per_mille <= 0:
        return -1
    for k in range(4):
        fstate, x = rng.below(fstate, 1000)
        if x < per_mille:
            return (dealer + 1 + k) % 4
    return -1


@hot
def apply_renonce(row: np.ndarray, offender: int, dealer: int) -> None:
    """A played deal's row (``write_row``) after a renonce by ``offender``: the deal is
    annulled and the other team marks ``RENONCE_PENALTY``, the offender's nothing; the
    other team wins the deal, so it is not void (``void_deal``: nobody marks) even after a
    34-34 play."""
    other = 1 - TEAM_OF[offender]
    row[C_ANNULLED] = 1
    row[C_VOID] = 0
    row[C_WIN_TEAM] = other
    row[C_DEALER_WON] = TEAM_OF[dealer] == other
    for p in range(4):
        row[C_SCORE + p] = RENONCE_PENALTY if TEAM_OF[p] == other else 0


@hot
def write_row(state: np.ndarray, kv: np.ndarray, row: np.ndarray) -> None:
    """Deal columns from C_ANNULLED on, for a finished deal."""
    dealer = state[S_DEALER]
    row[C_ANNULLED] = 0
    row[C_TRUMP] = state[S_TRUMP]
    row[C_TURNED] = state[S_TURNED]
    for p in range(4):
        row[C_TRICKS + p] = state[S_TRICKS + p]
        row[C_TPTS + p] = state[S_TPTS + p]
    pts0, pts1, mark0, mark1, win_team = score_deal(
        state[S_TPTS] + state[S_TPTS + 2], state[S_TRICKS] + state[S_TRICKS + 2],
        state[S_TPTS + 1] + state[S_TPTS + 3], state[S_TRICKS + 1] + state[S_TRICKS + 3],
        kv[K_TRICK_POINT], kv[K_MARK_FULL] != 0)
    row[C_TEAM_PTS] = pts0
    row[C_TEAM_PTS + 1] = pts1
    row[C_VOID] = win_team < 0
    row[C_ANNULLED] = win_team < 0  # seed: on a 34-34 tie "le tour est annulé"
    row[C_WIN_TEAM] = win_team
    row[C_DEALER_WON] = win_team == TEAM_OF[dealer]
    for p in range(4):
        row[C_SCORE + p] = mark0 if TEAM_OF[p] == 0 else mark1
