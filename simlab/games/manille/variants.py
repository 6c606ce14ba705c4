"""The Manille variants (seed 003 "Manille", section "Variantes"; catalogue ``manille.md``
"Variants" A-F): the rulebook of each, as phases of a deal on top of ``rules.py``.

Read with the catalogue open. Every variant is played at four seats, clockwise; what
changes is who sits there and what a seat does:

* **belge** (A): fixed teams (seats 0, 2 against 1, 3). No turned card: the dealer
  announces trump or Sans-Atout, or passes the choice to his partner ("à toi", the
  catalogue's resolution); the opponents may contre (x2), the announcer's partner then
  surcontre (x4; the seed: "son partenaire peut également surcontrer", where the
  catalogue only says "the announcing team").
  Tricks score nothing (60 per deal, 31 wins); a 30-30 deal makes the next one count
  double. A match is ``belge_deals`` deals (seed: 20), each team announcing in half of
  them and Sans-Atout at least ``belge_sa_required`` times (seed: once): the last ones
  are forced (``S_FORCED_SA``). Marks: (points - 30) x multipliers, whoever wins.
* **coinchee** (B): as belge for the trump choice and the coinche, but with the classic
  68-point deal, marks over 34, and the classic match to ``target``; the seed's coinche
  doubles and nothing more (a surcoinche only with ``coinchee_surcoinche``).
* **encheres** (C): each for himself. An auction from the dealer's left (bids strictly
  rise from ``min_bid``; a pass is final; three passes after a bid end it; four passes
  throw the deal in); the taker names trump (a suit) and leads, alone against the three
  others, who need neither overplay nor trump a fellow defender's winning card (seed).
  Made (his points >= the bid): he marks the bid; failed: ``fail_mode``.
* **folle** (D): each for himself. The dealer names trump (a suit; none only with
  ``folle_allow_sa``) and leads; each seat takes its card points + tricks (or its tricks
  only, ``folle_count``), which it wants as few as possible: a seat *marks* minus what it
  took (``score_s{i}`` <= 0, so higher is better in every variant),
  and a match ends when a seat's points reach ``target`` (100): that seat loses and the
  lowest total wins.
* **trois** (E): three players and a dummy. Seat ``dummy`` (``S_DUMMY``) is the dummy,
  played by its partner across the table (``S_OWNER``); they are a team against the two
  others, who sit at the other two seats, so the teams are seats 0, 2 against 1, 3 as in
  the classic game. Classic deal, trump, scoring and match. The dummy lies face up
  (catalogue) or half hidden as in deux (``dummy_exposure``).
* **deux** (F): seat 0 is player A, seat 1 player B, seat 2 A's dummy (facing A), seat 3
  B's dummy: teams 0, 2 against 1, 3 again. Only A and B deal. The seed's deal: 4 cards
  face down to each dummy, 4 to each player, 4 face up onto the dummies' cards, 4 more to
  each player; trump is the suit of the last card dealt (the dealer's last). A dummy plays
  only its face-up cards, its obligations are judged on them (catalogue), and after each
  trick a face-down card no longer covered is turned up (seed: "après chaque levée on
  retourne les cartes des morts qui montrent leur dos"). Match to ``deux_target`` (44).

A dummy's cards are played by its owner's policy (``pol[owner]``), so a duplicate duel of
team 0 against team 1 puts each player with his own dummy.

State: the classic slots of ``rules.py`` (so its ``play_card`` works unchanged), then the
variant's slots below. The decisions before the play are phases too (``P_TRUMP``,
``P_CONTRE``, ``P_SURCONTRE``, ``P_BID``): ``decision_options`` lists the moves,
``apply_decision`` plays one; ``legal_now`` / ``apply_card`` are the card play.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.game import BOOL, OPT_BOOL, Column
from simlab.engine.jit import hot
from simlab.games.manille.rules import (
    HAND,
    K_BELGE_SA,
    K_CONTRE,
    K_CONTRE_MULT,
    K_FAIL_MODE,
    K_FOLLE_SA,
    K_FOLLE_TRICKS,
    K_HALF_HIDDEN,
    K_MARK_FULL,
    K_MIN_BID,
    K_SURCOINCHE,
    K_SURCONTRE,
    K_SURCONTRE_MULT,
    K_TRICK_POINT,
    MAX_TRICK_POINT,
    N_CARDS,
    P_DONE,
    P_PLAY,
    PACKET,
    S_DEALER,
    S_HAND,
    S_HIST,
    S_LEADER,
    S_LED,
    S_N_TABLE,
    S_PHASE,
    S_TO_MOVE,
    S_TPTS,
    S_TRICK,
    S_TRICKS,
    S_TRUMP,
    S_TURNED,
    S_WIN,
    S_WIN_SEAT,
    V_BELGE,
    V_COINCHEE,
    V_DEUX,
    V_ENCHERES,
    V_FOLLE,
    V_TROIS,
    ManilleKnobs,
    classic_deal_columns,
    classic_match_columns,
    manille_legal,
    play_card,
    score_deal,
)
from simlab.mechanics.tricks import EMPTY, bit, cards_of, has

# --- the variant's state slots, after the classic ones (rules.N_STATE = 58) -------------
S_VARIANT = 58
S_TEAM = 59  # 4 slots: the side of each seat (partners share it)
S_OWNER = 63  # 4 slots: the seat whose player decides for this seat (a dummy's partner)
S_DOWN = 67  # 4 slots: a dummy's face-down cards (mask); 0 for a player
S_STACK = 71  # 16 slots: per seat, 4 stacks of (face-up top, face-down bottom) card ids
S_CHOOSER = 87  # the seat that named trump (belge, coinchee, folle) or the taker, -1
S_CONTRE = 88  # 0 none, 1 contré, 2 surcontré (belge, coinchee)
S_CONTRER = 89  # the seat that contred, -1
S_BID = 90  # the highest bid so far (enchères), 0 = none
S_TAKER = 91  # its bidder, -1
S_PASSED = 92  # seats that passed in the auction (mask of 4 bits)
S_MULT = 93  # belge: 2 when the previous deal of the match was a 30-30 tie, else 1
S_FORCED_SA = 94  # belge: the announcers must play Sans-Atout (their last chances)
S_FIRST_LEADER = 95  # who led the first trick (for the play history)
S_DUMMY = 96  # trois: the dummy's seat; deux: 2 (A's dummy; B's is 3); else -1
N_VSTATE = 97

# Phases after the classic P_PLAY = 0, P_DONE = 1.
P_TRUMP, P_CONTRE, P_SURCONTRE, P_BID, P_THROWN = 2, 3, 4, 5, 6
NO_TRUMP = 4  # P_TRUMP move: Sans-Atout (trump slot -1)
PASS_CHOICE = 5  # P_TRUMP move: the dealer passes the choice to his partner ("à toi")
PASS = 0  # P_BID move: pass (any other move is the bid itself)
# Options of a decision: at most a pass and every bid up to the deal's total points.
MAX_DECISIONS = 2 + 60 + HAND * MAX_TRICK_POINT

TEAMS_CLASSIC = np.array([0, 1, 0, 1], dtype=np.int64)


@hot
def total_points(kv: np.ndarray, variant: int) -> int:
    """A deal's points: 60 in cards, + a point per trick except in belge (seed: "le total
    des points est alors ramené à 60")."""
    return 60 + (0 if variant == V_BELGE else HAND * kv[K_TRICK_POINT])


