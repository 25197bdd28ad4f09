"""Checking many files: a result cache, a crash-isolating process pool and a progress bar.

* **Cache** (:class:`ResultCache`, in ``$CUDALINT_CACHE_DIR`` or ``.cudalint_cache/``): one JSON
  entry per (cudalint version and code, analysis and check options, path, file content). An
  entry also lists every file the translation unit ``#include``\\ d with its size, mtime and
  SHA-256, and the headers that were missing (stubbed); it is used only while all of those are
  unchanged (a header whose mtime changed is re-hashed, so a ``touch`` does not invalidate) and
  no missing header has appeared. Results of files that timed out or crashed are not cached.
* **Pool** (:class:`WorkerPool`): ``spawn``-started worker processes, one file at a time each.
  libclang can abort the whole process on some inputs (SIGILL/SIGSEGV from an LLVM assertion);
  a worker that dies, or that runs past the per-file time limit plus a grace period, is
  replaced and the file it was analysing gets a CL000 diagnostic. The run goes on.
* :func:`check_files` ties them together for the CLI; the editor server uses
  :class:`WorkerPool` directly, with editor buffers (``Task.source``).

Nothing here imports the analyzer at module level: a fully cached run never loads libclang.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from . import __version__
from .rules.diagnostic import Diagnostic, Edit, FileResult, Fix, Location, Related

CACHE_ENV = "CUDALINT_CACHE_DIR"
DEFAULT_CACHE_DIR = ".cudalint_cache"
#: A worker gets this much longer than the per-file time limit before it is killed (the limit
#: itself is enforced inside the worker; this catches code stuck in C that never returns).
KILL_GRACE_S = 15.0


@dataclass
class Task:
    path: str
    aopts: Any  # AnalysisOptions
    copts: Any  # CheckOptions
    time_limit: Optional[float] = 60.0
    #: Editor buffer to analyse instead of the file's content on disk (LSP).
    source: Optional[str] = None
    #: Also return the facts the editor shows in place (commands/editor_facts.py).
    editor_facts: bool = False


@dataclass
class TaskResult:
    result: FileResult
    dependencies: list[str] = field(default_factory=list)
    missing_headers: list[str] = field(default_factory=list)
    cacheable: bool = False
    seconds: float = 0.0
    facts: Optional[dict] = None  # Task.editor_facts: hover/inlay/code lens facts (JSON)
    frontend_gone: bool = False  # a one-file run's frontend process ended without its IR (isolation.py)


# --------------------------------------------------------------------------------------------
# Running one task (in a worker or in-process)
# --------------------------------------------------------------------------------------------
_MISSING_NOTE = re.compile(r"^header <(?P<name>.+?)> not found")


def may_read_registers(task: Task) -> bool:
    """Whether ``task``'s analysis may ask for the file's register report, known before the
    analyses load (``options.rules_may_read``; explicit ``facts`` are judged by
    ``ptxas_jobs.wanted``)."""
    from .analyzer.options import rules_may_read

    return task.aopts.facts is not None or rules_may_read("resources", task.copts.enabled)


def start_ptxas(task: Task) -> None:
    """Start the file's register report in the background, before it is parsed, and before
    the analyses load (:func:`may_read_registers`), so a pool's parent spawns its workers at
    once and a ``--jobs 1`` run compiles while it imports."""
    from .analyzer.ptxas_jobs import start

    if may_read_registers(task):
        start(task.path, task.aopts)


def _parse_ahead(path: str, aopts, copts, source: Optional[str] = None) -> None:
    """Start parsing ``path`` (a file read from disk, not a buffer) in the background, for
    the analysis that will follow this one (``frontend.parse_ahead``)."""
    if source is not None:
        return
    try:
        from .analyzer.pipeline import parse_ahead
        from .rules.runner import effective_options

        parse_ahead(path, effective_options(aopts, copts))
    except Exception:  # noqa: BLE001 - only a head start: the analysis parses it itself
        pass


def run_task(task: Task) -> TaskResult:
    from .rules.runner import check_file

    t0 = time.perf_counter()
    if task.source is None:
        start_ptxas(task)
        res, fa = check_file(task.path, task.aopts, task.copts, task.time_limit)
        deps = list(getattr(fa, "dependencies", []) or []) if fa is not None else []
        missing = [m.group("name") for n in res.notes if (m := _MISSING_NOTE.match(n))]
        return TaskResult(res, deps, missing, cacheable=fa is not None, seconds=time.perf_counter() - t0)
    # An editor buffer: analyse a copy in a temporary directory, with the real file's directory
    # searched for "quoted" includes, then give every location back its real path.
    real = os.path.abspath(task.path)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cudalint-buffer-") as tmp:
        copy = os.path.join(tmp, os.path.basename(real) or "buffer.cu")
        with open(copy, "w", encoding="utf-8", newline="") as f:
            f.write(task.source)
        # (as an include dir, not only a clang argument: the compile for registers needs it too)
        aopts = dataclasses.replace(task.aopts, extra_args=list(task.aopts.extra_args) +
                                    ["-iquote", os.path.dirname(real)],
                                    include_dirs=list(task.aopts.include_dirs) + [os.path.dirname(real)])
        if task.editor_facts:  # every fact, whichever rules are selected
            from .analyzer.pipeline import needed_facts
            aopts = dataclasses.replace(aopts, facts=needed_facts(None))
        _start_quietly(copy, aopts, task.copts)  # the buffer's compile overlaps its parse
        res, fa = check_file(copy, aopts, task.copts, task.time_limit)
        facts = None
        if task.editor_facts and fa is not None:
            from .commands.editor_facts import editor_facts
            facts = editor_facts(fa, copy)
    res = remap_paths(res, {copy: task.path, tmp: os.path.dirname(real)})
    return TaskResult(res, [], [], cacheable=False, seconds=time.perf_counter() - t0, facts=facts)


def remap_paths(res: FileResult, mapping: dict[str, str]) -> FileResult:
    def fix(p: str) -> str:
        return mapping.get(p, p)

    def fix_msg(m: str) -> str:
        for a, b in mapping.items():
            m = m.replace(a, b)
        return m

    diags = [dataclasses.replace(d, path=fix(d.path), message=fix_msg(d.message),
                                 related=tuple(dataclasses.replace(r, path=fix(r.path)) for r in d.related))
             for d in res.diagnostics]
    return FileResult(path=fix(res.path), diagnostics=diags,
                      error=fix_msg(res.error) if res.error else None,
                      notes=[fix_msg(n) for n in res.notes],
                      header_kernels=[[fix(h[0])] + list(h[1:]) for h in res.header_kernels])


def crash_result(path: str, message: str) -> FileResult:
    """A CL000 result, built without the rule registry (which may be what is broken)."""
    d = Diagnostic("CL000", "unparsable-file", "error", message, path, Location(1, 1), Location(1, 2))
    return FileResult(path=path, diagnostics=[d], error=message)


def _tune_gc() -> None:
    """The analyses allocate millions of short-lived objects (sympy expressions, IR nodes): with
    the default gen-0 threshold of 700 the collector ran 1,700 times on the 40-file benchmark,
    each time rescanning what the imports built (5 % of the CPU). Freezing the imported
    objects and collecting less often saves most of that for a little memory."""
    import gc

    gc.freeze()
    if gc.get_threshold()[0] < 50_000:
        gc.set_threshold(50_000, 20, 20)


_analyses_loaded = False


def load_analyses() -> Optional[str]:
    """Import every rule module (and so the analyses they use); why not, or None when fine.
    Each module is imported explicitly: a failed import is retried and reported, where the
    registry would remember it as loaded and silently run fewer rules. The collector is off
    meanwhile: the imports (sympy's above all) build objects that live as long as the process,
    and it ran 186 times over them (30 ms). Once a process: a second freeze (the editor server
    checks file after file) would put what the process built since out of the collector's
    reach for good."""
    import gc

    global _analyses_loaded
    if _analyses_loaded:
        return None
    # numpy's OpenBLAS starts a thread per core when numpy is imported, and they spin for
    # tens of milliseconds of CPU (a tenth of a one-file run); the analyses do no linear
    # algebra. Set for this process only when it loads the analyses; a user's setting wins.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    was_on = gc.isenabled()
    gc.disable()
    try:
        import importlib

        from .rules.registry import RULE_MODULES, load_rule_modules
        for name in RULE_MODULES:
            importlib.import_module(f"{__package__}.rules.{name}")
        load_rule_modules()
        _tune_gc()
        _analyses_loaded = True
        return None
    except Exception as exc:  # noqa: BLE001
        return f"cudalint cannot load its analyses: {type(exc).__name__}: {exc}"
    finally:
        if was_on:
            gc.enable()


#: Modules the first analysis in a process imports on its way whatever the file, where they are
#: first needed (the runner, the resource, occupancy and register facts, the roofline), and
#: sympy's own lazy imports: the first Add of symbols imports sympy.tensor.tensor (and with it
#: sympy.combinatorics), the first inequality sympy.assumptions.wrapper. 40 to 90 ms in all.
WARM_UP_MODULES = (
    f"{__package__}.rules.runner", f"{__package__}.rules.suppressions",
    "sympy.tensor.tensor", "sympy.assumptions.wrapper",
    f"{__package__}.analyzer.occupancy", f"{__package__}.analyzer.requests",
    f"{__package__}.analyzer.devices", f"{__package__}.analyzer.roofline",
    f"{__package__}.analyzer.ptxas_jobs", f"{__package__}.analyzer.registers",
    f"{__package__}.analyzer.device_code", f"{__package__}.analyzer.device_source",
    f"{__package__}.analyzer.nvrtc",
)


def warm_up_steps() -> list:
    """Steps (callables) that load :data:`WARM_UP_MODULES`, for an analysing process to take
    while it waits for its file's IR (``isolation._read_all``): a file whose headers take
    longer to parse than the analyses to import (most real code) otherwise pays them after
    its IR came. Each is safe to skip: a module not imported here is imported where needed,
    and a failure is reported there."""
    import importlib

    def step(name: str):
        def run() -> None:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the analysis imports it again and reports
                pass
        return run

    return [step(name) for name in WARM_UP_MODULES]


def _guarded(task: Task) -> TaskResult:
    try:
        return run_task(task)
    except BaseException as exc:  # noqa: BLE001 - a broken installation, an analyzer bug
        if isinstance(exc, KeyboardInterrupt):
            raise
        return TaskResult(crash_result(task.path, f"internal error: {type(exc).__name__}: {exc}"))


def _isolated(task: Task) -> TaskResult:
    from .isolation import isolated  # one file: parsed in one forked process, analysed in another

    return isolated(task)


def _can_fork() -> bool:
    from .isolation import can_fork

    return can_fork()


# --------------------------------------------------------------------------------------------
# Serialising results (cache entries; JSON, never pickle)
# --------------------------------------------------------------------------------------------
def _loc(l: Location) -> list[int]:
    return [l.line, l.column]


def result_to_dict(r: FileResult) -> dict:
    def diag(d: Diagnostic) -> dict:
        return {"code": d.code, "name": d.name, "severity": d.severity, "message": d.message,
                "path": d.path, "loc": _loc(d.location), "end": _loc(d.end_location), "kernel": d.kernel,
                "fix": None if d.fix is None else {
                    "description": d.fix.description, "applicability": d.fix.applicability,
                    "caveat": d.fix.caveat, "edits": [[_loc(e.start), _loc(e.end), e.text] for e in d.fix.edits]},
                "related": [[x.path, _loc(x.location), x.message] for x in d.related]}

    return {"path": r.path, "error": r.error, "notes": list(r.notes),
            "diagnostics": [diag(d) for d in r.diagnostics], "header_kernels": list(r.header_kernels)}


def result_from_dict(doc: dict) -> FileResult:
    def diag(x: dict) -> Diagnostic:
        fix = None
        if x.get("fix"):
            fix = Fix(x["fix"]["description"],
                      tuple(Edit(Location(*a), Location(*b), t) for a, b, t in x["fix"]["edits"]),
                      x["fix"].get("applicability", "safe"), x["fix"].get("caveat", ""))
        return Diagnostic(x["code"], x["name"], x["severity"], x["message"], x["path"],
                          Location(*x["loc"]), Location(*x["end"]), x.get("kernel"), fix,
                          tuple(Related(p, Location(*l), m) for p, l, m in x.get("related", [])))

    return FileResult(path=doc["path"], diagnostics=[diag(d) for d in doc["diagnostics"]],
                      error=doc.get("error"), notes=list(doc.get("notes", [])),
                      header_kernels=list(doc.get("header_kernels", [])))


# --------------------------------------------------------------------------------------------
# The cache
# --------------------------------------------------------------------------------------------
_code_fp: Optional[str] = None


def code_fingerprint() -> str:
    """cudalint's version plus the size and mtime of its own source and data files, so an
    edited checkout (or an upgrade) never reuses results of older code."""
    global _code_fp
    if _code_fp is None:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256(__version__.encode())
        skip = {".git", ".venv", ".ci-venv", "tests", "fixtures", "bench", "__pycache__", "build",
                "dist", DEFAULT_CACHE_DIR, ".pytest_cache", ".hypothesis"}
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in skip and not d.endswith(".egg-info"))
            for f in sorted(files):
                if f.endswith((".py", ".h", ".hpp", ".json")) or "." not in f:
                    p = os.path.join(dirpath, f)
                    try:
                        st = os.stat(p)
                    except OSError:
                        continue
                    h.update(f"{os.path.relpath(p, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        _code_fp = h.hexdigest()
    return _code_fp


def _jsonable(obj):
    if dataclasses.is_dataclass(obj):
        return {k: _jsonable(v) for k, v in sorted(dataclasses.asdict(obj).items())}
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def options_fingerprint(task: Task) -> str:
    doc = {"a": _jsonable(task.aopts), "c": _jsonable(task.copts), "t": task.time_limit}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def default_cache_dir(configured: Optional[str] = None) -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    if configured:
        return Path(configured)
    return Path.cwd() / DEFAULT_CACHE_DIR


class ResultCache:
    def __init__(self, directory: Path | str):
        self.dir = Path(directory)
        self.hits = self.misses = 0
        self._ready = False
        self._digests: dict[tuple[str, int, int], str] = {}  # (path, mtime, size) -> sha256
        self.dependencies: dict[str, list[str]] = {}  # key of a hit -> the files it included

    def _digest(self, path: str, st: os.stat_result) -> str:
        """SHA-256 of a dependency, once per process for each (path, mtime, size): the same
        system and project headers recur in every file's dependency list."""
        k = (path, st.st_mtime_ns, st.st_size)
        d = self._digests.get(k)
        if d is None:
            with open(path, "rb") as f:
                d = self._digests[k] = _sha(f.read())
        return d

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            tag = self.dir / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n"
                               "# This file is a cache directory tag created by cudalint.\n")
            gi = self.dir / ".gitignore"
            if not gi.exists():
                gi.write_text("# Automatically created by cudalint.\n*\n")
        except OSError:
            pass

    def key(self, task: Task, content: bytes) -> str:
        h = hashlib.sha256()
        for part in (code_fingerprint(), options_fingerprint(task), task.path,
                     os.path.abspath(task.path), _sha(content)):
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        return h.hexdigest()

    def _entry_path(self, key: str) -> Path:
        return self.dir / __version__ / key[:2] / f"{key}.json"

    def lookup(self, task: Task) -> tuple[Optional[FileResult], Optional[str]]:
        """(cached result or None, the key to store under; None when the file is unreadable)."""
        try:
            with open(task.path, "rb") as f:
                content = f.read()
        except OSError:
            return None, None
        key = self.key(task, content)
        try:
            with open(self._entry_path(key), "r", encoding="utf-8") as f:
                entry = json.load(f)
        except (OSError, ValueError):
            self.misses += 1
            return None, key
        if not self._valid(entry, task):
            self.misses += 1
            return None, key
        self.hits += 1
        self.dependencies[key] = [d[0] for d in entry.get("deps", [])]
        try:
            return result_from_dict(entry["result"]), key
        except (KeyError, TypeError, ValueError):
            self.misses += 1
            return None, key

    def _valid(self, entry: dict, task: Task) -> bool:
        for p, mtime, size, digest in entry.get("deps", []):
            try:
                st = os.stat(p)
            except OSError:
                return False
            if st.st_mtime_ns == mtime and st.st_size == size:
                continue
            try:
                if self._digest(p, st) != digest:
                    return False
            except OSError:
                return False
        if entry.get("missing") and _missing_probe(entry["missing"], task) != entry.get("probe", []):
            return False  # a header that was missing may be found now
        return True

    def store(self, key: str, tr: TaskResult, task: Optional[Task] = None) -> None:
        if not tr.cacheable or key is None:
            return
        deps = []
        main = os.path.abspath(tr.result.path)
        for p in tr.dependencies:
            if os.path.abspath(p) == main:
                continue
            try:
                st = os.stat(p)
                digest = self._digest(p, st)
            except OSError:
                continue  # a virtual (stubbed) header
            deps.append([p, st.st_mtime_ns, st.st_size, digest])
        entry = {"deps": deps, "missing": tr.missing_headers, "result": result_to_dict(tr.result)}
        if tr.missing_headers:
            entry["probe"] = _missing_probe(tr.missing_headers, task)
        self._prepare()
        target = self._entry_path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # (mkstemp's way, without importing tempfile: 5 ms after the result of a cold run)
            tmp = str(target.parent / f".tmp-{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}.json")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, separators=(",", ":"))
            os.replace(tmp, target)
        except OSError:
            pass


