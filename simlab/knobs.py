"""Variant knobs as data.

Each game declares a frozen dataclass of knobs whose defaults are the seed's rule (as the
catalogue resolves it). ``knob(...)`` attaches the meaning and the allowed values;
construction validates every field, so an instance is always a playable variant.
Values come from Python, from ``--set key=value`` and from TOML variant files.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


class SimlabError(ValueError):
    """A user error: the message is one line naming the problem and the valid choices."""


# Why a default may differ from the rulebook's printed text (the README's rule for
# defaults): only where the book contradicts itself, is silent, or cannot be played.
SEED_CASES = {
    "contradicts": "the book contradicts itself",
    "silent": "the book is silent",
    "unplayable": "the book's text cannot be played as printed",
}


def knob(default: Any, help: str, *, choices: tuple | None = None, lo: float | None = None,
         hi: float | None = None, seed_value: Any = None, seed_case: str | None = None,
         seed_why: str = "", policy: bool = False, per_seat: bool = True) -> Any:
    """A knob field. ``seed_value`` records the seed's literal rule (the value that
    reproduces the printed text); where the default differs from it, ``seed_case`` (a key
    of ``SEED_CASES``) says why and ``seed_why`` says it in a sentence: a default departs
    from a clear, playable text in no other case. ``policy`` marks knobs of the heuristic
    policy, not the game; ``per_seat=False`` marks a policy knob that is one setting of the
    run (what it records, say), which a seat's policy spec cannot set
    (``simlab.seatknobs``)."""
    # every departure's reason is checked by tests/test_seed_defaults.py
    meta = {"help": help, "choices": choices, "lo": lo, "hi": hi, "seed_value": seed_value,
            "seed_case": seed_case, "seed_why": seed_why, "policy": policy,
            "per_seat": per_seat}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Knobs:
    """Base class for a game's knobs. Subclasses only declare fields."""

    def __post_init__(self) -> None:
        for f in fields(self):
            _check(self, f, getattr(self, f.name))
        self.check()

    def check(self) -> None:
        """Cross-field checks (override)."""

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_mapping(cls, values: dict[str, Any], game: str = "") -> Knobs:
        unknown = [k for k in values if k not in cls.names()]
        if unknown:
            where = f" for {game}" if game else ""
            raise SimlabError(f"unknown knob {unknown[0]!r}{where}; valid knobs: "
                              f"{', '.join(cls.names())}")
        typed = {k: _coerce(cls, _field(cls, k), v) for k, v in values.items()}
        return cls(**typed)

    def changed(self) -> dict[str, Any]:
        """Knobs that differ from the defaults."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != f.default}

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        rows = []
        for f in fields(cls):
            m = f.metadata
            if m["choices"] is not None:
                allowed = " | ".join(str(c) for c in m["choices"])
            elif f.type in ("bool", bool):
                allowed = "true | false"
            elif m["lo"] is not None or m["hi"] is not None:
                lo = "" if m["lo"] is None else m["lo"]
                hi = "" if m["hi"] is None else m["hi"]
                allowed = f"{_typename(f)} in [{lo}, {hi}]"
            else:
                allowed = _typename(f)
            rows.append({"name": f.name, "default": f.default, "allowed": allowed,
                         "help": m["help"], "seed_value": m["seed_value"],
                         "seed_case": m["seed_case"], "seed_why": m["seed_why"],
                         "policy": m["policy"]})
        return rows

    @classmethod
    def departures(cls) -> list[dict[str, Any]]:
        """The knobs whose default is not the rulebook's printed text, each with its
        reason (``SEED_CASES``): what every answer with the defaults relies on."""
        return [d for d in cls.describe()
                if d["seed_value"] is not None and d["seed_value"] != d["default"]]


def _field(cls: type, name: str) -> dataclasses.Field:
    return next(f for f in fields(cls) if f.name == name)


def _typename(f: dataclasses.Field) -> str:
    return f.type if isinstance(f.type, str) else f.type.__name__


def _coerce(cls: type, f: dataclasses.Field, v: Any) -> Any:
    """Convert a CLI string to the field's type; leave typed values for ``_check``."""
    if not isinstance(v, str):
        return v
    t = _typename(f)
    text = v.strip()
    try:
        if t == "bool":
            low = text.lower()
            if low in ("true", "1", "yes", "on"):
                return True
            if low in ("false", "0", "no", "off"):
                return False
            raise ValueError
        if t == "int":
            return int(text)
        if t == "float":
            return float(text)
    except ValueError:
        raise SimlabError(f"knob {f.name!r} expects {t}, got {v!r}; "
                          f"allowed: {_allowed(f)}") from None
    return text


