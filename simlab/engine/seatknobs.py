"""Per-seat policy knobs: one seat (or side) plays the heuristic with other values.

A policy spec names a player and, optionally, values of the game's *policy* knobs (knobs
declared with ``policy=True``: how the heuristic or the search plays, never a rule) for
that seat only, separated by colons::

    heuristic                                   # the run's knob values
    heuristic:take_threshold_1=5                # this seat takes from strength 5
    search:search_worlds=64:search_rollouts=2   # a deeper search at this seat

``simlab tune`` and duplicate play (``simlab duel --x/--y``) use it to pit values against
each other on the same deals. Rules are never per seat: a spec naming a rule knob is an
error. A game supports it when its kernels take one knob vector per seat (``seat_kv``:
row ``s`` is seat ``s``'s vector, the rules read the run's vector) and its ``Game`` sets
``seat_policy_knobs``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields

import numpy as np

from simlab.engine.jit import hot
from simlab.engine.knobs import Knobs, SimlabError

SEP = ":"


def split_policy(spec: str) -> tuple[str, dict[str, str]]:
    """``"heuristic:k=v:k2=v2"`` -> ``("heuristic", {"k": "v", "k2": "v2"})``."""
    name, *items = spec.split(SEP)
    values: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise SimlabError(f"policy {spec!r}: expected NAME or NAME:knob=value[:knob=value...], "
                              f"got {item!r} after a colon")
        values[key.strip()] = value.strip()
    return name.strip(), values


def policy_name(spec: str) -> str:
    """The player's name in a policy spec (``"heuristic:k=v"`` -> ``"heuristic"``)."""
    return spec.split(SEP, 1)[0].strip()


def policy_knob_names(knobs_type: type[Knobs]) -> list[str]:
    """The knobs a seat's spec may set: policy knobs that are not run-wide settings."""
    return [f.name for f in fields(knobs_type)
            if f.metadata.get("policy") and f.metadata.get("per_seat", True)]


def check_overrides(spec: str, knobs_type: type[Knobs], game: str) -> None:
    """Every knob a spec sets is one of the game's policy knobs (a rule never differs
    between seats)."""
    _, values = split_policy(spec)
    allowed = policy_knob_names(knobs_type)
    for key in values:
        if key not in allowed:
            kind = "a rule, the same for every seat" if key in knobs_type.names() else "unknown"
            raise SimlabError(f"policy {spec!r}: knob {key!r} is {kind}; policy knobs of "
                              f"{game}: {', '.join(allowed) or 'none'}")


def seat_knobs(knobs: Knobs, policies: Sequence[str]) -> tuple[Knobs, ...]:
    """Each seat's knobs: the run's, with its spec's policy values (validated)."""
    out = []
    for spec in policies:
        _, values = split_policy(spec)
        if not values:
            out.append(knobs)
            continue
        check_overrides(spec, type(knobs), "this game")
        merged = {f.name: getattr(knobs, f.name) for f in fields(knobs)}
        merged.update(values)
        out.append(type(knobs).from_mapping(merged))
    return tuple(out)


def seat_vectors(knobs: Knobs, policies: Sequence[str],
                 vector: Callable[[Knobs], np.ndarray]) -> np.ndarray:
    """``vector`` of each seat's knobs stacked, one row per seat (the kernels' ``seat_kv``)."""
    return np.ascontiguousarray(np.stack([vector(k) for k in seat_knobs(knobs, policies)]))


@hot
def all_seats_use(seat_kv: np.ndarray, kv: np.ndarray) -> bool:
    """Every seat plays with the run's values ``kv`` (a kernel's all-heuristic fast path,
    which reads ``kv``, may then run)."""
    for s in range(seat_kv.shape[0]):
        for k in range(seat_kv.shape[1]):
            if seat_kv[s, k] != kv[k]:
                return False
    return True