def _missing_probe(names: list[str], task: Optional[Task]) -> list[str]:
    """Which of the places a missing header could appear in exist (the file's directory and
    the include directories): the entry stays valid while this does not change."""
    if task is None:
        return []
    dirs = [os.path.dirname(os.path.abspath(task.path))] + [os.path.abspath(d) for d in task.aopts.include_dirs]
    return sorted(os.path.join(d, n) for n in names for d in dirs if os.path.exists(os.path.join(d, n)))


def _signal_name(code: Optional[int]) -> str:
    if code is None:
        return "unknown status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


# --------------------------------------------------------------------------------------------
# Worker processes
# --------------------------------------------------------------------------------------------
def _worker_main(conn) -> None:
    # Load the analyzer while the parent is still handing out work; a broken installation
    # gives every file a CL000 saying so.
    from cudalint.engine import load_analyses
    broken = load_analyses()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        # ahead: (path, options) of the file this worker will likely get next; compile: whether
        # the worker starts compiles itself (else the parent compiles every file, in batches)
        task, ahead, compile_here = task
        if not broken:
            from .analyzer.frontend import parse_ahead
            parse_ahead.keep_only(task.path)  # a file it was told of but did not get: dropped
            if compile_here:
                _start_quietly(task.path, task.aopts, task.copts, task.source)
            if ahead is not None:
                if compile_here:
                    _start_quietly(*ahead)  # its compile and parse overlap this file's analysis
                _parse_ahead(*ahead)
        out = TaskResult(crash_result(task.path, broken)) if broken else _guarded(task)
        try:
            conn.send(out)
        except (OSError, EOFError):
            return


