"""Real-time play as a discrete-event simulation, written once for every game without
turns (Speed, Kilo de merde; Kem's and Crapette can use it the same way).

The player model. Each seat has four reaction parameters, the game's *per-seat policy
knobs* (``heuristic:rt_median=0.6``, ``simlab.engine.seatknobs``), stored at the start of
the game's knob vector (``RT_MEDIAN_MS`` .. ``RT_ERROR_PPM``, integers so that the vector
stays int64 like every game's):

* ``rt_median`` (ms) and ``rt_sigma`` (thousandths): a reaction delay is lognormal,
  ``median * exp(sigma * Z)`` with ``Z`` standard normal;
* ``rt_scan`` (ms): added once per option the seat has to look at (Hick's law, linear);
* ``error_rate`` (millionths): the chance that an action is a mistake; what a mistake
  is belongs to the game (Speed: an illegal card taken back; Kilo de merde: a false slap).

The clock. ``clock[s]`` holds the simulated time (seconds, float64) at which seat ``s``
acts next, ``NEVER`` when it has nothing to do. After every visible change the game
calls ``schedule`` for each seat whose planned action the change invalidated (and for
the seat that just acted): its next action comes one reaction delay after *now*. A seat
whose plan still stands keeps its time: it is already reaching. ``earliest`` picks the
next action; two seats due at the very same time (possible only with ``rt_sigma = 0``)
are ordered by a fair draw from the game's stream, never by seat number, so equal
players stay symmetric. The game re-checks the action's legality when it executes: a
card aimed at a pile that changed meanwhile is refused and counted (``EV_REFUSED``).

When no seat has anything to do (``earliest`` returns -1) the game is stalled: the game
applies its stall rule and counts it (``EV_STALLS``); a game that hits one of its caps
records it (``EV_CAPS``). Nothing is silent: every counter goes to the rows, and so does
the simulated time.

Everything here is a module-level ``@hot`` function that games call by name (a jitted
function passed as an argument recompiles in every process, ``simlab.engine.jit``).

May import: the engine and other mechanics modules only.
"""

from __future__ import annotations

import math

import numpy as np

from simlab.engine import rng
from simlab.engine.jit import batch, hot
from simlab.engine.knobs import SimlabError

# Reaction parameters at the start of a game's knob vector (one row per seat).
RT_MEDIAN_MS, RT_SIGMA_MILLI, RT_SCAN_MS, RT_ERROR_PPM, RT_BLOCK = range(5)
NEVER = 1.0e18
# Event counters (a game's int64 array ``ev``).
EV_ACTIONS, EV_REFUSED, EV_TIES, EV_STALLS, EV_CAPS, EV_ERRORS, EV_SIZE = range(7)

_INV53 = 1.0 / 9007199254740992.0
MAX_MEDIAN_S = 60.0
MAX_SIGMA = 3.0
MAX_SCAN_S = 10.0


def reaction_block(median_s: float, sigma: float, scan_s: float, error_rate: float
                   ) -> list[int]:
    """The four integers a game puts at the start of its knob vector."""
    check_reaction(median_s, sigma, scan_s, error_rate)
    return [round(median_s * 1000), round(sigma * 1000), round(scan_s * 1000),
            round(error_rate * 1_000_000)]


def check_reaction(median_s: float, sigma: float, scan_s: float, error_rate: float) -> None:
    """One line naming the first bad value and the valid range (the knobs' own bounds
    normally refuse them first; this guards games that build the block by hand)."""
    if not 0.001 <= median_s <= MAX_MEDIAN_S:
        raise SimlabError(f"rt_median {median_s!r}: a float from 0.001 to {MAX_MEDIAN_S} s")
    if not 0.0 <= sigma <= MAX_SIGMA:
        raise SimlabError(f"rt_sigma {sigma!r}: a float from 0.0 to {MAX_SIGMA}")
    if not 0.0 <= scan_s <= MAX_SCAN_S:
        raise SimlabError(f"rt_scan {scan_s!r}: a float from 0.0 to {MAX_SCAN_S} s")
    if not 0.0 <= error_rate <= 1.0:
        raise SimlabError(f"error_rate {error_rate!r}: a float from 0.0 to 1.0")


def median_delay(block_row: np.ndarray) -> float:
    """A seat's median reaction delay in seconds (for reports)."""
    return float(block_row[RT_MEDIAN_MS]) / 1000.0


# --- random draws ---------------------------------------------------------------------
@hot
def uniform(state: np.uint64) -> tuple[np.uint64, np.float64]:
    """Uniform in (0, 1): never 0, so its logarithm is finite."""
    state, x = rng.next_u64(state)
    return state, (np.float64(x >> np.uint64(11)) + 0.5) * _INV53


@hot
def normal(state: np.uint64) -> tuple[np.uint64, np.float64]:
    """Standard normal (Box-Muller, one of the pair)."""
    state, u1 = uniform(state)
    state, u2 = uniform(state)
    return state, math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@hot
