"""The search player's decisions before the play in the Manille variants (trump or
Sans-Atout, passing the choice, contre, surcontre, bids): it sees only its own hand and
the public announcements (re-dealing the hidden cards never changes its decision, while
the perfect-information search does change), the worlds keep every public fact, a
thrown-in deal is worth nothing, and the kernels' search seats go through it. Search
deciding everything beats the heuristic: ``test_manille_variants_players``."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.engine.game import HEURISTIC, RANDOM, SEARCH
from simlab.games.manille import rules as R
from simlab.games.manille import variant_players as VP
from simlab.games.manille import variants as V
from tests.test_manille_variants import dealt_state
from tests.test_manille_variants_players import redeal

DECIDING = ("belge", "coinchee", "encheres", "folle")  # trois, deux: trump is turned
WORLDS = 8


def options_of(s, kv) -> np.ndarray:
    opts = np.zeros(V.MAX_DECISIONS, dtype=np.int64)
    return opts[:V.decision_options(s, kv, opts)].copy()


def decision_positions(variant: str, n_deals: int = 6, **knobs) -> list[tuple]:
    """Every decision with a choice on the way through ``n_deals`` auctions / trump
    choices; the path takes a random option one time in three (so the partner's choice
    after "à toi" and the surcontre come up), else the heuristic's."""
    pick = np.random.default_rng(7)
    out = []
    for seed in range(n_deals):
        s, kv, rules, tb, _, _ = dealt_state(variant, seed, dealer=seed % 4,
                                             search_decision_worlds=WORLDS, **knobs)
        while s[R.S_PHASE] not in (R.P_PLAY, R.P_DONE, V.P_THROWN):
            opts = options_of(s, kv)
            if len(opts) > 1:
                out.append((s.copy(), kv, rules, tb))
            if pick.random() < 1 / 3:
                m = opts[pick.integers(len(opts))]
            else:
                m = VP.heuristic_decision(s, kv, opts, len(opts))
            V.apply_decision(s, kv, m)
    return out


def decide(s, kv, rules, tb) -> int:
    world = np.zeros(V.N_VSTATE, dtype=np.int64)
    return int(VP.search_decision(s, kv, rules, tb, np.uint64(5), 3, 0, world,
                                  VP.search_work()))


@pytest.mark.parametrize("variant", DECIDING)
def test_decisions_never_peek(variant):
    phases = set()
    chosen = set()
    not_first = 0
    # coinchée: with the borrowed surcoinche, so that every decision comes up
    extra = {"coinchee_surcoinche": True} if variant == "coinchee" else {}
    positions = decision_positions(variant, **extra)
    for s, kv, rules, tb in positions:
        phases.add(int(s[R.S_PHASE]))
        c = decide(s, kv, rules, tb)
        assert c in options_of(s, kv)
        chosen.add((int(s[R.S_PHASE]), c))
        not_first += c != options_of(s, kv)[0]
        for key in range(5):
            assert decide(redeal(s, rules, tb, key), kv, rules, tb) == c, (variant, key)
    # real choices, and decided differently from one position to the next: a decision
    # that read the hidden cards would change under the re-deals above
    assert len(positions) >= 6 and not_first >= 2 and len(chosen) >= 3, (variant, chosen)
    expected = {"belge": {V.P_TRUMP, V.P_CONTRE, V.P_SURCONTRE},
                "coinchee": {V.P_TRUMP, V.P_CONTRE, V.P_SURCONTRE},
                "encheres": {V.P_BID, V.P_TRUMP}, "folle": {V.P_TRUMP}}[variant]
    assert phases == expected


def test_the_oracle_reads_the_hidden_cards_at_decisions():
    """oracle_team=0 searches the true deal: its decisions do change when the hidden
    cards change, so the test above would see a peeking search."""
    changed = 0
    for variant in ("coinchee", "encheres"):
        for s, kv, rules, tb in decision_positions(variant, 6, oracle_team=0):
            if s[V.S_TEAM + s[R.S_TO_MOVE]] != 0:
                continue
            c = decide(s, kv, rules, tb)
            changed += any(decide(redeal(s, rules, tb, key), kv, rules, tb) != c
                           for key in range(3))
    assert changed >= 2


