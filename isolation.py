"""One file checked in forked processes, so that a libclang crash (a signal, not an exception)
or a hang in C code becomes that file's CL000 instead of ending the run (``engine`` runs every
single-file check through :func:`isolated`).

Two children: the *frontend process* parses and lowers the file (all of libclang's work,
:func:`_lower_in_child`) and hands the IR over, pickled, while the *analysing process* loads
the analyses, then takes that IR and analyses it (:func:`child_task`): the lowering is off the
critical path, the imports (most of a one-file run) on it. The analysing process is the one
the launcher started before reading the command line when there is one (``preload``). The
frontend process also compiles the file's register report, holding ptxas' cache lock from
before it parses, so that the analysis finds it there (:func:`_prefetch_registers`).

``explain`` analyses in its own process but parses each file in a frontend process too
(:class:`Frontend`): the same overlap, and libclang's crash or hang is still that file's error.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any, Callable, Iterable, Optional

from . import engine
from .engine import Task, TaskResult, _signal_name, crash_result
from .rules.options import DEFAULT_TIME_LIMIT_S

def can_fork() -> bool:
    """Whether :func:`_isolated` forks: fork exists, no other thread runs (the editor server's),
    and CUDALINT_NO_FORK is unset."""
    return hasattr(os, "fork") and threading.active_count() == 1 and not os.environ.get("CUDALINT_NO_FORK")


def child_task(task: Task, lowered_fd: Optional[int] = None) -> TaskResult:
    """The analysing process' work: load the analyses, then analyse. Its file is meanwhile parsed
    and lowered, on another core, by the frontend process (:func:`_lower_in_child`), whose
    result arrives on ``lowered_fd``; without one, a thread here parses the file during the
    imports (libclang releases the GIL), and the analysis lowers it."""
    if lowered_fd is not None:
        from .analyzer import lowering

        # what the first analysis imports anyway, loaded while the IR is not there yet
        idle = engine.warm_up_steps()
        lowering.expect(task.path, task.aopts, lambda: _receive_lowered(lowered_fd, idle=idle))
    elif task.source is None:
        try:
            from .analyzer.frontend.parse_ahead import start_for

            start_for(task.path, task.aopts)
        except Exception:  # noqa: BLE001 - only a head start: the analysis parses it itself
            pass
    broken = engine.load_analyses()
    if broken:
        return TaskResult(crash_result(task.path, broken))
    try:
        return engine.run_task(task)
    except BaseException as exc:  # noqa: BLE001 - as _guarded, but the frontend's end is the parent's to tell
        from .analyzer.lowering import FrontendGone

        if isinstance(exc, FrontendGone):  # the parent, which reaps that process, says how it ended
            return TaskResult(crash_result(task.path, "the frontend process ended without a result"),
                              frontend_gone=True)
        if isinstance(exc, KeyboardInterrupt):
            raise
        return TaskResult(crash_result(task.path, f"internal error: {type(exc).__name__}: {exc}"))


def _lower_in_child(task: Task, wfd: int) -> None:
    """The frontend process of a one-file run: parse and lower the file (all of libclang's
    work) and write the result, pickled, to ``wfd``; None when lowering raised (the analysis
    then lowers the file itself, and reports the error as it would have). Meanwhile, and
    then waited for, the file's register report (:func:`_prefetch_registers`). Imports
    nothing of the analyses."""
    import pickle
    import threading

    # planned beside the parse (libclang lets go of the GIL): the plan reads and hashes the
    # device code, 20 to 50 ms that need not come before the parse
    box: dict = {}
    planner = threading.Thread(target=lambda: box.update(wait=_prefetch_registers(task)), daemon=True)
    planner.start()
    data = pickle.dumps(None)
    try:
        from .analyzer.lowering import lower_file, read_source
        from .analyzer.options import not_a_source

        source, _ = read_source(task.path) if not not_a_source(task.path) else (None, None)
        if source is not None and source.strip():
            data = pickle.dumps(lower_file(task.path, source, task.aopts), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # noqa: BLE001 - a Python error (deep IR included): redone where it is reported
        pass
    # the plan (and the cache lock it takes) before the IR: the analysis asks for the report as
    # soon as it has the IR, and must find the lock held, not compile the file a second time
    planner.join()
    with os.fdopen(wfd, "wb") as f:
        f.write(data)
    compiled = box.get("wait")
    if compiled is not None:
        compiled()  # the report reaches the analysis through ptxas' cache (its lock held till then)


def _read_all(fd: int, deadline: Optional[float] = None, idle: Iterable[Callable[[], Any]] = ()) -> Optional[bytes]:
    """Everything a child writes on ``fd`` until it closes it (or ends), or None when
    ``deadline`` (monotonic clock) passes first. ``idle``: steps taken one by one, before
    the first byte, while there is nothing to read yet (the rest are dropped)."""
    import select

    chunks = []
    steps = list(idle)
    with os.fdopen(fd, "rb") as f:
        while steps and not select.select([f], [], [], 0)[0]:
            steps.pop(0)()
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([f], [], [], wait)[0]:
                return None
            chunk = os.read(f.fileno(), 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _receive_lowered(fd: int, deadline: Optional[float] = None, idle: Iterable[Callable[[], Any]] = ()):
    """Read the frontend process' result (waiting for it, until ``deadline`` on the monotonic
    clock if given, taking the ``idle`` steps meanwhile): a ``Lowered``, None, or raise
    ``FrontendGone`` when it ended without writing one (or ran past the deadline)."""
    import pickle

    from .analyzer.lowering import FrontendGone

    data = _read_all(fd, deadline, idle)
    if data is None:
        raise FrontendGone("timeout")
    try:
        return pickle.loads(data)
    except Exception:  # noqa: BLE001 - nothing, or a part: the process died
        raise FrontendGone() from None


class Frontend:
    """A forked frontend process for an analysis that runs in this process (``explain``):
    the file is parsed and lowered there while this process loads the analyses, and a
    libclang crash or hang becomes that file's error instead of the end of the run. Started
    before any thread runs here; :meth:`end` reaps it."""

    def __init__(self, task: Task):
        from .analyzer import lowering

        self.task = task
        rfd, wfd = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            _in_child(lambda: _lower_in_child(task, wfd), close=(rfd,))
        os.close(wfd)
        limit = task.time_limit or DEFAULT_TIME_LIMIT_S
        deadline = time.monotonic() + limit
        lowering.expect(task.path, task.aopts, lambda: _receive_lowered(rfd, deadline))
        self.status: Optional[int] = None

    def end(self, wait_s: float = 0.0) -> None:
        if self.status is None:
            self.status = _reap(self.pid, wait_s)

    def why(self) -> str:
        """Why it gave no IR (after it ended, killed if it had not)."""
        self.end()
        code = _exit_code(self.status)
        if code == -signal.SIGKILL:
            return (f"parsing exceeded the per-file time limit of "
                    f"{self.task.time_limit or DEFAULT_TIME_LIMIT_S:g} s (the parser process was stopped)")
        return (f"the parser process crashed ({_signal_name(code)}) while parsing this file; "
                "libclang may have hit an internal error on it")


#: At most this many frontend processes for one run (they all parse at once, 0.1 to 0.5 GB
#: each); a run of more files parses in-process, as before.
MAX_FRONTENDS = 4


def frontends(tasks: list[Task], indices: list[int]) -> dict[int, Frontend]:
    """A :class:`Frontend` for each of ``tasks[indices]`` read from disk with the clang
    frontend, where forking is safe and they are few (:data:`MAX_FRONTENDS`); none otherwise
    (the analysis then parses in-process)."""
    if not can_fork() or len(indices) > MAX_FRONTENDS:
        return {}
    return {i: Frontend(tasks[i]) for i in indices
            if tasks[i].source is None and tasks[i].aopts.frontend == "clang"}


def isolated(task: Task) -> TaskResult:
    """Check one file in a frontend and an analysing process (the module's docstring); forking
    costs milliseconds. Runs in this process where fork is unsafe or missing (threads running,
    e.g. the editor server; not POSIX) or when CUDALINT_NO_FORK is set."""
    if not can_fork():
        broken = engine.load_analyses()
        if broken:
            return TaskResult(crash_result(task.path, broken))
        return engine._guarded(task)
    from . import preload

    pre = preload.take() if task.source is None else None  # started by the launcher: imports done or under way
    front = None  # (pid, read end) of the frontend process
    if task.source is None:
        lr, lw = (-1, pre.lowered_w) if pre else os.pipe()
        pid = os.fork()
        if pid == 0:
            _in_child(lambda: _lower_in_child(task, lw),
                      close=(pre.task_w, pre.result_r) if pre else (lr,))
        os.close(lw)
        front = (pid, lr)
    if pre:
        pre.lowered_w = -1
        preload.send(pre, task, lowered=True)
        pid, rfd = pre.pid, pre.result_r
    else:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: analyse, send the pickled result, leave without cleanup handlers
            def work():
                import pickle
                try:
                    data = pickle.dumps(child_task(task, front[1] if front else None))
                except BaseException as exc:  # noqa: BLE001
                    data = pickle.dumps(TaskResult(crash_result(task.path, f"internal error: {exc}")))
                with os.fdopen(wfd, "wb") as f:
                    f.write(data)
            _in_child(work, close=(rfd,))
        os.close(wfd)
        if front:
            os.close(front[1])
    tr = None
    try:
        tr = _await_child(task, pid, rfd)
    finally:
        # the frontend process may still be compiling the report nobody asked for: given the
        # time the analysis had, then stopped (and at once after a failure or an interrupt)
        fine = tr is not None and tr.result.error is None
        status = _reap(front[0], (task.time_limit or 60.0) if fine else 0.0) if front else None
    if front and tr.frontend_gone:
        code = _exit_code(status) if status is not None else None
        why = f" ({_signal_name(code)})" if code else ""
        tr = TaskResult(crash_result(task.path, f"the analyser process crashed{why} while parsing this "
                                                 "file; libclang may have hit an internal error on it"))
    return tr


def _prefetch_registers(task: Task) -> Optional[Callable[[], Any]]:
    """Start compiling the file's register report in the frontend process of a one-file run,
    beside its parse (a thread), while the analysing process imports: that one, which could
    start it only once the analyses are loaded, then waits on ptxas' cache lock, held from
    now on by this compile, and reads the report (``ptxas_jobs.start_locked``). Only when the
    analysis may ask for it (``engine.may_read_registers``). Returns the wait for the
    compile, or None when none was started."""
    if task.source is not None:
        return None
    try:
        from .analyzer.ptxas_jobs import start_locked

        return start_locked(task.path, task.aopts) if engine.may_read_registers(task) else None
    except Exception:  # noqa: BLE001 - only a head start: the analysis compiles it itself
        return None


def _in_child(work, close: tuple = ()) -> None:
    """In a forked child: do ``work`` and leave without the parent's cleanup handlers."""
    code = 0
    try:
        # A crash here is reported by the parent as the file's CL000; a traceback dump
        # inherited from the parent (pytest, PYTHONFAULTHANDLER) would only add noise.
        import faulthandler
        faulthandler.disable()
        for fd in close:
            os.close(fd)
        work()
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _exit_code(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _reap(pid: int, wait_s: float = 0.0) -> int:
    """The exit status of a child, given ``wait_s`` seconds to end, then stopped."""
    deadline = time.monotonic() + wait_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    _, status = os.waitpid(pid, 0)
    return status


def _await_child(task: Task, pid: int, rfd: int) -> TaskResult:
    """The analysing child's result: read within the time limit (plus a grace period), else
    the child is stopped; a crash or a hang becomes the file's CL000."""
    import pickle

    limit = (task.time_limit or 0) + engine.KILL_GRACE_S if task.time_limit else None
    data = _read_all(rfd, time.monotonic() + limit if limit else None)
    hung = data is None
    if hung:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _, status = os.waitpid(pid, 0)
    if data:
        try:
            return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a truncated result: treated as a crash below
            pass
    if hung:
        msg = (f"analysis exceeded the per-file time limit of {task.time_limit:g} s "
               "(the analyser process was stopped)")
    else:
        msg = (f"the analyser process crashed ({_signal_name(_exit_code(status))}) while analysing this file; "
               "libclang may have hit an internal error on it")
    return TaskResult(crash_result(task.path, msg))