@hot
def trick_point(kv: np.ndarray, variant: int) -> int:
    return 0 if variant == V_BELGE else kv[K_TRICK_POINT]


@hot
def is_dummy(state: np.ndarray, p: int) -> bool:
    return state[S_OWNER + p] != p


@hot
def visible_hand(state: np.ndarray, p: int) -> np.uint64:
    """The cards seat ``p`` may play: its hand less a dummy's face-down cards."""
    return np.uint64(state[S_HAND + p]) & ~np.uint64(state[S_DOWN + p])


# --- the deal ------------------------------------------------------------------------------
@hot
def reset_state(state: np.ndarray, variant: int, dealer: int, dummy: int) -> None:
    for i in range(N_VSTATE):
        state[i] = 0
    state[S_VARIANT] = variant
    state[S_DEALER] = dealer
    state[S_TURNED] = -1
    state[S_LED] = -1
    state[S_WIN] = -1
    state[S_WIN_SEAT] = -1
    state[S_CHOOSER] = -1
    state[S_CONTRER] = -1
    state[S_TAKER] = -1
    state[S_MULT] = 1
    state[S_DUMMY] = -1
    for p in range(4):
        state[S_OWNER + p] = p
        # individual variants: every seat its own side
        individual = variant == V_ENCHERES or variant == V_FOLLE
        state[S_TEAM + p] = p if individual else TEAMS_CLASSIC[p]
        for j in range(4):
            state[S_STACK + 4 * p + j] = -1  # unused stacks
    if variant == V_TROIS:
        state[S_DUMMY] = dummy
        state[S_OWNER + dummy] = (dummy + 2) % 4
    elif variant == V_DEUX:
        state[S_DUMMY] = 2
        state[S_OWNER + 2] = 0
        state[S_OWNER + 3] = 1


