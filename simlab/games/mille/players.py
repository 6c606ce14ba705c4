"""Mille players: the heuristic policy (bids, bomb, give-away, card play and marriages),
the random policy, what a seat sees, the worlds consistent with it, and the search player
(``--policy search``).

Every policy chooses among ``rules.legal_moves`` and the kernels apply the choice with
``rules.apply_move``: the real deal, the heuristic run and the search's playouts follow one
code path.

The search player (determinized Monte Carlo, ``simlab/mechanics/search.py``) samples
``search_worlds`` deals of the cards hidden from its seat, consistent with what the seat
has seen (``seat_information``: its hand; the chien once turned face up; the cards it gave
away or received; the cards played with the voids they reveal — a failure to follow, a
failure to trump; the second card of every declared marriage, which stays in the
declarer's hand), plays each candidate move out with heuristic players for every seat,
and keeps the move with the best summed value for its own seat (the defenders score
individually): the change of its match score once the barrel and the zero bars apply,
plus the target for winning the match (minus it when another seat wins); in single deals
that is its deal mark. In the auction it weighs passing, the ``search_raises`` lowest
legal bids, the heuristic's bid and the lowest bid that would win the match if made (with
only the lowest bids, it could never jump from the barrel to the target, and won 23 % of
600 matches against two heuristic players; with these, 70 %). It does not infer anything
from the bids (e.g. a bid above 120 shows a marriage).
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.games.mille.rules import (
    ALL_CARDS,
    BID,
    BOMB,
    CHIEN_SIZE,
    DECLARE,
    K_BARREL,
    K_BID_JUMP,
    K_BID_MARGIN,
    K_BOMB_MARGIN,
    K_JUMP_FROM,
    K_MAR,
    K_NO_MAR_CAP,
    K_OVER_CAP,
    K_RAISES,
    K_ROLLOUTS,
    K_STEP,
    K_TARGET,
    K_WORLDS,
    MAX_MOVES,
    N_CARDS,
    N_STATE,
    NO_BOMB,
    NP,
    P_BID,
    P_BOMB,
    P_DONE,
    P_GIVE,
    PASS,
    POINTS,
    R10,
    RA,
    S_BARREL_RUN,
    S_BARS,
    S_BID,
    S_BIDDER,
    S_CHIEN,
    S_GIVEN,
    S_GONE,
    S_HAND,
    S_HIST,
    S_MAR_SEAT,
    S_N_GIVEN,
    S_N_TABLE,
    S_ON_TABLE,
    S_PHASE,
    S_PLY,
    S_SCORE,
    S_TAKER,
    S_TO_MOVE,
    S_TRICK,
    S_TRICK_TRUMP,
    S_TRUMP,
    S_WIN,
    apply_move,
    bid_amount,
    bid_cap,
    deal_marks,
    hand_of,
    king,
    legal_cards_now,
    legal_moves,
    marriage_suits,
    may_declare,
    queen,
    score_deal,
    zero_bars,
)
from simlab.mechanics import search
from simlab.mechanics.trickinfo import sample_places
from simlab.mechanics.tricks import EMPTY, ONE, bit, count, has, lowest, update_trick, winners

CHIEN_GUESS = 10  # what the 3 unseen chien cards add to a taker's points, on average


# --- the heuristic player ---------------------------------------------------------------------
@hot
def hand_value(hand: np.uint64, kv: np.ndarray, tb: tuple, chien_guess: int) -> int:
    """Points the hand should make as taker (tricks + marriages), a rough count: an ace
    takes its own 11 and about 9 more; a 10 beside its ace as much; a lone 10 with two
    guards half of its points; every marriage its value (half of it without an ace to win
    the trick a declaration needs) and about half its 7 card points; plus ``chien_guess``
    for the chien still to come."""
    suit_mask = tb[1]
    v = chien_guess
    mar = marriage_suits(hand)
    aces = 0
    for s in range(4):
        aces += has(hand, s * 6 + RA)
    for s in range(4):
        m = hand & suit_mask[s]
        n = count(m)
        ace = has(m, s * 6 + RA)
        ten = has(m, s * 6 + R10)
        if ace:
            v += 20
        if ten:
            v += 18 if ace else (8 if n >= 3 else 2)
        if mar >> s & 1:
            # declaring needs a trick won first: an ace makes that likely
            v += (kv[K_MAR + s] if aces else kv[K_MAR + s] // 2) + 4
        else:
            v += 2 * has(m, king(s)) + has(m, queen(s))
        v += 3 * max(0, n - 3)  # long suits: late winners once the others are void
    return v


@hot
def keep_value(c: int, hand: np.uint64, unseen: np.uint64, trump: int, tb: tuple) -> int:
    """How much a seat wants to keep card ``c`` (lower: thrown or given first): points and
    rank, much more for half of a marriage still whole in hand, for a master 10 or ace,
    and for a trump; a little more in long suits (throwing from short ones makes voids)."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    s = suit_of[c]
    v = 4 * POINTS[c] + strength[0][c]
    if (c == queen(s) or c == king(s)) and marriage_suits(hand) >> s & 1:
        v += 200
    if POINTS[c] >= 10 and above[0][c] & unseen == EMPTY:
        v += 60
    if s == trump:
        v += 40
    return 10 * v + count(hand & suit_mask[s])


