"""The Manille variants (seed "Variantes"; catalogue ``manille.md`` A-F): their rules on
hand-built positions and the seed's statements, deal invariants and conservation, exact
odds, matches, and the runner's determinism. The players are in
``test_manille_variants_players.py``."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import simulate
from simlab.games import get_game
from simlab.games import manille as M
from simlab.games.manille import rules as R
from simlab.games.manille import variant_players as VP
from simlab.games.manille import variants as V

DECK = M.DECK
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
VARIANTS = ("belge", "coinchee", "encheres", "folle", "trois", "deux")
TEAM_VARIANTS = ("belge", "coinchee", "trois", "deux")


def cid(label: str) -> int:
    return DECK.index(label)


def mask(labels: list[str]) -> int:
    m = 0
    for c in labels:
        m |= 1 << cid(c)
    return m


def setup(variant: str, **knobs):
    k = M.ManilleKnobs(variant=variant, **knobs)
    return k, M._vector(k), M.rules_for(k), M.tables(k).kernel_args()


def position(variant: str, hands: dict[int, list[str]], trump: int, leader: int,
             trick: list[str] = (), dealer: int = 0, dummy: int = 2,
             down: dict[int, list[str]] | None = None, **knobs):
    """A play position: ``hands`` (seat -> cards), trump (-1: Sans-Atout), the first
    trick's cards so far (played by ``leader`` onwards; they must be in the hands)."""
    k, kv, rules, tb = setup(variant, **knobs)
    s = np.zeros(V.N_VSTATE, dtype=np.int64)
    V.reset_state(s, R.VARIANTS.index(variant), dealer, dummy)
    for p, h in hands.items():
        s[R.S_HAND + p] = mask(h)
    for p, h in (down or {}).items():
        s[V.S_DOWN + p] = mask(h)
    s[R.S_TRUMP] = trump
    V.start_play(s, leader)
    for c in trick:
        V.apply_card(s, cid(c), tb)
    return s, kv, rules, tb


def legal(s, rules, tb) -> set[str]:
    m = int(V.legal_now(s, rules, tb))
    return {DECK.labels[c] for c in range(32) if m >> c & 1}


def finished(variant: str, points: list[int], tricks: list[int], **knobs):
    """A finished deal's state with these card points and tricks per seat."""
    k, kv, rules, tb = setup(variant, **knobs)
    s = np.zeros(V.N_VSTATE, dtype=np.int64)
    V.reset_state(s, R.VARIANTS.index(variant), 0, 2)
    for p in range(4):
        s[R.S_TPTS + p] = points[p]
        s[R.S_TRICKS + p] = tricks[p]
    s[R.S_PHASE] = R.P_DONE
    return s, kv


def marks_of(s, kv) -> tuple[list[int], int]:
    out = np.zeros(4, dtype=np.int64)
    win = V.deal_marks(s, kv, out)
    return [int(x) for x in out], int(win)


def decide(s, kv, move: int) -> None:
    opts = np.zeros(V.MAX_DECISIONS, dtype=np.int64)
    n = V.decision_options(s, kv, opts)
    assert move in list(opts[:n]), (move, list(opts[:n]))
    V.apply_decision(s, kv, move)


def options(s, kv) -> list[int]:
    opts = np.zeros(V.MAX_DECISIONS, dtype=np.int64)
    return [int(x) for x in opts[:V.decision_options(s, kv, opts)]]


def dealt_state(variant: str, seed: int, dealer: int = 0, dummy: int = 2, **knobs):
    k, kv, rules, tb = setup(variant, **knobs)
    deck = np.random.default_rng(seed).permutation(32).astype(np.int64)
    s = np.zeros(V.N_VSTATE, dtype=np.int64)
    dealt = np.zeros((4, 8), dtype=np.int64)
    V.deal_variant(s, deck, dealer, dummy, kv, R.VARIANTS.index(variant), dealt)
    return s, kv, rules, tb, deck, dealt


