"""Adrénaline players. Every choice reads only what its seat sees: both hands, the
discards, the talon's top card (and the set of cards in the talon, known from the rest;
its order too with ``talon_fully_visible``), its own objective — never the opponent's.

* ``random``: a uniform objective, a uniform discard among its six cards, and before each
  of the opponent's draws a stop with probability 1/42, naming a uniform objective.
* ``heuristic`` (knobs ``bluff_rate`` b, ``stop_threshold`` τ, ``go_at``,
  ``announce_at``; a seat may have its own, ``heuristic:bluff_rate=0.5``):
  - objective: uniformly among the plausible entries of the list: at least two cards
    short from its dealt hand (one short, its first draw could force a finish at
    30 − 41 < 0) and with a completion estimate at least half the best's
    (``rules.completion_estimate``: each talon card reaches me with probability 1/2);
  - discard: the card whose loss keeps its objective most likely, except that while more
    than go_at + 2 cards are left it keeps at least two cards short (a finish is
    compulsory: finishing early scores little or less than nothing); with probability b
    the same for a decoy objective drawn at the deal, ties by its own; ties at random;
  - stop: before each of the opponent's draws, with a cheap belief on his objective,
    weight 3^progress of his five cards for each entry (entries his hand already
    satisfies excluded: he would have announced), when the largest share exceeds τ,
    naming that entry;
  - with ``finish_optional``, holds a completed objective until the talon is down to
    ``announce_at`` cards.
* ``bayes``: plays its own objective as the heuristic does with b = 0 (never bluffs), and
  keeps a posterior over the opponent's objective. Its model of the opponent (the
  likelihood), stated: with probability 1 − ε he wrote one of the plausible entries of his
  dealt hand (as the heuristic, uniformly), else any entry uniformly; at each of his
  turns, with probability 1 − ε he discards one of the cards the heuristic's rule (with
  the bayes seat's own go_at) ranks best for his objective (uniformly among them), else
  any of his six cards uniformly (ε = ``bayes_noise``, 0.2: bluffs and other players);
  and he announces at once a completed objective (the book's rule: an entry his six cards
  satisfied is ruled out). Before each of the opponent's draws it stops when guessing now
  is worth more than continuing, in score difference (its score minus his): guessing the
  most likely entry (posterior p) is worth (20 + t)(2p − 1); continuing is worth, one turn
  ahead (the top card he will draw is seen): −q (30 − (t − 1)) for the posterior mass q of
  entries the top card completes for him, plus, if he does not finish, f (30 − (t − 2))
  for the chance f that my next draw completes mine, and otherwise (20 + t − 2)
  E[max(0, 2p' − 1)], the value of guessing at the next chance with the posterior p'
  after his discard (expected under the same model; 0 when guessing then is worse than
  not). Being stopped by him and later turns are left out of that estimate.
"""

from __future__ import annotations

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import hot
from simlab.engine.knobs import SimlabError
from simlab.engine.seatknobs import policy_name
from simlab.games.adrenaline.rules import (
    HAND,
    KV_ANNOUNCE,
    KV_BLUFF,
    KV_FINISH,
    KV_GO,
    KV_NOBJ,
    KV_NOISE,
    KV_OPTIONAL,
    KV_STOP,
    KV_TAU,
    KV_VISIBLE,
    MAX_OBJ,
    N_CARDS,
    P_SCALE,
    completing_discard,
    completion_estimate,
    lowest,
    popcount,
    progress,
)

RANDOM, HEURISTIC, BAYES = range(3)
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "bayes": BAYES}
RANDOM_STOP = 42  # the random player stops with probability 1/42 before each draw
_INV53 = 1.0 / 9007199254740992.0
ONE = np.int64(1)


def policy_codes(policies: tuple[str, ...]) -> np.ndarray:
    if len(policies) != 2:
        raise SimlabError(f"adrenaline needs 2 policies, got {len(policies)}")
    try:
        return np.array([POLICY_CODES[policy_name(s)] for s in policies], dtype=np.int64)
    except KeyError as e:
        raise SimlabError(f"unknown policy {e.args[0]!r} for adrenaline; valid policies: "
                          f"{', '.join(POLICY_CODES)}") from None


@hot
def uniform(state: np.uint64) -> tuple[np.uint64, np.float64]:
    state, x = rng.next_u64(state)
    return state, np.float64(x >> np.uint64(11)) * _INV53


@hot
def plausible_objectives(hand: np.int64, talon: np.int64, n_obj: np.int64, est: np.ndarray
                         ) -> np.int64:
    """Marks in ``est`` (1.0, else 0.0) the entries a heuristic may write from its dealt
    ``hand``: at least two cards short (one short or satisfied, its first draw could force
    a finish worth 30 − 41 < 0), with a completion estimate at least half the best's;
    returns how many."""
    top = 0.0
    for o in range(n_obj):
        if progress(o, hand, hand | talon) >= HAND - 1:
            est[o] = -1.0
        else:
            est[o] = completion_estimate(o, hand, talon)
            top = max(top, est[o])
    n = 0
    for o in range(n_obj):
        if est[o] >= 0.5 * top and est[o] >= 0.0:
            est[o] = 1.0
            n += 1
        else:
            est[o] = 0.0
    if n == 0:
        for o in range(n_obj):
            est[o] = 1.0
        n = n_obj
    return n


