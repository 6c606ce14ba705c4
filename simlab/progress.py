"""A dependency-free progress line on stderr.

``Progress(total, unit="deals")`` draws ``done/total  pct  rate  ETA`` on one updating
line (``initial`` units already done, e.g. by an interrupted run being resumed, count
toward done but not toward the rate). With ``enabled=None`` (the default) it stays silent
unless stderr is a terminal and the run has lasted more than ``delay`` seconds, so quick
runs and logs stay clean; ``enabled=True`` always draws, ``enabled=False`` never does.

Work arrives in chunks, so ``update`` may come seldom; a background thread redraws the
line every ``tick`` seconds in between (elapsed time, ETA counted down from the last
update's rate), so the line appears after ``delay`` and moves at least once a second.
That thread needs the GIL: while a numba kernel runs in this process (which holds it),
nothing is drawn until the kernel returns; the runner cuts the chunks it runs itself into
slices of a fraction of a second and reports each through ``in_flight``.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


def _duration(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, unit: str = "deals", *, enabled: bool | None = None,
                 stream: TextIO | None = None, delay: float = 1.0,
                 interval: float = 0.2, initial: int = 0, tick: float = 0.5) -> None:
        self.total = int(total)
        self.unit = unit
        self.initial = int(initial)  # already done before this run (a resumed run)
        self.done = self.initial
        self._flight = 0  # units of a running chunk already counted in ``done``
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.delay = delay
        self.interval = interval
        self.start = time.perf_counter()
        self._last_update = self.start  # when ``done`` last changed
        self._last_draw = -1.0
        self._width = 0
        self._drawn_done = -1
        self.shown = False
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            self._tty = bool(isatty and isatty())
        else:
            self._tty = enabled
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if enabled is not False and self._tty and tick > 0:
            self._ticker = threading.Thread(target=self._tick, args=(tick,), daemon=True,
                                            name="simlab-progress")
            self._ticker.start()

    def _tick(self, tick: float) -> None:
        while not self._stop.wait(tick):
            with self._lock:
                now = time.perf_counter()
                if self._allowed(now) and not self._stop.is_set():
                    self._draw(now)

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
        head = f"{self.done:,}/{self.total:,} {self.unit}  {pct:5.1f}%"
        if self.done >= self.total:
            rate = (self.done - self.initial) / elapsed
            return f"{head}  {rate:,.0f} {self.unit}/s  in {_duration(elapsed)}"
        if self.done == self.initial:  # nothing finished yet: only the clock moves
            return f"{head}  {_duration(elapsed)} elapsed, first chunk running"
        # the rate as of the last update; the ETA counts down from there
        rate = (self.done - self.initial) / max(self._last_update - self.start, 1e-9)
        left = max(0.0, (self.total - self.done) / rate - (now - self._last_update))
        return (f"{head}  {_duration(elapsed)} elapsed  {rate:,.0f} {self.unit}/s  "
                f"ETA {_duration(left)}")

    def _draw(self, now: float) -> None:
        text = self.line(now)
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)
        self._last_draw = now
        self._drawn_done = self.done
        self.shown = True

    @property
    def visible(self) -> bool:
        """Whether the line can ever be drawn (so partial counts are worth reporting)."""
        return self.enabled is True or (self.enabled is None and self._tty)

    def in_flight(self, k: int) -> None:
        """``k`` units of the chunk this process is running are done so far (a later
        ``update`` with the whole chunk replaces them): the line moves during long
        chunks, whose kernels hold the GIL so the redraw thread cannot run."""
        with self._lock:
            self.done += int(k) - self._flight
            self._flight = int(k)
            now = time.perf_counter()
            self._last_update = now
            if self._allowed(now) and now - self._last_draw >= self.interval:
                self._draw(now)

    def update(self, k: int) -> None:
        with self._lock:
            self.done += int(k) - self._flight
            self._flight = 0
            now = time.perf_counter()
            self._last_update = now
            if self._allowed(now) and (now - self._last_draw >= self.interval
                                       or self.done >= self.total):
                self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar is, or must be, shown)."""
        self._stop.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join()
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
