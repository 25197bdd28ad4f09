"""Waiting for a background ptxas compile stops short of the file's time limit
(analyzer/ptxas_jobs.report): a compile slower than the whole analysis (XSBench's Simulation.cu
includes thrust: over a minute of nvcc) costs the exact register count, not every finding of the
file (CL000 'exceeded the per-file time limit' before)."""
from __future__ import annotations

import signal
import time
from concurrent.futures import Future

from cudalint.analyzer import ptxas_jobs


class _Alarm(BaseException):
    pass


def test_a_slow_compile_is_given_up_before_the_time_limit(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float* a) { a[threadIdx.x] = 0.0f; }\n")
    key = ptxas_jobs.ptxas_args(str(src), "sm_90", [], [], None)
    never = Future()  # a compile that is still running
    ptxas_jobs._jobs[key] = never

    def on_alarm(signum, frame):
        raise _Alarm()

    old = signal.signal(signal.SIGALRM, on_alarm)
    # 14 s left on the file's limit: the reserve is max(10 s, 30% of 14 s) = 10 s, so the
    # analysis waits 4 s for the compile, then goes on without it.
    signal.setitimer(signal.ITIMER_REAL, 14.0)
    t0 = time.monotonic()
    try:
        rep = ptxas_jobs.report(str(src), "sm_90", [], [], None)
        waited = time.monotonic() - t0
    except _Alarm:
        rep, waited = None, time.monotonic() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        ptxas_jobs._jobs.pop(key, None)
    assert rep is not None, f"the wait ran into the time limit ({waited:.1f} s)"
    assert not rep.ok and "did not finish within 4 s" in rep.reason
    assert 3.5 < waited < 8.0
