"""Parsing the next file while this one is analysed (several files in one process).

libclang parses a file in one long C call, and ctypes releases the GIL for it: a background
thread can parse file *i+1* on another core while the analysis of file *i* runs in Python.
In a ``--jobs 1`` run the parse was a third of the Python time on the critical path.

:func:`start` begins a parse (its own thread and, through ``parse.get_index``, its own libclang
index: cindex objects are not shared across threads); :func:`take` hands the result to the
pipeline when it asks for the same file with the same options, or None, and the pipeline then
parses as before. A file that changed on disk since the parse began is parsed again. Nothing is
ever parsed ahead for an editor buffer (unsaved text); :func:`clear` drops what nobody took.

Who parses ahead: a one-file run, in its crash-isolation child, while the analyses import
(the parent forks before any thread starts: no thread may run at a fork); a ``--jobs 1`` run of
several files (the next file of its list); and each worker of a ``--jobs N`` pool (the file it
was told it will probably get next; the pool runs a file again, alone, when its worker crashed
while also parsing another one).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import Optional

__all__ = ["start", "start_for", "take", "keep_only", "clear"]

_lock = threading.Lock()
_ahead: dict[tuple, tuple[Future, tuple]] = {}  # key -> (the parse, the file's stat when it began)
_threads: list[threading.Thread] = []


def _key(path: str, fopts) -> tuple:
    return (os.path.abspath(path), repr(fopts))  # FrontendOptions is a dataclass: repr is its value


def _stamp(path: str) -> Optional[tuple]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def start(path: str, fopts) -> None:
    """Begin parsing ``path`` with ``fopts`` (a ``parse.FrontendOptions``) in the background."""
    stamp = _stamp(path)
    if stamp is None:
        return  # the pipeline reports an unreadable file itself
    key = _key(path, fopts)
    with _lock:
        if key in _ahead:
            return
        fut: Future = Future()
        _ahead[key] = (fut, stamp)
    t = threading.Thread(target=_parse, args=(path, fopts, fut), name="cudalint-parse-ahead", daemon=True)
    with _lock:
        _threads[:] = [x for x in _threads if x.is_alive()] + [t]
    t.start()


def start_for(path: str, aopts) -> None:
    """:func:`start` for an analysis with ``aopts`` (``analyzer.options.AnalysisOptions``), when
    the clang frontend will parse it. Imports nothing of the analyses: a one-file run starts its
    parse before they load."""
    from ..options import frontend_options, not_a_source

    if aopts.frontend == "pycparser" or not_a_source(path):
        return
    start(path, frontend_options(aopts))


def _parse(path: str, fopts, fut: Future) -> None:
    from .parse import parse_file

    if not fut.set_running_or_notify_cancel():
        return
    try:
        fut.set_result(parse_file(path, fopts))  # never raises for a bad file (a fatal result)
    except BaseException as exc:  # noqa: BLE001 - re-raised in the thread that takes it
        fut.set_exception(exc)


def take(path: str, fopts):
    """The ``ParseResult`` of a parse begun for this file and these options (waiting for it to
    finish), or None: none was begun, or the file changed since."""
    with _lock:
        entry = _ahead.pop(_key(path, fopts), None)
    if entry is None:
        return None
    fut, stamp = entry
    pr = fut.result()
    if _stamp(path) != stamp:
        return None
    return pr


def keep_only(path: str) -> None:
    """Drop the parses begun for files other than ``path`` (a worker told of a file that another
    worker got): their threads end on their own, and nothing keeps their results."""
    keep = os.path.abspath(path)
    with _lock:
        for key in [k for k in _ahead if k[0] != keep]:
            del _ahead[key]


def clear() -> None:
    """Forget every parse nobody took, once those running end: no thread outlives a run (a
    later single-file run forks only when no other thread runs)."""
    with _lock:
        _ahead.clear()
        threads, _threads[:] = list(_threads), []
    for t in threads:
        t.join()