def _start_quietly(path: str, aopts, copts, source: Optional[str] = None) -> None:
    try:
        if source is None:
            start_ptxas(Task(path, aopts, copts))
    except Exception:  # noqa: BLE001 - the analysis compiles it itself if this failed
        pass


class _Worker:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.task: Optional[Task] = None
        self.told = False  # told of the next file (so also parsing it)
        self.index = -1
        self.started = 0.0

    def stop(self, kill: bool = False) -> None:
        if kill:
            try:
                self.proc.kill()
            except Exception:
                pass
        else:
            try:
                self.conn.send(None)
            except Exception:
                pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)
        try:
            self.conn.close()
        except Exception:
            pass


def _pick(pending: list[int], ahead: dict[int, int], worker: int) -> tuple[int, Optional[int]]:
    """The task to hand ``worker`` (the one it was told of, if still pending, else the first
    pending one no other worker was told of) and the one to tell it of now; ``pending`` is in
    reverse order (next task last) and ``ahead`` maps each worker to the task it was told of."""
    i = ahead.pop(worker, None)
    if i is None or i not in pending:
        told = set(ahead.values())
        i = next((j for j in reversed(pending) if j not in told), pending[-1])
    pending.remove(i)
    told = set(ahead.values())
    nxt = next((j for j in reversed(pending) if j not in told), None)
    if nxt is not None:
        ahead[worker] = nxt
    return i, nxt


