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

Time spent in a :func:`paused` block (loading or compiling kernels: ``runner.load_kernels``)
is not the run's: the line says what is going on meanwhile and leaves it out of the rate
and the elapsed time (commands do the same with ``runner.kernel_clock``: a report's "run
time" row shows simulation and kernels apart). :func:`notice` prints a line (such as
"compiling kernels ...") above a progress line being drawn.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO

# Paused time of this process: (seconds of finished pauses, start of the current pause or
# None, what the current pause does)
_PAUSE: list = [0.0, None, ""]
_LIVE: list[Progress] = []  # progress lines of this process not closed yet


def paused_seconds(now: float | None = None) -> float:
    """Seconds this process has spent in :func:`paused` blocks so far (a current one
    included): a caller subtracts its growth over a run from the run's wall time."""
    start = _PAUSE[1]
    if start is None:
        return _PAUSE[0]
    return _PAUSE[0] + max(0.0, (time.perf_counter() if now is None else now) - start)


@contextlib.contextmanager
def paused(what: str) -> Iterator[None]:
    """Time spent here is not the run's (``what``: shown on the line meanwhile)."""
    if _PAUSE[1] is not None:  # nested: the outer pause counts it already
        yield
        return
    _PAUSE[1], _PAUSE[2] = time.perf_counter(), what
    try:
        yield
    finally:
        _PAUSE[0] += time.perf_counter() - _PAUSE[1]
        _PAUSE[1], _PAUSE[2] = None, ""


def notice(text: str, stream: TextIO | None = None) -> None:
    """Print ``text`` as a line of its own on stderr at once, above a progress line being
    drawn (which the next redraw puts back)."""
    stream = stream if stream is not None else sys.stderr
    bar = next((b for b in _LIVE if b.shown and b.stream is stream), None)
    with bar._lock if bar is not None else contextlib.nullcontext():
        if bar is not None:  # over the line drawn, which the next redraw puts back below
            text = "\r" + text.ljust(bar._width)
            bar._width = 0
        stream.write(text + "\n")
        stream.flush()


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
        self._paused0 = paused_seconds(self.start)  # paused time before this line started
        self._paused_by_update = 0.0  # this line's paused time as of ``_last_update``
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
        if self.visible:
            _LIVE.append(self)

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

    def paused(self, now: float | None = None) -> float:
        """Seconds of this line's time spent paused (loading or compiling kernels)."""
        return paused_seconds(now) - self._paused0

    def line(self, now: float | None = None) -> str:
        now = time.perf_counter() if now is None else now
        paused = self.paused(now)
        elapsed = max(now - self.start - paused, 1e-9)  # the run's own time
        pct = 100.0 * self.done / self.total if self.total else 100.0
        head = f"{self.done:,}/{self.total:,} {self.unit}  {pct:5.1f}%"
        # the rate as of the last update, kernels' time left out: it stays put once done
        busy = max(self._last_update - self.start - self._paused_by_update, 1e-9)
        rate = (self.done - self.initial) / busy
        if self.done >= self.total:
            kernels = f" (and {_duration(paused)} on kernels)" if paused >= 1 else ""
            return f"{head}  {rate:,.0f} {self.unit}/s  in {_duration(busy)}{kernels}"
        if _PAUSE[1] is not None:  # loading or compiling kernels: say so, the clock waits
            return f"{head}  {_PAUSE[2]}, {_duration(now - _PAUSE[1])}"
        if self.done == self.initial:  # nothing finished yet: only the clock moves
            return f"{head}  {_duration(elapsed)} elapsed, first chunk running"
        # the ETA counts down from the last update
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
            self._paused_by_update = self.paused(now)
            if self._allowed(now) and now - self._last_draw >= self.interval:
                self._draw(now)

    def update(self, k: int) -> None:
        with self._lock:
            self.done += int(k) - self._flight
            self._flight = 0
            now = time.perf_counter()
            self._last_update = now
            self._paused_by_update = self.paused(now)
            if self._allowed(now) and (now - self._last_draw >= self.interval
                                       or self.done >= self.total):
                self._draw(now)

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar is, or must be, shown)."""
        self._stop.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join()
        if self in _LIVE:
            _LIVE.remove(self)
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
