"""Parsing the next file in the background while this one is analysed (frontend.parse_ahead)."""
from __future__ import annotations

import os
import threading
import time

from cudalint.analyzer.frontend import parse_ahead
from cudalint.analyzer.frontend.parse import FrontendOptions
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.engine import Task, check_files
from cudalint.rules.runner import CheckOptions

KERNEL = "__global__ void k{n}(const float* in, float* out) {{ out[threadIdx.x] = in[threadIdx.x * {s}]; }}\n"


def _file(tmp_path, n, stride):
    p = tmp_path / f"k{n}.cu"
    p.write_text(KERNEL.format(n=n, s=stride))
    return p


def test_take_gives_the_parse_begun_for_the_same_file_and_options(tmp_path):
    p = _file(tmp_path, 1, 2)
    fo = FrontendOptions()
    parse_ahead.start(str(p), fo)
    assert parse_ahead.take(str(p), FrontendOptions(defines=["X=1"])) is None  # other options
    pr = parse_ahead.take(str(p), fo)
    assert pr is not None and not pr.fatal and pr.path == str(p)
    assert any(c.spelling == "k1" for c in pr.tu.cursor.get_children())
    assert parse_ahead.take(str(p), fo) is None  # taken once
    parse_ahead.clear()


def test_a_file_changed_after_the_parse_began_is_parsed_again(tmp_path):
    p = _file(tmp_path, 1, 2)
    fo = FrontendOptions()
    parse_ahead.start(str(p), fo)
    time.sleep(0.01)
    p.write_text(KERNEL.format(n=2, s=4) + "// longer now\n")
    assert parse_ahead.take(str(p), fo) is None
    parse_ahead.clear()


def test_clear_leaves_no_thread_running(tmp_path):
    before = threading.active_count()
    for n in range(3):
        parse_ahead.start(str(_file(tmp_path, n, 2)), FrontendOptions())
    parse_ahead.clear()
    assert threading.active_count() == before
    assert parse_ahead.take(str(tmp_path / "k0.cu"), FrontendOptions()) is None


def test_a_jobs_1_run_parses_each_next_file_ahead_with_the_same_answers(tmp_path, monkeypatch):
    files = [_file(tmp_path, n, s) for n, s in enumerate((2, 4, 8))]
    tasks = [Task(str(f), AnalysisOptions(use_ptxas=False), CheckOptions()) for f in files]
    monkeypatch.setenv("CUDALINT_NO_FORK", "1")
    alone = [check_files([t], jobs=1)[0] for t in tasks]  # one file: nothing is parsed ahead

    started, taken = [], []
    real_start, real_take = parse_ahead.start, parse_ahead.take

    def start(path, fopts):
        started.append(os.path.basename(path))
        real_start(path, fopts)

    def take(path, fopts):
        pr = real_take(path, fopts)
        taken.append((os.path.basename(path), pr is not None))
        return pr

    monkeypatch.setattr(parse_ahead, "start", start)
    monkeypatch.setattr(parse_ahead, "take", take)
    before = threading.active_count()
    together = check_files(tasks, jobs=1)
    # every file but the first analysed was parsed ahead, and its parse was the one used
    assert len(started) == 2 and sorted(started + [taken[0][0]]) == ["k0.cu", "k1.cu", "k2.cu"]
    assert [ok for name, ok in taken] == [False, True, True]
    assert threading.active_count() == before

    def answers(rs):
        return [[(d.code, d.location.line, d.message) for d in r.diagnostics] for r in rs]

    assert answers(together) == answers(alone)
    assert any(d.code == "CL201" and "8 elements apart" in d.message for d in together[2].diagnostics)


import dataclasses
import signal


@dataclasses.dataclass
class CrashingOptions(AnalysisOptions):
    """Kills the worker process that unpickles it, as a libclang crash in a parse would."""

    def __setstate__(self, state):
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), signal.SIGILL)


def test_a_crash_while_a_worker_also_parses_its_next_file_is_not_blamed_on_its_own_file(tmp_path):
    from cudalint.engine import WorkerPool

    files = [_file(tmp_path, n, 2) for n in range(3)]
    tasks = [Task(str(files[0]), AnalysisOptions(use_ptxas=False), CheckOptions()),
             Task(str(files[1]), CrashingOptions(use_ptxas=False), CheckOptions()),
             Task(str(files[2]), AnalysisOptions(use_ptxas=False), CheckOptions())]
    with WorkerPool(1) as pool:
        out = dict(pool.run(tasks))
    # the worker dies when told of file 1 (its options) while it has file 0: file 0 is run
    # again alone and is fine; file 1 itself crashes, alone too, and is the one reported
    assert [d.code for d in out[0].result.diagnostics] == ["CL201"] and out[0].result.error is None
    assert out[1].result.error and "crashed (signal SIGILL)" in out[1].result.diagnostics[0].message
    assert [d.code for d in out[2].result.diagnostics] == ["CL201"] and out[2].result.error is None


def test_a_one_file_run_parses_in_a_process_of_its_own_while_the_analyses_load(tmp_path, monkeypatch):
    # isolation.isolated: one forked child parses and lowers the file while another imports the
    # analyses, then takes that IR instead of parsing again. Each parse_file call, and what the
    # analysis took, is written down (by the children, separate processes) with its process.
    if threading.active_count() != 1:
        import pytest
        pytest.skip("another thread runs: the one-file run would not fork")
    from cudalint.analyzer import lowering
    from cudalint.analyzer.frontend import parse as parse_mod

    log = tmp_path / "parses.txt"
    real_parse, real_take = parse_mod.parse_file, lowering.take

    def parse_file(path, fopts):
        with open(log, "a") as f:
            f.write(f"parse {os.path.basename(path)} {os.getpid()}\n")
        return real_parse(path, fopts)

    def take(path, opts, source):
        got = real_take(path, opts, source)
        with open(log, "a") as f:
            f.write(f"take {got is not None and got.tu is not None} {os.getpid()}\n")
        return got

    monkeypatch.setattr(parse_mod, "parse_file", parse_file)
    monkeypatch.setattr(lowering, "take", take)
    monkeypatch.delenv("CUDALINT_NO_FORK", raising=False)
    f = _file(tmp_path, 0, 8)
    res = check_files([Task(str(f), AnalysisOptions(use_ptxas=False), CheckOptions())], jobs=1)[0]
    (parse, name, p1), (took, got, p2) = (line.split() for line in log.read_text().splitlines())
    assert (parse, name, took, got) == ("parse", "k0.cu", "take", "True")  # parsed once, IR taken
    assert len({p1, p2, str(os.getpid())}) == 3  # in two children, neither of them this process
    assert any(d.code == "CL201" and "8 elements apart" in d.message for d in res.diagnostics)
