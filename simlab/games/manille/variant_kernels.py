"""Batch kernels of the Manille variants: every deal goes through ``play_variant_deal``
(the decisions before the play, then the cards, then the row), deal after deal or match
after match. ``kernels.run_deals`` / ``run_matches`` call ``run_variant_deals`` /
``run_variant_matches`` when ``variant`` is not classic; the classic game never comes here.

Deal-level rows: the dealer is ``deal % 4`` (à deux: ``deal % 2``, only the players deal);
the trois dummy's seat is ``(deal // 4) % 4``, so every (dealer, dummy) pair comes
equally often. Matches: see ``variant_match``."""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.game import HEURISTIC, KernelOutput, policy_codes
from simlab.engine.jit import batch, hot
from simlab.engine.seatknobs import all_seats_use, seat_vectors
from simlab.games.manille.rules import (
    C_ANNULLED,
    C_DEAL,
    C_DEALER,
    C_DEALER_WON,
    C_SCORE,
    C_TEAM_PTS,
    C_TPTS,
    C_TRICKS,
    C_TRUMP,
    C_TURNED,
    C_VOID,
    C_WIN_TEAM,
    HAND,
    K_BELGE_DEALS,
    K_DEUX_TARGET,
    K_MAX_DEALS,
    K_RESHUFFLE,
    K_TARGET,
    K_TIE_DOUBLES,
    K_TWO_IN_A_ROW,
    K_VARIANT,
    M_BY_TWO,
    M_CAPPED,
    M_FINAL,
    M_FIRST,
    M_MATCH,
    M_N_DEALS,
    M_N_VOID,
    M_TWO_DEAL,
    M_TWO_FIRST,
    M_WINNER,
    N_CARDS,
    P_PLAY,
    S_DEALER,
    S_HIST,
    S_PHASE,
    S_TO_MOVE,
    S_TPTS,
    S_TRICKS,
    S_TRUMP,
    S_TURNED,
    V_BELGE,
    V_COINCHEE,
    V_DEUX,
    V_ENCHERES,
    V_FOLLE,
    V_TROIS,
    VARIANTS,
    ManilleKnobs,
    _vector,
    cut_gathered_tricks,
    draw_cut,
    rules_for,
    tables,
)
from simlab.games.manille.variant_players import (
    card_move,
    decision_move,
    playout,
    search_work,
)
from simlab.games.manille.variants import (
    E_ANNOUNCER_WON,
    E_BID,
    E_CHOOSER,
    E_CONTRE,
    E_DUMMY,
    E_MADE,
    E_POINTS,
    E_SA,
    E_TAKER,
    E_TAKER_POINTS,
    N_VDEAL_COLS,
    N_VMATCH_COLS,
    N_VSTATE,
    P_THROWN,
    S_BID,
    S_CHOOSER,
    S_CONTRE,
    S_FORCED_SA,
    S_MULT,
    S_OWNER,
    S_TAKER,
    S_VARIANT,
    X_DUMMY,
    X_FORCED_MARGIN,
    X_LOSER,
    X_SA_FORCED,
    X_TIED,
    apply_card,
    apply_decision,
    deal_marks,
    deal_variant,
    forced_sa_now,
    is_done,
    seat_points,
    side_points,
    variant_deal_columns,
    variant_match_columns,
)


