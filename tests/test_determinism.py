"""The same file gives the same report in every process. Python salts string hashes per process,
so anything that picks "the first" element of a set of sympy expressions names a different one
from run to run (a data-dependent index that reads two arrays named `idx` in one run, `off` in
another: seen on HeCBench's filter and rainflow)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

KERNEL = textwrap.dedent("""\
    __global__ void scatter(const int* idx, const int* off, float* out, int n)
    {
        int t = blockIdx.x * blockDim.x + threadIdx.x;
        if (t < n)
            out[idx[t] + off[t]] = 1.0f;
    }

    int main()
    {
        int *idx, *off; float* out;
        scatter<<<4, 256>>>(idx, off, out, 1024);
        return 0;
    }
    """)


def test_report_identical_under_every_hash_seed(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    outs = set()
    for seed in ("1", "2", "5", "7"):  # the earlier code named `off` under seed 5, `idx` under the others
        env = dict(os.environ, PYTHONHASHSEED=seed, CUDALINT_NO_PTXAS="1", CUDALINT_CACHE_DIR=str(tmp_path / "c"))
        p = subprocess.run([sys.executable, "-c", "from cudalint.cli import main; main()", "check", str(src),
                            "--no-cache"], env=env, capture_output=True, text=True, timeout=300)
        assert "depends on" in p.stdout, p.stdout + p.stderr
        outs.add(p.stdout)
    assert len(outs) == 1
    # the direct dependencies `idx[...]` and `off[...]` are both outermost: the canonical order names idx
    assert "depends on `idx[" in outs.pop()