# --- knobs ---------------------------------------------------------------------------------
def test_variant_knob_and_the_variants_own_knobs():
    g = get_game("manille")
    for v in VARIANTS:
        assert g.make_knobs({"variant": v}).variant == v
    with pytest.raises(SimlabError, match="allowed: classic, belge"):
        g.make_knobs({"variant": "bridge"})
    for bad in ({"min_bid": "0"}, {"fail_mode": "none"}, {"dummy_exposure": "x"},
                {"deux_target": "0"}, {"contre_multiplier": "9"}, {"oracle_team": "2"}):
        with pytest.raises(SimlabError):
            g.make_knobs(bad)
    k = M.ManilleKnobs()
    assert (k.min_bid, k.fail_mode, k.deux_target, k.belge_deals, k.dummy_exposure) == (
        20, "share", 44, 20, "face_up")
    assert g.teams(M.ManilleKnobs(variant="folle")) == (0, 1, 2, 3)
    assert g.teams(M.ManilleKnobs(variant="deux")) == (0, 1, 0, 1)


# --- A. belge -------------------------------------------------------------------------------
def test_belge_sixty_points_win_with_31_and_a_tie_doubles():
    # seed: "le total des points est alors ramené à 60"; tricks score nothing
    s, kv = finished("belge", [20, 10, 20, 10], [2, 2, 2, 2])
    assert V.side_points(s, kv) == (40, 20)
    assert marks_of(s, kv) == ([10, 0, 10, 0], 0)  # 40 - 30
    s, kv = finished("belge", [16, 14, 15, 15], [5, 1, 1, 1])
    assert marks_of(s, kv) == ([1, 0, 1, 0], 0)  # 31 wins
    s, kv = finished("belge", [15, 15, 15, 15], [5, 1, 1, 1])
    assert marks_of(s, kv) == ([0, 0, 0, 0], -1)  # 30-30: void, tricks do not count
    # "celle qui va suivre comptera double"; contre x2, surcontre x4, whoever wins
    s, kv = finished("belge", [10, 20, 10, 20], [2, 2, 2, 2])
    s[V.S_MULT] = 2
    assert marks_of(s, kv)[0] == [0, 20, 0, 20]
    s[V.S_MULT] = 1
    s[V.S_CONTRE] = 1
    assert marks_of(s, kv)[0] == [0, 20, 0, 20]
    s[V.S_CONTRE] = 2
    s[V.S_MULT] = 2
    assert marks_of(s, kv)[0] == [0, 80, 0, 80]


def test_sans_atout_no_trumping():
    # seed: "la notion de couper n'existe plus ... il se défausse simplement"
    s, kv, rules, tb = position("belge", {0: ["7♦"], 1: ["7♣", "K♠", "A♥"]}, -1, 0, ["7♦"])
    assert legal(s, rules, tb) == {"7♣", "K♠", "A♥"}
    s, kv, rules, tb = position("belge", {0: ["7♦"], 1: ["7♣", "K♠", "A♥"]}, CLUBS, 0, ["7♦"])
    assert legal(s, rules, tb) == {"7♣"}
    # in Sans-Atout the highest card of the led suit wins; a discard never does
    s, kv, rules, tb = position("belge", {0: ["9♦"], 1: ["10♠"], 2: ["K♦"], 3: ["A♦"]}, -1, 0,
                                ["9♦", "10♠", "K♦", "A♦"])
    assert s[R.S_LEADER] == 3 and s[R.S_TPTS + 3] == 3 + 5 + 4