@hot
def write_variant_row(state: np.ndarray, kv: np.ndarray, dummy: int, row: np.ndarray,
                      marks: np.ndarray) -> None:
    """Deal columns from C_ANNULLED on (classic ones as read per variant, then the
    extension columns) for a finished or thrown-in deal."""
    variant = state[S_VARIANT]
    dealer = state[S_DEALER]
    for j in range(C_ANNULLED, N_VDEAL_COLS):
        row[j] = 0
    thrown = state[S_PHASE] == P_THROWN
    row[C_TRUMP] = -1 if thrown else state[S_TRUMP]
    row[C_TURNED] = state[S_TURNED]
    row[E_DUMMY] = dummy if variant == V_TROIS else -1
    row[E_CHOOSER] = state[S_CHOOSER]
    row[E_SA] = not thrown and state[S_TRUMP] < 0
    row[E_CONTRE] = state[S_CONTRE]
    row[E_TAKER] = state[S_TAKER]
    row[E_BID] = state[S_BID]
    if thrown:
        row[C_ANNULLED] = 1
        row[C_WIN_TEAM] = -1
        row[E_MADE] = -1
        row[E_ANNOUNCER_WON] = -1
        return
    for p in range(4):
        row[C_TRICKS + p] = state[S_TRICKS + p]
        row[C_TPTS + p] = state[S_TPTS + p]
        row[E_POINTS + p] = seat_points(state, kv, p)
    win = deal_marks(state, kv, marks)
    for p in range(4):
        row[C_SCORE + p] = marks[p]
    pts0, pts1 = side_points(state, kv)
    row[C_TEAM_PTS] = pts0
    row[C_TEAM_PTS + 1] = pts1
    row[C_WIN_TEAM] = win
    if variant == V_ENCHERES:
        taker = state[S_TAKER]
        row[E_TAKER_POINTS] = seat_points(state, kv, taker)
        row[E_MADE] = win == 0
        row[C_DEALER_WON] = (dealer == taker) == (win == 0)
        row[E_ANNOUNCER_WON] = -1
    elif variant == V_FOLLE:
        row[C_DEALER_WON] = win == dealer
        row[E_MADE] = -1
        row[E_ANNOUNCER_WON] = -1
    else:
        row[C_VOID] = win < 0
        row[C_ANNULLED] = win < 0  # a tie: "le tour est annulé"
        row[C_DEALER_WON] = win == dealer % 2
        row[E_MADE] = -1
        row[E_ANNOUNCER_WON] = -1 if win < 0 else win == dealer % 2


@hot
def play_variant_deal(state: np.ndarray, deck: np.ndarray, dealer: int, dummy: int, mult: int,
                      forced_sa: bool, pol: np.ndarray, seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray,
                      tb: tuple, st: np.uint64, seed: np.uint64, index: int, sub: int,
                      row: np.ndarray, dealt: np.ndarray, world: np.ndarray, work: tuple
                      ) -> np.uint64:
    """One deal: dealt from ``deck``, the decisions, then the cards, each by the policy
    of the seat's player (``pol[owner]``: a dummy is played by its partner); fills
    ``row`` from C_ANNULLED on and ``dealt``. ``st``: the deal's policy stream (the
    random player's); (seed, index, sub) key the search player's streams. ``mult`` and
    ``forced_sa`` carry the belge match's state. Returns the policy stream."""
    heuristic_only = all_seats_use(seat_kv, kv)  # the fast loop reads the run's values
    for p in range(4):
        heuristic_only = heuristic_only and pol[p] == HEURISTIC
    deal_variant(state, deck, dealer, dummy, kv, kv[K_VARIANT], dealt)
    state[S_MULT] = mult
    state[S_FORCED_SA] = forced_sa
    while not is_done(state):
        owner = state[S_OWNER + state[S_TO_MOVE]]
        code = pol[owner]
        if state[S_PHASE] == P_PLAY:
            if heuristic_only:  # the same cards, in one tight loop (measured ~2x faster)
                playout(state, kv, rules, tb)
                continue
            st, c = card_move(state, code, seat_kv[owner], rules, tb, st, seed, index, sub,
                              world, work)
            apply_card(state, c, tb)
        else:
            st, m = decision_move(state, code, seat_kv[owner], rules, tb, st, seed, index,
                                  sub, world, work)
            apply_decision(state, kv, m)
    write_variant_row(state, kv, dummy, row, work[12])
    return st


@hot
def top_of(score: np.ndarray) -> tuple[int, int, int]:
    """(the highest total, how many seats have it, the last of them)."""
    top = score[0]
    for p in range(1, 4):
        top = max(top, score[p])
    n_top = 0
    seat = -1
    for p in range(4):
        if score[p] == top:
            n_top += 1
            seat = p
    return top, n_top, seat


@hot
def deal_dealer(variant: int, d: int) -> int:
    return d % 2 if variant == V_DEUX else d % 4