@hot
def choose_objective(code: np.int64, state: np.uint64, hand: np.int64, talon: np.int64,
                     kv: np.ndarray, est: np.ndarray) -> tuple[np.uint64, np.int64]:
    n_obj = kv[KV_NOBJ]
    if code == RANDOM:
        return rng.below(state, n_obj)
    n = plausible_objectives(hand, talon, n_obj, est)
    state, j = rng.below(state, n)
    for o in range(n_obj):
        if est[o] == 1.0:
            if j == 0:
                return state, o
            j -= 1
    return state, 0


@hot
def discard_values(o: np.int64, six: np.int64, talon: np.int64, go_at: np.int64,
                   vals: np.ndarray) -> None:
    """``vals[i]``: how good discarding the i-th card of ``six`` (cards in increasing id)
    is for objective ``o``: the completion estimate of the five kept, less 2 when they
    are one card short or better while the talon (``talon``) holds more than go_at + 2
    cards (the next draw could force a finish worth 30 − t, too early)."""
    m = six
    i = 0
    early = popcount(talon) > go_at + 2
    while m != 0:
        c = lowest(m)
        m &= m - 1
        kept = six & ~(ONE << c)
        vals[i] = completion_estimate(o, kept, talon)
        if early and progress(o, kept, kept | talon) >= HAND - 1:
            vals[i] -= 2.0
        i += 1


@hot
def nth_card(m: np.int64, i: np.int64) -> np.int64:
    while i > 0:
        m &= m - 1
        i -= 1
    return lowest(m)


@hot
def choose_discard(code: np.int64, state: np.uint64, obj: np.int64, decoy: np.int64,
                   six: np.int64, talon: np.int64, kv: np.ndarray, vals: np.ndarray,
                   vals2: np.ndarray) -> tuple[np.uint64, np.int64, bool]:
    """(state, card to discard, a bluff)."""
    k = popcount(six)
    if code == RANDOM:
        state, i = rng.below(state, k)
        return state, nth_card(six, i), False
    bluff = False
    if code == HEURISTIC and kv[KV_BLUFF] > 0:
        state, u = uniform(state)
        bluff = u * P_SCALE < kv[KV_BLUFF]
    discard_values(obj, six, talon, kv[KV_GO], vals)
    if bluff:
        discard_values(decoy, six, talon, kv[KV_GO], vals2)
        for i in range(k):  # the decoy first, then its own objective
            vals2[i] = vals2[i] * 4.0 + vals[i]
    else:
        for i in range(k):
            vals2[i] = vals[i]
    top = vals2[0]
    for i in range(k):
        top = max(top, vals2[i])
    n = 0
    for i in range(k):
        if vals2[i] == top:
            n += 1
    state, j = rng.below(state, n)
    for i in range(k):
        if vals2[i] == top:
            if j == 0:
                return state, nth_card(six, i), bluff
            j -= 1
    return state, nth_card(six, 0), bluff


@hot
def announces(code: np.int64, kv: np.ndarray, t: np.int64) -> bool:
    """Holding a completed objective after a draw: announce now? (always, unless
    ``finish_optional``)."""
    if kv[KV_OPTIONAL] == 0:
        return True
    if code == HEURISTIC:
        return t <= kv[KV_ANNOUNCE]
    return True


# --- the Bayesian belief ------------------------------------------------------------
@hot
def prior(post: np.ndarray, hand: np.int64, talon: np.int64, kv: np.ndarray,
          seat_kv: np.ndarray, est: np.ndarray) -> None:
    """Belief on the objective of the player dealt ``hand``, before any move."""
    n_obj = kv[KV_NOBJ]
    eps = seat_kv[KV_NOISE] / P_SCALE
    n = plausible_objectives(hand, talon, n_obj, est)
    for o in range(MAX_OBJ):
        post[o] = 0.0
    for o in range(n_obj):
        post[o] = eps / n_obj + ((1.0 - eps) / n if est[o] == 1.0 else 0.0)


@hot
def likelihoods(six: np.int64, talon: np.int64, kv: np.ndarray, seat_kv: np.ndarray,
                lik: np.ndarray, vals: np.ndarray) -> None:
    """``lik[o, i]``: the model's probability that a player of objective ``o`` holding
    ``six`` discards its i-th card; a row of zeros: he would have announced ``o``."""
    n_obj = kv[KV_NOBJ]
    eps = seat_kv[KV_NOISE] / P_SCALE
    k = popcount(six)
    for o in range(n_obj):
        if kv[KV_OPTIONAL] == 0 and completing_discard(o, six) >= 0:
            for i in range(k):
                lik[o, i] = 0.0
            continue
        discard_values(o, six, talon, seat_kv[KV_GO], vals)
        top = vals[0]
        for i in range(k):
            top = max(top, vals[i])
        n = 0
        for i in range(k):
            if vals[i] == top:
                n += 1
        for i in range(k):
            lik[o, i] = eps / k + ((1.0 - eps) / n if vals[i] == top else 0.0)