def reaction_delay(state: np.uint64, row: np.ndarray, n_options: np.int64
                   ) -> tuple[np.uint64, np.float64]:
    """Seconds from a visible change to the seat's action: lognormal around its median,
    plus its scan cost for each option it looks at."""
    median = row[RT_MEDIAN_MS] / 1000.0
    sigma = row[RT_SIGMA_MILLI] / 1000.0
    d = median
    if sigma > 0.0:
        state, z = normal(state)
        d = median * math.exp(sigma * z)
    return state, d + n_options * (row[RT_SCAN_MS] / 1000.0)


@hot
def errs(state: np.uint64, row: np.ndarray) -> tuple[np.uint64, bool]:
    """Is this action a mistake (the seat's error rate)?"""
    p = row[RT_ERROR_PPM]
    if p <= 0:
        return state, False
    state, k = rng.below(state, 1_000_000)
    return state, k < p


# --- the clock ------------------------------------------------------------------------
@hot
def clear(clock: np.ndarray, n: np.int64) -> None:
    for s in range(n):
        clock[s] = NEVER


@hot
def schedule(state: np.uint64, clock: np.ndarray, seat: np.int64, now: np.float64,
             row: np.ndarray, n_options: np.int64) -> np.uint64:
    """Seat ``seat`` acts one reaction delay after ``now`` (scanning ``n_options``); with
    nothing to do (``n_options == 0``) it waits (``NEVER``)."""
    if n_options <= 0:
        clock[seat] = NEVER
        return state
    state, d = reaction_delay(state, row, n_options)
    clock[seat] = now + d
    return state


@hot
def schedule_after(state: np.uint64, clock: np.ndarray, seat: np.int64, now: np.float64,
                   row: np.ndarray, n_options: np.int64) -> np.uint64:
    """As ``schedule``, for an action the seat takes whatever it sees (a slap): always
    scheduled, ``n_options`` only adds scan time."""
    state, d = reaction_delay(state, row, n_options)
    clock[seat] = now + d
    return state


@hot
def earliest(state: np.uint64, clock: np.ndarray, n: np.int64, ev: np.ndarray
             ) -> tuple[np.uint64, np.int64]:
    """The seat that acts next (-1: nobody has anything to do, a stall). Seats due at the
    same instant are ordered by a fair draw (counted in ``EV_TIES``)."""
    best = NEVER
    for s in range(n):
        if clock[s] < best:
            best = clock[s]
    if best >= NEVER:
        return state, np.int64(-1)
    tied = 0
    for s in range(n):
        if clock[s] == best:
            tied += 1
    pick = 0
    if tied > 1:
        ev[EV_TIES] += 1
        state, pick = rng.below(state, tied)
    for s in range(n):
        if clock[s] == best:
            if pick == 0:
                return state, np.int64(s)
            pick -= 1
    return state, np.int64(-1)  # not reached


@hot
def latest(clock: np.ndarray, n: np.int64, skip: np.int64) -> np.int64:
    """The seat due last among those scheduled, ``skip`` excepted (a slap race's loser;
    ties by the lower seat after ``skip``, which with continuous delays never happens)."""
    worst = -1.0
    who = -1
    for k in range(1, n + 1):
        s = (skip + k) % n
        if s == skip or clock[s] >= NEVER:
            continue
        if clock[s] > worst:
            worst = clock[s]
            who = s
    return np.int64(who)


# --- samples (tests, reports): a stream's draws in one compiled loop ------------------
@batch
def sample_delays(seed: np.uint64, row: np.ndarray, n_options: np.int64, count: np.int64
                  ) -> np.ndarray:
    """``count`` reaction delays of a seat with knob row ``row``."""
    state = rng.stream(seed, 0, 0, rng.POLICY)
    out = np.empty(count, dtype=np.float64)
    for i in range(count):
        state, out[i] = reaction_delay(state, row, n_options)
    return out


@batch
def sample_errors(seed: np.uint64, row: np.ndarray, count: np.int64) -> np.int64:
    """How many of ``count`` actions are mistakes."""
    state = rng.stream(seed, 0, 0, rng.POLICY)
    k = 0
    for _ in range(count):
        state, e = errs(state, row)
        k += e
    return k


@batch
def sample_earliest(seed: np.uint64, clock: np.ndarray, count: np.int64
                    ) -> tuple[np.ndarray, np.ndarray]:
    """How often each seat acts first on the same clock, ``count`` times (ties drawn),
    and the event counters."""
    state = rng.stream(seed, 0, 0, rng.POLICY)
    n = clock.shape[0]
    wins = np.zeros(n + 1, dtype=np.int64)  # the last cell: stalls
    ev = np.zeros(EV_SIZE, dtype=np.int64)
    for _ in range(count):
        state, s = earliest(state, clock, n, ev)
        wins[s if s >= 0 else n] += 1
    return wins, ev
