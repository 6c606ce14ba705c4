"""Variant knobs as data.

Each game declares a frozen dataclass of knobs whose defaults are the seed's rule (as the
catalogue resolves it). ``knob(...)`` attaches the meaning and the allowed values;
construction validates every field, so an instance is always a playable variant.
Values come from Python, from ``--set key=value`` and from TOML variant files.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any


class SimlabError(ValueError):
    """A user error: the message is one line naming the problem and the valid choices."""


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to a mistyped ``word``,
    or ``""`` when none is close."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- inputs bounded before they are used ----------------------------------------------
MAX_TOML_BYTES = 1 << 20  # a variant or experiment file is a few hundred bytes
MAX_TOML_DEPTH = 16  # nested arrays / inline tables; the formats need 2
MAX_NAME_BYTES = 255  # one file or folder name (NAME_MAX)
MAX_PATH_BYTES = 4096  # a whole path (PATH_MAX)


def check_path(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a ``Path`` if the file system can take it: valid UTF-8 (a manifest and
    the Parquet metadata record it as text), no name over 255 bytes, at most 4,096 bytes
    in all; else one line naming the limit."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise SimlabError(f"{what} '{shown}' is not valid UTF-8; give a path in UTF-8 "
                          "characters") from None
    if not text.strip():
        raise SimlabError(f"{what} is empty; give a path")
    if "\0" in text:
        raise SimlabError(f"{what} {text[:60]!r} contains a NUL character; give a plain path")
    if len(raw) > MAX_PATH_BYTES:
        raise SimlabError(f"{what} is {len(raw):,} bytes long; a path may have at most "
                          f"{MAX_PATH_BYTES:,} bytes")
    for part in Path(text).parts:
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise SimlabError(f"{what}: the name {part[:40]!r}... is {len(part.encode('utf-8')):,} "
                              f"bytes long; a file or folder name may have at most "
                              f"{MAX_NAME_BYTES} bytes")
    return Path(text)


def _toml_depth(text: str) -> int:
    """The deepest nesting of arrays and inline tables in TOML ``text`` (brackets inside
    strings and comments not counted; a ``[table]`` header counts 1): cheap, and read
    before the parser, whose recursion a deep value would exhaust."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            triple = text.startswith(c * 3, i)
            end = c * 3 if triple else c
            j = i + len(end)
            while j < n and not text.startswith(end, j):
                if c == '"' and text[j] == "\\":
                    j += 1
                elif not triple and text[j] == "\n":
                    break
                j += 1
            i = j + len(end)
            continue
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest


def read_toml(path: str | os.PathLike, what: str) -> tuple[dict[str, Any], str]:
    """(data, text) of a TOML file, refused in one line naming the file (and the line, for
    a syntax error) when it is missing, not a file, too large, nested too deeply, not
    UTF-8 or not TOML."""
    p = check_path(path, what)
    where = f"{what} {str(p)!r}"
    if p.exists() and not p.is_file():
        raise SimlabError(f"{where} is not a regular file (a directory?); give a TOML file")
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_TOML_BYTES + 1)
    except FileNotFoundError:
        raise SimlabError(f"{where} not found") from None
    except OSError as e:
        raise SimlabError(f"{where} cannot be read: {e.strerror or e}") from None
    if len(raw) > MAX_TOML_BYTES:
        raise SimlabError(f"{where} is over {MAX_TOML_BYTES // 1024:,} KiB; such a file holds "
                          "a few lines")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        raise SimlabError(f"{where} is not UTF-8 text (line {line})") from None
    if _toml_depth(text) > MAX_TOML_DEPTH:
        raise SimlabError(f"{where} nests arrays or tables more than {MAX_TOML_DEPTH} deep; "
                          "its values are numbers, strings, booleans and flat lists")
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise SimlabError(f"{where} is not valid TOML: {e}") from None
    except RecursionError:  # the depth scan above should make this unreachable
        raise SimlabError(f"{where} nests values too deeply") from None


def toml_line(text: str, key: str) -> str:
    """``" (line N)"`` where ``key = ...`` is written in a TOML text, or ``""``."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", re.MULTILINE)
    found = pattern.search(text)
    return f" (line {text.count(chr(10), 0, found.start()) + 1})" if found else ""


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
    (``simlab.engine.seatknobs``)."""
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
            raise SimlabError(f"unknown knob {unknown[0]!r}{where}"
                              f"{did_you_mean(unknown[0], cls.names())}; valid knobs: "
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
    if t == "float" and not math.isfinite(v):  # NaN passes every range check
        raise SimlabError(f"knob {f.name!r} must be a finite number, got {v!r}; "
                          f"allowed: {_allowed(f)}")
    m = f.metadata
    if m["choices"] is not None and v not in m["choices"]:
        raise SimlabError(f"knob {f.name!r} has no value {v!r}"
                          f"{did_you_mean(v, m['choices']) if isinstance(v, str) else ''}; "
                          f"allowed: {_allowed(f)}")
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


def load_variant(path: str | Path, game: Any = None) -> dict[str, Any]:
    """Read a TOML variant file: knob = value pairs, optionally ``game = "..."``. With
    ``game`` (a ``Game``), every name and value is checked here, so an error names the file
    and line."""
    p = check_path(path, "variant file")
    data, text = read_toml(p, "variant file")
    file_game = data.pop("game", None)
    if file_game is not None and not isinstance(file_game, str):
        raise SimlabError(f"variant file {str(p)!r}: game must be a string such as "
                          f"\"belote\", got {file_game!r}{toml_line(text, 'game')}")
    if file_game is not None and game is not None and file_game != game.slug:
        raise SimlabError(f"variant file {str(p)!r} is for game {file_game!r}, not {game.slug!r}")
    for k, v in data.items():
        if isinstance(v, dict):
            raise SimlabError(f"variant file {str(p)!r}: table [{k}] not allowed; "
                              "write knob = value pairs at top level")
    if not data and file_game is None:
        raise SimlabError(f"variant file {str(p)!r} holds no knob = value line")
    if game is not None:
        check_file_knobs(f"variant file {str(p)!r}", text, game, data)
    return data


def check_file_knobs(where: str, text: str, game: Any, data: dict[str, Any],
                     lists: bool = False) -> None:
    """Each knob of a TOML file known, of its type and in its range, else one line naming
    the file (``where``) and the line. TOML values are typed: a string there stays a
    string, so ``revolution = "true"`` is refused for a bool (``--set`` strings, by
    contrast, are converted). With ``lists``, each value is a list (a sweep's) whose
    elements are checked. ``game``: the ``Game`` whose knobs they are."""
    cls = game.knobs
    by_name = {f.name: f for f in fields(cls)}
    for k, value in data.items():
        at = f"{where}{toml_line(text, k)}"
        f = by_name.get(k)
        if f is None:
            raise SimlabError(f"{at}: unknown knob {k!r} for {game.slug}{did_you_mean(k, list(by_name))}; "
                              f"valid knobs: {', '.join(by_name)}")
        for v in value if lists and isinstance(value, list) else [value]:
            if isinstance(v, str) and _typename(f) != "str":
                raise SimlabError(f"{at}: knob {k!r} expects {_typename(f)}, got the string "
                                  f"{v!r} (write it without quotes); allowed: {_allowed(f)}")
            try:
                _check(None, f, v)
            except SimlabError as e:
                raise SimlabError(f"{at}: {e}") from None
