"""ptxas off the critical path: register reports compiled in a background thread.

The compiler (an nvcc process, or NVRTC in C with the GIL released) needs nothing from the
analysis: the device code is split lexically. So the engine starts the compile of a file
before it parses the file (or, for several files in one process, of every file up front) and
the resources facts collect the report when they need it, usually finished by then.

One worker thread by default: one compile at a time keeps memory bounded and leaves the other
cores to the analysis. A run of many files in one process on a machine with cores to spare asks
for more (:func:`set_threads`; the compiles, not the analysis, are then the longer path). The
threads end when nothing is queued, so that a later single-file run can still fork its
crash-isolation child. A job that was never started is compiled when asked for (the caller
waits).
"""
from __future__ import annotations

import os
import signal
import threading
from collections import deque
from concurrent.futures import CancelledError, Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Callable, Optional, Sequence

__all__ = ["ptxas_args", "start", "start_locked", "report", "wanted", "pending", "set_threads", "finish",
           "queueing"]

_lock = threading.Lock()
_jobs: dict[tuple, Future] = {}
_queue: deque = deque()  # (key, future) not started yet
_workers: set = set()  # running compile threads; each exits when the queue is empty (forks stay safe)
_threads = 1  # how many may run at once


def set_threads(n: int) -> None:
    """Let up to ``n`` compiles run at once (from now on)."""
    global _threads
    _threads = max(1, int(n))


def _drain() -> None:
    global _taken
    while True:
        with _choosing:
            # One worker at a time takes its next job and the batch partners it chooses: two
            # choosing at once from the same queue split a batch (cuda-samples' bitonicSort and
            # scalarProd were each compiled alone, cooperative_groups.h read again each time,
            # while the other worker took their partners: 2.5 s of nvcc apiece).
            with _lock:
                if not _queue:
                    _workers.discard(threading.current_thread())
                    if not _workers:
                        _taken = 0  # the next burst of jobs starts with a small batch again
                    return
            taken = _take()
        if taken is None:
            continue
        if len(taken) > 1:
            _compile_batch(taken)
            continue
        key, fut = taken[0]
        try:
            fut.set_result(_compile(key))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the report
            fut.set_exception(exc)


_choosing = threading.Lock()


def _take() -> Optional[list]:
    """The next job and its batch partners, taken from the queue (the caller holds
    ``_choosing``); None when the next job needs no compile."""
    global _taken
    with _lock:
        if not _queue:
            return None
        key, fut = _queue.popleft()
        limit = _batch_limit()
        _taken += 1
        window = [(k, f) for k, f in list(_queue)[:_WINDOW] if _same_flags(k, key)]
    if _no_kernel(key):
        # No kernel in the file's text: the whole file would be compiled, for a report that
        # the analysis asks for only if clang finds a kernel after all (then compiled then).
        with _lock:
            if _jobs.get(key) is fut:
                del _jobs[key]
        _plans.pop(key, None)
        fut.cancel()
        return None
    if not fut.set_running_or_notify_cancel():
        return None
    if limit > 1 and window:
        return _batch_of(key, fut, window, limit)
    return [(key, fut)]


# Several files' compiles in one nvcc call (analyzer/ptxas_batch): each batch pays nvcc's fixed
# cost (cuda_runtime.h, cooperative_groups.h: 0.3 to 1 s a file) once. The first job of a run
# is compiled alone, since the analysis of the first file waits for it (choosing partners reads
# the headers' names: 1.7 s for cooperative_groups.h before the batch could start, measured on
# 40 cuda-samples files); later ones take up to 8 files
# from the next 16 queued. With 4 compile threads or more (cores to spare) files are compiled
# one per call: CPU is not what the run waits for then, and a file's report would wait for its
# whole batch (16 cores of the device host: 3.8 s of waiting for ptxas with batches of 8, none
# without). CUDALINT_PTXAS_BATCH=N sets the size (0 or 1: one file per compile).
_WINDOW = 16
_taken = 0  # jobs taken since the queue was last empty
_plans: dict = {}  # key -> NvccPlan (or None: not for a batch), for the jobs looked at


def _batch_limit() -> int:
    env = os.environ.get("CUDALINT_PTXAS_BATCH", "")
    if env.strip():
        try:
            return int(env)
        except ValueError:
            pass
    if _threads >= 4 or _taken == 0:
        return 1
    return 8


def _same_flags(a: tuple, b: tuple) -> bool:
    """Same target, defines and options but for the -x cu that a device-only compile adds anyway
    (include dirs may differ: ptxas_batch checks them)."""
    strip = lambda extra: tuple(x for x in extra if x not in ("-x", "cu"))  # noqa: E731
    return a[3] == b[3] and a[5] == b[5] and strip(a[6]) == strip(b[6])


