"""Mechanics: what card games share, written once for the games' numba kernels.

Tricks and what a seat learns from them (``tricks``, ``trickinfo``), shedding games
(``shedding``), melds (``melds``), poker hands (``poker``), and the pieces of the
determinized search player that run inside a game's kernel (``search``: sampling the
hidden cards consistently with what a seat knows, the decision's random stream, the best
move). A rule that differs between games is a parameter here or a small function in the
game, not a copy.

May import: the engine and other mechanics modules only.
"""
