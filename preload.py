"""The analysing process of a one-file ``check``, started before the command line is read.

Loading the analyses (sympy, numpy, the rules: 0.3 to 0.4 s) is most of a one-file
run; reading the command line, the configuration and the result cache is another 0.05 s that
need not come first. The launcher forks this process as soon as the arguments look like one
file to check (:func:`start`); it loads the analyses at once, then waits for its task, which
``isolation.isolated`` hands it (:func:`take`) instead of forking an analysing process then.
A run that turns out not to need it (a result-cache hit, several files, an error in the
arguments) stops it (:func:`discard`): it costs CPU on another core, never the user's wait.

Only the arguments are looked at here (no typer, no configuration): a guess, on the side of
not starting. Nothing of the command line interface is imported before the fork.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

# Commands other than `check`: `cudalint FILE` is `cudalint check FILE` (cli.COMMANDS).
_OTHER_COMMANDS = {"explain", "rule", "rules", "occupancy", "validate", "server", "config"}
_SUFFIXES = (".cu", ".cuh", ".cuda")


@dataclass
class Analyser:
    pid: int
    task_w: int  # the task goes here, pickled (and whether a frontend process lowers the file)
    lowered_w: int  # the frontend process' end of the pipe it hands the IR over on
    result_r: int  # the TaskResult comes back here, pickled


_analyser: Optional[Analyser] = None


def one_file_check(args: list[str]) -> bool:
    """Whether ``args`` look like ``check`` of one CUDA file (``cudalint [check] FILE ...``)."""
    if not args or args[0] in _OTHER_COMMANDS or args[0] in ("-h", "--help", "--version", "-V"):
        return False
    rest = args[1:] if args[0] == "check" else args
    if any(a in ("-h", "--help") for a in rest):
        return False
    sources = [a for a in rest if a.endswith(_SUFFIXES) and os.path.isfile(a)]
    # a directory right after an option is its value (-I include), else one to search
    dirs = [a for i, a in enumerate(rest) if os.path.isdir(a) and not (i and rest[i - 1].startswith("-"))]
    return len(sources) == 1 and not dirs


def start(args: list[str]) -> None:
    """Fork the analysing process when ``args`` look like a one-file check (POSIX only; never
    with CUDALINT_NO_FORK)."""
    global _analyser
    if _analyser is not None or not hasattr(os, "fork") or os.environ.get("CUDALINT_NO_FORK"):
        return
    if not one_file_check(args):
        return
    task_r, task_w = os.pipe()
    lowered_r, lowered_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            for fd in (task_w, lowered_w, result_r):
                os.close(fd)
            _serve(task_r, lowered_r, result_w)
        except BaseException:  # noqa: BLE001 - the parent reports a missing result as a crash
            code = 1
        finally:
            os._exit(code)
    for fd in (task_r, lowered_r, result_w):
        os.close(fd)
    _analyser = Analyser(pid, task_w, lowered_w, result_r)


def _serve(task_r: int, lowered_r: int, result_w: int) -> None:
    """In the analysing process: load the analyses, wait for the task, analyse, answer."""
    import faulthandler
    import pickle

    faulthandler.disable()  # a crash here is the file's CL000, reported by the parent
    from .engine import load_analyses

    load_analyses()  # (and the isolation module below is light)
    with os.fdopen(task_r, "rb") as f:
        try:
            task, lowered = pickle.load(f)
        except EOFError:  # not needed after all
            return
    from .engine import TaskResult, crash_result
    from .isolation import child_task

    try:
        data = pickle.dumps(child_task(task, lowered_r if lowered else None))
    except BaseException as exc:  # noqa: BLE001
        data = pickle.dumps(TaskResult(crash_result(task.path, f"internal error: {exc}")))
    with os.fdopen(result_w, "wb") as f:
        f.write(data)


def take() -> Optional[Analyser]:
    """The started analysing process, for its one task (then no longer here), or None."""
    global _analyser
    a, _analyser = _analyser, None
    if a is not None and os.waitpid(a.pid, os.WNOHANG)[0]:  # ended already (killed?)
        _close(a)
        return None
    return a


def send(a: Analyser, task, lowered: bool) -> None:
    """Hand ``task`` to the analysing process; ``lowered``: a frontend process writes the IR
    on ``a.lowered_w`` (the caller closes its copy once that process is forked)."""
    import pickle

    with os.fdopen(a.task_w, "wb") as f:
        pickle.dump((task, lowered), f)
    a.task_w = -1


def discard() -> None:
    """Stop the analysing process if nobody took it (and wait for it: no zombie)."""
    global _analyser
    a, _analyser = _analyser, None
    if a is None:
        return
    _close(a)
    import signal

    try:
        os.kill(a.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(a.pid, 0)
    except ChildProcessError:
        pass


def _close(a: Analyser) -> None:
    for fd in (a.task_w, a.lowered_w, a.result_r):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    a.task_w = a.lowered_w = a.result_r = -1