def _no_kernel(key: tuple) -> bool:
    try:
        plan = _plan(key)
    except Exception:  # noqa: BLE001 - compiled (and reported) as before
        return False
    return plan is not None and plan.dc is None


def _plan(key: tuple):
    if key not in _plans:
        from .registers import nvcc_plan

        path, _, _, arch, inc, defs, extra = key
        _plans[key] = nvcc_plan(path, arch, list(inc), list(defs), list(extra))
        while len(_plans) > 64:
            del _plans[next(iter(_plans))]
    return _plans[key]


def _batch_of(key: tuple, fut: Future, window: list, limit: int) -> list:
    """``key``'s job and the queued jobs of ``window`` that can share its nvcc call, taken
    from the queue (just ``key``'s where none can, or choosing fails)."""
    from . import ptxas_batch

    taken: list = [(key, fut)]
    try:
        plans = _LazyPlans([key] + [k for k, _ in window])
        chosen = ptxas_batch.choose(plans, limit) if plans[0] is not None else [0]
        with _lock:
            for i in chosen[1:]:
                k, f = window[i - 1]
                if (k, f) in _queue:  # still queued (finish() may have dropped it)
                    _queue.remove((k, f))
                    taken.append((k, f))
    except Exception:  # noqa: BLE001 - compiled alone
        pass
    return [(k, f) for k, f in taken if f is fut or f.set_running_or_notify_cancel()]


def _compile_batch(taken: list) -> None:
    """Compile the jobs of ``taken`` in one nvcc call; each future gets its file's report (any
    failure here: the file's own compile)."""
    from . import ptxas_batch

    try:
        if len(taken) > 1:
            reports = ptxas_batch.compile_batch([_plan(k) for k, _ in taken])
            for (k, f), rep in zip(taken, reports):
                _plans.pop(k, None)
                f.set_result(rep)
    except Exception:  # noqa: BLE001 - what was not answered compiles alone below
        pass
    for k, f in taken:
        if not f.done():
            try:
                f.set_result(_compile(k))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the report
                f.set_exception(exc)


class _LazyPlans:
    """The plans of some jobs, each made when first looked at (a batch of 2 looks at few)."""

    def __init__(self, keys: list):
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i: int):
        return _plan(self.keys[i])


def finish(wait: bool = True) -> None:
    """Drop the compiles not started yet and (``wait``) wait for the running ones: a run that
    ends with compiles nobody asked for leaves no compiler processes or temporary files behind."""
    with _lock:
        while _queue:
            key, fut = _queue.popleft()
            fut.cancel()
            if _jobs.get(key) is fut:
                del _jobs[key]  # asked for later: compiled then
        running = list(_workers) if wait else []
    for t in running:
        t.join()


def _after_fork_in_child() -> None:
    # a forked child has no worker thread: forget jobs that only that thread would finish
    global _lock, _choosing, _workers, _jobs, _taken, _held
    _lock = threading.Lock()
    _choosing = threading.Lock()  # (a parent's worker may have held it at the fork)
    _taken = _held = 0
    _workers = set()
    _queue.clear()
    _jobs = {k: f for k, f in _jobs.items() if f.done()}


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def ptxas_args(path: str, arch: str, include_dirs: Sequence[str], defines: Sequence[str],
               std: Optional[str]) -> Optional[tuple]:
    """The compile's identity (also its arguments): None when the file cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    extra: tuple = ()
    if not path.endswith(".cu"):
        extra = ("-x", "cu")  # .cuh / other suffixes: nvcc decides the language by suffix
    if std and std != "c++17" and std.startswith(("c++", "gnu++")):
        extra += (f"-std={std.replace('gnu++', 'c++')}",)  # c++17 is nvcc's default
    return (os.path.abspath(path), st.st_mtime_ns, st.st_size, arch, tuple(include_dirs), tuple(defines), extra)


def _compile(key: tuple, instantiations: tuple = ()):
    from .registers import ptxas_resources

    path, _, _, arch, inc, defs, extra = key
    _plans.pop(key, None)  # compiled now: the next job with this key (an edited header) plans anew
    if instantiations:
        return ptxas_resources(path, arch, list(inc), list(defs), list(extra), instantiations=instantiations)
    return ptxas_resources(path, arch, list(inc), list(defs), list(extra))


def wanted(opts) -> bool:
    """Whether an analysis with these options uses ptxas at all."""
    facts = getattr(opts, "facts", None)
    return bool(getattr(opts, "use_ptxas", True)) and not os.environ.get("CUDALINT_NO_PTXAS") \
        and getattr(opts, "frontend", "clang") != "pycparser" and (facts is None or "resources" in facts)


def start(path: str, opts) -> None:
    """Begin compiling ``path`` for ``opts`` in the background (no-op when not wanted)."""
    if not wanted(opts):
        return
    key = ptxas_args(path, opts.arch, list(opts.include_dirs or []), list(opts.defines or []),
                     getattr(opts, "std", None))
    if key is None:
        return
    with _lock:
        if key in _jobs:
            return
        fut: Future = Future()
        _jobs[key] = fut
        _queue.append((key, fut))
        if not _held:
            _spawn()
        while len(_jobs) > 256:  # a long editor session: forget the oldest finished jobs
            old = next((k for k, f in _jobs.items() if f.done()), None)
            if old is None:
                break
            del _jobs[old]


def pending(path: str, opts) -> bool:
    """Whether the file's background compile is queued or running (its analysis would wait)."""
    if not wanted(opts):
        return False
    key = ptxas_args(path, opts.arch, list(opts.include_dirs or []), list(opts.defines or []),
                     getattr(opts, "std", None))
    with _lock:
        fut = _jobs.get(key) if key is not None else None
    return fut is not None and not fut.done()