class WorkerPool:
    """``size`` spawned worker processes. :meth:`run` hands out tasks and yields
    ``(index, TaskResult)`` as they finish; a worker that dies or hangs is replaced and its
    file reported as CL000."""

    def __init__(self, size: int, compile_in_workers: bool = True):
        self.size = max(1, size)
        # False when the caller compiles every file's register report itself (in batches):
        # a worker then only asks for its report, waiting on the ptxas cache's lock
        self.compile_in_workers = compile_in_workers
        import multiprocessing  # (not at the top: a one-file run, a cached one, never needs it)

        self._ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()

    def _spawn(self) -> _Worker:
        w = _Worker(self._ctx)
        self._workers.append(w)
        return w

    def run(self, tasks: list[Task]) -> Iterable[tuple[int, TaskResult]]:
        with self._lock:
            yield from self._run(tasks)

    def _run(self, tasks: list[Task]):
        from multiprocessing.connection import wait as mp_wait

        pending = list(range(len(tasks)))
        pending.reverse()  # pop() from the end = first task first
        while len(self._workers) < min(self.size, len(tasks)):
            self._spawn()
        idle = [w for w in self._workers]
        busy: list[_Worker] = []
        # Each worker is told the task it will probably get next, and gets it when it is still
        # pending: its compile (ptxas) then runs during the current file's analysis, as the
        # single-process run queues every compile up front.
        ahead: dict[int, int] = {}  # id(worker) -> index of the task it was told about
        # A worker parses the file it was told of while it analyses its own: a crash may then be
        # the other file's. Such a file is run again once, alone, before it is called a crash.
        retried: set[int] = set()
        while pending or busy:
            while pending and idle:
                w = idle.pop()
                i, nxt = _pick(pending, ahead, id(w))
                if i in retried:
                    ahead.pop(id(w), None)
                    nxt = None
                w.task, w.index, w.started = tasks[i], i, time.monotonic()
                w.told = nxt is not None
                try:
                    # of the next task, only what its compile and parse need (a Task may not unpickle)
                    nt = tasks[nxt] if nxt is not None else None
                    w.conn.send((tasks[i], (nt.path, nt.aopts, nt.copts, nt.source) if nt else None,
                                 self.compile_in_workers))
                    busy.append(w)
                except (OSError, EOFError, ValueError):  # died while idle: replace, retry
                    pending.append(i)
                    self._replace(w)
                    idle.append(self._workers[-1])
            waitables = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
            ready = set(mp_wait(waitables, timeout=1.0))
            now = time.monotonic()
            for w in list(busy):
                result: Optional[TaskResult] = None
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        result = None
                if result is not None:
                    busy.remove(w)
                    idle.append(w)
                    yield w.index, result
                    continue
                died = w.proc.sentinel in ready or w.conn in ready or not w.proc.is_alive()
                limit = w.task.time_limit if w.task and w.task.time_limit else None
                hung = limit is not None and now - w.started > limit + KILL_GRACE_S
                if died and not hung and w.told and w.index not in retried:
                    busy.remove(w)
                    retried.add(w.index)
                    pending.append(w.index)  # next out: alone in a fresh worker
                    w.proc.join(timeout=5)
                    self._replace(w)
                    idle.append(self._workers[-1])
                    continue
                if died or hung:
                    busy.remove(w)
                    task, index = w.task, w.index
                    if hung and not died:
                        from .rules.runner import RAISE_LIMIT
                        w.stop(kill=True)
                        msg = (f"analysis exceeded the per-file time limit of {limit:g} s "
                               f"(the analyser process was stopped){RAISE_LIMIT}")
                    else:
                        w.proc.join(timeout=5)
                        msg = (f"the analyser process crashed ({_signal_name(w.proc.exitcode)}) while "
                               "analysing this file; libclang may have hit an internal error on it")
                    self._replace(w)
                    if pending:
                        idle.append(self._workers[-1])
                    yield index, TaskResult(crash_result(task.path, msg))

    def _replace(self, w: _Worker) -> None:
        if w in self._workers:
            self._workers.remove(w)
        try:
            w.stop(kill=True)
        except Exception:
            pass
        self._spawn()

    def close(self) -> None:
        for w in self._workers:
            w.stop()
        self._workers.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------------------------
