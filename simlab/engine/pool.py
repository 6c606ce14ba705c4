"""Worker processes for local parallel runs, and the parent's share of the work.

Why not joblib's loky here: a killed loky run leaves named semaphores and memmapping
folders in ``/dev/shm``, and its workers receive whole frames through pipes. These
workers are plain child processes (``python -m simlab.engine.pool``) that talk to the parent over
their stdin/stdout: no named semaphore, no shared memory, nothing to leak. A worker reads a
task, runs it, writes back a small result (chunks travel as files, see ``runner``), and
exits when its stdin closes, i.e. when the parent is gone. The parent takes chunks from
the same queue while it waits, so with ``jobs`` J only J - 1 workers are started and the
cores are never idle while they start.

Tasks and results are pickled with cloudpickle, so functions of test
modules and unregistered ``Game`` objects travel by value as they did with loky. Workers
live as long as this process (``shutdown`` at exit) and keep the environment variables of
their start: a change made later (``NUMBA_DISABLE_JIT``, say) needs ``shutdown()`` first.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

_HEADER = struct.Struct("<Q")
IN_FLIGHT = 2  # tasks queued per worker: it starts the next one while we read its result
WARM = -1  # task id of a warm-up, whose result is dropped


def _dumps(obj: Any) -> bytes:
    import cloudpickle

    return cloudpickle.dumps(obj)


def _loads(data: bytes) -> Any:
    import pickle

    return pickle.loads(data)


def _read_exact(fd: int, size: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < size:
        block = os.read(fd, size - len(buf))
        if not block:
            return None
        buf += block
    return bytes(buf)


def _read_message(fd: int) -> bytes | None:
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    return _read_exact(fd, _HEADER.unpack(head)[0])


def _write_message(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


class WorkerDied(RuntimeError):
    """A worker process ended while it had work (killed, out of memory, ...)."""


class Pool:
    """``size`` worker processes, reused across runs of this process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.procs: list[subprocess.Popen] = []
        self.warming: set[int] = set()  # stdout fds of workers still running a warm-up
        parent = str(os.getpid())
        for _ in range(size):
            proc = subprocess.Popen([sys.executable, "-m", "simlab.engine.pool", parent],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    close_fds=True)
            self.procs.append(proc)
            # the parent's import path, so tasks naming test or plug-in modules unpickle
            _write_message(proc.stdin.fileno(), _dumps(("path", list(sys.path))))

    def warm(self, fn: Callable, args: tuple) -> None:
        """Have every worker run ``fn(*args)`` now and drop the result: a first small
        chunk loads the game's compiled kernels while this process is busy elsewhere."""
        for p in self.procs:
            _write_message(p.stdin.fileno(), _dumps(("task", (WARM, fn, args, {}))))
            self.warming.add(p.stdout.fileno())

    def alive(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def close(self) -> None:
        for p in self.procs:
            with contextlib.suppress(OSError):
                p.stdin.close()
        for p in self.procs:
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            with contextlib.suppress(OSError):
                p.stdout.close()
        self.procs = []

    def kill(self) -> None:
        for p in self.procs:
            with contextlib.suppress(OSError):
                p.kill()
        self.close()

    def run(self, tasks: list[tuple[int, Callable, tuple, dict]],
            local: Callable[[int, Callable, tuple, dict], Any] | None = None,
            big: bool = False) -> Iterator[tuple[int, Any]]:
        """Run ``(i, fn, args, kwargs)`` tasks; yield ``(i, result)`` as each finishes.

        With ``local``, the parent runs a task itself (``local(i, fn, args, kwargs)``)
        whenever no worker result is waiting. A worker that dies raises ``WorkerDied``; an
        exception in a task is raised again here. ``big``: few long tasks (a whole sweep
        point), one at a time per worker, queued even while it warms up, since the parent
        busy with one of them would otherwise leave the worker idle for all that time."""
        queue = deque(tasks)
        # a long task is never queued behind another: whoever is free first takes it
        in_flight = 1 if big else IN_FLIGHT
        busy: dict[int, deque[int]] = {p.stdout.fileno(): deque() for p in self.procs}
        by_fd = {p.stdout.fileno(): p for p in self.procs}
        sel = selectors.DefaultSelector()
        for fd in busy:
            sel.register(fd, selectors.EVENT_READ)

        def feed(fd: int) -> None:
            # a worker still warming up gets nothing yet: tasks queued behind a slow
            # start would keep this process waiting at the end
            while queue and len(busy[fd]) < in_flight and (big or fd not in self.warming):
                i, fn, args, kwargs = queue.popleft()
                busy[fd].append(i)
                _write_message(by_fd[fd].stdin.fileno(), _dumps(("task", (i, fn, args, kwargs))))

        try:
            for fd in busy:
                feed(fd)
            while queue or any(busy.values()):
                ready = sel.select(timeout=0 if (local is not None and queue) else None)
                if not ready and local is not None and queue:
                    i, fn, args, kwargs = queue.popleft()
                    yield i, local(i, fn, args, kwargs)
                    continue
                for key, _ in ready:
                    fd = key.fd
                    data = _read_message(fd)
                    if data is None:
                        code = by_fd[fd].wait()
                        lost = ", ".join(map(str, busy[fd])) or "none"
                        raise WorkerDied(f"a worker process died (exit code {code}; chunks "
                                         f"{lost} unfinished)")
                    i, ok, result = _loads(data)
                    if i == WARM:  # a warm-up's result (its errors come back with the tasks)
                        self.warming.discard(fd)
                        feed(fd)
                        continue
                    busy[fd].remove(i)
                    feed(fd)
                    if not ok:
                        raise result
                    yield i, result
        except BaseException:
            # workers may still be busy with tasks of this run: the next run gets new ones
            _discard(self)
            raise
        finally:
            sel.close()


_POOL: list[Pool] = []


def get(size: int, warm: tuple[Callable, tuple] | None = None) -> Pool:
    """A pool of ``size`` live workers (started once, reused by later runs); a newly
    started one first runs ``warm`` = (fn, args), if given."""
    if _POOL and (_POOL[0].size != size or not _POOL[0].alive()):
        _discard(_POOL[0])
    if not _POOL:
        _POOL.append(Pool(size))
        if warm is not None:
            _POOL[0].warm(*warm)
    return _POOL[0]


def current() -> Pool | None:
    """The live pool of this process, if a run started one (None otherwise)."""
    return _POOL[0] if _POOL and _POOL[0].alive() else None


def _discard(pool: Pool) -> None:
    pool.kill()
    if _POOL and _POOL[0] is pool:
        _POOL.clear()


def shutdown() -> None:
    """At exit: the workers are idle between runs (a part is renamed into place by this
    process only), so they are killed rather than waited for (one may still be starting)."""
    if _POOL:
        _POOL[0].kill()
        _POOL.clear()


atexit.register(shutdown)


_WATCHING: list[int] = []


def _watch_parent(parent: int) -> None:
    """In a worker: exit as soon as ``parent`` is gone (killed with SIGKILL,
    say) instead of finishing chunks nobody will record, then idling for minutes."""
    if _WATCHING or os.getpid() == parent or os.getppid() != parent:
        return
    _WATCHING.append(parent)
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="simlab-parent-watch", daemon=True).start()


def _worker(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent decides, workers carry on or
    # are killed by it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inp, out = sys.stdin.fileno(), sys.stdout.fileno()
    sys.stdout = sys.stderr  # a stray print must not corrupt the result stream
    _watch_parent(parent)  # exit at once when the parent dies, even mid-chunk wait
    while True:
        data = _read_message(inp)
        if data is None:  # the parent closed our stdin or is gone
            os._exit(0)
        kind, payload = _loads(data)
        if kind == "path":
            sys.path[:] = payload
            continue
        i, fn, args, kwargs = payload
        try:
            reply = _dumps((i, True, fn(*args, **kwargs)))
        except BaseException as e:  # noqa: BLE001 - sent back and raised in the parent
            try:
                reply = _dumps((i, False, e))
                _loads(reply)
            except Exception:
                reply = _dumps((i, False, RuntimeError(f"{type(e).__name__}: {e}")))
        try:
            _write_message(out, reply)
        except OSError:  # the parent is gone
            os._exit(1)


if __name__ == "__main__":
    _worker(int(sys.argv[1]))