def start_locked(path: str, opts) -> Optional[Callable[[], None]]:
    """Take ptxas' cache lock for the file's report now and compile it in a thread that
    stores it and lets go of the lock; a process asking for the same report from now on
    waits for this compile and reads its report (registers._locked_compile), however soon it
    asks. Returns the wait for the compile; None when there is nothing to compile here (not
    wanted, no kernel in the text, already cached, NVRTC, or another process compiling it)."""
    if not wanted(opts):
        return None
    key = ptxas_args(path, opts.arch, list(opts.include_dirs or []), list(opts.defines or []),
                     getattr(opts, "std", None))
    if key is None:
        return None
    from .registers import _compile_lock, _read_cached, _store

    plan = _plan(key)
    if plan is None or plan.dc is None:
        return None
    cfile = plan.cache_file()
    if _read_cached(cfile) is not None:
        return None
    lock = _compile_lock(cfile, wait=False).__enter__()
    if lock.busy:
        return None

    def run() -> None:
        try:
            if _read_cached(cfile) is None:
                _store(cfile, plan.compile())
        finally:
            lock.__exit__(None, None, None)

    t = threading.Thread(target=run, name="cudalint-ptxas-locked", daemon=True)
    t.start()
    return t.join


def _spawn() -> None:
    # with _lock held
    while len(_workers) < min(_threads, len(_queue) + len(_workers)):
        t = threading.Thread(target=_drain, name="cudalint-ptxas", daemon=True)
        _workers.add(t)
        t.start()


_held = 0


class queueing:
    """``with queueing(): start(...) ...``: the compiles start when all are queued, so that the
    first ones can be batched with the next (a worker started by the first start() would take
    it before the others are queued)."""

    def __enter__(self):
        global _held
        with _lock:
            _held += 1
        return self

    def __exit__(self, *exc):
        global _held
        with _lock:
            _held -= 1
            if not _held:
                _spawn()
        return False


#: Of the time left before the file's time limit, this much (at least) is kept for the rest of
#: the analysis when a compile is waited for.
RESERVE_S, RESERVE_FRACTION = 10.0, 0.3


def _wait_budget() -> Optional[float]:
    """How long the analysis may wait for a background compile: the time left on the file's
    limit (rules/runner.time_limit's timer) less a reserve, so that a slow nvcc (XSBench's
    Simulation.cu pulls in thrust: over a minute) costs the exact register count, not every
    finding of the file. None (wait as long as it takes) when no limit is running."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "getitimer"):
        return None
    left = signal.getitimer(signal.ITIMER_REAL)[0]
    if left <= 0:
        return None
    return max(0.0, left - max(RESERVE_S, RESERVE_FRACTION * left))


def report(path: str, arch: str, include_dirs: Sequence[str], defines: Sequence[str], std: Optional[str],
           instantiations: tuple = ()):
    """The :class:`~.registers.PtxasReport` for these arguments: the background job's when one
    was started, else compiled now. None when the file cannot be read. ``instantiations``
    (template kernels to compile, as name expressions) make another compile, never started in
    the background."""
    key = ptxas_args(path, arch, include_dirs, defines, std)
    if key is None:
        return None
    if instantiations:
        with _lock:
            fut = _jobs.get(key + (instantiations,))
        if fut is None:
            fut = Future()
            fut.set_result(_compile(key, instantiations))
            with _lock:
                _jobs.setdefault(key + (instantiations,), fut)
        return fut.result()
    with _lock:
        fut = _jobs.get(key)
    if fut is not None:
        budget = _wait_budget()
        try:
            return fut.result(timeout=budget)
        except CancelledError:  # left for when asked (a file without kernels): asked now
            pass
        except FutureTimeout:
            from .registers import PtxasReport
            return PtxasReport(ok=False, reason=(
                f"the compile did not finish within {budget:.0f} s, the part of the file's time "
                f"limit left after a reserve for the rest of the analysis"))
    rep = _compile(key)
    fut = Future()
    fut.set_result(rep)
    with _lock:
        _jobs.setdefault(key, fut)
    return rep
