"""The one-file cold run (issue 13): work a run skips must change no answer."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer import simt, uniformity
from cudalint.analyzer.pipeline import AnalysisOptions, analyze_file
from cudalint.analyzer.uniformity import has_if, warp_divergence

NO_IF = """
__device__ float mad(float a, float b, float c) { return a * b + c; }
__global__ void k(const float* a, float* b, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * 64 + t];
    __syncthreads();
    float v = 0.0f;
    for (int j = 0; j < 64; ++j)
        v = mad(s[j], s[(t + j) % 64], v);
    b[blockIdx.x * 64 + t] = v;
}
int main() { float *a, *b; k<<<8, 64>>>(a, b, 512); return 0; }
"""

IF_IN_CALLEE = """
__device__ float pick(float a, int t) { if (t % 2 == 0) return a; return -a; }
__global__ void k(const float* a, float* b)
{
    int t = threadIdx.x;
    b[t] = pick(a[t], t);
}
int main() { float *a, *b; k<<<2, 64>>>(a, b); return 0; }
"""


def _kernel(tmp_path, src):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    fa = analyze_file(str(p), AnalysisOptions(facts=frozenset()))
    assert fa.error is None, fa.error
    return fa.tu.kernels[0], fa


def test_a_kernel_without_if_is_not_simulated_for_divergence(tmp_path, monkeypatch):
    k, _ = _kernel(tmp_path, NO_IF)
    assert not has_if(k)
    # what the run measures on such a kernel: nothing (the interpreter records only `if`s)
    sim, whole = simt.branch_divergence(k, (64, 1, 1), (8, 1, 1), {})
    assert sim.steps > 0 and sim.branches == {} and whole and sim.complete

    def boom(*a, **kw):
        raise AssertionError("simulated a kernel that has no if")

    monkeypatch.setattr(uniformity, "branch_divergence", boom)
    d = warp_divergence(k, (64, 1, 1), (8, 1, 1), {})
    assert d == uniformity.DivergenceFacts(branches={}, complete=sim.complete, whole_grid=whole,
                                           blocks=len(sim.ts.blocks))
    assert d.blocks == 8


def test_an_if_in_a_called_device_function_is_still_measured(tmp_path, monkeypatch):
    k, _ = _kernel(tmp_path, IF_IN_CALLEE)
    assert has_if(k)
    runs = []
    real = simt.branch_divergence

    def spy(*a, **kw):
        runs.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(uniformity, "branch_divergence", spy)
    d = warp_divergence(k, (64, 1, 1), (2, 1, 1), {})
    assert runs == [1]
    (ws,) = d.branches.values()
    # t % 2 == 0 splits every warp of both blocks, even and odd lanes interleaved
    assert (ws.warps_executing, ws.warps_divergent) == (4, 4) and ws.interleaved


# Expressions of the kinds the CGMA ratios and trip counts simplify (matmul, reductions,
# strided loops), as sympy source; the checks below run in fresh interpreters, since the
# point is what the first simplify of a process imports.
EXPRS = ["2*width/(width/8 + 1)", "2*width/(2*width + 1)", "width/16", "(n - 1)/256 + 1",
         "floor((n + 255)/256)*256/n", "Max(1, n/2)/(4*n + 4)", "2*n*m/(n*(m + 1))",
         "ceiling(n/32)*32 - n", "(a*b + a*c)/a", "32/17", "16", "x"]
SIMPLIFY_PROBE = """
import json, sys
import sympy as sp
from cudalint.analyzer.sympy_simplify import simplify
exprs = [sp.sympify(s) for s in json.loads(sys.argv[1])]
ours = [sp.srepr(simplify(e)) for e in exprs]
stand_in_left = "sympy.physics.units" in sys.modules or "sympy.physics" in sys.modules
import sympy.physics.units as u  # the real package still loads afterwards
theirs = [sp.srepr(sp.simplify(e)) for e in exprs]
print(json.dumps({"ours": ours, "theirs": theirs, "stand_in_left": stand_in_left,
                  "real": u.Quantity.__module__, "m": sp.srepr(sp.simplify(3 * u.meter / u.meter))}))
"""


def test_simplify_gives_sympys_results_without_importing_the_units_package():
    import json
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", SIMPLIFY_PROBE, json.dumps(EXPRS)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["ours"] == out["theirs"]
    assert out["ours"][0] == "Mul(Integer(16), Symbol('width'), Pow(Add(Symbol('width'), Integer(8)), Integer(-1)))"
    assert not out["stand_in_left"]
    assert out["real"] == "sympy.physics.units.quantities" and out["m"] == "Integer(3)"


def test_checking_a_file_imports_no_sympy_units(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import json, sys\nfrom cudalint.launcher import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
             "print(json.dumps({'code': code, 'physics': sorted(m for m in sys.modules if 'sympy.physics' in m)}))")
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "examples" / "matmul.cu"
    env = dict(os.environ, CUDALINT_NO_FORK="1", CUDALINT_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.run([sys.executable, "-c", probe, "check", str(fixture), "--no-cache", "--select", "CL5"],
                       capture_output=True, text=True, env=env, timeout=300)
    out = json.loads(p.stdout.strip().splitlines()[-1])
    # CL501 on both kernels: their CGMA ratios were simplified (2*width/(width/8 + 1) among them)
    assert out["code"] == 1 and p.stdout.count("[CL501]") == 2
    assert out["physics"] == []


def test_no_analysis_builds_physical_quantities():
    # sympy_simplify.py relies on it: no expression of cudalint's contains a sympy Quantity
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    users = [str(p.relative_to(root)) for d in ("analyzer", "rules", "commands", "reporters")
             for p in (root / d).rglob("*.py")
             if "physics" in p.read_text(encoding="utf-8") and p.name != "sympy_simplify.py"]
    assert users == []


def test_loading_the_analyses_does_not_run_the_collector_over_the_imports():
    # 186 collections (30 ms) when the collector ran during the imports; it is on afterwards
    import json
    import subprocess
    import sys

    probe = ("import gc, json\nn = [0]\ngc.callbacks.append(lambda phase, info: n.__setitem__(0, n[0] + (phase == 'stop')))\n"
             "from cudalint.engine import load_analyses\nbefore = n[0]\nassert load_analyses() is None\n"
             "print(json.dumps({'during': n[0] - before, 'on': gc.isenabled(), 'frozen': gc.get_freeze_count()}))")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["during"] <= 10 and out["on"] and out["frozen"] > 10_000