def _allowed(f: dataclasses.Field) -> str:
    m = f.metadata
    if m["choices"] is not None:
        return ", ".join(str(c) for c in m["choices"])
    t = _typename(f)
    if t == "bool":
        return "true, false"
    lo = m["lo"]
    hi = m["hi"]
    if lo is not None and hi is not None:
        return f"{t} from {lo} to {hi}"
    if lo is not None:
        return f"{t} >= {lo}"
    if hi is not None:
        return f"{t} <= {hi}"
    return t


def _check(obj: Any, f: dataclasses.Field, v: Any) -> None:
    t = _typename(f)
    ok_type = {"bool": isinstance(v, bool),
               "int": isinstance(v, int) and not isinstance(v, bool),
               "float": isinstance(v, (int, float)) and not isinstance(v, bool),
               "str": isinstance(v, str)}.get(t, True)
    if not ok_type:
        raise SimlabError(f"knob {f.name!r} expects {t}, got {v!r}; allowed: {_allowed(f)}")
    m = f.metadata
    if m["choices"] is not None and v not in m["choices"]:
        raise SimlabError(f"knob {f.name!r} has no value {v!r}; allowed: {_allowed(f)}")
    if (m["lo"] is not None and v < m["lo"]) or (m["hi"] is not None and v > m["hi"]):
        raise SimlabError(f"knob {f.name!r}={v!r} is out of range; allowed: {_allowed(f)}")


def parse_assignments(items: list[str] | None) -> dict[str, str]:
    """``["key=value", ...]`` (``--set``) -> dict; also accepts space-separated pairs."""
    out: dict[str, str] = {}
    for item in items or []:
        for part in item.split():
            if "=" not in part:
                raise SimlabError(f"--set expects key=value, got {part!r}")
            k, v = part.split("=", 1)
            if not k:
                raise SimlabError(f"--set expects key=value, got {part!r}")
            out[k.strip()] = v
    return out


def load_variant(path: str | Path, game: str | None = None) -> dict[str, Any]:
    """Read a TOML variant file: knob = value pairs, optionally ``game = "..."``."""
    p = Path(path)
    if p.exists() and not p.is_file():
        raise SimlabError(f"variant file {str(p)!r} is not a regular file (a directory?); "
                          "give a TOML file of knob = value lines")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimlabError(f"variant file {str(p)!r} not found") from None
    except OSError as e:
        raise SimlabError(f"variant file {str(p)!r} cannot be read: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SimlabError(f"variant file {str(p)!r} is not valid TOML: {e}") from None
    file_game = data.pop("game", None)
    if file_game is not None and game is not None and file_game != game:
        raise SimlabError(f"variant file {str(p)!r} is for game {file_game!r}, not {game!r}")
    for k, v in data.items():
        if isinstance(v, dict):
            raise SimlabError(f"variant file {str(p)!r}: table [{k}] not allowed; "
                              "write knob = value pairs at top level")
    if not data and file_game is None:
        raise SimlabError(f"variant file {str(p)!r} holds no knob = value line")
    if game is not None:
        _refuse_quoted_values(p, game, data)
    return data


def _refuse_quoted_values(path: Path, game: str, data: dict[str, Any]) -> None:
    """TOML values are typed: a string there stays a string, so ``revolution = "true"``
    is refused for a bool (``--set`` strings, by contrast, are converted)."""
    from simlab.games import get_game  # the registry imports this module

    try:
        cls = get_game(game).knobs
    except SimlabError:
        return  # the unknown game is reported by the caller
    by_name = {f.name: f for f in fields(cls)}
    for k, v in data.items():
        f = by_name.get(k)
        if f is not None and isinstance(v, str) and _typename(f) != "str":
            raise SimlabError(f"variant file {str(path)!r}: knob {k!r} expects {_typename(f)}, got "
                              f"the string {v!r} (write it without quotes); allowed: {_allowed(f)}")
