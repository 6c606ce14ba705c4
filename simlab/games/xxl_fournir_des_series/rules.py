"""XXL — Fournir des séries: knobs, the state of a game, actions, scoring (seed
``002_f79cc30b1abb5c3a.txt``, "4. Fournir des séries"; catalogue
``xxl_fournir_des_series.md``).

The book: "Chaque joueur reçoit 4 cartes. Les cartes qui restent forment le talon. On
retourne les deux premières cartes du talon. [...] Le joueur qui a le plus de points
commence. À son tour, le joueur peut une fois réaliser une des actions suivantes: 1. Il
peut essayer de faire une suite de trois cartes de la même couleur (p.e.: vert 6, 7, 8).
[...] il peut aussi utiliser une ou deux des cartes exposées sur la table [...] Il met la
suite des cartes sur la table. Puis, il prend autant de cartes, qu'il en a quatre de
nouveau. S'il a utilisé des cartes exposées sur la table, on retourne de nouvelles
cartes. 2. Il peut échanger une de ses cartes contre une des cartes exposées sur la
table. Il a aussi la possibilité de mettre une de ses cartes à côté des autres sur la
table, de sorte qu'il y en a maintenant trois; puis, il en prend une nouvelle du talon.
Le joueur peut aussi refuser de faire une des actions. Si tous les joueurs ont refusé, on
retourne la première carte du talon et la met à côté des autres sur la table. [...] La
partie est finie au moment où on a utilisé la dernière carte du talon et personne ne peut
former une suite de cartes. Maintenant, chaque joueur additionne les valeurs totales des
cartes de ses suites. Celui qui a le plus de points a gagné."

Actions (one per turn, ``actions_per_turn`` = 1): lay a run (three cards, one half each,
one colour, consecutive numbers; at least one from the hand, at most
``max_display_cards_in_run`` from the display), swap a hand card with a display card, feed
a hand card to the display and draw, or pass. A full round of passes turns a talon card
into the display; with the talon empty it ends the game (stall guard, counted).

State: ``st`` (int64, ``S_*``), ``hm`` (uint64 masks: ``hm[p]`` = seat p's hand,
``hm[HM_DISPLAY]`` = the display, ``hm[HM_RUNS]`` = the laid runs), ``order`` (the talon is
``order[st[S_TPOS]:]``). An action is an int (``PASS``, or kind << 18 | cards).

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.games.xxl import check_colouring, colouring_knob
from simlab.games.xxl.common import bit, lowest, popcount
from simlab.games.xxl.deck import DECK, N_CARDS, tables_for  # noqa: F401
from simlab.mechanics.search import worlds_knob

MAX_PLAYERS = 6
END_RULES = ("nobody_can_form", "full_round_of_passes")


@dataclass(frozen=True)
class SeriesKnobs(Knobs):
    players: int = knob(4, "players (the box: 2 à 6 joueurs)", lo=2, hi=MAX_PLAYERS)
    hand_size: int = knob(4, "cards in hand, refilled after a run (seed: 'Chaque joueur "
                          "reçoit 4 cartes')", lo=3, hi=12)
    display_start: int = knob(2, "talon cards turned face up at the start (seed: 'On "
                              "retourne les deux premières cartes du talon')", lo=0, hi=6)
    max_display_cards_in_run: int = knob(2, "display cards a run may use (seed: 'une ou deux "
                                         "des cartes exposées')", lo=0, hi=2)
    end_rule: str = knob("nobody_can_form", "the end with an empty talon: as soon as no "
                         "player can form a run from his hand and the display (seed: 'on a "
                         "utilisé la dernière carte du talon et personne ne peut former une "
                         "suite'), or only after a full round of passes; either way a full "
                         "round of passes with an empty talon ends it (the stall guard: "
                         "the all-pass reveal needs a talon card)", choices=END_RULES,
                         seed_value="nobody_can_form")
    turn_cap: int = knob(2000, "stall guard: turns after which a game stops (counted in the "
                         "rows as end = turn_cap: with an empty talon, swaps with the display "
                         "could go on for ever)", lo=10, hi=1_000_000)
    match_games: int = knob(5, "match (XXL individuel): games played; the points of the "
                            "games are added, the highest total wins (this variant's own "
                            "rule: the seed's 'le moins de points' for XXL individuel "
                            "contradicts 'Celui qui a le plus de points a gagné')", lo=1,
                            hi=999)
    deck_colouring: str = colouring_knob()
    # players (players.py)
    heuristic_threshold: int = knob(25, "heuristic: lay a run worth at least this many "
                                    "points (the catalogue's theta), or any run once the "
                                    "talon holds no more cards than players", lo=0, hi=60,
                                    policy=True)
    search_worlds: int = worlds_knob(6)

    def check(self) -> None:
        need = self.players * self.hand_size + self.display_start
        if need > N_CARDS:
            raise SimlabError(f"{self.players} players x {self.hand_size} cards + "
                              f"{self.display_start} display cards need {need} cards; the "
                              f"deck has {N_CARDS}")
        check_colouring(self.deck_colouring)


(KV_PLAYERS, KV_HAND, KV_DISPLAY, KV_MAXD, KV_END_PASSES, KV_CAP, KV_THRESHOLD, KV_WORLDS,
 KV_MATCH_GAMES, KV_SIZE) = range(10)


def knob_vector(k: SeriesKnobs) -> np.ndarray:
    return np.array([k.players, k.hand_size, k.display_start, k.max_display_cards_in_run,
                     int(k.end_rule == "full_round_of_passes"), k.turn_cap,
                     k.heuristic_threshold, k.search_worlds, k.match_games],
                    dtype=np.int64)


# --- state ------------------------------------------------------------------------------
(S_TURN, S_PASSES, S_OVER, S_END, S_TPOS, S_TURNS, S_STARTER, S_N, S_HAND, S_MAXD,
 S_END_PASSES, S_RUNS, S_SWAPS, S_FEEDS, S_PASS_COUNT, S_REVEALS, S_DISPLAY_RUN_CARDS,
 S_SCORE) = range(18)
S_SEAT_RUNS = S_SCORE + MAX_PLAYERS
N_ST = S_SEAT_RUNS + MAX_PLAYERS
HM_DISPLAY = 6
HM_RUNS = 7
N_HM = 8
END_NONE, END_NO_RUN, END_ALL_PASSED, END_CAP = 0, 1, 2, 3
END_LABELS = ("no_run", "all_passed", "turn_cap")
PASS = -1
RUN, SWAP, FEED = 1, 2, 3
MAX_ACTIONS = 512


@hot
def run_action(a: int, b: int, c: int) -> int:
    return (RUN << 18) | (a << 12) | (b << 6) | c


@hot
def new_game(st: np.ndarray, hm: np.ndarray, order: np.ndarray, kv: np.ndarray) -> None:
    """Deal from ``order`` (already shuffled): ``hand_size`` cards to each seat in blocks,
    then turn ``display_start`` cards; the rest is the talon."""
    for i in range(N_ST):
        st[i] = 0
    for i in range(N_HM):
        hm[i] = 0
    n = kv[KV_PLAYERS]
    pos = 0
    for p in range(n):
        m = np.uint64(0)
        for _ in range(kv[KV_HAND]):
            m |= bit(order[pos])
            pos += 1
        hm[p] = m
    for _ in range(kv[KV_DISPLAY]):
        hm[HM_DISPLAY] |= bit(order[pos])
        pos += 1
    st[S_TPOS] = pos
    st[S_N] = n
    st[S_HAND] = kv[KV_HAND]
    st[S_MAXD] = kv[KV_MAXD]
    st[S_END_PASSES] = kv[KV_END_PASSES]


@hot
def talon_left(st: np.ndarray) -> int:
    return N_CARDS - st[S_TPOS]


@hot
def list_runs(hand: np.uint64, display: np.uint64, maxd: int, holders: np.ndarray,
              out: np.ndarray, cnt: int, limit: int, index: np.ndarray) -> int:
    """Append to ``out`` every legal run from ``hand`` and ``display`` (three cards, one
    colour, numbers s, s+1, s+2, at least one hand card, at most ``maxd`` display cards);
    returns the new count (at most ``limit``). A card shows each colour once, so the three
    cards of a run are always different cards."""
    pool = hand | display
    for c in range(4):
        for s in range(9):
            m0 = pool & holders[c * 11 + s]
            if m0 == 0:
                continue
            m1 = pool & holders[c * 11 + s + 1]
            if m1 == 0:
                continue
            m2 = pool & holders[c * 11 + s + 2]
            if m2 == 0:
                continue
            a_m = m0
            while a_m != 0:
                a = lowest(a_m, index)
                a_m &= a_m - np.uint64(1)
                b_m = m1
                while b_m != 0:
                    b = lowest(b_m, index)
                    b_m &= b_m - np.uint64(1)
                    c_m = m2
                    while c_m != 0:
                        x = lowest(c_m, index)
                        c_m &= c_m - np.uint64(1)
                        cards = bit(a) | bit(b) | bit(x)
                        from_display = popcount(cards & display)
                        if from_display > maxd or from_display == 3:
                            continue
                        if cnt < limit:
                            out[cnt] = run_action(a, b, x)
                            cnt += 1
    return cnt


@hot
def can_form(hand: np.uint64, display: np.uint64, maxd: int, holders: np.ndarray,
             scratch: np.ndarray, index: np.ndarray) -> bool:
    return list_runs(hand, display, maxd, holders, scratch, 0, 1, index) > 0


@hot
def legal_actions(st: np.ndarray, hm: np.ndarray, p: int, holders: np.ndarray,
                  out: np.ndarray, index: np.ndarray) -> int:
    """Seat ``p``'s actions: every run, every swap, every feed (with a talon), and pass
    (first)."""
    out[0] = PASS
    cnt = 1
    hand = hm[p]
    display = hm[HM_DISPLAY]
    cnt = list_runs(hand, display, st[S_MAXD], holders, out, cnt, out.shape[0] - 64, index)
    h_m = hand
    while h_m != 0:
        h = lowest(h_m, index)
        h_m &= h_m - np.uint64(1)
        d_m = display
        while d_m != 0:
            d = lowest(d_m, index)
            d_m &= d_m - np.uint64(1)
            if cnt < out.shape[0]:
                out[cnt] = (SWAP << 18) | (h << 6) | d
                cnt += 1
        if talon_left(st) > 0 and cnt < out.shape[0]:
            out[cnt] = (FEED << 18) | h
            cnt += 1
    return cnt


@hot
def run_value(action: int, total: np.ndarray) -> int:
    return (total[(action >> 12) & 63] + total[(action >> 6) & 63] + total[action & 63])


@hot
def draw_to(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, size: int) -> None:
    while popcount(hm[p]) < size and talon_left(st) > 0:
        hm[p] |= bit(order[st[S_TPOS]])
        st[S_TPOS] += 1


@hot
def apply_action(st: np.ndarray, hm: np.ndarray, order: np.ndarray, p: int, action: int,
                 total: np.ndarray) -> None:
    """Carry out seat ``p``'s action (not the end of turn)."""
    if action == PASS:
        st[S_PASSES] += 1
        st[S_PASS_COUNT] += 1
        return
    st[S_PASSES] = 0
    kind = action >> 18
    if kind == RUN:
        used_display = 0
        for j in range(3):
            c = (action >> (12 - 6 * j)) & 63
            b = bit(c)
            if hm[p] & b:
                hm[p] &= ~b
            else:
                hm[HM_DISPLAY] &= ~b
                used_display += 1
            hm[HM_RUNS] |= b
            st[S_SCORE + p] += total[c]
        st[S_RUNS] += 1
        st[S_SEAT_RUNS + p] += 1
        st[S_DISPLAY_RUN_CARDS] += used_display
        draw_to(st, hm, order, p, st[S_HAND])  # 'il prend autant de cartes, qu'il en a
        for _ in range(used_display):  # quatre' then 'on retourne de nouvelles cartes'
            if talon_left(st) > 0:
                hm[HM_DISPLAY] |= bit(order[st[S_TPOS]])
                st[S_TPOS] += 1
    elif kind == SWAP:
        h = bit((action >> 6) & 63)
        d = bit(action & 63)
        hm[p] = (hm[p] & ~h) | d
        hm[HM_DISPLAY] = (hm[HM_DISPLAY] & ~d) | h
        st[S_SWAPS] += 1
    else:  # FEED
        h = bit(action & 63)
        hm[p] &= ~h
        hm[HM_DISPLAY] |= h
        draw_to(st, hm, order, p, popcount(hm[p]) + 1)
        st[S_FEEDS] += 1


