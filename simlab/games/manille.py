"""Manille, classic 4-player game in two teams (seed 003 "Manille"; catalogue ``manille.md``).

Read top to bottom like the rulebook: deck and tables, knobs, deal and trump, play,
scoring, match.

Seats 0..3 clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1; the player on
the dealer's left is ``dealer + 1``.

Only the classic game is implemented, so ``balance_metrics`` answers the catalogue's
balance questions 1-3 (dealer edge, must-overplay, length); questions 4-8 are about the
enchères, folle, à deux, belge and à trois variants and are left out until they exist.
The variants of the catalogue (belge, coinchée, enchères, folle, trois, deux) will arrive
behind the ``variant`` knob: the deal is split into phases (``deal_cards``,
``choose_trump``, ``play_tricks``, ``score_deal``) so a variant replaces one phase (trump
choice, scoring, who plays which hand) and keeps the others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from simlab import rng
from simlab.decks import SUITS, get_deck
from simlab.games.base import BOOL, HEURISTIC, Column, Game, KernelOutput, policy_codes
from simlab.jit import batch, hot
from simlab.knobs import Knobs, knob
from simlab.metrics import MetricDef, std_dev, team_value
from simlab.tricks import (
    EMPTY,
    ONE,
    PARTNER_ANY,
    PARTNER_LEADER_ONLY,
    R_PARTNER_EXEMPT,
    TrickTables,
    best_in,
    bit,
    follow_heuristic,
    is_master,
    legal_cards,
    lowest,
    make_rules,
    partner_winning,
    random_card,
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

VARIANTS = ("classic",)
V_CLASSIC = 0


# --- knobs --------------------------------------------------------------------------
@dataclass(frozen=True)
class ManilleKnobs(Knobs):
    variant: str = knob("classic", "which Manille: the classic game (turned trump card, "
                        "fixed partnerships); the catalogue's variants come later",
                        choices=VARIANTS)
    target: int = knob(100, "a team reaching this total wins the match (the seed lists 50, "
                       "100, 150 or 200)", lo=1, hi=100000)
    trick_point: int = knob(1, "points per trick won, on top of the card points (1 makes "
                            "the 68-point deal)", lo=0, hi=100)
    mark: str = knob("excess", "what the deal winner marks: its points over half the deal "
                     "(excess, e.g. 48 -> 14) or all its points (full); not stated in the "
                     "seed", choices=("excess", "full"))
    must_overplay_in_suit: bool = knob(
        True, "following the led suit while no trump is on the trick: must beat the best "
        "card of the led suit if able (false: only follow)")
    partner_overplay_exempt: bool = knob(
        False, "no overplay obligation in suit while the partner is winning (see "
        "partner_exception for which partner)")
    partner_exception: str = knob(
        "any_partner", "void in the led suit: no obligation to trump while a partner is "
        "winning the trick (any_partner), or only while the leader's card is still master "
        "and you are the leader's partner (leader_only, the seed's literal wording)",
        choices=("any_partner", "leader_only"), seed_value="leader_only")
    two_in_a_row_end: bool = knob(
        False, "the match also ends when a team wins two consecutive deals (a void deal "
        "breaks the run)")
    max_deals: int = knob(1000, "match safety cap on deals (a capped match has winner -1)",
                          lo=1, hi=100000)
    # heuristic policy
    win_min_points: int = knob(3, "heuristic: before the last seat, take a trick from the "
                               "opponents only when it would hold at least this many card "
                               "points (only matters with must_overplay_in_suit=false: "
                               "otherwise every chance to win a trick is an obligation)",
                               lo=0, hi=100, policy=True)


# Knob vector layout for the kernels (plain ints keep the kernels' signature stable).
K_VARIANT, K_TARGET, K_TRICK_POINT, K_MARK_FULL, K_TWO_IN_A_ROW, K_MAX_DEALS, K_WIN_MIN, N_K = (
    range(8))


def _vector(k: ManilleKnobs) -> np.ndarray:
    v = np.zeros(N_K, dtype=np.int64)
    v[K_VARIANT] = VARIANTS.index(k.variant)
    v[K_TARGET] = k.target
    v[K_TRICK_POINT] = k.trick_point
    v[K_MARK_FULL] = k.mark == "full"
    v[K_TWO_IN_A_ROW] = k.two_in_a_row_end
    v[K_MAX_DEALS] = k.max_deals
    v[K_WIN_MIN] = k.win_min_points
    return v


def rules_for(k: ManilleKnobs) -> np.ndarray:
    """Obligations of play as ``simlab.tricks`` rule flags: follow suit, overplay in suit
    while no trump is on the trick; void -> trump unless a partner is winning; a trump on
    the trick must be overtrumped if able, otherwise discard freely (no undertrump); no
    overtrump obligation when exempt because the partner is winning. A trump lead is an
    ordinary suit (``raise_trump_lead=False``): following it, the overplay obligation and
    its partner exemption are those of ``must_overplay_in_suit`` and
    ``partner_overplay_exempt``."""
    partner = PARTNER_ANY if k.partner_exception == "any_partner" else PARTNER_LEADER_ONLY
    return make_rules(must_trump=True, partner_exempt=partner, must_overtrump=True,
                      undertrump=False, overtrump_partner=False,
                      must_beat_led=k.must_overplay_in_suit,
                      beat_led_partner_exempt=k.partner_overplay_exempt,
                      raise_trump_lead=False)


# --- result columns -----------------------------------------------------------------
(C_DEAL, C_DEALER, C_ANNULLED, C_SCORE, C_TRICKS, C_TPTS, C_TRUMP, C_TURNED, C_TEAM_PTS,
 C_VOID, C_WIN_TEAM, C_DEALER_WON) = (0, 1, 2, 3, 7, 11, 15, 16, 17, 19, 20, 21)
N_DEAL_COLS = 22


def deal_columns(_: ManilleKnobs | None = None) -> list[Column]:
    cols = [Column("deal"), Column("dealer"),
            Column("annulled", BOOL, help="always false (renonce is not simulated)")]
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


def match_columns(_: ManilleKnobs | None = None) -> list[Column]:
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


# --- the deal, one function per phase -------------------------------------------------
ALL_CARDS = np.uint64((1 << N_CARDS) - 1)


@hot
def deal_cards(deck: np.ndarray, dealer: int, hands: np.ndarray, dealt: np.ndarray) -> int:
    """8 cards each in packets of 2, clockwise from the dealer's left: ``hands[p]`` is
    the hand as a card mask and ``dealt[p]`` its card ids in dealing order; returns the
    last card dealt (the dealer's 8th)."""
    for p in range(4):
        hands[p] = EMPTY
    pos = 0
    for packet in range(HAND // PACKET):
        for k in range(4):
            p = (dealer + 1 + k) % 4
            for i in range(PACKET):
                dealt[p, packet * PACKET + i] = deck[pos]
                hands[p] |= bit(deck[pos])
                pos += 1
    return deck[pos - 1]


@hot
def choose_trump(turned: int, kv: np.ndarray) -> int:
    """Classic: the suit of the turned card (the last card dealt; the dealer keeps it)."""
    return turned // 8


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
def lead_heuristic(hand: np.uint64, gone: np.uint64, above: np.ndarray,
                   cheap_rank: np.ndarray, rich_rank: np.ndarray) -> int:
    """Lead a master card (the manille of a suit, the manillon once the manille is gone,
    ...), a non-trump one first and the richest of them; otherwise the cheapest card.

    ``above``, ``cheap_rank`` and ``rich_rank`` are the rows of the deal's trump. A card
    is master when no card still unseen (neither gone nor in hand) beats it in its suit;
    among a suit's masters the richest is its highest card (points rise with rank), which
    ``rich_rank`` prefers."""
    unseen = ALL_CARDS & ~gone & ~hand
    masters = EMPTY
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        if is_master(c, unseen, above):
            masters |= bit(c)
    if masters != EMPTY:
        return best_in(masters, rich_rank)
    return best_in(hand, cheap_rank)


@hot
def play_tricks(hands: np.ndarray, leader: int, trump: int, pol: np.ndarray, kv: np.ndarray,
                rules: np.ndarray, tb: tuple, state: np.uint64, tally: np.ndarray) -> np.uint64:
    """8 tricks from ``leader`` with the ``hands`` masks (emptied on the way); fills
    ``tally`` (int64 [8]: tricks per seat at 0..3, card points per seat at 4..7). Returns
    the policy stream state."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    t = trump + 1  # row of the per-trump tables
    points_t = points[t]
    above_t = above[t]
    cheap_t = cheap[t]
    rich_t = rich[t]
    win_t = win_rank[t]
    mode = rules[R_PARTNER_EXEMPT]
    for i in range(8):
        tally[i] = 0
    gone = EMPTY
    for _ in range(HAND):
        led = -1
        win = -1
        win_seat = -1
        on_table = 0
        for k in range(4):
            p = (leader + k) % 4
            pw = partner_winning(win, win_seat, leader, p, TEAM_OF, mode)
            legal = legal_cards(hands[p], led, win, pw, trump, suit_of, suit_mask, excuse_mask,
                                above_t, rules)
            if pol[p] == HEURISTIC:
                if k == 0:
                    c = lead_heuristic(hands[p], gone, above_t, cheap_t, rich_t)
                else:
                    c = follow_heuristic(legal, win, TEAM_OF[win_seat] == TEAM_OF[p], k == 3,
                                         on_table, trump, suit_of, suit_mask, excuse_mask,
                                         above_t, points_t, cheap_t, rich_t, win_t,
                                         kv[K_WIN_MIN])
            else:
                state, c = random_card(state, legal)
            hands[p] &= ~bit(c)
            gone |= bit(c)
            on_table += points_t[c]
            led, win, win_seat = update_trick(c, p, led, win, win_seat, trump, suit_of, above_t)
        tally[win_seat] += 1
        tally[4 + win_seat] += on_table
        leader = win_seat
    return state


@hot
def play_deal(deck: np.ndarray, dealer: int, pol: np.ndarray, kv: np.ndarray,
              rules: np.ndarray, tb: tuple, state: np.uint64, row: np.ndarray,
              dealt: np.ndarray, hands_out: np.ndarray, hands: np.ndarray,
              tally: np.ndarray) -> np.uint64:
    """One deal from a shuffled ``deck``: fills ``row`` (deal columns from C_ANNULLED on),
    ``dealt`` and ``hands_out`` [4, 8] (card ids in dealing order); ``hands`` (uint64 [4])
    and ``tally`` (int64 [8]) are work arrays. Returns the policy stream state."""
    turned = deal_cards(deck, dealer, hands, dealt)
    for p in range(4):
        for i in range(HAND):
            hands_out[p, i] = dealt[p, i]  # classic: no exchange before play
    trump = choose_trump(turned, kv)
    row[C_ANNULLED] = 0
    row[C_TRUMP] = trump
    row[C_TURNED] = turned

    # The dealer's left leads the first trick.
    state = play_tricks(hands, (dealer + 1) % 4, trump, pol, kv, rules, tb, state, tally)
    for p in range(4):
        row[C_TRICKS + p] = tally[p]
        row[C_TPTS + p] = tally[4 + p]

    pts0, pts1, mark0, mark1, win_team = score_deal(
        tally[4] + tally[6], tally[0] + tally[2], tally[5] + tally[7], tally[1] + tally[3],
        kv[K_TRICK_POINT], kv[K_MARK_FULL] != 0)
    row[C_TEAM_PTS] = pts0
    row[C_TEAM_PTS + 1] = pts1
    row[C_VOID] = win_team < 0
    row[C_WIN_TEAM] = win_team
    row[C_DEALER_WON] = win_team == TEAM_OF[dealer]
    for p in range(4):
        row[C_SCORE + p] = mark0 if TEAM_OF[p] == 0 else mark1
    return state


# --- batch kernels ---------------------------------------------------------------------
@batch
def deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                 rules: np.ndarray, tb: tuple, record: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # Column-major result (a row per deal, each column contiguous for polars).
    out = np.zeros((N_DEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, HAND), -1, dtype=np.int64)
    hands_out = np.full((n_rec, 4, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    tally = np.zeros(8, dtype=np.int64)
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = d % 4
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        j = i if record else 0
        play_deal(deck, dealer, pol, kv, rules, tb, rng.stream(seed, d, 0, rng.POLICY), out[i],
                  dealt[j], hands_out[j], hands, tally)
    return out, dealt, hands_out


@batch
def matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray, kv: np.ndarray,
                   rules: np.ndarray, tb: tuple) -> np.ndarray:
    out = np.zeros((count, N_MATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_DEAL_COLS, 1), dtype=np.int64).T[0]  # same array type as in deals_kernel
    dealt = np.empty((4, HAND), dtype=np.int64)
    hands_out = np.empty((4, HAND), dtype=np.int64)
    hands = np.zeros(4, dtype=np.uint64)
    tally = np.zeros(8, dtype=np.int64)
    target = kv[K_TARGET]
    for i in range(count):
        m = start + i
        _, first = rng.below(rng.stream(seed, m, 0, rng.SETUP), 4)
        dealer = first
        score0 = 0
        score1 = 0
        n_deals = 0
        n_void = 0
        run_team = -1  # team on a run of consecutive deal wins, and its length
        run = 0
        winner = -1
        by_two = False
        two_deal = -1  # first deal ending a run of two before the target: tracked always
        while n_deals < kv[K_MAX_DEALS]:
            for c in range(N_CARDS):
                deck[c] = c
            rng.shuffle(rng.stream(seed, m, n_deals + 1, rng.SHUFFLE), deck, N_CARDS)
            for j in range(N_DEAL_COLS):
                row[j] = 0
            play_deal(deck, dealer, pol, kv, rules, tb,
                      rng.stream(seed, m, n_deals + 1, rng.POLICY), row, dealt, hands_out,
                      hands, tally)
            n_deals += 1
            score0 += row[C_SCORE]
            score1 += row[C_SCORE + 1]
            win_team = row[C_WIN_TEAM]
            if win_team < 0:
                n_void += 1
                run_team = -1
                run = 0
            elif win_team == run_team:
                run += 1
            else:
                run_team = win_team
                run = 1
            dealer = (dealer + 1) % 4  # the deal passes to the left
            reached = score0 >= target or score1 >= target
            if run >= 2 and two_deal < 0 and not reached:
                two_deal = n_deals
            # Only the deal's winner marks, so at most one team reaches the target.
            if reached:
                winner = 0 if score0 >= target else 1
                break
            if kv[K_TWO_IN_A_ROW] and run >= 2:
                winner = run_team
                by_two = True
                break
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        for p in range(4):
            out[i, M_FINAL + p] = score0 if TEAM_OF[p] == 0 else score1
        out[i, M_N_VOID] = n_void
        out[i, M_BY_TWO] = by_two
        out[i, M_TWO_FIRST] = two_deal > 0
        out[i, M_TWO_DEAL] = two_deal
        out[i, M_CAPPED] = winner < 0
    return out


# --- entry points for the runner -----------------------------------------------------
def tables(knobs: ManilleKnobs | None = None) -> TrickTables:
    """Trick tables: Manille ranks and counts trumps like plain cards."""
    return trick_tables(DECK.suit, STRENGTH, STRENGTH, POINTS, POINTS)


def _setup(knobs: ManilleKnobs, policies: tuple[str, ...]):
    return policy_codes(policies), _vector(knobs), rules_for(knobs), tables(knobs).kernel_args()


def run_deals(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
              count: int, record_hands: bool = False) -> KernelOutput:
    pol, kv, rules, tb = _setup(knobs, policies)
    rows, dealt, hands = deals_kernel(np.uint64(seed), start, count, pol, kv, rules, tb,
                                      record_hands)
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=hands)


def run_matches(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                count: int) -> KernelOutput:
    pol, kv, rules, tb = _setup(knobs, policies)
    return KernelOutput(matches_kernel(np.uint64(seed), start, count, pol, kv, rules, tb))

# --- balance questions (catalogue "Balance questions" 1-3) --------------------------------
SECTION = "Manille questions"
# Headline metrics are rates: --precision reads their half-widths as fractions, so means
# in points or deals (margins, lengths) stay out of the headline table.
CLOSE, LOPSIDED = 5, 16  # deal margins: winner's points over half the deal


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: ManilleKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's balance questions 1-3 as metrics (section "Manille questions").

    Deal level: 1 the dealer's edge (the dealer's team keeps the turned trump card);
    2 the deal-score distribution and the 34-34 void rate, which ``simlab compare``
    sets against follow-only play. Match level: 3 match length and how often the
    "two consecutive wins" end would have come first. Questions 4-8 concern variants
    that do not exist yet. Only metrics whose columns the frame has are returned."""
    k = knobs if isinstance(knobs, ManilleKnobs) else ManilleKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"manille.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        void = pl.col("void_deal")
        decided = ~void
        # 1. dealer edge
        team = pl.col("dealer") % 2
        won = pl.col("dealer_team_won")
        add({"dealer_team_won", "void_deal"}, "q1.win.dealer_team", "deal win rate, dealer's "
            "team (decided deals)", won, decided, headline=True,
            note="50% means no edge; void (34-34) deals left out")
        add({"dealer_team_won"}, "q1.win.dealer_team.all", "deal win rate, dealer's team "
            "(all deals)", won)
        add({"dealer_team_won", "void_deal"}, "q1.win.other_team.all", "deal win rate, the "
            "other team (all deals)", decided & ~won)
        marks = {"dealer", "score_s0", "score_s1"}
        add(marks, "q1.margin", "points marked per deal, dealer's team minus the other team",
            team_value(team, "score_s0", "score_s1") - team_value(team, "score_s1", "score_s0"),
            kind="mean", unit="points")
        add({"dealer", "team_points_t0", "team_points_t1"}, "q1.margin.deal_points",
            "deal points (cards + tricks) per deal, dealer's team minus the other team",
            team_value(team, "team_points_t0", "team_points_t1")
            - team_value(team, "team_points_t1", "team_points_t0"),
            kind="mean", unit="points")
        # 2. must-overplay: distribution of deal scores and the void rate
        compare_note = ("against follow-only play: `simlab compare manille --a \"\" --b "
                        "\"must_overplay_in_suit=false\"`")
        add({"void_deal"}, "q2.void", "void deals (tie, 34-34 by default)", void,
            headline=True, note=compare_note)
        t0, t1 = pl.col("team_points_t0"), pl.col("team_points_t1")
        pts = {"team_points_t0", "team_points_t1", "void_deal"}
        over = (pl.max_horizontal(t0, t1) - (t0 + t1) / 2).cast(pl.Float64)
        add(pts, "q2.margin", "winner's points over half the deal (decided deals)", over,
            decided, kind="mean", unit="points", note=compare_note)
        add(pts, "q2.margin.sd", "winner's points over half the deal, standard deviation",
            std_dev(over, decided), decided, kind="mean", unit="points",
            note="delta-method interval")
        add(pts, "q2.close", f"close deals: the winner at most {CLOSE} points over half",
            over <= CLOSE, decided)
        add(pts, "q2.lopsided", f"lopsided deals: the winner {LOPSIDED}+ points over half",
            over >= LOPSIDED, decided)
        tricks = {f"tricks_s{i}" for i in range(4)}
        t0_tricks = pl.col("tricks_s0") + pl.col("tricks_s2")
        add(tricks, "q2.all_tricks", "one team takes all 8 tricks",
            (t0_tricks == 0) | (t0_tricks == HAND))
    else:
        done = pl.col("winner") >= 0
        end = f"the target ({k.target})" + (" or two consecutive wins"
                                             if k.two_in_a_row_end else "")
        add({"winner", "n_deals"}, "q3.length", f"deals to reach {end}", pl.col("n_deals"),
            done, kind="mean", unit="deals", note="capped matches left out")
        add({"winner", "n_deals"}, "q3.length.sd", "deals per match, standard deviation",
            std_dev(pl.col("n_deals"), done), done, kind="mean", unit="deals",
            note="delta-method interval")
        two = pl.col("two_in_a_row_first")
        add({"winner", "two_in_a_row_first"}, "q3.two_in_a_row_first", "the two-consecutive-"
            "wins end would have come first", two, done, headline=True,
            note="a team won two deals in a row (a void deal breaks the run) before either "
                 "reached the target; with two_in_a_row_end=true these matches end that way")
        add({"winner", "n_deals", "two_in_a_row_first", "two_in_a_row_deal"},
            "q3.length.two_in_a_row", "deals per match if two consecutive wins also ended it",
            pl.when(two).then(pl.col("two_in_a_row_deal")).otherwise(pl.col("n_deals")), done,
            kind="mean", unit="deals")
    return [m for m, need in out if need <= cols]


GAME = Game(
    slug="manille",
    title="Manille",
    description="classic Manille, 4 players in 2 teams: 8 cards each in packets of 2, "
                "trump = the dealer's last card, must follow / overplay / trump / "
                "overtrump, 68-point deals (34-34 void), match to 100",
    deck=DECK,
    knobs=ManilleKnobs,
    players=lambda k: 4,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    players_text="4",
    teams=lambda k: (0, 1, 0, 1),
    extra={"metrics": balance_metrics},
)
