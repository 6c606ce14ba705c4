"""A dependency-free progress line on stderr.

``Progress(total, unit="deals")`` draws ``done/total  pct  rate  ETA`` on one updating
line (``initial`` units already done, e.g. by an interrupted run being resumed, count
toward done but not toward the rate). With ``enabled=None`` (the default) it stays silent
unless stderr is a terminal and the run has lasted more than ``delay`` seconds, so quick
runs and logs stay clean; ``enabled=True`` always draws, ``enabled=False`` never does.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _duration(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, unit: str = "deals", *, enabled: bool | None = None,
                 stream: TextIO | None = None, delay: float = 2.0,
                 interval: float = 0.2, initial: int = 0) -> None:
        self.total = int(total)
        self.unit = unit
        self.initial = int(initial)  # already done before this run (a resumed run)
        self.done = self.initial
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.delay = delay
        self.interval = interval
        self.start = time.perf_counter()
        self._last_draw = -1.0
        self._width = 0
        self._drawn_done = -1
        self.shown = False
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            self._tty = bool(isatty and isatty())
        else:
            self._tty = enabled

    def _allowed(self, now: float) -> bool:
        if self.enabled is False:
            return False
        if self.enabled is True:
            return True
        return self._tty and (self.shown or now - self.start > self.delay)

    def line(self, now: float | None = None) -> str:
        now = time.perf_counter() if now is None else now
        elapsed = max(now - self.start, 1e-9)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        rate = (self.done - self.initial) / elapsed
        if self.done >= self.total:
            eta = f"in {_duration(elapsed)}"
        elif rate > 0:
            eta = f"ETA {_duration((self.total - self.done) / rate)}"
        else:
            eta = "ETA ?"
        return (f"{self.done:,}/{self.total:,} {self.unit}  {pct:5.1f}%  "
                f"{rate:,.0f} {self.unit}/s  {eta}")

    def _draw(self, now: float) -> None:
        text = self.line(now)
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)
        self._last_draw = now
        self._drawn_done = self.done
        self.shown = True

    def update(self, k: int) -> None:
        self.done += int(k)
        now = time.perf_counter()
        if self._allowed(now) and (now - self._last_draw >= self.interval
                                   or self.done >= self.total):
            self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar is, or must be, shown)."""
        now = time.perf_counter()
        if self.shown or self.enabled is True:
            if self._drawn_done != self.done or not self.shown:
                self._draw(now)
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False
            self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