@hot
def update(post: np.ndarray, six: np.int64, talon: np.int64, discard: np.int64,
           kv: np.ndarray, seat_kv: np.ndarray, lik: np.ndarray, vals: np.ndarray) -> None:
    """Bayes' rule after the opponent, holding ``six``, discarded ``discard``."""
    n_obj = kv[KV_NOBJ]
    likelihoods(six, talon, kv, seat_kv, lik, vals)
    i = popcount(six & ((ONE << discard) - 1))
    total = 0.0
    for o in range(n_obj):
        post[o] *= lik[o, i]
        total += post[o]
    if total <= 0.0:  # the model ruled everything out: start again from uniform
        for o in range(n_obj):
            post[o] = 1.0 / n_obj
    else:
        for o in range(n_obj):
            post[o] /= total


@hot
def arg_max(post: np.ndarray, n_obj: np.int64) -> np.int64:
    b = 0
    for o in range(n_obj):
        if post[o] > post[b]:
            b = o
    return b


@hot
def cheap_belief(opp: np.int64, talon: np.int64, n_obj: np.int64, optional: np.int64,
                 post: np.ndarray) -> None:
    """The heuristic's belief: weight 3^progress of his hand per entry, entries his hand
    satisfies (he would have announced) or that cannot be completed excluded."""
    total = 0.0
    for o in range(n_obj):
        p = progress(o, opp, opp | talon)
        if p < 0 or (p == HAND and optional == 0):
            post[o] = 0.0
        else:
            post[o] = 3.0 ** p
        total += post[o]
    for o in range(n_obj):
        post[o] = post[o] / total if total > 0.0 else 1.0 / n_obj


@hot
def stop_decision(code: np.int64, state: np.uint64, mine: np.int64, my_obj: np.int64,
                  opp: np.int64, order: np.ndarray, pos: np.int64, kv: np.ndarray,
                  seat_kv: np.ndarray, post: np.ndarray, work: np.ndarray,
                  lik: np.ndarray, vals: np.ndarray) -> tuple[np.uint64, np.int64, np.float64]:
    """Before the opponent draws ``order[pos]``: (state, the entry named when stopping or
    -1, the confidence in it)."""
    n_obj = kv[KV_NOBJ]
    t = N_CARDS - pos
    if code == RANDOM:
        state, j = rng.below(state, RANDOM_STOP)
        if j != 0:
            return state, -1, 0.0
        state, g = rng.below(state, n_obj)
        return state, g, 1.0 / n_obj
    talon = np.int64(0)
    for i in range(pos, N_CARDS):
        talon |= ONE << order[i]
    if code == HEURISTIC:
        cheap_belief(opp, talon, n_obj, kv[KV_OPTIONAL], work)
        g = arg_max(work, n_obj)
        if work[g] * P_SCALE > seat_kv[KV_TAU]:
            return state, g, work[g]
        return state, -1, 0.0
    # BAYES: guess now against one turn ahead
    g = arg_max(post, n_obj)
    p = post[g]
    fin = kv[KV_FINISH]
    stake = kv[KV_STOP]
    guess_now = (stake + t) * (2.0 * p - 1.0)
    top = order[pos]
    six = opp | (ONE << top)
    after = talon & ~(ONE << top)
    q = 0.0
    for o in range(n_obj):
        work[o] = post[o]
        if post[o] > 0.0 and completing_discard(o, six) >= 0:
            q += post[o]
            work[o] = 0.0
    if kv[KV_OPTIONAL] != 0:
        q = 0.0  # he may hold it: no sure finish
        for o in range(n_obj):
            work[o] = post[o]
    cont = -q * (fin - (t - 1))
    if t - 1 >= 1 and q < 1.0:
        # my own next draw: order[pos + 1]
        f = 0.0
        need = HAND - progress(my_obj, mine, mine | after)
        if need == 1:
            if kv[KV_VISIBLE] != 0:
                f = 1.0 if completing_discard(my_obj, mine | (ONE << order[pos + 1])) >= 0 \
                    else 0.0
            else:
                hits = 0
                for i in range(pos + 1, N_CARDS):
                    if completing_discard(my_obj, mine | (ONE << order[i])) >= 0:
                        hits += 1
                f = hits / (t - 1)
        # his discard under the model, the posterior after it
        likelihoods(six, after, kv, seat_kv, lik, vals)
        k = popcount(six)
        later = 0.0
        mass = 0.0
        for i in range(k):
            pc = 0.0
            best = 0.0
            for o in range(n_obj):
                w = work[o] * lik[o, i]
                pc += w
                best = max(best, w)
            mass += pc
            if pc > 0.0:
                later += pc * max(0.0, 2.0 * best / pc - 1.0)
        if mass > 0.0:
            later /= mass
        cont += (1.0 - q) * (f * (fin - (t - 2)) + (1.0 - f) * (stake + t - 2) * later)
    if guess_now > cont:
        return state, g, p
    return state, -1, 0.0