@batch
def variant_deals_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                         seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple, record: bool
                         ) -> tuple[np.ndarray, np.ndarray]:
    out = np.zeros((N_VDEAL_COLS, count), dtype=np.int64).T
    n_rec = count if record else 1
    dealt = np.full((n_rec, 4, HAND), -1, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    state = np.zeros(N_VSTATE, dtype=np.int64)
    world = np.zeros(N_VSTATE, dtype=np.int64)
    work = search_work()
    variant = kv[K_VARIANT]
    for i in range(count):
        d = start + i
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(rng.stream(seed, d, 0, rng.SHUFFLE), deck, N_CARDS)
        dealer = deal_dealer(variant, d)
        out[i, C_DEAL] = d
        out[i, C_DEALER] = dealer
        play_variant_deal(state, deck, dealer, (d // 4) % 4, 1, False, pol, seat_kv, kv, rules, tb,
                          rng.stream(seed, d, 0, rng.POLICY), seed, d, 0, out[i],
                          dealt[i if record else 0], world, work)
    return out, dealt


@hot
def next_pack(state: np.ndarray, seed: np.uint64, m: int, deal_no: int, reshuffle: bool,
              deck: np.ndarray) -> None:
    """As ``kernels.match_pack``: shuffled, or the last deal's tricks gathered and cut (a
    thrown-in enchères deal was not played: its pack is shuffled)."""
    shuffle_st = rng.stream(seed, m, deal_no, rng.SHUFFLE)
    if deal_no == 1 or reshuffle or state[S_PHASE] == P_THROWN:
        for c in range(N_CARDS):
            deck[c] = c
        rng.shuffle(shuffle_st, deck, N_CARDS)
    else:
        _, cut = draw_cut(shuffle_st)
        cut_gathered_tricks(state[S_HIST:S_HIST + N_CARDS], cut, deck)


@batch
def variant_matches_kernel(seed: np.uint64, start: int, count: int, pol: np.ndarray,
                           seat_kv: np.ndarray, kv: np.ndarray, rules: np.ndarray, tb: tuple) -> np.ndarray:
    """Whole matches. Team variants (coinchee, trois, deux) play to the target as the
    classic game (deux: ``deux_target``, only A and B deal; trois: the dummy's seat is
    drawn by lot for the match, seed: "on tire au sort le joueur qui jouera avec le
    mort"); belge plays ``belge_deals`` deals (a 30-30 tie doubles the next, each team's
    last announcements are forced Sans-Atout while it owes some); enchères and folle are
    individual: the first seat to reach ``target`` wins (enchères; all-pass deals are
    redealt by the next dealer) or loses (folle: the lowest total then wins). Ties on the
    deciding total (belge's equal totals, two enchères seats on top, a shared lowest folle
    total) are played off with further deals, so ``winner`` is -1 only when capped."""
    out = np.zeros((count, N_VMATCH_COLS), dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    row = np.zeros((N_VDEAL_COLS, 1), dtype=np.int64).T[0]
    dealt = np.empty((4, HAND), dtype=np.int64)
    state = np.zeros(N_VSTATE, dtype=np.int64)
    world = np.zeros(N_VSTATE, dtype=np.int64)
    work = search_work()
    score = np.zeros(4, dtype=np.int64)
    sa_done = np.zeros(2, dtype=np.int64)
    announced = np.zeros(2, dtype=np.int64)
    variant = kv[K_VARIANT]
    individual = variant == V_ENCHERES or variant == V_FOLLE
    target = kv[K_DEUX_TARGET] if variant == V_DEUX else kv[K_TARGET]
    n_players = 2 if variant == V_DEUX else 4
    for i in range(count):
        m = start + i
        setup = rng.stream(seed, m, 0, rng.SETUP)
        setup, first = rng.below(setup, n_players)
        setup, dummy = rng.below(setup, 4)
        dealer = first
        for p in range(4):
            score[p] = 0
        sa_done[0] = 0
        sa_done[1] = 0
        announced[0] = 0
        announced[1] = 0
        n_deals = 0
        n_void = 0
        run_team = -1
        run = 0
        winner = -1
        loser = -1
        by_two = False
        two_deal = -1
        mult = 1
        done = False
        for j in range(N_VMATCH_COLS):
            out[i, j] = 0
        # each team announces in its dealer's deals: ceil / floor of belge_deals / 2
        per_team0 = (kv[K_BELGE_DEALS] + 1 - first % 2) // 2
        while n_deals < kv[K_MAX_DEALS] and not done:
            next_pack(state, seed, m, n_deals + 1, kv[K_RESHUFFLE] != 0, deck)
            st = rng.stream(seed, m, n_deals + 1, rng.POLICY)
            forced = False
            team = dealer % 2
            if variant == V_BELGE:
                mine = per_team0 if team == 0 else kv[K_BELGE_DEALS] - per_team0
                left = mine - announced[team]
                forced = left >= 1 and forced_sa_now(left, sa_done[team], kv)
            play_variant_deal(state, deck, dealer, dummy, mult, forced, pol, seat_kv, kv, rules, tb, st,
                              seed, m, n_deals + 1, row, dealt, world, work)
            n_deals += 1
            for p in range(4):
                score[p] += row[C_SCORE + p]
            win_team = row[C_WIN_TEAM]
            if variant == V_BELGE:
                announced[team] += 1
                if row[E_SA] != 0:
                    sa_done[team] += 1
                if forced:
                    out[i, X_SA_FORCED + team] += 1
                    out[i, X_FORCED_MARGIN + team] += row[C_SCORE + team] - row[C_SCORE + 1 - team]
                mult = 2 if (win_team < 0 and kv[K_TIE_DOUBLES] != 0) else 1
            if row[C_ANNULLED] != 0:
                n_void += 1
            if not individual:
                if win_team < 0:
                    run_team = -1
                    run = 0
                elif win_team == run_team:
                    run += 1
                else:
                    run_team = win_team
                    run = 1
            dealer = (dealer + 1) % n_players  # the deal passes to the left
            if variant == V_BELGE:
                # The higher total after belge_deals deals wins; equal totals: tie-break
                # deals (resolution, the seed is silent) until they differ.
                if n_deals == kv[K_BELGE_DEALS]:
                    out[i, X_TIED] = score[0] == score[1]
                if n_deals >= kv[K_BELGE_DEALS] and score[0] != score[1]:
                    winner = 0 if score[0] > score[1] else 1
                    done = True
                continue
            top, n_top, top_seat = top_of(score)
            if variant == V_FOLLE:
                # folle scores are minus the points taken: the first seat at -target loses
                # (the lowest then if several), the lowest total wins; a shared lowest total
                # plays on until one seat is alone (resolution)
                if loser < 0 and -min(score[0], score[1], score[2], score[3]) >= target:
                    loser = 0
                    for p in range(4):
                        if score[p] < score[loser]:
                            loser = p
                if loser >= 0 and n_top == 1:
                    winner = top_seat
                    done = True
                continue
            reached = top >= target
            if not individual and run >= 2 and two_deal < 0 and not reached:
                two_deal = n_deals
            if reached and (n_top == 1 or not individual):
                # partners mark the same, so one team is on top; enchères seats tied on top
                # play on (resolution)
                winner = top_seat % 2 if not individual else top_seat
                done = True
            elif not individual and kv[K_TWO_IN_A_ROW] != 0 and run >= 2:
                winner = run_team
                by_two = True
                done = True
        out[i, M_MATCH] = m
        out[i, M_FIRST] = first
        out[i, M_WINNER] = winner
        out[i, M_N_DEALS] = n_deals
        for p in range(4):
            # folle: the points taken (positive); the others: what the seat marked
            out[i, M_FINAL + p] = -score[p] if variant == V_FOLLE else score[p]
        out[i, M_N_VOID] = n_void
        out[i, M_BY_TWO] = by_two
        out[i, M_TWO_FIRST] = two_deal > 0
        out[i, M_TWO_DEAL] = two_deal
        out[i, M_CAPPED] = not done
        out[i, X_LOSER] = loser
        out[i, X_DUMMY] = dummy
    return out


# --- entry points (called by kernels.run_deals / run_matches) --------------------------------
def _setup(knobs: ManilleKnobs, policies: tuple[str, ...]):
    return (policy_codes(policies), seat_vectors(knobs, policies, _vector), _vector(knobs),
            rules_for(knobs), tables(knobs).kernel_args())


def run_variant_deals(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                      count: int, record_hands: bool = False) -> KernelOutput:
    pol, seat_kv, kv, rules, tb = _setup(knobs, policies)
    rows, dealt = variant_deals_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, rules, tb,
                                       record_hands)
    _, index = variant_deal_columns(knobs.variant)
    rows = rows[:, index]
    if not record_hands:
        return KernelOutput(rows)
    return KernelOutput(rows, dealt=dealt, hands=dealt)


def run_variant_matches(knobs: ManilleKnobs, policies: tuple[str, ...], seed: int, start: int,
                        count: int) -> KernelOutput:
    pol, seat_kv, kv, rules, tb = _setup(knobs, policies)
    rows = variant_matches_kernel(np.uint64(seed), start, count, pol, seat_kv, kv, rules, tb)
    _, index = variant_match_columns(knobs.variant)
    return KernelOutput(rows[:, index])


assert VARIANTS[V_BELGE] == "belge" and VARIANTS[V_COINCHEE] == "coinchee"