@pytest.mark.parametrize("variant", DECIDING)
def test_decision_worlds_keep_the_public_facts(variant):
    """Before the play a world changes only the other hands: each keeps 8 cards, none
    of the player's; the announcements (trump, contre, bids, passes) stay as they are."""
    moved = 0
    for s, _kv, rules, tb in decision_positions(variant, 4):
        brain = int(s[R.S_TO_MOVE])
        mine = int(s[R.S_HAND + brain])
        others = [R.S_HAND + q for q in range(4) if q != brain]
        for key in range(3):
            w = redeal(s, rules, tb, key)
            keep = np.ones(V.N_VSTATE, dtype=bool)
            keep[others] = False
            assert np.array_equal(w[keep], s[keep])
            hands = [int(w[R.S_HAND + q]) for q in range(4)]
            assert hands[brain] == mine
            assert all(bin(h).count("1") == 8 for h in hands)
            assert sum(hands) == (1 << 32) - 1  # disjoint, all 32 cards
            moved += not np.array_equal(w, s)
    assert moved >= 10


def test_a_thrown_in_deal_is_worth_nothing_and_a_forced_sa_is_not_searched():
    s, kv, rules, tb, _, _ = dealt_state("encheres", 3, dealer=0, search_decision_worlds=4)
    for _ in range(3):
        V.apply_decision(s, kv, V.PASS)
    assert s[R.S_TO_MOVE] == 0  # the dealer speaks last; his pass throws the deal in
    work = VP.search_work()
    world = np.zeros(V.N_VSTATE, dtype=np.int64)
    n = VP.search_decision_values(s, kv, rules, tb, np.uint64(1), 0, 0, world, work)
    assert work[0][0] == V.PASS and work[1][0] == 0 and n == len(options_of(s, kv))
    # belge, the announcers' last chance: Sans-Atout is compulsory, the only option
    s, kv, rules, tb, _, _ = dealt_state("belge", 3, dealer=1)
    s[V.S_FORCED_SA] = 1
    assert decide(s, kv, rules, tb) == V.NO_TRUMP


def test_decision_move_dispatches_on_the_policy():
    work = VP.search_work()
    world = np.zeros(V.N_VSTATE, dtype=np.int64)
    differs = 0
    for s, kv, rules, tb in decision_positions("coinchee", 4):
        opts = options_of(s, kv)
        st, h = VP.decision_move(s, HEURISTIC, kv, rules, tb, np.uint64(9), np.uint64(5), 3, 0,
                                 world, work)
        assert h == VP.heuristic_decision(s, kv, opts, len(opts)) and st == np.uint64(9)
        _, m = VP.decision_move(s, SEARCH, kv, rules, tb, np.uint64(9), np.uint64(5), 3, 0,
                                world, work)
        assert m == decide(s, kv, rules, tb)
        differs += m != h
        _, r = VP.decision_move(s, RANDOM, kv, rules, tb, np.uint64(9), np.uint64(5), 3, 0,
                                world, work)
        assert r in opts
    assert differs >= 1  # the search seat does not just echo the heuristic


def test_decision_keys_are_distinct():
    """A seat's successive decisions use distinct search streams, apart from the cards'."""
    keys = set()
    for s, _kv, _rules, _tb in decision_positions("encheres", 4):
        keys.add((int(s[R.S_TO_MOVE]), int(VP.decision_ply(s)), int(s[R.S_DEALER])))
        assert VP.decision_ply(s) > 32
    assert len(keys) == len(decision_positions("encheres", 4))


@pytest.mark.parametrize("variant", ("coinchee", "encheres"))
def test_each_play_once_per_world_gives_the_plain_values(variant):
    """``play_out_once`` reuses a (trump, taker) play within a world: the summed values
    are those of playing every option out in full."""
    for s, kv, rules, tb in decision_positions(variant, 3):
        work = VP.search_work()
        world = np.zeros(V.N_VSTATE, dtype=np.int64)
        n = VP.search_decision_values(s, kv, rules, tb, np.uint64(5), 3, 0, world, work)
        got = work[1][:n].copy()
        plain = np.zeros(n, dtype=np.int64)
        opts = options_of(s, kv)
        w = VP.search_work()
        hidden = VP.seat_information(s, int(s[R.S_TO_MOVE]), rules, tb, w[7], w[8])
        st = np.uint64(VP.search.decision_stream(np.uint64(5), 3, 0, int(s[R.S_TO_MOVE]),
                                                 int(VP.decision_ply(s))))
        for _ in range(WORLDS):  # the stream stays a uint64 (an int64 one hashes apart)
            st = np.uint64(VP.sample_world(s, int(s[R.S_TO_MOVE]), hidden, st, world, w))
            for m in range(n):
                sim = world.copy()
                V.apply_decision(sim, kv, opts[m])
                VP.finish_decisions(sim, kv, w[14])
                VP.playout(sim, kv, rules, tb)
                plain[m] += VP.deal_value(sim, kv, int(s[R.S_TO_MOVE]), w[12])
        assert np.array_equal(got, plain), (variant, got, plain)
