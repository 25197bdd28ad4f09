"""Strict command line (issue 16): unknown rule codes are usage errors, a file that is not
C/C++/CUDA is named as such, explain fails on what it could not analyse; inline assembly in
nvcc's spellings parses."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cudalint.analyzer.frontend.inline_asm import respell, respell_launches
from cudalint.cli import app

FIX = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.mark.parametrize("option,code,near", [("--select", "CL2O1", "CL201"), ("--ignore", "cl6o2", "CL602"),
                                              ("--extend-select", "CL3o1", "CL301"), ("--select", "CLl0", "CL10"), ("--select", "CL999", None)])
def test_unknown_codes_are_usage_errors(option, code, near):
    r = run("check", str(FIX / "coalescing" / "column.cu"), option, code)
    assert r.exit_code == 2
    assert f"{option}: unknown rule code or prefix {code.upper()!r}" in r.output
    if near:
        assert f"did you mean {near}?" in r.output


def test_extend_select_adds_to_select():
    path = str(FIX / "coalescing" / "column.cu")
    assert run("check", path, "--select", "CL1").output == ""  # no CL1 finding there
    r = run("check", path, "--select", "CL1", "--extend-select", "CL201")
    assert r.output.count("[CL201]") == 1  # info (the block is assumed): exit 0


def test_not_a_cuda_source(tmp_path: Path):
    py = tmp_path / "script.py"
    py.write_text("import os\n")
    for cmd in ("check", "explain"):
        r = run(cmd, str(py))
        assert r.exit_code == 2
        assert "not a CUDA source: `script.py` is not a C, C++ or CUDA file" in r.output


def test_explain_fails_on_a_kernel_it_could_not_analyse():
    r = run("explain", str(FIX / "tool" / "kernel_error.cu"))
    assert r.exit_code == 2, r.output


def test_respell_keeps_lines_and_valid_escapes():
    src = ('asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));\n'
           'asm volatile("st.u8 [%1], %0;" ::"r"(v) "l"(p) : "memory");\n'
           'asm("mov.u32 %0, %%laneid; // %l0 %[x] %=" : "=r"(x));\n'
           'asm("mov.u32 %r1, %laneid;");\n')  # basic asm: % is not an escape there
    out = respell(src)
    assert [len(a) for a in out.splitlines()] == [len(a) for a in src.splitlines()]
    assert out.splitlines() == ['asm volatile("mov.u64 %0,  globaltimer;" : "=l"(t));',
                                'asm volatile("st.u8 [%1], %0;" ::"r"(v),"l"(p) : "memory");',
                                src.splitlines()[2], src.splitlines()[3]]


def test_launch_split_by_blanks_is_respelled(tmp_path: Path):
    """clang-format writes `kernel < < < grid, block >>> (...)` in LeetCUDA's launcher macros
    (mat_transpose.cu, TORCH_BINDING_MAT_TRANSPOSE2D); nvcc accepts it, clang does not ("expected
    expression"), so the launch was lost and its kernels ran on the default block of 256."""
    src = "k < < < grid,\n  b >>> (a); k<< <g, b>>>(a); k< <<g, b>>>(a); if (x < y) {}\n"
    out = respell_launches(src)
    assert [len(a) for a in out.splitlines()] == [len(a) for a in src.splitlines()]
    assert out == "k <<<   grid,\n  b >>> (a); k<<< g, b>>>(a); k<<< g, b>>>(a); if (x < y) {}\n"
    p = tmp_path / "t.cu"
    p.write_text("""__global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
#define LAUNCH(name) void name(float *a) { dim3 block(32, 4); dim3 grid(8); \\
    k < < < grid,                                                            \\
        block >>> (a); }
LAUNCH(run)
""")
    r = run("explain", str(p), "--output-format", "json")
    import json
    launch = json.loads(r.output)["files"][0]["kernels"][0]["launch"]
    assert (launch["block"], launch["grid"], launch["source"]) == ([32, 4, 1], [8, 1, 1], "launch-site")


def test_launch_closed_by_split_chevrons_is_respelled(tmp_path: Path):
    """Visual Studio's formatter writes `kernel << < grid, block >> > (...)` (the sgemm of "Learn
    CUDA Programming" chapters 2 and 3, Rodinia's particlefilter); nvcc accepts it. Only the
    opener was joined, so clang still failed at the `>> >` and the launch was lost: the 16x16
    kernel ran on the default block of 256 (1-D). A `>> >` that closes nested templates, and
    `operator<< <T>`, are left alone."""
    src = ("  k << < g, b >> > (A, n);\n  std::vector<std::vector<std::pair<int,int>> > v;\n"
           "  os = operator<< <int>(os, 1); k<<<g, b> >>(a); q >> > 0;\n")
    out = respell_launches(src)
    assert [len(a) for a in out.splitlines()] == [len(a) for a in src.splitlines()]
    assert out == ("  k <<<  g, b >>>  (A, n);\n  std::vector<std::vector<std::pair<int,int>> > v;\n"
                   "  os = operator<< <int>(os, 1); k<<<g, b>>> (a); q >> > 0;\n")
    p = tmp_path / "t.cu"
    p.write_text("""__global__ void t(const float *A, float *C, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    C[col * 1024 + row] = A[row * 1024 + col];
}
void run(const float *A, float *C)
{
    dim3 block(16, 16);
    dim3 grid(64, 64);
    t << < grid, block >> > (A, C, 1024);
}
""")
    import json
    r = run("explain", str(p), "--output-format", "json")
    k = json.loads(r.output)["files"][0]["kernels"][0]
    assert (k["launch"]["block"], k["launch"]["grid"], k["launch"]["source"]) == \
        ([16, 16, 1], [64, 64, 1], "launch-site")
    # The store: lanes 0-15 are columns 0-15 (1024 floats apart), lanes 16-31 the next row of
    # the same columns (4 bytes on, same 32-byte sector): 16 sectors for 128 bytes, 25%.
    store = next(a for a in k["accesses"] if a["array"] == "C")
    assert (store["sectors_per_request"], store["efficiency"]) == (16, 0.25)