def test_trump_choice_a_toi_contre_and_surcontre():
    # coinchee: the seed's coinche has no surcoinche; coinchee_surcoinche borrows belge's
    for variant, extra in (("belge", {}), ("coinchee", {"coinchee_surcoinche": True})):
        s, kv, rules, tb, _, _ = dealt_state(variant, 1, dealer=1, **extra)
        assert s[R.S_PHASE] == V.P_TRUMP and s[R.S_TO_MOVE] == 1 and s[R.S_TURNED] == -1
        assert options(s, kv) == [0, 1, 2, 3, V.NO_TRUMP, V.PASS_CHOICE]
        decide(s, kv, V.PASS_CHOICE)  # "à toi": the partner must choose
        assert s[R.S_TO_MOVE] == 3 and options(s, kv) == [0, 1, 2, 3, V.NO_TRUMP]
        decide(s, kv, HEARTS)
        assert s[V.S_CHOOSER] == 3 and s[R.S_TRUMP] == HEARTS
        assert s[R.S_PHASE] == V.P_CONTRE and s[R.S_TO_MOVE] == 2  # the dealer's left first
        decide(s, kv, 0)
        assert s[R.S_TO_MOVE] == 0  # then the other opponent
        decide(s, kv, 1)
        # seed: the contred player's partner may surcontre
        assert s[R.S_PHASE] == V.P_SURCONTRE and s[R.S_TO_MOVE] == 1
        decide(s, kv, 1)
        assert s[V.S_CONTRE] == 2 and s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2
    # coinchée as printed: a coinche doubles, nothing more, and the play starts
    s, kv, rules, tb, _, _ = dealt_state("coinchee", 1, dealer=1)
    decide(s, kv, HEARTS)
    decide(s, kv, 1)
    assert s[V.S_CONTRE] == 1 and s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2
    # ... and belge without its surcontre knob likewise
    s, kv, rules, tb, _, _ = dealt_state("belge", 1, dealer=1, surcontre=False)
    decide(s, kv, HEARTS)
    decide(s, kv, 1)
    assert s[V.S_CONTRE] == 1 and s[R.S_PHASE] == R.P_PLAY
    # no contre knob: straight to the play; Sans-Atout is trump -1
    s, kv, rules, tb, _, _ = dealt_state("coinchee", 1, dealer=0, contre=False)
    decide(s, kv, V.NO_TRUMP)
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TRUMP] == -1 and s[R.S_TO_MOVE] == 1


def test_coinchee_marks_double_whoever_wins():
    # seed: the coinching team marks double if the demandeur lost; the demandeur doubles
    # his points if he won; otherwise the classic 68 points, marks over 34
    s, kv = finished("coinchee", [20, 10, 20, 10], [3, 1, 3, 1])
    assert marks_of(s, kv) == ([12, 0, 12, 0], 0)  # 46 - 34
    s[V.S_CONTRE] = 1
    assert marks_of(s, kv) == ([24, 0, 24, 0], 0)
    s, kv = finished("coinchee", [10, 20, 10, 20], [1, 3, 1, 3])
    s[V.S_CONTRE] = 1
    assert marks_of(s, kv) == ([0, 24, 0, 24], 1)
    s[V.S_CONTRE] = 2
    assert marks_of(s, kv) == ([0, 48, 0, 48], 1)


def test_belge_compulsory_sans_atout():
    kv = M._vector(M.ManilleKnobs(variant="belge"))
    assert V.forced_sa_now(1, 0, kv)  # last announcement, none made: forced
    assert not V.forced_sa_now(2, 0, kv) and not V.forced_sa_now(1, 1, kv)
    s, kv, rules, tb, _, _ = dealt_state("belge", 2)
    s[V.S_FORCED_SA] = 1
    assert options(s, kv) == [V.NO_TRUMP]