# The CLI's entry point
# --------------------------------------------------------------------------------------------
def _env_threads() -> int:
    """``CUDALINT_PTXAS_THREADS``: how many compiles may run at once; 0 (unset, empty or not a
    number) lets the engine choose."""
    try:
        return max(0, int(os.environ.get("CUDALINT_PTXAS_THREADS", "").strip() or 0))
    except ValueError:
        return 0


def pool_size(jobs: int, files: int) -> int:
    """Analysing processes for ``files`` files asked to run with ``jobs``: 1 means this process.
    One process already keeps two cores busy (the next file's parse and the nvcc compiles run
    beside its analysis), so on a machine of 2 cores or fewer a pool only adds its workers'
    start-up and loses the batched compiles and the parse ahead: measured on 2 cores over 40
    cuda-samples files, 2 workers took 1.08x the time and 1.17x the CPU of one process."""
    if jobs <= 1 or files <= 1 or default_jobs() <= 2:
        return 1
    return min(jobs, files)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


@dataclass
class RunStats:
    files: int = 0
    cached: int = 0
    analysed: int = 0
    workers: int = 0
    seconds: float = 0.0


PROGRESS_MIN_FILES = 8


def check_files(tasks: list[Task], jobs: Optional[int] = None, cache: Optional[ResultCache] = None,
                progress: bool = False, stats: Optional[RunStats] = None) -> list[FileResult]:
    """Check every task; results in the order of ``tasks``.

    Cached results are used where valid. The remaining files are analysed in-process when
    there is only one of them or ``jobs`` is 1, else in a pool of ``min(jobs, files)`` worker
    processes (crash isolation, parallelism). A file that another checked file includes is
    analysed through it (``includers.py``), and the findings of the user's headers are
    reported once.
    """
    from .includers import confirmed, merge, plan

    t0 = time.perf_counter()
    jobs = jobs or default_jobs()
    results: list[Optional[FileResult]] = [None] * len(tasks)
    deps: dict[int, list[str]] = {}
    roots, covered = _plan(tasks, plan)
    todo = _check(tasks, roots, jobs, cache, progress, results, deps)
    through: dict[str, str] = {}
    ran = len(roots)
    if covered:
        ok, alone = confirmed(covered, [t.path for t in tasks], deps)
        todo += _check(tasks, alone, jobs, cache, False, results, deps)
        ran += len(alone)
        through = {tasks[j].path: tasks[covered[j][0]].path for j in ok}
    if stats is not None:
        stats.files, stats.analysed = len(tasks), len(todo)
        stats.cached, stats.workers = ran - len(todo), pool_size(jobs, len(todo)) if todo else 0
        stats.seconds = time.perf_counter() - t0
    merged = merge([r for r in results if r is not None], through)
    order = {os.path.abspath(t.path): i for i, t in reversed(list(enumerate(tasks)))}
    return sorted(merged, key=lambda r: order.get(os.path.abspath(r.path), len(tasks)))