@hot
def end_turn(st: np.ndarray, hm: np.ndarray, order: np.ndarray, cap: int,
             holders: np.ndarray, scratch: np.ndarray, index: np.ndarray) -> None:
    """Next player; a full round of passes turns a talon card into the display (or, with
    the talon empty, ends the game); with ``nobody_can_form`` the game ends once the talon
    is empty and no hand can form a run with the display; the stall guard at ``cap``."""
    st[S_TURNS] += 1
    st[S_TURN] = (st[S_TURN] + 1) % st[S_N]
    if st[S_PASSES] >= st[S_N]:
        if talon_left(st) > 0:
            hm[HM_DISPLAY] |= bit(order[st[S_TPOS]])
            st[S_TPOS] += 1
            st[S_REVEALS] += 1
            st[S_PASSES] = 0
        else:
            st[S_OVER] = 1
            st[S_END] = END_ALL_PASSED
            return
    if st[S_END_PASSES] == 0 and talon_left(st) == 0:
        anyone = False
        for q in range(st[S_N]):
            if can_form(hm[q], hm[HM_DISPLAY], st[S_MAXD], holders, scratch, index):
                anyone = True
                break
        if not anyone:
            st[S_OVER] = 1
            st[S_END] = END_NO_RUN
            return
    if st[S_TURNS] >= cap:
        st[S_OVER] = 1
        st[S_END] = END_CAP


