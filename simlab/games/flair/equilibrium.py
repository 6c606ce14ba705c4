"""Le flair's adaptive player: a mixed strategy over a small grid of fixed-rate
heuristics (lie rate ℓ, "faux" below θ_f, "vrai" above θ_v), an approximate equilibrium
of the 2-player game between them, found by regret matching on their payoff matrix
measured by seat-swapped self-play; ``solve`` regenerates the stored table (``python -m
simlab.games.flair.equilibrium``), ``exploitability`` measures the best fixed-rate
response's gain against it.

May import: the engine and this game's rules."""

from __future__ import annotations

import numpy as np

from simlab.games.flair.mixture import GRID, MIX_PROFILES, MIX_WEIGHTS  # noqa: F401


def _seat_kv(profiles: list[tuple[float, float, float]]) -> np.ndarray:
    from simlab.games.flair.rules import FlairKnobs, knob_vector

    rows = [knob_vector(FlairKnobs(players=2, lie_rate=a, faux_below=b, vrai_above=c))
            for a, b, c in profiles]
    return np.ascontiguousarray(np.stack(rows))


def win_rate(x: tuple[float, float, float], y: tuple[float, float, float] | None, n: int,
             seed: int) -> tuple[float, float]:
    """Seat-swapped: the share of 2-player deals profile ``x`` wins against ``y`` (None:
    the adaptive player), over n deals in each seating, and its standard error."""
    from simlab.games.flair.kernels import deals_kernel, n_deal_cols
    from simlab.games.flair.players import ADAPTIVE, HEURISTIC
    from simlab.games.flair.rules import FlairKnobs, knob_vector

    kv = knob_vector(FlairKnobs(players=2))
    other = y if y is not None else (0.3, 0.25, 0.85)
    code_y = HEURISTIC if y is not None else ADAPTIVE
    wins = []
    for xs in (0, 1):
        profs = [x, other] if xs == 0 else [other, x]
        pol = np.array([HEURISTIC, code_y] if xs == 0 else [code_y, HEURISTIC], dtype=np.int64)
        rows, _, _ = deals_kernel(np.uint64(seed), 0, n, pol, _seat_kv(profs), kv,
                                  MIX_PROFILES, MIX_WEIGHTS, n_deal_cols(2), False)
        w = rows[:, 4]  # winner
        wins.append(np.where(w == xs, 1.0, np.where(w < 0, 0.5, 0.0)))
    both = (wins[0] + wins[1]) / 2
    return float(both.mean()), float(both.std(ddof=1) / np.sqrt(n))


def payoff_matrix(n: int = 300, seed: int = 7) -> np.ndarray:
    """M[i, j]: profile i's seat-swapped win rate against profile j (2 players)."""
    k = len(GRID)
    m = np.full((k, k), 0.5)
    for i in range(k):
        for j in range(i + 1, k):
            w, _ = win_rate(GRID[i], GRID[j], n, seed + i * k + j)
            m[i, j] = w
            m[j, i] = 1.0 - w
    return m


def regret_matching(m: np.ndarray, iterations: int = 20_000) -> np.ndarray:
    """An approximate equilibrium of the symmetric zero-sum game ``m − 1/2`` by regret
    matching (both players; the average strategies, symmetrised)."""
    a = m - 0.5
    k = a.shape[0]
    rx = np.zeros(k)
    ry = np.zeros(k)
    sx = np.zeros(k)
    sy = np.zeros(k)
    for _ in range(iterations):
        x = np.maximum(rx, 0)
        x = x / x.sum() if x.sum() > 0 else np.full(k, 1.0 / k)
        y = np.maximum(ry, 0)
        y = y / y.sum() if y.sum() > 0 else np.full(k, 1.0 / k)
        ux = a @ y
        uy = -(x @ a)
        rx += ux - x @ ux
        ry += uy - y @ uy
        sx += x
        sy += y
    mix = (sx / sx.sum() + sy / sy.sum()) / 2
    return mix


def solve(n: int = 300, seed: int = 7, floor: float = 0.02) -> list[tuple]:
    """Regenerate ``STORED``: the payoff matrix between the grid's profiles, regret
    matching, weights below ``floor`` dropped; returns the rows and prints the matrix
    game's exploitability of the mixture (a best grid profile's gain in it)."""
    m = payoff_matrix(n, seed)
    mix = regret_matching(m)
    mix[mix < floor] = 0.0
    mix /= mix.sum()
    gain = float((m @ mix).max() - 0.5)
    print(f"matrix exploitability: {gain:.4f} (best profile "
          f"{GRID[int((m @ mix).argmax())]})")
    return [(*GRID[i], round(float(mix[i]), 4)) for i in range(len(GRID)) if mix[i] > 0]


def exploitability(n: int = 2000, seed: int = 99) -> tuple[float, tuple, float]:
    """The best fixed-rate response of the grid against the stored adaptive player,
    measured afresh: (its gain in win rate over 1/2, the profile, the gain's standard
    error)."""
    best = (-1.0, GRID[0], 0.0)
    for i, g in enumerate(GRID):
        w, se = win_rate(g, None, n, seed + i)
        if w - 0.5 > best[0]:
            best = (w - 0.5, g, se)
    return best




def main() -> None:
    """Print a new ``STORED`` table (paste it above), then, with the table in force,
    the fresh-games exploitability."""
    rows = solve()
    print("STORED = (")
    for r in rows:
        print(f"    {r},")
    print(")")
    print("exploitability of the table in force (fresh games):", exploitability())