# --- C. enchères ------------------------------------------------------------------------------
def test_encheres_auction():
    s, kv, rules, tb, _, _ = dealt_state("encheres", 3, dealer=3)
    assert s[R.S_PHASE] == V.P_BID and s[R.S_TO_MOVE] == 0  # the dealer's left opens
    assert s[R.S_TURNED] == -1  # "la dernière carte n'est pas retournée"
    assert options(s, kv)[:3] == [V.PASS, 20, 21] and options(s, kv)[-1] == 68
    decide(s, kv, 25)
    assert options(s, kv)[:2] == [V.PASS, 26]  # bids strictly rise
    decide(s, kv, V.PASS)  # seat 1 passes for good
    decide(s, kv, 30)  # seat 2
    decide(s, kv, V.PASS)  # seat 3
    assert s[R.S_TO_MOVE] == 0
    decide(s, kv, 31)
    assert s[R.S_TO_MOVE] == 2  # seat 1 passed: skipped
    decide(s, kv, V.PASS)  # three passes after a bid: seat 0 takes at 31
    assert s[V.S_TAKER] == 0 and s[V.S_BID] == 31 and s[R.S_PHASE] == V.P_TRUMP
    assert options(s, kv) == [0, 1, 2, 3]  # the taker "donne l'atout": a suit
    decide(s, kv, DIAMONDS)
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 0  # "et joue la première carte"
    # three passes before any bid: the fourth may still bid; four passes: thrown in
    s, kv, rules, tb, _, _ = dealt_state("encheres", 3, dealer=0)
    for _ in range(3):
        decide(s, kv, V.PASS)
    assert s[R.S_TO_MOVE] == 0 and s[R.S_PHASE] == V.P_BID
    decide(s, kv, V.PASS)
    assert s[R.S_PHASE] == V.P_THROWN


def test_encheres_defenders_need_not_overplay_or_trump_a_fellow_defender():
    # seed: "Ceux-ci ne sont pas obligés de monter ni de couper sur les cartes de leur
    # collègue". Taker seat 0, trump ♣.
    hands = {0: ["7♥", "K♥"], 1: ["A♥", "8♠"], 2: ["10♥", "8♥"], 3: ["7♣", "K♠"]}
    s, kv, rules, tb = position("encheres", hands, CLUBS, 0, ["7♥", "A♥"])
    V.set_taker(s, 0)
    assert legal(s, rules, tb) == {"10♥", "8♥"}  # a fellow defender wins: no overplay
    V.apply_card(s, cid("8♥"), tb)
    assert legal(s, rules, tb) == {"7♣", "K♠"}  # ... nor trump
    # the taker winning: the defenders must overplay and trump
    hands = {1: ["A♥", "8♠"], 2: ["10♥", "8♥"], 3: ["K♥", "7♣"], 0: ["7♥", "Q♠"]}
    s, kv, rules, tb = position("encheres", hands, CLUBS, 3, ["K♥"])
    V.set_taker(s, 3)
    assert legal(s, rules, tb) == {"7♥"}  # seat 0 defends: no heart above K, follow
    for hand, must in ((["A♥", "8♥"], {"A♥"}), (["7♣", "8♠"], {"7♣"})):
        s, kv, rules, tb = position("encheres", {3: ["K♥"], 0: hand}, CLUBS, 3, ["K♥"])
        V.set_taker(s, 3)
        assert legal(s, rules, tb) == must
    # the taker follows a defender's lead under the classic obligations
    s, kv, rules, tb = position("encheres", {1: ["K♥"], 2: ["A♥", "8♥"]}, CLUBS, 1, ["K♥"])
    V.set_taker(s, 2)
    assert legal(s, rules, tb) == {"A♥"}


def test_encheres_marks_and_fail_modes():
    def deal(points, tricks, bid, **knobs):
        s, kv = finished("encheres", points, tricks, **knobs)
        V.set_taker(s, 1)
        s[V.S_BID] = bid
        return marks_of(s, kv)

    made = ([10, 25, 10, 15], [1, 4, 1, 2])  # the taker (seat 1) takes 25 + 4 = 29
    assert deal(*made, 29) == ([0, 29, 0, 0], 0)
    assert deal(*made, 30) == ([10, 0, 10, 10], 1)  # share: ceil(30 / 3)
    assert deal(*made, 31) == ([11, 0, 11, 11], 1)  # ceil(31 / 3) = 11
    assert deal(*made, 31, fail_mode="each_full") == ([31, 0, 31, 31], 1)
    assert deal(*made, 31, fail_mode="bidder_minus") == ([0, -31, 0, 0], 1)


