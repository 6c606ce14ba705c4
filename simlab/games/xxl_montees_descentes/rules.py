"""XXL — Montées et descentes: knobs, the state of a game, legal moves, scoring (seed
``002_f79cc30b1abb5c3a.txt``, "1. Montées et descentes"; catalogue
``xxl_montees_descentes.md``).

The book: "Chaque joueur reçoit six cartes. Les cartes qui restent forment le talon. On
retourne les deux premières cartes du talon. [...] On a la possibilité de fournir une de
ses cartes à un des quatre chiffres que les deux cartes montrent. On doit former des
séries de nombres continues et de la même couleur. La première carte qui suit la carte
retournée du talon peut être fournie d'une manière soit ascendante soit descendante.
Cette carte fixe la direction de la série. [...] Après cela, chaque série de cartes n'offre
que trois possibilités. Ou on suit une des séries déjà commencées dans la direction fixée,
ou on commence une nouvelle série avec le deuxième chiffre de la carte justement fournie
dans une direction quelconque. [...] Si un joueur n'a aucune carte convenable, il doit en
prendre une du talon. Si cette carte est convenable, il peut la fournir immédiatement.
Puis, le joueur à main gauche continue. [...] Le jeu est fini au moment où un joueur
arrive à fournir sa dernière carte ou si le talon s'est épuisé et personne ne peut fournir
une carte convenable. Chaque joueur compte la valeur totale de ses cartes. Celui qui a la
somme la plus petite, a gagné."

A **pile** (one per turned card) is *fresh* (its top is the turned card: both halves are
open in both directions) or *running*: a series of colour ``cs`` at number ``ns`` going
``dir`` (+1 / -1), and the **free half** (``cf``, ``nf``) of its top card, which may start
a new series in either direction. A card is played on a pile through one of its halves
matching a target; that half continues (or starts) the series, its other half becomes the
free half. 0 and 10 bound every series (a series at 10 going up is closed: only the free
half is left).

State: ``st`` (int64, ``S_*``), ``hm`` (uint64 masks: ``hm[p]`` = seat p's hand,
``hm[HM_PUBLIC]`` = the cards on the piles) and ``order`` (the 55 shuffled ids; the talon
is ``order[st[S_TPOS]:]``, top first). A move is ``card * 8 + pile * 2 + half``.

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.games.xxl import check_colouring, colouring_knob
from simlab.games.xxl.common import STARTER_RULES, bit, lowest, popcount
from simlab.games.xxl.deck import DECK, N_CARDS, tables_for  # noqa: F401
from simlab.mechanics.search import worlds_knob

MAX_PLAYERS = 6
INDIVIDUEL = ("raw", "place_points")
DRAWN_CARD = ("optional", "must")


@dataclass(frozen=True)
class MonteesKnobs(Knobs):
    players: int = knob(4, "players (the box: 2 à 6 joueurs)", lo=2, hi=MAX_PLAYERS)
    hand_size: int = knob(6, "cards dealt to each player (seed: 'Chaque joueur reçoit six "
                          "cartes')", lo=1, hi=20)
    start_piles: int = knob(2, "talon cards turned face up, one pile each (seed: 'On "
                            "retourne les deux premières cartes du talon'; the catalogue "
                            "#7: two independent piles)", lo=1, hi=2)
    starter_rule: str = knob("highest_total", "who plays first: the highest hand total (the "
                             "rule of the other XXL variants; ties: nearest the dealer's "
                             "left) or the dealer's left", choices=STARTER_RULES,
                             seed_value="unspecified", seed_case="silent",
                             seed_why="this variant's text never says who starts; variants "
                                      "2-6 all say 'le joueur qui a le plus de points "
                                      "commence' (catalogue #2)")
    voluntary_draw: bool = knob(False, "a player who could play may draw instead (seed: one "
                                "draws only 's'il n'a aucune carte convenable')",
                                seed_value=False)
    drawn_card: str = knob("optional", "a drawn card that fits: the player may play it "
                           "(seed: 'il peut la fournir immédiatement') or must",
                           choices=DRAWN_CARD, seed_value="optional")
    turn_cap: int = knob(5000, "stall guard: turns after which a game stops (counted in "
                         "the rows as end = turn_cap; every turn plays, draws or passes, "
                         "so a game ends long before)", lo=10, hi=1_000_000)
    match_games: int = knob(5, "match (XXL individuel): games played; 'le joueur qui a le "
                            "moins de points après un certain nombre de parties a gagné'",
                            lo=1, hi=999)
    individuel_scoring: str = knob("raw", "match: add the raw hand totals (seed: 'Notez les "
                                   "points ... le moins de points') or XXL pur's place "
                                   "points (1st = 1, ties share, next place skipped)",
                                   choices=INDIVIDUEL, seed_value="raw")
    deck_colouring: str = colouring_knob()
    # players (players.py)
    heuristic_keep_weight: float = knob(3.0, "heuristic: weight of my cards still playable "
                                        "after the move", lo=0.0, hi=100.0, policy=True)
    heuristic_block_weight: float = knob(2.0, "heuristic: weight of the next player's "
                                         "expected playable cards after the move (card "
                                         "counting over the unseen cards)", lo=0.0,
                                         hi=100.0, policy=True)
    search_worlds: int = worlds_knob(24)

    def check(self) -> None:
        need = self.players * self.hand_size + self.start_piles
        if need > N_CARDS:
            raise SimlabError(f"{self.players} players x {self.hand_size} cards + "
                              f"{self.start_piles} turned cards need {need} cards; the deck "
                              f"has {N_CARDS}")
        check_colouring(self.deck_colouring)


(KV_PLAYERS, KV_HAND, KV_PILES, KV_STARTER, KV_VOLUNTARY, KV_DRAWN_MUST, KV_CAP,
 KV_MATCH_GAMES, KV_IND_PLACES, KV_WORLDS, KV_W_KEEP, KV_W_BLOCK, KV_SIZE) = range(13)
W_SCALE = 1000


def knob_vector(k: MonteesKnobs) -> np.ndarray:
    return np.array([k.players, k.hand_size, k.start_piles,
                     STARTER_RULES.index(k.starter_rule), int(k.voluntary_draw),
                     int(k.drawn_card == "must"), k.turn_cap, k.match_games,
                     int(k.individuel_scoring == "place_points"), k.search_worlds,
                     round(k.heuristic_keep_weight * W_SCALE),
                     round(k.heuristic_block_weight * W_SCALE)], dtype=np.int64)


# --- state ------------------------------------------------------------------------------
(S_TURN, S_PASSES, S_OVER, S_END, S_OUT, S_TPOS, S_TURNS, S_DRAWS, S_DRAW_PLAYS, S_PLAYS,
 S_VOL_DRAWS, S_KEPT, S_RESTARTS, S_STARTER, S_N, S_PILES) = range(16)
S_PILE = 16  # 6 per pile: fresh, cs, ns, dir, cf, nf
P_FRESH, P_CS, P_NS, P_DIR, P_CF, P_NF = range(6)
S_SEAT_DRAWS = S_PILE + 12
N_ST = S_SEAT_DRAWS + MAX_PLAYERS
HM_PUBLIC = 7
N_HM = 8
END_NONE, END_OUT, END_BLOCKED, END_CAP = 0, 1, 2, 3
END_LABELS = ("out", "blocked", "turn_cap")
DRAW, KEEP = -1, -2  # options besides a move: draw instead of playing; keep a drawn card
MAX_MOVES = 40


@hot
def new_game(st: np.ndarray, hm: np.ndarray, order: np.ndarray, n: int, hand: int,
             piles: int, col: np.ndarray, num: np.ndarray) -> None:
    """Deal from ``order`` (already shuffled): ``hand`` cards to each seat in blocks, then
    turn ``piles`` cards; the rest is the talon."""
    for i in range(N_ST):
        st[i] = 0
    for i in range(N_HM):
        hm[i] = 0
    pos = 0
    for p in range(n):
        m = np.uint64(0)
        for _ in range(hand):
            m |= bit(order[pos])
            pos += 1
        hm[p] = m
    for k in range(piles):
        c = order[pos]
        pos += 1
        hm[HM_PUBLIC] |= bit(c)
        base = S_PILE + 6 * k
        st[base + P_FRESH] = 1
        st[base + P_CS] = col[c, 0]
        st[base + P_NS] = num[c, 0]
        st[base + P_DIR] = 0
        st[base + P_CF] = col[c, 1]
        st[base + P_NF] = num[c, 1]
    st[S_TPOS] = pos
    st[S_N] = n
    st[S_PILES] = piles
    st[S_OUT] = -1


@hot
def set_pile(st: np.ndarray, k: int, fresh: int, cs: int, ns: int, d: int, cf: int,
             nf: int) -> None:
    """A hand-built pile (tests, the seed's examples)."""
    base = S_PILE + 6 * k
    st[base + P_FRESH] = fresh
    st[base + P_CS] = cs
    st[base + P_NS] = ns
    st[base + P_DIR] = d
    st[base + P_CF] = cf
    st[base + P_NF] = nf


@hot
def _add_source(hand: np.uint64, c: int, n: int, dirs: int, k: int, holders: np.ndarray,
                col: np.ndarray, mv: np.ndarray, cnt: int, index: np.ndarray) -> int:
    """Moves onto pile ``k`` through the source half (c, n) going up (dirs bit 0) and/or
    down (bit 1)."""
    for j in range(2):
        if (dirs >> j) & 1 == 0:
            continue
        m = n + 1 if j == 0 else n - 1
        if m < 0 or m > 10:
            continue
        cand = hand & holders[c * 11 + m]
        while cand != 0:
            card = lowest(cand, index)
            half = 0 if col[card, 0] == c else 1
            mv[cnt] = card * 8 + k * 2 + half
            cnt += 1
            cand &= cand - np.uint64(1)
    return cnt


@hot
def legal_moves(st: np.ndarray, hand: np.uint64, holders: np.ndarray, col: np.ndarray,
                mv: np.ndarray, index: np.ndarray) -> int:
    """The moves of the cards in ``hand`` onto the piles, into ``mv``; returns their count.
    A fresh pile offers both halves of its card in both directions (up to four targets);
    a running pile its series in its direction and its free half in both (three)."""
    cnt = 0
    for k in range(st[S_PILES]):
        base = S_PILE + 6 * k
        d = st[base + P_DIR]
        series_dirs = 3 if st[base + P_FRESH] == 1 else (1 if d > 0 else 2)
        cnt = _add_source(hand, st[base + P_CS], st[base + P_NS], series_dirs, k, holders,
                          col, mv, cnt, index)
        cnt = _add_source(hand, st[base + P_CF], st[base + P_NF], 3, k, holders, col, mv,
                          cnt, index)
    return cnt


@hot
def targets(st: np.ndarray, holders: np.ndarray) -> np.uint64:
    """Every card that some pile would take now (the union of the targets' holders)."""
    t = np.uint64(0)
    for k in range(st[S_PILES]):
        base = S_PILE + 6 * k
        d = st[base + P_DIR]
        sd = 3 if st[base + P_FRESH] == 1 else (1 if d > 0 else 2)
        for s in range(2):
            c = st[base + P_CS] if s == 0 else st[base + P_CF]
            n = st[base + P_NS] if s == 0 else st[base + P_NF]
            dirs = sd if s == 0 else 3
            if dirs & 1 and n < 10:
                t |= holders[c * 11 + n + 1]
            if dirs & 2 and n > 0:
                t |= holders[c * 11 + n - 1]
    return t


@hot
def place_on_pile(st: np.ndarray, move: int, col: np.ndarray, num: np.ndarray) -> int:
    """Put the move's card on its pile (the pile only); returns 1 if it starts a new series
    from the free half (a restart), else 0."""
    card = move >> 3
    k = (move >> 1) & 3
    half = move & 1
    c = col[card, half]
    m = num[card, half]
    base = S_PILE + 6 * k
    restart = 0
    if st[base + P_FRESH] == 1:
        src = st[base + P_NS] if c == st[base + P_CS] else st[base + P_NF]
        d = m - src
    elif c == st[base + P_CS]:
        d = st[base + P_DIR]
    else:
        d = m - st[base + P_NF]
        restart = 1
    st[base + P_FRESH] = 0
    st[base + P_CS] = c
    st[base + P_NS] = m
    st[base + P_DIR] = d
    st[base + P_CF] = col[card, 1 - half]
    st[base + P_NF] = num[card, 1 - half]
    return restart


@hot
def play(st: np.ndarray, hm: np.ndarray, p: int, move: int, col: np.ndarray,
         num: np.ndarray) -> None:
    """Seat ``p`` plays ``move``; playing one's last card ends the game."""
    card = move >> 3
    st[S_RESTARTS] += place_on_pile(st, move, col, num)
    hm[p] &= ~bit(card)
    hm[HM_PUBLIC] |= bit(card)
    st[S_PLAYS] += 1
    st[S_PASSES] = 0
    if hm[p] == 0:
        st[S_OVER] = 1
        st[S_END] = END_OUT
        st[S_OUT] = p


@hot
def draw(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int) -> int:
    """Seat ``p`` takes the talon's top card (the caller checks the talon is not empty)."""
    c = order[st[S_TPOS]]
    st[S_TPOS] += 1
    hm[p] |= bit(c)
    st[S_DRAWS] += 1
    st[S_SEAT_DRAWS + p] += 1
    st[S_PASSES] = 0
    return c


@hot
def talon_left(st: np.ndarray) -> int:
    return N_CARDS - st[S_TPOS]


@hot
def pass_turn(st: np.ndarray) -> None:
    """No play and no talon: a pass; a full round of passes ends the game (blocked)."""
    st[S_PASSES] += 1
    if st[S_PASSES] >= st[S_N]:
        st[S_OVER] = 1
        st[S_END] = END_BLOCKED


@hot
def end_turn(st: np.ndarray, cap: int) -> None:
    """The player on the left continues; the stall guard stops the game at ``cap`` turns."""
    st[S_TURNS] += 1
    st[S_TURN] = (st[S_TURN] + 1) % st[S_N]
    if st[S_OVER] == 0 and st[S_TURNS] >= cap:
        st[S_OVER] = 1
        st[S_END] = END_CAP


@hot
def hand_score(hm: np.ndarray, p: int, total: np.ndarray, index: np.ndarray) -> int:
    """The penalty: the totals of the cards left in hand (0 for the player who went out)."""
    s = 0
    m = hm[p]
    while m != 0:
        s += total[lowest(m, index)]
        m &= m - np.uint64(1)
    return s


@hot
def n_in_hand(hm: np.ndarray, p: int) -> int:
    return popcount(hm[p])


# --- result columns ---------------------------------------------------------------------
def deal_columns(k: MonteesKnobs) -> list[Column]:
    n = k.players
    return ([Column("deal"), Column("dealer"),
             Column("starter", help="seat that played first (highest hand total)")]
            + [Column(f"score_s{i}", help=f"seat {i}'s penalty: totals of the cards left "
                      "in hand (lowest wins)") for i in range(n)]
            + [Column(f"place_s{i}", help=f"seat {i}'s place (1 = best; equal scores "
                      "share a place)") for i in range(n)]
            + [Column(f"start_total_s{i}", help=f"seat {i}'s dealt hand total")
               for i in range(n)]
            + [Column("winner", help="seat with the lowest penalty, -1 = shared"),
               Column("went_out", help="seat that played its last card, -1 = none"),
               Column("end", END_LABELS, help="how the game ended: a player went out, the "
                      "talon was empty and a full round passed, or the stall guard"),
               Column("turns", help="turns played (plays, draws and passes)"),
               Column("plays", help="cards played onto the piles"),
               Column("draws", help="cards drawn from the talon"),
               Column("max_seat_draws", help="most cards drawn by one seat"),
               Column("draw_plays", help="drawn cards played at once"),
               Column("kept_drawn", help="drawn cards that fitted but were kept"),
               Column("voluntary_draws", help="draws by a player who could play "
                      "(voluntary_draw only)"),
               Column("restarts", help="plays starting a new series from a free half"),
               Column("talon_left", help="talon cards left at the end"),
               Column("capped", BOOL, help="the stall guard stopped the game")])


def match_columns(k: MonteesKnobs) -> list[Column]:
    n = k.players
    return ([Column("match"), Column("winner", help="seat with the lowest match total, "
                                     "-1 = shared"), Column("n_deals", help="games played")]
            + [Column(f"final_score_s{i}", help=f"seat {i}'s match total (raw penalties, "
                      "or place points)") for i in range(n)]
            + [Column("drawn", BOOL, help="the lowest match total is shared"),
               Column("blocked_games", help="games ended blocked (talon empty, a full "
                      "round of passes)"),
               Column("capped_games", help="games stopped by the stall guard")])
