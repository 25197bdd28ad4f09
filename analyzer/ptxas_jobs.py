"""ptxas off the critical path: register reports compiled in a background thread.

The compiler (an nvcc process, or NVRTC in C with the GIL released) needs nothing from the
analysis: the device code is split lexically. So the engine starts the compile of a file
before it parses the file (or, for several files in one process, of every file up front) and
the resources facts collect the report when they need it, usually finished by then.

One worker thread: one compile at a time keeps memory bounded and leaves the other cores to the
analysis. A job that was never started is compiled when asked for (the caller waits).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional, Sequence

__all__ = ["ptxas_args", "start", "report", "wanted"]

_lock = threading.Lock()
_pool: Optional[ThreadPoolExecutor] = None
_jobs: dict[tuple, Future] = {}


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
    if instantiations:
        return ptxas_resources(path, arch, list(inc), list(defs), list(extra), instantiations=instantiations)
    return ptxas_resources(path, arch, list(inc), list(defs), list(extra))


def wanted(opts) -> bool:
    """Whether an analysis with these options uses ptxas at all."""
    return bool(getattr(opts, "use_ptxas", True)) and not os.environ.get("CUDALINT_NO_PTXAS") \
        and getattr(opts, "frontend", "clang") != "pycparser"


def start(path: str, opts) -> None:
    """Begin compiling ``path`` for ``opts`` in the background (no-op when not wanted)."""
    if not wanted(opts):
        return
    key = ptxas_args(path, opts.arch, list(opts.include_dirs or []), list(opts.defines or []),
                     getattr(opts, "std", None))
    if key is None:
        return
    global _pool
    with _lock:
        if key in _jobs:
            return
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cudalint-ptxas")
        _jobs[key] = _pool.submit(_compile, key)
        while len(_jobs) > 256:  # a long editor session: forget the oldest finished jobs
            old = next((k for k, f in _jobs.items() if f.done()), None)
            if old is None:
                break
            del _jobs[old]


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
        return fut.result()
    rep = _compile(key)
    fut = Future()
    fut.set_result(rep)
    with _lock:
        _jobs.setdefault(key, fut)
    return rep