# --- D. folle -----------------------------------------------------------------------------
def test_folle_dealer_names_trump_and_leads_and_points_are_a_penalty():
    s, kv, rules, tb, _, _ = dealt_state("folle", 4, dealer=2)
    assert s[R.S_PHASE] == V.P_TRUMP and s[R.S_TO_MOVE] == 2 and s[R.S_TURNED] == -1
    # seed: "c'est le donneur qui fixe l'atout": a suit; Sans-Atout only by knob
    assert options(s, kv) == [0, 1, 2, 3]
    decide(s, kv, SPADES)
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2  # the dealer leads
    s, kv, rules, tb, _, _ = dealt_state("folle", 4, dealer=2, folle_allow_sa=True)
    assert options(s, kv) == [0, 1, 2, 3, V.NO_TRUMP]
    s, kv = finished("folle", [10, 25, 10, 15], [1, 4, 1, 2])
    assert marks_of(s, kv) == ([-11, -29, -11, -17], -1)  # a shared minimum: no winner
    s, kv = finished("folle", [9, 26, 10, 15], [1, 4, 1, 2])
    assert marks_of(s, kv) == ([-10, -30, -11, -17], 0)
    # no partner in folle: a winning opponent never frees anybody from trumping
    s, kv, rules, tb = position("folle", {0: ["10♥"], 1: ["7♥"], 2: ["7♣", "A♠"]}, CLUBS, 0,
                                ["10♥", "7♥"])
    assert legal(s, rules, tb) == {"7♣"}


# --- E. trois ---------------------------------------------------------------------------------
def test_trois_dummy_is_played_by_its_partner_with_the_same_side():
    s, kv, rules, tb, _, dealt = dealt_state("trois", 5, dealer=1, dummy=3)
    assert [s[V.S_OWNER + p] for p in range(4)] == [0, 1, 2, 1]  # the dummy's partner: 1
    assert [s[V.S_TEAM + p] for p in range(4)] == [0, 1, 0, 1]
    assert s[R.S_TRUMP] == dealt[1, 7] // 8 and s[R.S_TURNED] == dealt[1, 7]  # classic trump
    assert s[V.S_DOWN + 3] == 0  # face up by default
    h = VP.known_cards(s, 0)
    assert h == np.uint64(s[R.S_HAND]) | np.uint64(s[R.S_HAND + 3])  # the dummy is public
    # half hidden (knob): the dummy's first 4 cards lie face down under the next 4
    s, kv, rules, tb, _, dealt = dealt_state("trois", 5, dealer=1, dummy=3,
                                             dummy_exposure="half_hidden")
    assert s[V.S_DOWN + 3] == mask([DECK.labels[c] for c in dealt[3, :4]])


def test_half_hidden_dummy_follows_on_its_face_up_cards_and_turns_uncovered_ones():
    # deux, dummy seat 2: 8♥ face down under K♠; visible K♠, 7♦. Hearts are led.
    hands = {0: ["A♠", "9♣"], 1: ["7♥", "8♠"], 2: ["K♠", "7♦", "8♥"], 3: ["9♦", "J♦"]}
    s, kv, rules, tb = position("deux", hands, CLUBS, 1, ["7♥"], down={2: ["8♥"]})
    s[V.S_STACK + 8] = cid("K♠") * 64 + cid("8♥")
    assert legal(s, rules, tb) == {"K♠", "7♦"}  # judged on the face-up cards only
    for c in ("K♠", "9♦", "9♣"):
        V.apply_card(s, cid(c), tb)
    assert s[R.S_N_TABLE] == 0 and s[V.S_DOWN + 2] == 0  # K♠ played: 8♥ turned up
    assert V.visible_hand(s, 2) == np.uint64(mask(["7♦", "8♥"]))
    # a covered card stays down after a trick where another card was played
    s, kv, rules, tb = position("deux", hands, CLUBS, 1, ["7♥"], down={2: ["8♥"]})
    s[V.S_STACK + 8] = cid("K♠") * 64 + cid("8♥")
    for c in ("7♦", "9♦", "9♣"):
        V.apply_card(s, cid(c), tb)
    assert s[V.S_DOWN + 2] == mask(["8♥"])


