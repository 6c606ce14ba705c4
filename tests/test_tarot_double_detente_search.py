"""Tarot double détente: the search player (``--policy search``). It never peeks (its
decision does not change when the cards hidden from it are re-dealt consistently with
what it has seen), its worlds respect the seat's information, it is deterministic
whatever the jobs and chunks, it runs interpreted like compiled, and it beats the
heuristic in duplicate play at 3 and 2 players."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import simlab
from simlab.engine import rng
from simlab.games import get_game
from simlab.games.tarot_double_detente import kernels as K
from simlab.games.tarot_double_detente import players as P
from simlab.games.tarot_double_detente import rules as R
from simlab.mechanics import search
from simlab.players.duel import duplicate

SLUG = "tarot_double_detente"
TB = R.tables()
ALL_SLOTS = [int(s) for s in R.SLOT_OF_ID]


def cards_of(cw: np.ndarray, w: int) -> set[int]:
    """Slots of the two-word set at ``cw[w:w + 2]``."""
    return {s for s in ALL_SLOTS if (int(cw[w + s // 64]) >> (s % 64)) & 1}


def put(cw: np.ndarray, w: int, cards: set[int]) -> None:
    words = [0, 0]
    for s in cards:
        words[s // 64] |= 1 << (s % 64)
    cw[w], cw[w + 1] = np.uint64(words[0]), np.uint64(words[1])


class Position:
    """A part's start (``st0``/``cw0``), the public moves since (``history``) and the
    state they lead to (``st``/``cw``)."""

    def __init__(self, knobs: R.DetenteKnobs, pile: np.ndarray, part: int = 0, dealer: int = 0):
        self.knobs = knobs
        self.kv = R._vector(knobs)
        self.rules = R._rules(knobs)
        self.n = knobs.players
        known = np.zeros(4, dtype=np.uint64)
        head, tail = 0, R.N_CARDS
        for q in range(part):
            head, tail = K._skip_part(pile, head, tail, q, self.kv, known)
        self.st0 = np.zeros(R.N_S, dtype=np.int64)
        self.cw0 = np.zeros(R.N_W, dtype=np.uint64)
        dealt = np.zeros((self.n, knobs.hand_size), dtype=np.int64)
        R.new_part(self.st0, self.cw0, pile, head, tail, part, dealer, np.zeros(3, dtype=np.int64),
                   known, -1, -1, dealt, self.kv)
        self.st, self.cw = self.st0.copy(), self.cw0.copy()
        self.history: list[int] = []

    def legal(self, st: np.ndarray, cw: np.ndarray) -> list[int]:
        out = np.zeros(P.N_MOVES_MAX, dtype=np.int64)
        m = R.legal_moves(st, cw, self.kv, self.rules, TB, out)
        return [int(x) for x in out[:m]]

    def advance(self, plies: int) -> Position:
        """Heuristic moves for everybody, ``plies`` of them."""
        for _ in range(plies):
            mv = int(P.heuristic_move(self.st, self.cw, self.kv, self.rules, TB))
            assert mv in self.legal(self.st, self.cw)
            R.apply_move(self.st, self.cw, mv, self.kv, self.rules, TB)
            self.history.append(mv)
        return self

    def replay(self, st: np.ndarray, cw: np.ndarray) -> dict[int, set[int]] | None:
        """Replay the history from (st, cw) in place; None when a move is illegal there.
        Returns the cards each seat played."""
        played: dict[int, set[int]] = {p: set() for p in range(self.n)}
        for mv in self.history:
            if mv not in self.legal(st, cw):
                return None
            if st[R.S_PHASE] == R.PH_PLAY:
                played[int(st[R.S_TURN])].add(mv)
            R.apply_move(st, cw, mv, self.kv, self.rules, TB)
        return played

    def hidden_second(self) -> bool:
        """The second turned card is still face down at the position."""
        return self.st[R.S_SECOND] >= 0 and self.st[R.S_PHASE] < R.PH_PLAY

    def redeal(self, seat: int, rs: np.random.Generator, tries: int = 20000
               ) -> tuple[np.ndarray, np.ndarray]:
        """Another deal the seat cannot tell from the real one: its own hand, the public
        cards and every public move kept; the other hands, a face-down second card and
        the undealt talon re-dealt at random (rejection: the history must stay legal,
        so voids and trump obligations shown in play are respected)."""
        played = self.replay(self.st0.copy(), self.cw0.copy())
        assert played is not None
        own = cards_of(self.cw0, R.W_HAND + 2 * seat)
        gone = cards_of(self.cw0, R.W_GONE)
        talon_known = cards_of(self.cw0, R.W_TALON)
        if self.st0[R.S_SECOND] >= 0 and not self.hidden_second():
            gone.add(int(self.st0[R.S_SECOND]))  # shown after the contracts: public
        others = [q for q in range(self.n) if q != seat]
        pool = sorted(set(ALL_SLOTS) - own - gone - talon_known
                      - {c for q in others for c in played[q]})
        need = {q: len(cards_of(self.cw0, R.W_HAND + 2 * q)) - len(played[q]) for q in others}
        for _ in range(tries):
            perm = list(rs.permutation(pool))
            st, cw = self.st0.copy(), self.cw0.copy()
            for q in others:
                put(cw, R.W_HAND + 2 * q, played[q] | {int(c) for c in perm[:need[q]]})
                perm = perm[need[q]:]
            if self.hidden_second():
                st[R.S_SECOND] = int(perm[0])
            if self.replay(st, cw) is not None:
                return st, cw
        raise AssertionError("no consistent re-deal found")


def shuffled_pile(seed: int) -> np.ndarray:
    pile = np.zeros(R.N_CARDS + 8, dtype=np.int64)
    K._fresh_pile(pile)
    rng.shuffle(np.uint64(rng.stream(np.uint64(seed), 0, 0, rng.SHUFFLE)), pile, R.N_CARDS)
    return pile


def built_pile(first_hand: list[int], n: int, seed: int) -> np.ndarray:
    """A hand-built deal: the first speaker (dealer 0's left) gets ``first_hand`` (slots),
    the rest of the pack in a seeded order."""
    rest = [s for s in np.random.default_rng(seed).permutation(ALL_SLOTS) if s not in first_hand]
    pile = np.zeros(R.N_CARDS + 8, dtype=np.int64)
    it = iter(rest)
    for i in range(R.N_CARDS):
        pile[i] = first_hand[i // n] if i % n == 0 and i // n < len(first_hand) else next(it)
    return pile


def decide(pos: Position, st: np.ndarray, cw: np.ndarray, seed: int = 7) -> tuple[int, list, list]:
    """The search decision at (st, cw), with the moves and their totals."""
    sw = P.search_work()
    mv = int(P.search_move(st, cw, pos.kv, pos.rules, TB, np.uint64(seed), 3, 1, sw))
    n_moves = len(pos.legal(st, cw))
    return mv, [int(x) for x in sw[2][:n_moves]], [int(x) for x in sw[3][:n_moves]]


SLOT = {lab: int(R.SLOT_OF_ID[i]) for i, lab in enumerate(R.DECK.labels)}
STRONG = [SLOT[x] for x in ("T21", "T20", "T19", "T18", "Excuse")] + [
    int(R.SLOT_OF_ID[s * 14 + r]) for s in range(4) for r in (13, 0)]


def positions() -> list[tuple[str, Position]]:
    """Hand-built and mid-deal positions at 3 and 2 players, with and without the
    Modifications rule (a face-down second card) and in a later part."""
    k3 = R.DetenteKnobs(search_worlds=4)
    k2 = R.DetenteKnobs(players=2, search_worlds=4)
    km = R.DetenteKnobs(opt_modifications=True, search_worlds=4)
    out = [
        ("3p built, first contract", Position(k3, built_pile(STRONG, 3, 1))),
        ("3p built, trick 3", Position(k3, built_pile(STRONG, 3, 2)).advance(3 + 3 * 2)),
        ("3p built, trick 6", Position(k3, built_pile(STRONG, 3, 3)).advance(3 + 3 * 5 + 1)),
        ("2p built, second contract", Position(k2, built_pile(STRONG, 2, 4)).advance(1)),
        ("2p mid-deal, trick 5", Position(k2, shuffled_pile(5)).advance(2 + 2 * 4 + 1)),
        ("3p mid-deal, trick 4", Position(k3, shuffled_pile(6)).advance(3 + 3 * 3 + 2)),
        ("3p 2nd half, trick 2", Position(k3, shuffled_pile(7), part=1).advance(3 + 3 + 1)),
        ("2p 2nd third, trick 3", Position(k2, shuffled_pile(8), part=1).advance(2 + 2 * 2)),
        ("3p 2nd half, trick 8", Position(k3, shuffled_pile(9), part=1).advance(3 + 3 * 7)),
    ]
    # Modifications: an Excuse turned leaves the second card face down during the contracts
    for seed in range(200):
        pos = Position(km, shuffled_pile(seed))
        if pos.st0[R.S_SECOND] >= 0:
            out.append(("3p Excuse turned, 2nd contract", pos.advance(1)))
            break
    return out


POSITIONS = positions()


@pytest.mark.parametrize("name,pos", POSITIONS, ids=[p[0] for p in POSITIONS])
def test_decision_ignores_hidden_cards(name, pos):
    seat = int(pos.st[R.S_TURN])
    real, moves, _ = decide(pos, pos.st, pos.cw)
    assert real in moves
    rs = np.random.default_rng(11)
    changed = 0
    for _ in range(5):
        st, cw = pos.redeal(seat, rs)
        assert cards_of(cw, R.W_HAND + 2 * seat) == cards_of(pos.cw, R.W_HAND + 2 * seat)
        assert (st[R.S_TURN], st[R.S_PLY]) == (pos.st[R.S_TURN], pos.st[R.S_PLY])
        changed += any(cards_of(cw, R.W_HAND + 2 * q) != cards_of(pos.cw, R.W_HAND + 2 * q)
                       for q in range(pos.n) if q != seat)
        assert decide(pos, st, cw)[0] == real, name
    assert changed == 5  # the re-deals really moved hidden cards


def test_positions_are_real_choices():
    """The positions above can fail: most offer several moves (and the search does not
    always pick the heuristic's)."""
    choices = [len(pos.legal(pos.st, pos.cw)) for _, pos in POSITIONS]
    assert sum(c > 1 for c in choices) >= len(POSITIONS) - 2
    assert any(pos.st[R.S_PHASE] == R.PH_BID for _, pos in POSITIONS)
    assert any(pos.st[R.S_PHASE] == R.PH_PLAY for _, pos in POSITIONS)
    assert any(pos.hidden_second() for _, pos in POSITIONS)


@pytest.mark.parametrize("name,pos", POSITIONS[1:], ids=[p[0] for p in POSITIONS[1:]])
def test_worlds_respect_the_seats_information(name, pos):
    """Over many sampled worlds: the seat's own cards never move, public cards stay out
    of the hands, every hand keeps its size, cards known to be under the talon stay
    there, and replaying every public move from the world's hands is legal (voids and
    trump obligations shown in play hold)."""
    seat = int(pos.st[R.S_TURN])
    n_hidden_max = R.N_CARDS
    cards = np.zeros(n_hidden_max, dtype=np.int64)
    allowed = np.zeros(n_hidden_max, dtype=np.int64)
    capacity = np.zeros(search.MAX_SLOTS, dtype=np.int64)
    owner = np.zeros(n_hidden_max, dtype=np.int64)
    work = np.zeros(search.work_size(n_hidden_max), dtype=np.int64)
    wst = np.zeros(R.N_S, dtype=np.int64)
    wcw = np.zeros(R.N_W, dtype=np.uint64)
    n_hidden, n_places = P.hidden_places(pos.st, pos.cw, seat, pos.kv, cards, allowed, capacity)
    hidden = {int(c) for c in cards[:n_hidden]}
    own = cards_of(pos.cw, R.W_HAND + 2 * seat)
    assert not hidden & own and not hidden & cards_of(pos.cw, R.W_GONE)
    played = pos.replay(pos.st0.copy(), pos.cw0.copy())
    others = [q for q in range(pos.n) if q != seat]
    state = np.uint64(12345)
    for _ in range(150):
        state, ok = search.sample_owners(np.uint64(state), allowed, capacity, n_hidden, n_places,
                                         owner, work)
        assert ok
        P.build_world(pos.st, pos.cw, seat, pos.kv, cards, owner, n_hidden, wst, wcw)
        assert cards_of(wcw, R.W_HAND + 2 * seat) == own
        assert (wcw[R.W_GONE:] == pos.cw[R.W_GONE:]).all()
        for q in others:
            hq = cards_of(wcw, R.W_HAND + 2 * q)
            assert len(hq) == len(cards_of(pos.cw, R.W_HAND + 2 * q))
            assert hq <= hidden and not hq & cards_of(pos.cw, R.W_TALON)
        # the world's deal, replayed from the part's start, is legal move by move
        st0, cw0 = pos.st0.copy(), pos.cw0.copy()
        for q in others:
            put(cw0, R.W_HAND + 2 * q, cards_of(wcw, R.W_HAND + 2 * q) | played[q])
        if pos.hidden_second():
            st0[R.S_SECOND] = wst[R.S_SECOND]
        assert pos.replay(st0, cw0) is not None
        assert (wst[:R.S_FAULT_SEAT] == pos.st[:R.S_FAULT_SEAT]).all() or pos.hidden_second()


def test_some_positions_have_shown_voids():
    """The worlds test is not vacuous: some positions constrain the sampler."""
    shown = 0
    for _, pos in POSITIONS:
        seat = int(pos.st[R.S_TURN])
        shown += any(pos.st[R.S_VOID + q] != 0 or pos.st[R.S_CEIL + q] < 21
                     for q in range(pos.n) if q != seat)
    assert shown >= 2


def test_search_is_deterministic_across_jobs_and_chunks():
    params = {"search_worlds": 2}
    kw = dict(seed=4, policies="search,heuristic,random", params=params)
    a = simlab.simulate(SLUG, 24, jobs=1, **kw)
    assert a.equals(simlab.simulate(SLUG, 24, jobs=2, chunk_size=5, **kw))
    assert a.equals(simlab.simulate(SLUG, 24, jobs=1, chunk_size=7, **kw))
    kw2 = dict(seed=4, policies="heuristic,search", params=dict(params, players=2))
    b = simlab.simulate(SLUG, 18, jobs=1, **kw2)
    assert (b["bid_sum"] != 13).all()  # the hook binds a searching second speaker too
    assert b.equals(simlab.simulate(SLUG, 18, jobs=2, chunk_size=4, **kw2))
    m = dict(seed=2, policies="search,heuristic,heuristic", level="match",
             params=dict(params, target=60))
    assert simlab.simulate(SLUG, 3, jobs=1, **m).equals(simlab.simulate(SLUG, 3, jobs=2,
                                                                          chunk_size=1, **m))


def test_search_values_are_sane():
    """Sanity of the values: the first speaker with a strong hand bids high (never 0),
    and the search's contract values peak near its choice."""
    pos = POSITIONS[0][1]
    mv, moves, totals = decide(pos, pos.st, pos.cw)
    assert mv >= 5
    assert totals[moves.index(mv)] == max(totals)
    assert totals[moves.index(0)] < max(totals)


def test_interpreter_equals_compiled(tmp_path):
    code = (
        "import sys, numpy as np\n"
        "import simlab\n"
        "for n in (3, 2):\n"
        "    pol = 'search,heuristic,heuristic' if n == 3 else 'heuristic,search'\n"
        "    f = simlab.simulate('tarot_double_detente', 2, seed=3, policies=pol,\n"
        "                        params={'players': n, 'search_worlds': 1})\n"
        "    f.write_parquet(f'{sys.argv[1]}/s{n}.parquet')\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True,
                   check=True)
    import polars as pl
    for n in (3, 2):
        pol = "search,heuristic,heuristic" if n == 3 else "heuristic,search"
        fast = simlab.simulate(SLUG, 2, seed=3, policies=pol,
                               params={"players": n, "search_worlds": 1})
        assert pl.read_parquet(tmp_path / f"s{n}.parquet").equals(fast)


@pytest.mark.parametrize("players,n", [(3, 150), (2, 150)])
def test_search_beats_heuristic_in_duplicate_play(players, n):
    res = duplicate(get_game(SLUG), "search", "heuristic", n=n, seed=21,
                    params={"players": players, "search_worlds": 4})
    assert res.n == n
    assert res.lo > 0, res.format()


@pytest.mark.parametrize("players,undertrump", [(3, True), (3, False), (2, True)])
def test_what_a_seat_infers_is_true(players, undertrump):
    """The voids and trump ceilings read from play never exclude a card the player
    really holds (over many positions of heuristic and random play): the real deal is
    always one of the worlds the seat may sample."""
    k = R.DetenteKnobs(players=players, must_undertrump=undertrump)
    cards = np.zeros(R.N_CARDS, dtype=np.int64)
    allowed = np.zeros(R.N_CARDS, dtype=np.int64)
    capacity = np.zeros(search.MAX_SLOTS, dtype=np.int64)
    rs = np.random.default_rng(3)
    inferred = 0
    for deal in range(40):
        pos = Position(k, shuffled_pile(100 + deal))
        while pos.st[R.S_PHASE] != R.PH_DONE:
            seat = int(pos.st[R.S_TURN])
            n_hidden, _ = P.hidden_places(pos.st, pos.cw, seat, pos.kv, cards, allowed, capacity)
            others = [q for q in range(pos.n) if q != seat]
            for i, q in enumerate(others):
                hand = cards_of(pos.cw, R.W_HAND + 2 * q)
                assert capacity[i] == len(hand)
                for j in range(n_hidden):
                    if int(cards[j]) in hand:
                        assert allowed[j] >> i & 1, (deal, q, int(cards[j]))
                inferred += pos.st[R.S_VOID + q] != 0 or pos.st[R.S_CEIL + q] < 21
            moves = pos.legal(pos.st, pos.cw)
            mv = moves[rs.integers(len(moves))] if rs.random() < 0.5 else \
                int(P.heuristic_move(pos.st, pos.cw, pos.kv, pos.rules, TB))
            R.apply_move(pos.st, pos.cw, mv, pos.kv, pos.rules, TB)
    assert inferred > 100