@hot
def _give(state: np.ndarray, dealt: np.ndarray, p: int, slot: int, card: int) -> None:
    dealt[p, slot] = card
    state[S_HAND + p] = np.int64(np.uint64(state[S_HAND + p]) | bit(card))


@hot
def _lay_stacks(state: np.ndarray, dealt: np.ndarray, p: int) -> None:
    """A half-hidden dummy: its first 4 cards dealt lie face down, the next 4 face up,
    one on each (stack j = dealt[p, 4 + j] over dealt[p, j])."""
    down = EMPTY
    for j in range(4):
        state[S_STACK + 4 * p + j] = dealt[p, 4 + j] * 64 + dealt[p, j]
        down |= bit(dealt[p, j])
    state[S_DOWN + p] = np.int64(down)


@hot
def deal_variant(state: np.ndarray, deck: np.ndarray, dealer: int, dummy: int,
                 kv: np.ndarray, variant: int, dealt: np.ndarray) -> None:
    """Deal ``deck`` (top card first) for ``variant``; ``dealt[p]``: seat p's cards in
    dealing order. Then the first phase: the auction, the trump choice or (turned trump)
    the play."""
    reset_state(state, variant, dealer, dummy)
    if variant == V_DEUX:
        # Seed: 4 face down to each dummy, 4 to each player, 4 face up onto the dummies,
        # 4 more to each player; clockwise from the dealer's left within each round, so
        # the dealer's last card is the last dealt.
        pos = 0
        for rnd in range(4):
            for k in range(4):
                p = (dealer + 1 + k) % 4
                if (p >= 2) == (rnd % 2 == 0):  # dummies in rounds 0, 2; players in 1, 3
                    for i in range(4):
                        _give(state, dealt, p, 4 * (rnd // 2) + i, deck[pos])
                        pos += 1
        _lay_stacks(state, dealt, 2)
        _lay_stacks(state, dealt, 3)
    else:
        # Seed: 8 cards each "par lot de deux cartes", clockwise from the dealer's left.
        pos = 0
        for packet in range(HAND // PACKET):
            for k in range(4):
                p = (dealer + 1 + k) % 4
                for i in range(PACKET):
                    _give(state, dealt, p, packet * PACKET + i, deck[pos])
                    pos += 1
        if variant == V_TROIS and kv[K_HALF_HIDDEN] != 0:
            _lay_stacks(state, dealt, dummy)
    last = deck[N_CARDS - 1]
    if variant == V_TROIS or variant == V_DEUX:
        # Classic trump: the dealer's last card, turned (deux, seed: "l'atout est la
        # couleur de la dernière carte distribuée").
        state[S_TURNED] = last
        state[S_TRUMP] = last // 8
        start_play(state, (dealer + 1) % 4)
    elif variant == V_ENCHERES:
        state[S_PHASE] = P_BID  # seed: "la dernière carte n'est pas retournée"
        state[S_TO_MOVE] = (dealer + 1) % 4
    else:  # belge, coinchee: the dealer announces; folle: "c'est le donneur qui fixe l'atout"
        state[S_PHASE] = P_TRUMP
        state[S_TO_MOVE] = dealer


@hot
def start_play(state: np.ndarray, leader: int) -> None:
    state[S_PHASE] = P_PLAY
    state[S_LEADER] = leader
    state[S_TO_MOVE] = leader
    state[S_FIRST_LEADER] = leader


# --- the decisions before the play -----------------------------------------------------
@hot
def decision_options(state: np.ndarray, kv: np.ndarray, out: np.ndarray) -> int:
    """The moves of the seat to move in a decision phase (see the P_* move codes)."""
    phase = state[S_PHASE]
    p = state[S_TO_MOVE]
    variant = state[S_VARIANT]
    n = 0
    if phase == P_TRUMP:
        if state[S_FORCED_SA] != 0:  # belge: the compulsory Sans-Atout
            out[0] = NO_TRUMP
            return 1
        for s in range(4):
            out[n] = s
            n += 1
        # Sans-Atout: belge and coinchée (seed: "on peut jouer sans atout"), folle by knob;
        # the enchères taker "donne l'atout": a suit.
        if variant == V_BELGE or variant == V_COINCHEE or (variant == V_FOLLE and kv[K_FOLLE_SA] != 0):
            out[n] = NO_TRUMP
            n += 1
        if (variant == V_BELGE or variant == V_COINCHEE) and p == state[S_DEALER]:
            out[n] = PASS_CHOICE
            n += 1
        return n
    if phase == P_CONTRE or phase == P_SURCONTRE:
        out[0] = 0
        out[1] = 1
        return 2
    if phase == P_BID:
        out[0] = PASS
        n = 1
        lo = max(kv[K_MIN_BID], state[S_BID] + 1)
        for b in range(lo, total_points(kv, variant) + 1):
            out[n] = b
            n += 1
        return n
    return 0


@hot
def _after_trump(state: np.ndarray, kv: np.ndarray) -> None:
    """Trump named: the opponents may contre (belge, coinchée), then the play; the first
    lead is the dealer's left's, the folle dealer's own ("c'est le donneur qui ... commence
    à jouer") or the enchères taker's ("donne l'atout et joue la première carte")."""
    variant = state[S_VARIANT]
    dealer = state[S_DEALER]
    if (variant == V_BELGE or variant == V_COINCHEE) and kv[K_CONTRE] != 0:
        state[S_PHASE] = P_CONTRE
        state[S_TO_MOVE] = (dealer + 1) % 4  # the opponent on the dealer's left speaks first
        return
    if variant == V_FOLLE:
        start_play(state, dealer)
    elif variant == V_ENCHERES:
        start_play(state, state[S_TAKER])
    else:
        start_play(state, (dealer + 1) % 4)


@hot
def apply_decision(state: np.ndarray, kv: np.ndarray, move: int) -> None:
    """The seat to move takes decision ``move`` (one of ``decision_options``)."""
    phase = state[S_PHASE]
    p = state[S_TO_MOVE]
    dealer = state[S_DEALER]
    if phase == P_TRUMP:
        if move == PASS_CHOICE:  # "à toi": the partner must choose
            state[S_TO_MOVE] = (p + 2) % 4
            return
        state[S_CHOOSER] = p
        state[S_TRUMP] = -1 if move == NO_TRUMP else move
        _after_trump(state, kv)
    elif phase == P_CONTRE:
        if move == 1:
            state[S_CONTRE] = 1
            state[S_CONTRER] = p
            surcontre = kv[K_SURCONTRE] if state[S_VARIANT] == V_BELGE else kv[K_SURCOINCHE]
            if surcontre != 0:
                # Seed (belge): "si un joueur est contré ..., son partenaire peut également
                # surcontrer": the announcer's partner answers the contre. The seed's
                # coinchée has none (knob coinchee_surcoinche borrows it).
                state[S_PHASE] = P_SURCONTRE
                state[S_TO_MOVE] = (state[S_CHOOSER] + 2) % 4
                return
            start_play(state, (dealer + 1) % 4)
        elif p == (dealer + 1) % 4:
            state[S_TO_MOVE] = (dealer + 3) % 4  # the other opponent
        else:
            start_play(state, (dealer + 1) % 4)
    elif phase == P_SURCONTRE:
        if move == 1:
            state[S_CONTRE] = 2
        start_play(state, (dealer + 1) % 4)
    elif phase == P_BID:
        if move == PASS:
            state[S_PASSED] |= 1 << p
        else:
            state[S_BID] = move
            state[S_TAKER] = p
        passed = state[S_PASSED]
        n_passed = (passed & 1) + (passed >> 1 & 1) + (passed >> 2 & 1) + (passed >> 3 & 1)
        if n_passed == 4:
            state[S_PHASE] = P_THROWN  # all passed: thrown in (redealt)
            return
        if n_passed == 3 and state[S_TAKER] >= 0:
            set_taker(state, state[S_TAKER])
            state[S_PHASE] = P_TRUMP
            state[S_TO_MOVE] = state[S_TAKER]
            return
        q = (p + 1) % 4
        while passed >> q & 1:
            q = (q + 1) % 4
        state[S_TO_MOVE] = q


@hot
def set_taker(state: np.ndarray, taker: int) -> None:
    """Enchères: the taker names trump and plays alone; the three others are one side
    for the play (seed: "il aura contre lui les 3 cartes adversaires")."""
    state[S_TAKER] = taker
    state[S_CHOOSER] = taker
    for q in range(4):
        state[S_TEAM + q] = 0 if q == taker else 1


# --- card play ----------------------------------------------------------------------------
@hot
def legal_now(state: np.ndarray, rules: np.ndarray, tb: tuple) -> np.uint64:
    """The cards the seat to move may play: the classic obligations (``rules.rules_for``)
    applied to its visible cards (a dummy's face-down cards do not count, catalogue F),
    with partners as the variant's sides (``S_TEAM``; none in folle, the defenders in
    enchères)."""
    p = state[S_TO_MOVE]
    start = S_HIST + state[S_TRICK] * 4
    return manille_legal(visible_hand(state, p), state[start:start + 4], state[S_N_TABLE],
                         state[S_LED], state[S_WIN], state[S_WIN_SEAT], state[S_LEADER], p,
                         state[S_TEAM:S_TEAM + 4], state[S_TRUMP], tb[0], tb[1], tb[2],
                         tb[5][state[S_TRUMP] + 1], rules)


@hot
def legal_card_moves(state: np.ndarray, rules: np.ndarray, tb: tuple, out: np.ndarray) -> int:
    if state[S_PHASE] != P_PLAY:
        return 0
    return cards_of(legal_now(state, rules, tb), out)


@hot
def turn_uncovered(state: np.ndarray) -> None:
    """After a trick: each face-down card whose covering card has been played is turned
    face up."""
    for p in range(4):
        down = np.uint64(state[S_DOWN + p])
        if down == EMPTY:
            continue
        hand = np.uint64(state[S_HAND + p])
        for j in range(4):
            pair = state[S_STACK + 4 * p + j]
            if pair < 0:
                continue
            top = pair // 64
            bottom = pair % 64
            if not has(hand, top) and has(down, bottom):
                down &= ~bit(bottom)
        state[S_DOWN + p] = np.int64(down)


@hot
def apply_card(state: np.ndarray, c: int, tb: tuple) -> None:
    """``rules.play_card``, then the dummies' uncovered cards are turned after a trick."""
    t = state[S_TRUMP] + 1
    play_card(state, c, tb[0], tb[4][t], tb[5][t])
    if state[S_N_TABLE] == 0:
        turn_uncovered(state)


# --- scoring ---------------------------------------------------------------------------------
@hot
def seat_points(state: np.ndarray, kv: np.ndarray, p: int) -> int:
    """Card points + trick points taken by seat ``p``."""
    return state[S_TPTS + p] + state[S_TRICKS + p] * trick_point(kv, state[S_VARIANT])


@hot
def deal_marks(state: np.ndarray, kv: np.ndarray, marks: np.ndarray) -> int:
    """What each seat marks for a finished deal (``marks[p]``); returns the winning side:
    team 0/1 in team variants (-1 on a tie), in enchères 0 when the taker made his bid and
    1 when he failed, in folle the seat that took the fewest points (-1 if shared)."""
    variant = state[S_VARIANT]
    if variant == V_FOLLE:
        best = 1 << 30
        winner = -1
        for p in range(4):
            # seed: "le moins de levées possible (ou le score le plus bas)": knob folle_count
            pts = state[S_TRICKS + p] if kv[K_FOLLE_TRICKS] != 0 else seat_points(state, kv, p)
            marks[p] = -pts
            if pts < best:
                best = pts
                winner = p
            elif pts == best:
                winner = -1
        return winner
    if variant == V_ENCHERES:
        taker = state[S_TAKER]
        bid = state[S_BID]
        made = seat_points(state, kv, taker) >= bid
        for p in range(4):
            marks[p] = 0
        if made:
            marks[taker] = bid
            return 0
        mode = kv[K_FAIL_MODE]
        for p in range(4):
            if p != taker:
                if mode == 0:
                    marks[p] = (bid + 2) // 3  # share: ceil(bid / 3) each
                elif mode == 1:
                    marks[p] = bid
        if mode == 2:
            marks[taker] = -bid
        return 1
    tp = trick_point(kv, variant)
    pts0, pts1, mark0, mark1, win_team = score_deal(
        state[S_TPTS] + state[S_TPTS + 2], state[S_TRICKS] + state[S_TRICKS + 2],
        state[S_TPTS + 1] + state[S_TPTS + 3], state[S_TRICKS + 1] + state[S_TRICKS + 3],
        tp, kv[K_MARK_FULL] != 0)
    mult = 1
    if variant == V_BELGE or variant == V_COINCHEE:
        # The multiplier applies whoever wins (catalogue A, B): the coinching team marks
        # double if the demandeur loses, the demandeur double if he wins.
        if state[S_CONTRE] == 1:
            mult = kv[K_CONTRE_MULT]
        elif state[S_CONTRE] == 2:
            mult = kv[K_SURCONTRE_MULT]
        mult *= state[S_MULT]
    for p in range(4):
        marks[p] = (mark0 if p % 2 == 0 else mark1) * mult
    return win_team


@hot
def side_points(state: np.ndarray, kv: np.ndarray) -> tuple[int, int]:
    """(team points 0, team points 1): seats 0+2 and 1+3 in team variants; in enchères
    the taker's and the defence's."""
    if state[S_VARIANT] == V_ENCHERES:
        taker = state[S_TAKER]
        mine = seat_points(state, kv, taker)
        return mine, total_points(kv, V_ENCHERES) - mine
    return (seat_points(state, kv, 0) + seat_points(state, kv, 2),
            seat_points(state, kv, 1) + seat_points(state, kv, 3))


@hot
def forced_sa_now(announced_left: int, sa_done: int, kv: np.ndarray) -> bool:
    """Belge: the announcers must play Sans-Atout now when their announcements left (this
    one included) are no more than the Sans-Atout announcements they still owe."""
    need = kv[K_BELGE_SA] - sa_done
    return need > 0 and announced_left <= need


@hot
def is_done(state: np.ndarray) -> bool:
    return state[S_PHASE] == P_DONE or state[S_PHASE] == P_THROWN


# --- result columns of the variants ------------------------------------------------------
# The classic deal columns (rules.classic_deal_columns) keep their names, read per variant as
# below; each variant adds its own (``VARIANT_DEAL_COLUMNS``). The kernels fill a wide row
# (classic columns, then every extension) and ``run_deals`` keeps the variant's.
(E_SA, E_CHOOSER, E_CONTRE, E_ANNOUNCER_WON, E_TAKER, E_BID, E_MADE, E_TAKER_POINTS,
 E_DUMMY) = range(22, 31)
E_POINTS = 31  # 4 slots: each seat's card + trick points
N_VDEAL_COLS = 35


def _extension_columns() -> dict[str, Column]:
    cols = [Column("sans_atout", BOOL, help="no trump was announced (Sans-Atout)"),
            Column("chooser", help="the seat that named trump (belge, coinchee: the dealer "
                   "or, when he passed the choice, his partner; folle: the dealer)"),
            Column("contre", help="0 none, 1 contré (coinché), 2 surcontré"),
            Column("announcer_won", OPT_BOOL, help="the announcing (dealer's) team won the "
                   "deal; null on a tie"),
            Column("taker", help="the highest bidder, who plays alone; -1 when all passed"),
            Column("bid", help="the taker's bid (points he undertook to take); 0 if none"),
            Column("made", OPT_BOOL, help="the taker took at least his bid; null when all "
                   "passed"),
            Column("taker_points", help="the taker's card and trick points"),
            Column("dummy_seat", help="the dummy's seat; its partner sits across (+2)")]
    cols += [Column(f"points_s{i}", help="the seat's own card and trick points")
             for i in range(4)]
    return {c.name: c for c in cols}


VARIANT_DEAL_COLUMNS = {
    "belge": ("sans_atout", "chooser", "contre", "announcer_won"),
    "coinchee": ("sans_atout", "chooser", "contre", "announcer_won"),
    "encheres": ("taker", "bid", "made", "taker_points", "points_s0", "points_s1",
                 "points_s2", "points_s3"),
    "folle": ("sans_atout", "chooser", "points_s0", "points_s1", "points_s2", "points_s3"),
    "trois": ("dummy_seat",),
    "deux": (),
}

# How the classic columns read in each variant (their help text).
_CLASSIC_HELP = {
    "score_s": {"encheres": "points the seat marks this deal (the taker: his bid if made; "
                            "the others: per fail_mode)",
                "folle": "minus the points the seat took: what it marks is a penalty, so "
                         "higher is better"},
    "team_points_t0": {"encheres": "the taker's card and trick points",
                       "folle": "cards + tricks of seats 0 and 2 (no teams in folle)"},
    "team_points_t1": {"encheres": "the defence's card and trick points",
                       "folle": "cards + tricks of seats 1 and 3 (no teams in folle)"},
    "winning_team": {"encheres": "0 the taker made his bid, 1 he failed, -1 all passed",
                     "folle": "the seat that took the fewest points, -1 if shared"},
    "dealer_team_won": {"encheres": "the dealer is on the winning side",
                        "folle": "the dealer took the fewest points"},
    "annulled": {"encheres": "all four passed: thrown in", "folle": "never",
                 "belge": "a 30-30 tie (the next deal counts double)"},
    "void_deal": {"belge": "tie (30-30): nobody marks", "encheres": "never",
                  "folle": "never"},
}


def variant_deal_columns(variant: str) -> tuple[list[Column], np.ndarray]:
    """The variant's deal columns and their indices in the kernels' wide row."""
    base = []
    for c in classic_deal_columns():
        key = "score_s" if c.name.startswith("score_s") else c.name
        text = _CLASSIC_HELP.get(key, {}).get(variant)
        base.append(Column(c.name, c.kind, text) if text else c)
    ext = _extension_columns()
    names = list(ext)
    cols = base + [ext[n] for n in VARIANT_DEAL_COLUMNS[variant]]
    index = list(range(len(base))) + [len(base) + names.index(n)
                                      for n in VARIANT_DEAL_COLUMNS[variant]]
    return cols, np.array(index, dtype=np.int64)


# Match columns: the classic ones (a team variant's winner is a team, an individual
# variant's a seat), then the variant's.
(X_LOSER, X_TIED, X_SA_FORCED, X_FORCED_MARGIN, X_DUMMY) = (13, 14, 15, 17, 19)
N_VMATCH_COLS = 20

VARIANT_MATCH_COLUMNS = {
    "belge": ("tied", "sa_forced_t0", "sa_forced_t1", "sa_forced_margin_t0",
              "sa_forced_margin_t1"),
    "coinchee": (), "encheres": (), "folle": ("loser",), "trois": ("dummy_seat",), "deux": (),
}


def variant_match_columns(variant: str) -> tuple[list[Column], np.ndarray]:
    individual = variant in ("encheres", "folle")
    base = []
    for c in classic_match_columns():
        if c.name == "winner" and individual:
            c = Column("winner", help="the winning seat (folle: the lowest total when a "
                       "seat reaches the target; encheres: the first to reach it, the "
                       "highest if several; a tie plays on), -1 if capped")
        elif c.name == "winner" and variant == "belge":
            c = Column("winner", help="team 0/1 with the higher total after belge_deals "
                       "deals (tie-break deals if equal), -1 if capped")
        elif c.name.startswith("final_score_s") and variant == "folle":
            c = Column(c.name, help="the points the seat took over the match (lower is "
                       "better)")
        base.append(c)
    ext = [Column("loser", help="the seat whose points reached the target first"),
           Column("tied", BOOL, help="equal totals after belge_deals deals: tie-break deals "
                  "followed until the totals differed"),
           Column("sa_forced_t0", help="Sans-Atout deals team 0 was forced to announce "
                  "(it had not chosen enough before its last announcements)"),
           Column("sa_forced_t1", help="the same for team 1"),
           Column("sa_forced_margin_t0", help="team 0's marks minus team 1's over its forced "
                  "Sans-Atout deals"),
           Column("sa_forced_margin_t1", help="team 1's marks minus team 0's over its forced "
                  "Sans-Atout deals"),
           Column("dummy_seat", help="the seat of the dummy, drawn by lot for the match")]
    names = [c.name for c in ext]
    cols = base + [ext[names.index(n)] for n in VARIANT_MATCH_COLUMNS[variant]]
    index = list(range(len(base))) + [len(base) + names.index(n)
                                      for n in VARIANT_MATCH_COLUMNS[variant]]
    return cols, np.array(index, dtype=np.int64)


def deal_columns(knobs: ManilleKnobs | None = None) -> list[Column]:
    """The deal columns of the game's knobs: the classic ones, or its variant's."""
    if knobs is not None and knobs.variant != "classic":
        return variant_deal_columns(knobs.variant)[0]
    return classic_deal_columns()


def match_columns(knobs: ManilleKnobs | None = None) -> list[Column]:
    """The match columns of the game's knobs: the classic ones, or its variant's."""
    if knobs is not None and knobs.variant != "classic":
        return variant_match_columns(knobs.variant)[0]
    return classic_match_columns()