# --- F. deux ------------------------------------------------------------------------------------
def test_deux_deal_as_the_seed_says():
    """Seed: 4 cards face down to the dummies, 4 to each player, 4 face up onto the
    dummies, 4 more to each player; trump = the last card dealt (the dealer's)."""
    for dealer in (0, 1):
        deck = np.arange(32, dtype=np.int64)
        k, kv, rules, tb = setup("deux")
        s = np.zeros(V.N_VSTATE, dtype=np.int64)
        dealt = np.zeros((4, 8), dtype=np.int64)
        V.deal_variant(s, deck, dealer, 2, kv, R.V_DEUX, dealt)
        # clockwise from the dealer's left: dummies 2, 3 then the players, dealer last
        players = [1, 0] if dealer == 0 else [0, 1]
        assert list(dealt[2, :4]) == [0, 1, 2, 3] and list(dealt[3, :4]) == [4, 5, 6, 7]
        assert list(dealt[players[0], :4]) == [8, 9, 10, 11]
        assert list(dealt[players[1], :4]) == [12, 13, 14, 15]
        assert list(dealt[2, 4:]) == [16, 17, 18, 19] and list(dealt[3, 4:]) == [20, 21, 22, 23]
        assert list(dealt[players[1], 4:]) == [28, 29, 30, 31] and players[1] == dealer
        assert s[V.S_DOWN + 2] == 0xF and s[V.S_DOWN + 3] == 0xF0  # the first 4: face down
        assert s[R.S_TURNED] == 31 and s[R.S_TRUMP] == 31 // 8
        assert s[R.S_TO_MOVE] == (dealer + 1) % 4
        assert [s[V.S_OWNER + p] for p in range(4)] == [0, 1, 0, 1]