# --- result columns ---------------------------------------------------------------------
def deal_columns(k: SeriesKnobs) -> list[Column]:
    n = k.players
    return ([Column("deal"), Column("dealer"),
             Column("starter", help="seat that played first (highest hand total)")]
            + [Column(f"score_s{i}", help=f"seat {i}'s points: totals of the cards of its "
                      "runs (highest wins)") for i in range(n)]
            + [Column(f"place_s{i}", help=f"seat {i}'s place (1 = best; equal scores "
                      "share a place)") for i in range(n)]
            + [Column(f"runs_s{i}", help=f"runs laid by seat {i}") for i in range(n)]
            + [Column(f"start_total_s{i}", help=f"seat {i}'s dealt hand total")
               for i in range(n)]
            + [Column("winner", help="seat with the most points, -1 = shared"),
               Column("end", END_LABELS, help="how the game ended: talon empty and nobody "
                      "can form a run, a full round of passes with the talon empty, or the "
                      "stall guard"),
               Column("turns", help="turns played"),
               Column("runs", help="runs laid"),
               Column("display_run_cards", help="display cards used in runs"),
               Column("swaps", help="swaps with the display"),
               Column("feeds", help="cards fed to the display"),
               Column("passes", help="turns passed"),
               Column("reveals", help="talon cards turned after a full round of passes"),
               Column("unused_cards", help="cards left in hands at the end"),
               Column("talon_left", help="talon cards left at the end"),
               Column("capped", BOOL, help="the stall guard stopped the game")])


def match_columns(k: SeriesKnobs) -> list[Column]:
    n = k.players
    return ([Column("match"), Column("winner", help="seat with the most points over the "
                                     "match, -1 = shared"), Column("n_deals")]
            + [Column(f"final_score_s{i}") for i in range(n)]
            + [Column("drawn", BOOL), Column("capped_games")])
