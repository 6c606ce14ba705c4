"""Kilo de merde rules: the packet, the pile, passing, combinations, slaps, penalty draws
and the 7's flush (seed 003 "Kilo de Merde", from www.regles.com; catalogue
``kilo_de_merde.md``).

The book: with n players (3 to 10) one deals "les Rois, les Dames, les Valets", then the
2s, 3s, 4s, 5s, 6s, 8s, 9s as n grows (all four cards of n ranks: 4 each); "les cartes non
distribuées, dont les 7 [...] constituent le tas de merde". The holder of the Q♥ starts;
"chacun passe une carte de son jeu, au choix, au joueur à sa gauche". Whoever holds "quatre
cartes de même valeur ou de même Couleur doit taper sur le tas de merde, en s'assurant
toutefois que ses adversaires possèdent au moins quatre cartes en main": then "le dernier
joueur à taper [...] y prend la carte du dessus"; if someone held only three cards, or the
slap had no combination, the instigator takes it. "Le joueur qui pioche un 7 remet les
cartes qu'il a accumulées [...] dans le tas de merde et mélange". Play goes on until
everyone has his combination. Aces weigh 100 kg, 2..10 their value, J 11, Q 12, K 13; the
lowest total wins.

The model (the book is silent on each; catalogue ambiguities, knobs where they matter):

* passing is sequential (catalogue #1): from the cycle's starter each active player in turn
  passes one card to the next active player on his left; the starter holds 3 cards until
  the cycle comes back to him, so the window where everyone holds 4 (a valid slap) is
  between cycles;
* a slap without a combination or while someone holds 3 is a false slap (#2): the
  instigator draws; a valid slap makes everyone else slap and the last draws;
* completed players lay their four cards aside and leave the passing circle, still slapping
  in races (#4); the drawn 7 goes back with the kilos (#5); the last active player ends
  the round without a race (#6); the Q♥'s first holder starts every cycle, or the next
  active player on his left once he has left (#7); the pile is face down (#8);
* "jusqu'à ce que [chacun] obtienne la combinaison" can be impossible (suit flushes break
  the ranks): the round ends when the cards of the active players can no longer be split
  into one combination each (a deadlock, counted), or after ``max_cycles`` pass cycles
  (capped, counted).

A deal is one round (every stack empty at the start); a match is ``match_rounds`` rounds
whose stacks carry over (the catalogue's game of 10 rounds). The real-time part (who slaps
when, who is last) is ``simlab.mechanics.realtime``'s player model.

Cards: ids 0..51 = suit * 13 + rank, rank 0 = 2 .. 8 = 10, 9 = J, 10 = Q, 11 = K, 12 = A;
suits ♠ ♥ ♦ ♣.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simlab.engine.decks import get_deck
from simlab.engine.game import BOOL, Column
from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError, knob
from simlab.mechanics import realtime as rt

DECK = get_deck("52")
N_CARDS = 52
MIN_PLAYERS, MAX_PLAYERS = 3, 10
# dealt ranks in the book's order: K Q J, then 2 3 4 5 6 8 9
PACKET_RANKS = (11, 10, 9, 0, 1, 2, 3, 4, 6, 7)
QUEEN_OF_HEARTS = 1 * 13 + 10
SEVEN = 5
ACE = 12
HAND_CAP = 6
COMBO_TYPES = ("rank_or_suit", "rank", "suit")
ROUND_ENDS = ("all_complete_or_deadlock", "first_slap")


@dataclass(frozen=True)
class KiloKnobs(Knobs):
    players: int = knob(4, "players (seed: 3 to 10)", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
    combo_types: str = knob("rank_or_suit", "combinations that count: four of a rank or "
                            "four of a suit (seed: 'même valeur ou de même Couleur')",
                            choices=COMBO_TYPES)
    round_end: str = knob("all_complete_or_deadlock", "a round ends when every player has "
                          "his combination or nobody can complete any more (a deadlock), "
                          "or after the first valid slap", choices=ROUND_ENDS,
                          seed_value="all_complete", seed_case="unplayable",
                          seed_why="'jusqu'à ce que chaque joueur ait sa combinaison' "
                                   "cannot always happen: suit flushes can leave cards "
                                   "that fit no combination (catalogue #3)")
    max_cycles: int = knob(200, "pass cycles after which a round stops (capped, counted)",
                           lo=1, hi=100_000, seed_value="no cap", seed_case="unplayable",
                           seed_why="random passing may never complete a combination; "
                                    "the catalogue caps a round at 200 cycles")
    match_rounds: int = knob(10, "match: rounds played, kilo stacks carried over (the book "
                             "leaves it to the players; catalogue: 10)", lo=1, hi=1000)
    flush_rank: int = knob(7, "the rank whose draw flushes the drawer's kilos back into "
                           "the pile (seed: 7; 0 = none)", lo=0, hi=10)
    ace_weight: int = knob(100, "kilos of an Ace (seed: 100)", lo=1, hi=1000)
    penalty_cards: int = knob(1, "cards drawn by the loser of a race (seed: 'la carte du "
                              "dessus')", lo=1, hi=5)
    # the player model (simlab.mechanics.realtime), per seat: heuristic:rt_median=0.8
    rt_median: float = knob(0.6, "median reaction delay in seconds (lognormal; the "
                            "catalogue's 0.6 s slap)", lo=0.001, hi=rt.MAX_MEDIAN_S,
                            policy=True)
    rt_sigma: float = knob(0.35, "spread of the reaction delay (sigma of its logarithm)",
                           lo=0.0, hi=rt.MAX_SIGMA, policy=True)
    rt_scan: float = knob(0.1, "seconds added per card looked over before passing",
                          lo=0.0, hi=rt.MAX_SCAN_S, policy=True)
    error_rate: float = knob(0.005, "chance per window of a false slap without a "
                             "combination, and per completion of slapping at once "
                             "instead of waiting for everyone to hold 4", lo=0.0, hi=1.0,
                             policy=True)

    def check(self) -> None:
        if self.flush_rank in (1,):
            raise SimlabError("flush_rank 1: Aces are not a rank number here; use 0 (no "
                              "flush) or 2 to 10 (seed: 7)")
        if self.flush_rank > 0 and self.flush_rank - 2 in packet_ranks(self.players):
            raise SimlabError(f"flush_rank {self.flush_rank} is dealt with "
                              f"{self.players} players, never in the pile; use 0 or a rank "
                              f"left in the pile (seed: 7)")


def packet_ranks(players: int) -> tuple[int, ...]:
    return PACKET_RANKS[:players]


(KV_MEDIAN, KV_SIGMA, KV_SCAN, KV_ERROR) = range(rt.RT_BLOCK)
(KV_PLAYERS, KV_COMBO, KV_ROUND_END, KV_MAX_CYCLES, KV_MATCH_ROUNDS, KV_FLUSH, KV_ACE,
 KV_PENALTY, KV_SIZE) = range(rt.RT_BLOCK, rt.RT_BLOCK + 9)
COMBO_RANK, COMBO_SUIT = 1, 2


def knob_vector(k: KiloKnobs) -> np.ndarray:
    combo = {"rank_or_suit": COMBO_RANK | COMBO_SUIT, "rank": COMBO_RANK,
             "suit": COMBO_SUIT}[k.combo_types]
    flush = k.flush_rank - 2 if k.flush_rank > 0 else -1
    return np.array(rt.reaction_block(k.rt_median, k.rt_sigma, k.rt_scan, k.error_rate)
                    + [k.players, combo, ROUND_ENDS.index(k.round_end), k.max_cycles,
                       k.match_rounds, flush, k.ace_weight, k.penalty_cards],
                    dtype=np.int64)


# --- cards ----------------------------------------------------------------------------
@hot
def rank_of(card: np.int64) -> np.int64:
    return card % 13


@hot
def suit_of(card: np.int64) -> np.int64:
    return card // 13


@hot
def kilos(card: np.int64, ace_weight: np.int64) -> np.int64:
    r = rank_of(card)
    if r == ACE:
        return ace_weight
    return r + 2


# --- the table ------------------------------------------------------------------------
# hands[s, :hn[s]]; pile[:pn] (top last); stacks[s, :sn[s]] the kilos.
@hot
def has_combo(hand: np.ndarray, k: np.int64, combo: np.int64) -> np.int64:
    """The combination in a hand of ``k`` cards: 1 + rank (0..12) for four of a rank,
    20 + suit for four of a suit, 0 for none."""
    for i in range(k):
        rc = 0
        sc = 0
        for j in range(k):
            if rank_of(hand[j]) == rank_of(hand[i]):
                rc += 1
            if suit_of(hand[j]) == suit_of(hand[i]):
                sc += 1
        if (combo & COMBO_RANK) != 0 and rc >= 4:
            return 1 + rank_of(hand[i])
        if (combo & COMBO_SUIT) != 0 and sc >= 4:
            return 20 + suit_of(hand[i])
    return np.int64(0)


@hot
def in_combo(card: np.int64, c: np.int64) -> bool:
    if c >= 20:
        return suit_of(card) == c - 20
    return c > 0 and rank_of(card) == c - 1


@hot
def can_all_complete(hands: np.ndarray, hn: np.ndarray, active: np.ndarray, n: np.int64,
                     combo: np.int64, work: np.ndarray) -> bool:
    """Can the active players' cards be split into one combination each? Four of a rank
    takes every card of that rank (there are four), so: some set of complete ranks as
    rank combinations, and every suit's remaining count a multiple of four. ``work``: 30
    scratch cells."""
    rank_count = work[0:13]
    suit_count = work[13:17]
    full = work[17:30]
    for i in range(30):
        work[i] = 0
    for s in range(n):
        if active[s]:
            for j in range(hn[s]):
                rank_count[rank_of(hands[s, j])] += 1
                suit_count[suit_of(hands[s, j])] += 1
    nf = 0
    for r in range(13):
        if rank_count[r] == 4:
            full[nf] = r
            nf += 1
    if (combo & COMBO_SUIT) == 0:  # ranks only: every rank present must be whole
        total = 0
        for r in range(13):
            total += rank_count[r]
        return total == 4 * nf
    use_ranks = (combo & COMBO_RANK) != 0
    for subset in range(1 << nf if use_ranks else 1):
        # each rank taken as a combination removes one card of every suit
        taken = 0
        for i in range(nf):
            if (subset >> i) & 1:
                taken += 1
        ok = True
        for u in range(4):
            if (suit_count[u] - taken) % 4 != 0 or suit_count[u] < taken:
                ok = False
        if ok:
            return True
    return False


@hot
def card_value(hand: np.ndarray, k: np.int64, j: np.int64, live_rank: np.ndarray,
               live_suit: np.ndarray, combo: np.int64) -> np.int64:
    """How much card ``j`` helps its hand towards a combination still possible: the
    larger of the cards sharing its rank (a live rank) and its suit (a live suit)."""
    rc = 0
    sc = 0
    for i in range(k):
        if rank_of(hand[i]) == rank_of(hand[j]):
            rc += 1
        if suit_of(hand[i]) == suit_of(hand[j]):
            sc += 1
    v = 0
    if (combo & COMBO_RANK) != 0 and live_rank[rank_of(hand[j])]:
        v = rc
    if (combo & COMBO_SUIT) != 0 and live_suit[suit_of(hand[j])] and sc > v:
        v = sc
    return v


# --- result columns -------------------------------------------------------------------
# per-seat blocks of n columns, then the fixed ones
def layout(n: int) -> dict[str, int]:
    base = {"deal": 0, "score": 1, "aces": 1 + n, "penalties": 1 + 2 * n}
    fixed = ("winner", "draw", "time_ms", "valid_slaps", "false_slaps", "early_slaps",
             "penalty_draws", "flushes", "flushed_kilos", "deadlock", "capped", "cycles",
             "passes", "completed", "empty_draws", "ace_draws")
    for i, name in enumerate(fixed):
        base[name] = 1 + 3 * n + i
    base["size"] = 1 + 3 * n + len(fixed)
    return base


L_FIXED = 16  # len(fixed) above
(F_WINNER, F_DRAW, F_TIME, F_VALID, F_FALSE, F_EARLY, F_DRAWS, F_FLUSHES, F_FLUSHED,
 F_DEADLOCK, F_CAPPED, F_CYCLES, F_PASSES, F_COMPLETED, F_EMPTY, F_ACE_DRAWS) = range(16)


def _players(k: KiloKnobs | None) -> int:
    return (k or KiloKnobs()).players


def deal_columns(k: KiloKnobs | None = None) -> list[Column]:
    n = _players(k)
    return ([Column("deal")]
            + [Column(f"score_s{s}", help=f"kilos seat {s} holds at the end of the round "
                                          "(lower is better)") for s in range(n)]
            + [Column(f"aces_s{s}", help=f"Aces (100 kg) in seat {s}'s stack at the end")
               for s in range(n)]
            + [Column(f"penalties_s{s}", help=f"penalty draws seat {s} took (lost races "
                                              "and false slaps)") for s in range(n)]
            + _fixed_columns("round"))


def _fixed_columns(what: str) -> list[Column]:
    return [Column("winner", help="seat with the fewest kilos, -1 = several tie"),
            Column("draw", BOOL, help="several seats tie for the fewest kilos"),
            Column("time_ms", help=f"simulated time of the {what}, milliseconds"),
            Column("valid_slaps", help="valid slaps (a combination, everyone holding 4)"),
            Column("false_slaps", help="slaps without a combination (the instigator "
                                       "draws)"),
            Column("early_slaps", help="slaps with a combination while someone held 3 "
                                       "(the instigator draws)"),
            Column("penalty_draws", help="cards drawn from the pile as penalties"),
            Column("flushes", help="7s drawn: the drawer's kilos go back to the pile"),
            Column("flushed_kilos", help="kilos sent back to the pile by 7s"),
            Column("deadlock", help="rounds ended because the active players' cards could "
                                    "no longer all form combinations"),
            Column("capped", help="rounds stopped at max_cycles"),
            Column("cycles", help="pass cycles played"),
            Column("passes", help="cards passed"),
            Column("completed", help="players who laid a combination aside"),
            Column("empty_draws", help="penalty draws from an empty pile (nothing taken)"),
            Column("ace_draws", help="Aces drawn as penalties")]


def match_columns(k: KiloKnobs | None = None) -> list[Column]:
    n = _players(k)
    return ([Column("match")]
            + [Column(f"final_score_s{s}", help=f"kilos seat {s} holds after the match "
                                                "(lower is better)") for s in range(n)]
            + [Column(f"aces_s{s}", help=f"Aces in seat {s}'s stack after the match")
               for s in range(n)]
            + [Column(f"penalties_s{s}", help=f"penalty draws seat {s} took")
               for s in range(n)]
            + _fixed_columns("match") + [Column("n_deals", help="rounds played")])