# --- invariants and conservation over many deals ---------------------------------------------
def _rows(variant: str, policies, seed: int, n: int, **knobs) -> pl.DataFrame:
    return simulate(get_game("manille"), n, seed=seed, params={"variant": variant, **knobs},
                    policies=policies, record_hands=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_invariants_and_conservation(variant):
    f = _rows(variant, "heuristic,random,heuristic,random", 7, 1500)
    k = M.ManilleKnobs(variant=variant)
    played = ~f["annulled"] | f["void_deal"]
    if variant == "encheres":
        played = f["taker"] >= 0
    g = f.filter(played)
    tricks = sum(g[f"tricks_s{i}"] for i in range(4))
    cards = sum(g[f"trick_points_s{i}"] for i in range(4))
    assert (tricks == 8).all() and (cards == 60).all()  # every card point, every trick
    hands = np.array([np.sort([cid(c) for hand in row for c in hand])
                      for row in f.select([f"dealt_s{p}" for p in range(4)]).rows()])
    assert (hands == np.arange(32)).all()  # the deal is a partition of the pack
    total = 60 if variant == "belge" else 68
    s = [f[f"score_s{i}"].to_numpy() for i in range(4)]
    if variant in TEAM_VARIANTS:
        t0, t1 = g["team_points_t0"].to_numpy(), g["team_points_t1"].to_numpy()
        assert (t0 + t1 == total).all()
        assert (s[0] == s[2]).all() and (s[1] == s[3]).all()
        mult = np.ones(f.height, dtype=np.int64)
        if "contre" in f.columns:
            c = f["contre"].to_numpy()
            mult = np.where(c == 1, 2, np.where(c == 2, 4, 1))
            # every decision is taken sometimes (no surcoinche in the seed's coinchée)
            assert set(np.unique(c)) == ({0, 1} if variant == "coinchee" else {0, 1, 2})
        t0, t1 = f["team_points_t0"].to_numpy(), f["team_points_t1"].to_numpy()
        assert (s[0] == np.where(t0 > t1, t0 - total // 2, 0) * mult).all()
        assert (s[1] == np.where(t1 > t0, t1 - total // 2, 0) * mult).all()
        assert (f["void_deal"] == (f["team_points_t0"] == f["team_points_t1"])).all()
    if variant == "encheres":
        taken = f["taker"].to_numpy() >= 0
        bid = f["bid"].to_numpy()
        made = f["made"].to_numpy()
        tp = f["taker_points"].to_numpy()
        assert (made[taken] == (tp >= bid)[taken]).all() and (bid[taken] >= 20).all()
        taker_mark = np.choose(np.maximum(f["taker"].to_numpy(), 0), s)
        assert (taker_mark[taken] == np.where(made, bid, 0)[taken]).all()
        assert (sum(s)[taken] == np.where(made, bid, 3 * ((bid + 2) // 3))[taken]).all()
        assert (sum(np.abs(x) for x in s)[~taken] == 0).all() and 0 < (~taken).mean() < 0.5
        assert 0 < made[taken].mean() < 1
    if variant == "folle":
        pts = [f[f"points_s{i}"].to_numpy() for i in range(4)]
        assert (sum(pts) == 68).all()  # zero-sum up to the constant 68
        assert all((s[i] == -pts[i]).all() for i in range(4))
    if variant == "deux":
        assert set(f["dealer"].unique()) == {0, 1}
    if variant in ("trois", "deux"):
        last = np.array([cid(r[d][7]) for r, d in zip(
            f.select([f"dealt_s{p}" for p in range(4)]).rows(), f["dealer"].to_list(),
            strict=True)])
        assert (f["turned_card"].cast(pl.String).to_list()
                == [DECK.labels[c] for c in last])
    assert k.variant == variant


def _z(hits: int, n: int, p: float) -> float:
    return (hits / n - p) / math.sqrt(p * (1 - p) / n)


def test_deux_exact_odds_of_the_trump_manille():
    """À deux the dealer keeps the last card dealt, which sets trump: P(dealer holds the
    10 of trump) = 1/8 + 7/8 * 7/31 = 10/31, any other hand 7/31; the dummies' face-down
    halves hold it with 7/8 * 4/31 each."""
    n = 8000
    f = simulate(get_game("manille"), n, seed=2024, params={"variant": "deux"}, record_hands=True)
    trump = f["trump"].cast(pl.String).to_list()
    dealer = f["dealer"].to_numpy()
    holder = np.full(n, -1)
    hidden = 0
    for p in range(4):
        col = f[f"dealt_s{p}"].to_list()
        for i in range(n):
            manille = "10" + trump[i]
            if manille in col[i]:
                holder[i] = p
                if p >= 2 and col[i].index(manille) < 4:
                    hidden += 1
    rel = np.where(holder == dealer, 0, 1)
    assert abs(_z(int((rel == 0).sum()), n, 10 / 31)) < 5
    assert abs(_z(hidden, n, 2 * 7 / 8 * 4 / 31)) < 5


# --- matches -------------------------------------------------------------------------------------
def _matches(variant: str, policies, n: int, seed: int = 9, **knobs) -> pl.DataFrame:
    k = M.ManilleKnobs(variant=variant, **knobs)
    out = M.run_matches(k, policies, seed, 0, n)
    return to_frame(out, M.match_columns(k), DECK.labels, 4)


@pytest.mark.parametrize("variant", VARIANTS)
def test_matches_end_properly(variant):
    pol = ("heuristic", "random", "heuristic", "random")
    m = _matches(variant, pol, 150)
    assert not m["capped"].any()
    w = m["winner"].to_numpy()
    final = np.stack([m[f"final_score_s{i}"].to_numpy() for i in range(4)], axis=1)
    assert (w >= 0).all()  # ties are played off
    if variant == "belge":
        tied = m["tied"].to_numpy()
        assert (m["n_deals"].to_numpy()[~tied] == 20).all() and (m["n_deals"] >= 20).all()
        assert (w == np.where(final[:, 0] > final[:, 1], 0, 1)).all()
        assert (final[:, 0] != final[:, 1]).all()
        # each team announced Sans-Atout at least once: chosen, or forced at the end
        assert (m["sa_forced_t0"] <= 1).all() and m["sa_forced_t0"].sum() > 0
    elif variant == "folle":
        loser = m["loser"].to_numpy()
        assert (final[np.arange(len(m)), loser] >= 100).all()
        assert (final[np.arange(len(m)), w] == final.min(axis=1)).all()
        assert ((final == final.min(axis=1)[:, None]).sum(axis=1) == 1).all()
    elif variant == "encheres":
        assert (final.max(axis=1) >= 100).all()
        assert (final[np.arange(len(m)), w] == final.max(axis=1)).all()
    else:
        target = 44 if variant == "deux" else 100
        assert (np.where(w == 0, final[:, 0], final[:, 1]) >= target).all()
        assert (np.where(w == 0, final[:, 1], final[:, 0]) < target).all()
        assert (final[:, 0] == final[:, 2]).all()
        if variant == "deux":
            assert set(m["first_dealer"].unique()) == {0, 1}
        if variant == "trois":
            assert set(m["dummy_seat"].unique()) == {0, 1, 2, 3}


# --- the runner: chunks, jobs, and the same rows without the JIT ---------------------------------
def test_variant_rows_do_not_depend_on_jobs_or_chunks():
    for v, pol in (("deux", "search,heuristic,random,heuristic"),
                   ("encheres", "search,random,heuristic,heuristic")):
        params = {"variant": v, "search_worlds": 3}
        ref = simulate(get_game("manille"), 40, seed=3, params=params, policies=pol, record_hands=True)
        assert ref.equals(simulate(get_game("manille"), 40, seed=3, params=params, policies=pol,
                                   record_hands=True, chunk_size=9))
        assert ref.equals(simulate(get_game("manille"), 40, seed=3, params=params, policies=pol,
                                   record_hands=True, chunk_size=20, jobs=2))
    m = simulate(get_game("manille"), 12, seed=3, level="match", params={"variant": "belge"})
    assert m.equals(simulate(get_game("manille"), 12, seed=3, level="match", params={"variant": "belge"},
                             chunk_size=5, jobs=2))


# --- the balance questions of the variants ------------------------------------------------------
def test_variant_questions_are_finite_and_computed_as_defined():
    from metric_checks import check_all_finite, close, named

    from simlab.analysis.report import finding_specs

    game = get_game("manille")
    keys = {"encheres": "q4.made", "folle": "q5.dealer_fewest", "deux": "q6.first_player",
            "belge": "q7.contre_right", "trois": "q8.dummy_team"}
    for variant, key in keys.items():
        k = M.ManilleKnobs(variant=variant)
        # enchères: enough deals for 20 takes at bids of 30 or more
        n = 3000 if variant == "encheres" else 1500
        f = simulate(get_game("manille"), n, seed=4, params={"variant": variant})
        ms = named(game, f, k, "deal", "Manille questions")
        check_all_finite(ms)
        assert ms[f"manille.{key}"].headline
    f = simulate(get_game("manille"), 1500, seed=4, params={"variant": "trois"})
    ms = named(game, f, M.ManilleKnobs(variant="trois"), "deal", "Manille questions")
    decided = f.filter(~pl.col("void_deal"))
    close(ms["manille.q8.dummy_team"],
          (decided["winning_team"] == decided["dummy_seat"] % 2).mean())
    f = simulate(get_game("manille"), 1500, seed=4, params={"variant": "encheres"})
    ms = named(game, f, M.ManilleKnobs(variant="encheres"), "deal", "Manille questions")
    taken = f.filter(pl.col("taker") >= 0)
    close(ms["manille.q4.made"], taken["made"].mean())
    m = simulate(get_game("manille"), 60, seed=4, level="match", params={"variant": "belge"})
    ms = named(game, m, M.ManilleKnobs(variant="belge"), "match", "Manille questions")
    n_forced = (m["sa_forced_t0"] + m["sa_forced_t1"]).sum()
    margin = (m["sa_forced_margin_t0"] + m["sa_forced_margin_t1"]).sum()
    close(ms["manille.q7.forced_margin"], margin / n_forced)
    specs = {s.key for s in finding_specs(game)}
    assert {"manille.q4.taker_edge", "manille.q5.dealer_fewest", "manille.q6.first_player",
            "manille.q6.oracle_margin", "manille.q7.contre_right", "manille.q7.forced_margin",
            "manille.q8.dummy_team"} <= specs