@hot
def cheapest(mask: np.uint64, hand: np.uint64, unseen: np.uint64, trump: int, tb: tuple) -> int:
    """The card of ``mask`` with the lowest ``keep_value``."""
    best = -1
    best_v = 1 << 40
    m = mask
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        v = keep_value(c, hand, unseen, trump, tb)
        if v < best_v:
            best_v = v
            best = c
    return best


@hot
def level_at_least(amount: int, kv: np.ndarray) -> int:
    """The bid move of the lowest legal amount >= ``amount``."""
    k = max(0, (amount - bid_amount(BID, kv) + kv[K_STEP] - 1) // kv[K_STEP])
    return BID + k


@hot
def heuristic_bid(state: np.ndarray, kv: np.ndarray, tb: tuple) -> int:
    """Bid up to the hand's value less ``bid_margin`` (and ``over_cap_margin`` more above
    ``no_marriage_cap``; within the hand's cap): one step at a time by default, but that
    amount at once when it reaches ``jump_from`` (above the cap: a contract scores its
    amount) or with ``bid_jump`` at any level; a forced opener whose hand is worth less
    bids the minimum. Near the target it
    jumps to the amount that wins the match when the hand is worth it, and a player on the
    barrel does not raise to an amount that cannot take him off it (seed 9.1: making it
    would leave him at the barrel, failing would drop him)."""
    p = state[S_TO_MOVE]
    hand = hand_of(state, p)
    limit = min(hand_value(hand, kv, tb, CHIEN_GUESS) - kv[K_BID_MARGIN], bid_cap(hand, kv))
    if limit > kv[K_NO_MAR_CAP]:  # above the cap the estimate leans on a marriage
        limit = max(kv[K_NO_MAR_CAP], limit - kv[K_OVER_CAP])
    score = state[S_SCORE + p]
    need = kv[K_TARGET] - score  # a made contract of this amount wins the match
    on_barrel = score >= kv[K_BARREL] and kv[K_BARREL] < kv[K_TARGET]
    if state[S_BIDDER] < 0:
        lowest = BID
    else:
        lowest = level_at_least(state[S_BID] + 1, kv)
    amount = bid_amount(lowest, kv)
    if amount < need and score + amount >= kv[K_BARREL] and kv[K_BARREL] < kv[K_TARGET]:
        jump = level_at_least(need, kv)
        if bid_amount(jump, kv) <= limit:
            return jump
        if on_barrel and state[S_BIDDER] >= 0:
            return PASS
    if (kv[K_BID_JUMP] or limit >= kv[K_JUMP_FROM]) and amount <= limit:
        # the contract is what the taker scores: bid the hand's worth at once
        return max(lowest, level_at_least(limit - kv[K_STEP] + 1, kv))
    if state[S_BIDDER] < 0 or amount <= limit:
        return lowest
    return PASS


@hot
def give_choice(hand: np.uint64, tb: tuple) -> int:
    """The card the taker gives away: a 10 that its ace would catch (no ace with it, at
    most one guard), else his cheapest card to keep (no marriage half, no master 10 or
    ace, short suits first)."""
    suit_mask = tb[1]
    unseen = ALL_CARDS & ~hand
    for s in range(4):  # a 10 without its ace and with at most one guard falls to the ace
        ten = s * 6 + R10
        if has(hand, ten) and not has(hand, s * 6 + RA) and count(hand & suit_mask[s]) <= 2:
            return ten
    return cheapest(hand, hand, unseen, -1, tb)


@hot
def heuristic_bomb(state: np.ndarray, kv: np.ndarray, tb: tuple) -> int:
    """Bomb when the 8 cards kept after giving the two cheapest away are valued at least
    ``bomb_margin`` below the bid (catalogue's simulation notes)."""
    hand = hand_of(state, state[S_TAKER])
    c1 = give_choice(hand, tb)
    hand &= ~bit(c1)
    hand &= ~bit(give_choice(hand, tb))
    if hand_value(hand, kv, tb, 0) <= state[S_BID] - kv[K_BOMB_MARGIN]:
        return BOMB
    return NO_BOMB


@hot
def heuristic_lead(state: np.ndarray, hand: np.uint64, unseen: np.uint64, kv: np.ndarray,
                   tb: tuple) -> int:
    """Declare the richest marriage when allowed (leading its Queen: the King stays to win
    a trick later); else cash the richest master card (draw trumps with a master trump
    first); else lead the card cheapest to keep."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    if may_declare(state):
        mar = marriage_suits(hand)
        best = -1
        for s in range(4):
            if mar >> s & 1 and (best < 0 or kv[K_MAR + s] > kv[K_MAR + best]):
                best = s
        if best >= 0:
            return DECLARE + queen(best)
    trump = state[S_TRUMP]
    ab = above[trump + 1]
    if trump >= 0 and hand & suit_mask[trump] != EMPTY and unseen & suit_mask[trump] != EMPTY:
        m = hand & suit_mask[trump]
        while m != EMPTY:
            c = lowest(m)
            m &= m - ONE
            if ab[c] & unseen == EMPTY and points[0][c] >= 10:
                return c
    mar = marriage_suits(hand)
    best = -1
    m = hand
    while m != EMPTY:
        c = lowest(m)
        m &= m - ONE
        s = suit_of[c]
        if mar >> s & 1 and (c == queen(s) or c == king(s)):
            continue
        safe = trump < 0 or s == trump or unseen & suit_mask[trump] == EMPTY
        if ab[c] & unseen == EMPTY and safe and unseen & suit_mask[s] != EMPTY:
            if best < 0 or POINTS[c] > POINTS[best]:
                best = c
    if best >= 0 and POINTS[best] >= 10:
        return best
    return cheapest(hand, hand, unseen, trump, tb)


@hot
def heuristic_follow(state: np.ndarray, hand: np.uint64, legal: np.uint64, unseen: np.uint64,
                     tb: tuple) -> int:
    """Everyone plays for himself. Last to play: win with the cheapest winner (not half of
    a marriage on a poor trick). Second: win only with a card nothing unseen beats, when
    the trick is worth it. Otherwise throw the card cheapest to keep."""
    suit_of, suit_mask, excuse_mask, strength, points, above, cheap, rich, win_rank = tb
    trump = state[S_TRUMP]
    ab = above[trump + 1]
    win_mask = winners(legal, state[S_WIN], trump, suit_of, suit_mask, EMPTY, ab)
    if win_mask != EMPTY:
        if state[S_N_TABLE] == NP - 1:
            c = cheapest(win_mask, hand, unseen, trump, tb)
            s = suit_of[c]
            broken = (c == queen(s) or c == king(s)) and marriage_suits(hand) >> s & 1
            if not broken or state[S_ON_TABLE] >= 10:
                return c
        else:
            sure = EMPTY
            m = win_mask
            while m != EMPTY:
                c = lowest(m)
                m &= m - ONE
                s = suit_of[c]
                beaten_by_trump = trump >= 0 and s != trump and unseen & suit_mask[trump] != EMPTY
                if ab[c] & unseen == EMPTY and not beaten_by_trump:
                    sure |= bit(c)
            if sure != EMPTY:
                c = cheapest(sure, hand, unseen, trump, tb)
                if state[S_ON_TABLE] + POINTS[c] >= 5:
                    return c
    return cheapest(legal, hand, unseen, trump, tb)


@hot
def heuristic_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> int:
    """The heuristic player's move for the seat to move."""
    phase = state[S_PHASE]
    if phase == P_BID:
        return heuristic_bid(state, kv, tb)
    if phase == P_BOMB:
        return heuristic_bomb(state, kv, tb)
    if phase == P_GIVE:
        return give_choice(hand_of(state, state[S_TAKER]), tb)
    p = state[S_TO_MOVE]
    hand = hand_of(state, p)
    unseen = ALL_CARDS & ~np.uint64(state[S_GONE]) & ~hand
    if state[S_N_TABLE] == 0:
        return heuristic_lead(state, hand, unseen, kv, tb)
    return heuristic_follow(state, hand, legal_cards_now(state, rules, tb), unseen, tb)


@hot
def random_move(st: np.uint64, state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                moves: np.ndarray) -> tuple[np.uint64, int]:
    """Uniform over the legal moves."""
    n = legal_moves(state, kv, rules, tb, moves)
    st, k = rng.below(st, n)
    return st, moves[k]


@hot
def playout(sim: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> None:
    """Heuristic players for every seat until the deal is over."""
    while sim[S_PHASE] != P_DONE:
        apply_move(sim, heuristic_move(sim, kv, rules, tb), kv, tb)


# --- what a seat sees, and worlds consistent with it -------------------------------------------
@hot
def seat_information(state: np.ndarray, seat: int, tb: tuple, excluded: np.ndarray,
                     played_by: np.ndarray) -> np.uint64:
    """The cards hidden from ``seat`` (a mask), and ``excluded[q]``: cards seat q certainly
    does not hold; ``played_by[q]``: the cards q played. Reads only the seat's own hand and
    what it has seen:

    * during the auction the chien is hidden (a place of its own);
    * once turned up, the chien is public: its cards are in the taker's hand, except the
      ones he gave away (the taker knows where each went; a defender knows the card he
      received, and that the other defender got one card, maybe from the chien —
      ``sample_world`` keeps at most one chien card there);
    * a play that does not follow the led suit shows a void in it; one that does not
      trump either (trump set) shows no trump (seed 7: void -> must trump). Hands only
      shrink during play, so these last to the end;
    * a declared marriage's other card stays in the declarer's hand until played."""
    suit_of, suit_mask = tb[0], tb[1]
    for q in range(NP):
        excluded[q] = EMPTY
        played_by[q] = EMPTY
    mine = hand_of(state, seat)
    gone = np.uint64(state[S_GONE])
    if state[S_PHASE] == P_BID:
        return ALL_CARDS & ~mine
    taker = state[S_TAKER]
    chien = np.uint64(state[S_CHIEN])
    hidden = ALL_CARDS & ~mine & ~gone
    if seat == taker:
        for j in range(state[S_N_GIVEN]):
            q = (taker + 1 + j) % NP
            for r in range(NP):
                if r != q:
                    excluded[r] |= bit(state[S_GIVEN + j])
    else:
        for r in range(NP):  # the chien cards are with the taker or the other defender
            if r != taker and r != seat:
                if state[S_N_GIVEN] < 2:
                    excluded[r] |= chien
    # the play: voids and missing trumps
    n_plays = state[S_TRICK] * NP + state[S_N_TABLE]
    leader = taker
    led = -1
    win = -1
    win_seat = -1
    for i in range(n_plays):
        k = i % NP
        t = i // NP
        trump = state[S_TRICK_TRUMP + t]
        ab = tb[5][trump + 1]
        if k == 0:
            led = -1
            win = -1
            win_seat = -1
        p = (leader + k) % NP
        c = state[S_HIST + i]
        played_by[p] |= bit(c)
        if k > 0 and suit_of[c] != led:
            excluded[p] |= suit_mask[led]
            if trump >= 0 and suit_of[c] != trump:
                excluded[p] |= suit_mask[trump]
        led, win, win_seat = update_trick(c, p, led, win, win_seat, trump, suit_of, ab)
        if k == NP - 1:
            leader = win_seat
    # declared marriages: the card not yet played is still in the declarer's hand
    for s in range(4):
        d = state[S_MAR_SEAT + s]
        if d >= 0:
            for c in (queen(s), king(s)):
                if not has(gone, c):
                    for r in range(NP):
                        if r != d:
                            excluded[r] |= bit(c)
    return hidden


@hot
def sample_world(state: np.ndarray, seat: int, hidden: np.uint64, st: np.uint64,
                 world: np.ndarray, work: tuple) -> np.uint64:
    """``world`` = ``state`` with the cards hidden from ``seat`` dealt again at random,
    consistently with ``seat_information`` (already run into ``work[7]``, ``work[8]``):
    each hidden place gets the number of cards it holds, never an excluded one; a
    defender's world gives the other defender at most one chien card (the one card the
    taker gave him, if it came from the chien: a draw breaking this is drawn again)."""
    moves, totals, sim, cards, allowed, owner, capacity, excluded, played_by, slot_excl, \
        slot_cards, sample_work, _marks, _sheet, _zero = work
    for i in range(N_STATE):
        world[i] = state[i]
    auction = state[S_PHASE] == P_BID
    n_slots = NP - 1
    for j in range(NP - 1):
        q = (seat + 1 + j) % NP
        slot_excl[j] = excluded[q]
        capacity[j] = count(hand_of(state, q))  # hand sizes are public
    if auction:
        slot_excl[NP - 1] = EMPTY
        capacity[NP - 1] = CHIEN_SIZE
        n_slots = NP
    taker = state[S_TAKER]
    chien = np.uint64(state[S_CHIEN])
    other = -1  # the other defender, when the seat is a defender in play
    if not auction and seat != taker and state[S_N_GIVEN] == 2:
        other = 1 if (seat + 1) % NP == taker else 0  # its slot
    for _ in range(100):
        st, ok = sample_places(st, hidden, n_slots, slot_excl, capacity, cards, allowed,
                               owner, sample_work, slot_cards)
        if not ok:  # unreachable with sound exclusions; drop them rather than fail
            for j in range(n_slots):
                slot_excl[j] = EMPTY
            continue
        if other < 0:
            break
        q = (seat + 1 + other) % NP
        if count((slot_cards[other] | played_by[q]) & chien) <= 1:
            break
    for j in range(NP - 1):
        world[S_HAND + (seat + 1 + j) % NP] = np.int64(slot_cards[j])
    if auction:
        world[S_CHIEN] = np.int64(slot_cards[NP - 1])
    return st


# --- the search player --------------------------------------------------------------------
SEARCH_SLOTS = NP  # two hands and, during the auction, the chien
SAMPLE_WORK = search.work_size(N_CARDS, SEARCH_SLOTS)


@batch
def search_work() -> tuple:
    """Preallocated work arrays of ``search_move`` (one set per batch kernel)."""
    return (np.zeros(MAX_MOVES, dtype=np.int64), np.zeros(MAX_MOVES, dtype=np.int64),
            np.zeros(N_STATE, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(N_CARDS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(search.MAX_SLOTS, dtype=np.int64), np.zeros(NP, dtype=np.uint64),
            np.zeros(NP, dtype=np.uint64), np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(search.MAX_SLOTS, dtype=np.uint64),
            np.zeros(SAMPLE_WORK, dtype=np.int64), np.zeros(NP, dtype=np.int64),
            np.zeros((3, NP), dtype=np.int64), np.zeros(NP, dtype=np.int64))


@hot
def build_world(state: np.ndarray, seat: int, st: np.uint64, tb: tuple, world: np.ndarray,
                work: tuple) -> np.uint64:
    """One world for ``seat``: ``seat_information`` then ``sample_world``."""
    hidden = seat_information(state, seat, tb, work[7], work[8])
    return sample_world(state, seat, hidden, st, world, work)


@hot
def candidate_moves(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                    out: np.ndarray) -> int:
    """The moves the search weighs: every legal move, except in the auction, where it
    keeps passing, the ``search_raises`` lowest bids, the heuristic's bid and the lowest
    bid that wins the match if made (in the game's move order)."""
    n = legal_moves(state, kv, rules, tb, out)
    if state[S_PHASE] != P_BID:
        return n
    # besides the lowest bids: the heuristic's bid and the lowest one that would win the
    # match if made (from the barrel, only a bid reaching the target counts)
    extra = heuristic_bid(state, kv, tb)
    winning = level_at_least(kv[K_TARGET] - state[S_SCORE + state[S_TO_MOVE]], kv)
    keep = 0
    bids = 0
    for i in range(n):
        m = out[i]
        if m == PASS or bids < kv[K_RAISES] or m == extra or m == winning:
            out[keep] = m
            keep += 1
            bids += m != PASS
    return keep


@hot
def seat_value(sim: np.ndarray, seat: int, kv: np.ndarray, marks: np.ndarray,
               sheet: np.ndarray, zero: np.ndarray) -> int:
    """What a finished deal is worth to ``seat`` on the match sheet: the change of its
    score once the barrel and the zero bars apply (``rules.score_deal``: a defender on the
    barrel gains nothing, a made 100 leaves the barrel player where he was), plus
    ``target`` when the deal wins it the match, minus ``target`` when it wins another seat
    the match. In single deals (a blank sheet) this is the seat's deal mark."""
    deal_marks(sim, kv, marks)
    zero_bars(sim, zero)
    for p in range(NP):
        sheet[0, p] = sim[S_SCORE + p]
        sheet[1, p] = sim[S_BARS + p]
        sheet[2, p] = sim[S_BARREL_RUN + p]
    score_deal(sheet[0], sheet[1], sheet[2], marks, sim[S_TAKER], zero, kv)
    v = sheet[0, seat] - sim[S_SCORE + seat]
    for p in range(NP):
        if sheet[0, p] >= kv[K_TARGET]:
            v += kv[K_TARGET] if p == seat else -kv[K_TARGET]
    return v


@hot
def search_values(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                  seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """Fill ``work[0]`` with the candidate moves and ``work[1]`` with each one's summed
    ``seat_value`` for the seat to move over the worlds and playouts; returns the number of
    moves."""
    moves, totals, sim, marks, sheet, zero = work[0], work[1], work[2], work[12], work[13], work[14]
    seat = state[S_TO_MOVE]
    n = candidate_moves(state, kv, rules, tb, moves)
    for m in range(n):
        totals[m] = 0
    if n <= 1:
        return n
    st = search.decision_stream(seed, index, sub, seat, state[S_PLY])
    hidden = seat_information(state, seat, tb, work[7], work[8])
    for _ in range(kv[K_WORLDS]):
        st = sample_world(state, seat, hidden, st, world, work)
        for m in range(n):
            for _r in range(kv[K_ROLLOUTS]):  # heuristic playouts are deterministic
                for i in range(N_STATE):
                    sim[i] = world[i]
                apply_move(sim, moves[m], kv, tb)
                playout(sim, kv, rules, tb)
                totals[m] += seat_value(sim, seat, kv, marks, sheet, zero)
    return n


@hot
def search_move(state: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple,
                seed: np.uint64, index: int, sub: int, world: np.ndarray, work: tuple) -> int:
    """The search player's move for the seat to move (see the module docstring)."""
    n = search_values(state, kv, rules, tb, seed, index, sub, world, work)
    return work[0][search.best_move(work[1], n)]