def _plan(tasks: list[Task], plan) -> tuple[list[int], dict[int, list[int]]]:
    """Which tasks run (indices) and which are reached through an includer that runs."""
    if len(tasks) < 2:
        return list(range(len(tasks))), {}
    roots, covered = plan([t.path for t in tasks], [t.aopts.include_dirs for t in tasks])

    def through_headers(i: int) -> bool:  # the includer's analysis covers its headers
        return tasks[i].aopts.frontend == "clang" and getattr(tasks[i].aopts, "headers", True)

    covered = {j: inc for j, inc in covered.items() if all(through_headers(i) for i in inc)}
    roots = sorted(i for i in range(len(tasks)) if i not in covered)
    return roots, covered


def _check(tasks: list[Task], indices: list[int], jobs: int, cache: Optional["ResultCache"],
           progress: bool, results: list, deps: dict) -> list[int]:
    """Check ``tasks[i]`` for each index (cache first); fill ``results`` and ``deps`` (the files
    each one included). Returns the indices that were analysed (not cached)."""
    keys: dict[int, Optional[str]] = {}
    todo: list[int] = []
    for i in indices:
        t = tasks[i]
        empty = _empty_file_result(t)
        if empty is not None:  # nothing to analyse: no analyzer loaded, no process forked
            results[i], deps[i] = empty, []
            continue
        if cache is not None:
            hit, keys[i] = cache.lookup(t)
            if hit is not None:
                results[i] = hit
                deps[i] = cache.dependencies.get(keys[i], [])
                continue
        todo.append(i)
    # Biggest files first: better load balance in the pool.
    todo.sort(key=lambda i: -_size(tasks[i].path))
    workers = pool_size(jobs, len(todo))
    if len(todo) != 1:
        from . import preload
        preload.discard()  # the analysing process the launcher started: not for this run
    bar = _Progress(len(todo)) if progress and len(todo) >= PROGRESS_MIN_FILES else None

    def record(i: int, tr: TaskResult) -> None:
        results[i], deps[i] = tr.result, tr.dependencies
        if cache is not None:
            cache.store(keys[i], tr, tasks[i])
        if bar:
            bar.advance(tasks[i].path)

    try:
        if workers == 1:
            # One file: parsed in one forked process and analysed in another (isolation.py: a
            # libclang crash or hang becomes its CL000; forks cost milliseconds). Several
            # files with --jobs 1: in this process, since each
            # child would redo the warm-up the first file pays for (measured 1.8x -> 2.3x of a
            # bare parse on 40 cuda-samples files).
            run = _isolated if len(todo) == 1 else _guarded
            if len(todo) > 1:
                from .analyzer.ptxas_jobs import queueing, set_threads
                # the compiles run niced (registers._nice_prefix): they fill what the analysis
                # leaves of every core, the one it runs on included
                set_threads(_env_threads() or min(4, default_jobs()))
                with queueing():  # every compile queued now, then batched: they overlap the imports and analyses below
                    for i in todo:
                        start_ptxas(tasks[i])
            broken = load_analyses() if todo and not (run is _isolated and _can_fork()) else None
            try:
                left = list(todo)
                while left:
                    i = left.pop(0)
                    if run is _guarded and not broken and left:
                        j = _next_to_analyse(tasks, left)
                        left.remove(j)
                        left.insert(0, j)
                        nt = tasks[j]
                        _parse_ahead(nt.path, nt.aopts, nt.copts, nt.source)  # during this analysis
                    record(i, TaskResult(crash_result(tasks[i].path, broken)) if broken else run(tasks[i]))
            finally:
                if len(todo) > 1:
                    from .analyzer.frontend.parse_ahead import clear
                    clear()
        else:
            # The compiles run here, in this otherwise idle process (niced, on what the workers
            # leave of the cores), all queued now and so batched (ptxas_batch: one nvcc call for
            # several files); a worker that needs a report waits for it on the ptxas cache's
            # lock (registers._compile_lock) instead of compiling it again. Workers compiling
            # their own files would pay nvcc's fixed cost once a file (measured on 2 cores:
            # --jobs 2 took 1.24x the time of --jobs 1).
            from .analyzer.ptxas_jobs import queueing, set_threads
            set_threads(_env_threads() or max(1, min(8, default_jobs() - workers)))
            with queueing():
                for i in todo:
                    start_ptxas(tasks[i])
            try:
                with WorkerPool(workers, compile_in_workers=False) as pool:
                    for j, tr in pool.run([tasks[i] for i in todo]):
                        record(todo[j], tr)
            finally:
                from .analyzer.ptxas_jobs import finish
                finish(wait=sys.exc_info()[0] is None)  # an interrupt does not wait for nvcc
    finally:
        if bar:
            bar.close()
    return todo


def _next_to_analyse(tasks: list[Task], left: list[int]) -> int:
    """The file to analyse after the current one (and to parse meanwhile): the first of
    ``left`` whose register report is not still compiling, else the first. The compiles run in
    the same order, but one long compile (cuda-samples' reduction_kernel.cu, all its template
    instantiations: 4 s of nvcc) would otherwise stop the analysis while the other compile
    thread finishes the files after it."""
    from .analyzer.ptxas_jobs import pending

    for j in left:
        if not pending(tasks[j].path, tasks[j].aopts):
            return j
    return left[0]


def _empty_file_result(task: Task) -> Optional[FileResult]:
    """The result of a file with nothing but white space (what the analysis would report)."""
    if task.source is not None or _size(task.path) > 4096:
        return None
    try:
        with open(task.path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data.strip():
        return None
    return FileResult(path=task.path, diagnostics=[], notes=["empty file"])


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


class _Progress:
    """A rich progress bar on stderr (transient)."""

    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("[bold]cudalint[/]"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("{task.description}"),
                                 console=Console(file=sys.stderr), transient=True)
        self.progress.start()
        self.task = self.progress.add_task("", total=total)

    def advance(self, path: str) -> None:
        self.progress.update(self.task, advance=1, description=os.path.basename(path))

    def close(self) -> None:
        self.progress.stop()
