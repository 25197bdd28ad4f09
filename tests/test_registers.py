"""ptxas resource reports: parsing captured output, real compilations checked against what
``nvcc -Xptxas -v`` prints, the cache, failure modes, and the ground-truth kernels' counts."""

from __future__ import annotations

import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cudalint.analyzer import registers as R
from cudalint.analyzer.registers import base_name, parse_ptxas_output, ptxas_resources

GT_DIR = Path(__file__).resolve().parents[2] / "shared" / "groundtruth"
GT_JSON = GT_DIR / "measured-h200.json"
NVCC = R.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))


# --------------------------------------------------------------------------- parsing
NVCC13 = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_ZN2gt12gt_fill_permEPiij' for 'sm_90'
ptxas info    : Function properties for _ZN2gt12gt_fill_permEPiij
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 16 registers, used 0 barriers
ptxas info    : Compile time = 11.249 ms
ptxas info    : Compiling entry function '_Z12occ_smem_40kPKfPfi' for 'sm_90'
ptxas info    : Function properties for _Z12occ_smem_40kPKfPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 25 registers, used 1 barriers, 40960 bytes smem
ptxas info    : Compile time = 4.367 ms
ptxas info    : Compiling entry function '_Z19local_dynamic_indexPKfPfi' for 'sm_90'
ptxas info    : Function properties for _Z19local_dynamic_indexPKfPfi
    256 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 31 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Compile time = 2.423 ms
ptxas info    : Function properties for _Z3devfi
    72 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""

OLD_SM13 = """\
ptxas info    : Compiling entry function '_Z6matmulPfS_S_i' for 'sm_13'
ptxas info    : Used 14 registers, 2048+16 bytes smem, 8 bytes cmem[1]
ptxas info    : Compiling entry function 'plain_c' for 'sm_13'
ptxas info    : Used 3 registers, 20+0 bytes lmem, 12+16 bytes smem
"""

SPILLY = """\
ptxas info    : Compiling entry function '_Z5heavyPfi' for 'sm_35'
ptxas info    : Function properties for _Z5heavyPfi
    96 bytes stack frame, 100 bytes spill stores, 120 bytes spill loads
ptxas info    : Used 255 registers, 32 bytes cumulative stack size, 512 bytes smem, 384 bytes cmem[0], 8 bytes cmem[2]
"""


def test_parse_nvcc13_output():
    f = parse_ptxas_output(NVCC13)
    k = f["_Z12occ_smem_40kPKfPfi"]
    assert (k.registers, k.barriers, k.static_smem_bytes, k.stack_frame_bytes, k.spill_bytes) == (25, 1, 40960, 0, 0)
    assert k.is_entry and k.arch == "sm_90" and k.plain_name == "occ_smem_40k"
    ldi = f["_Z19local_dynamic_indexPKfPfi"]
    assert (ldi.registers, ldi.stack_frame_bytes, ldi.cumulative_stack_bytes) == (31, 256, 256)
    dev = f["_Z3devfi"]
    assert not dev.is_entry and dev.registers is None and dev.stack_frame_bytes == 72
    assert f["_ZN2gt12gt_fill_permEPiij"].plain_name == "gt_fill_perm"
    assert R._parse_gmem(NVCC13) == 0


def test_parse_old_formats():
    f = parse_ptxas_output(OLD_SM13)
    m = f["_Z6matmulPfS_S_i"]
    assert (m.registers, m.static_smem_bytes, m.param_smem_bytes, m.constant_bytes) == (14, 2048, 16, {1: 8})
    c = f["plain_c"]
    assert (c.registers, c.local_bytes, c.static_smem_bytes) == (3, 20, 12)
    s = parse_ptxas_output(SPILLY)["_Z5heavyPfi"]
    assert (s.registers, s.spill_store_bytes, s.spill_load_bytes, s.spill_bytes) == (255, 100, 120, 220)
    assert (s.stack_frame_bytes, s.cumulative_stack_bytes, s.static_smem_bytes) == (96, 32, 512)
    assert s.constant_bytes == {0: 384, 2: 8}


def test_parse_garbage_is_empty():
    assert parse_ptxas_output("") == {}
    assert parse_ptxas_output("nvcc fatal : something\n") == {}


def test_builtin_name_decoder():
    assert base_name("_Z12occ_smem_40kPKfPfi") == "occ_smem_40k"
    assert base_name("_ZN2gt12gt_fill_permEPiij") == "gt_fill_perm"
    assert base_name("_Z4kernILi4EEvPfi") == "kern"
    assert base_name("_ZN2ns5inner6kernelIfEEvPT_") == "kernel"
    assert base_name("void ns::kern<4>(float*, int)") == "kern"
    assert base_name("cfun") == "cfun"
    assert R._qualified_name("void ns::kern<foo<int>>(float*)") == "ns::kern"


@pytest.mark.skipif(R._demangler() is None, reason="no c++filt/cu++filt")
def test_demangler():
    d = R.demangle(["_Z4kernILi4EEvPfi", "_ZN2ns2k2EPf", "cfun"])
    assert d == {"_Z4kernILi4EEvPfi": "void kern<4>(float*, int)", "_ZN2ns2k2EPf": "ns::k2(float*)", "cfun": "cfun"}


# --------------------------------------------------------------------------- real compilations
SRC = r"""
__device__ __noinline__ float dev(float x, int n) { float a[16]; for (int i = 0; i < 16; i++) a[i] = x * i; return a[n & 15]; }
template <int N> __global__ void kern(float* p, int n) { p[threadIdx.x] = dev(p[threadIdx.x], n) * N; }
template __global__ void kern<4>(float*, int);
namespace ns {
__global__ void tile(const float* a, float* b) {
    __shared__ float s[32][33];
    s[threadIdx.y][threadIdx.x] = a[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    b[threadIdx.x * 32 + threadIdx.y] = s[threadIdx.x][threadIdx.y];
}
}
extern "C" __global__ void cfun(int* q) { q[threadIdx.x] = threadIdx.x; }
"""


def _direct_ptxas(path: Path, arch: str = "sm_90", extra=()) -> dict[str, dict[str, int]]:
    """What `nvcc -Xptxas -v` prints, read with this test's own regular expressions."""
    p = subprocess.run([NVCC, f"-arch={arch}", "-Xptxas", "-v", "-c", "-o", "/dev/null", *extra, str(path)],
                       capture_output=True, text=True, check=True)
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in (p.stdout + p.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = m.group(1)
            out[cur] = {}
        m = re.search(r"Function properties for (\S+)", line)
        if m and m.group(1) != cur:
            cur = None  # a device function's properties, not the entry's
        m = re.search(r"(\d+) bytes stack frame", line)
        if m and cur:
            out[cur]["stack"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            out[cur]["regs"] = int(m.group(1))
            sm = re.search(r"(\d+) bytes smem", line)
            out[cur]["smem"] = int(sm.group(1)) if sm else 0
    return out


@needs_nvcc
def test_real_compile_matches_nvcc_verbose(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    rep = ptxas_resources(src, "sm_90")
    assert rep.ok, rep.reason
    assert not rep.cached and rep.nvcc_version
    direct = _direct_ptxas(src)
    assert set(direct) == set(rep.kernels)
    for name, want in direct.items():
        k = rep.kernels[name]
        assert isinstance(k.registers, int) and k.registers > 0
        assert k.registers == want["regs"], name
        assert k.static_smem_bytes == want["smem"], name
        assert k.stack_frame_bytes == want["stack"], name
    assert rep.find("tile").static_smem_bytes == 32 * 33 * 4 and rep.find("tile").barriers == 1
    assert rep.find("ns::tile") is rep.find("tile")
    assert rep.find("cfun").name == "cfun"
    assert rep.find("kern").demangled in (None, "void kern<4>(float*, int)")
    assert rep.find("nonexistent") is None


@needs_nvcc
def test_cache_hit_and_invalidation(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    a = ptxas_resources(src, "sm_90")
    b = ptxas_resources(src, "sm_90")
    assert a.ok and b.ok and not a.cached and b.cached
    assert {k: v.registers for k, v in a.functions.items()} == {k: v.registers for k, v in b.functions.items()}
    assert list((tmp_path / "cache" / "ptxas").rglob("*.json"))
    c = ptxas_resources(src, "sm_80")  # other arch: other key
    assert c.ok and not c.cached
    src.write_text(SRC + "\n__global__ void extra(int* p) { p[0] = 2; }\n")
    d = ptxas_resources(src, "sm_90")
    assert not d.cached and d.find("extra") is not None
    e = ptxas_resources(src, "sm_90", use_cache=False)
    assert not e.cached


@needs_nvcc
def test_included_header_changes_invalidate(tmp_path):
    (tmp_path / "inc").mkdir()
    hdr = tmp_path / "inc" / "k.cuh"
    hdr.write_text("#define N 4\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "k.cuh"\n__global__ void g(float* p) { __shared__ float s[N]; s[threadIdx.x % N] = p[0]; __syncthreads(); p[1] = s[0]; }\n')
    a = ptxas_resources(src, "sm_90", include_dirs=[tmp_path / "inc"])
    assert a.ok and a.find("g").static_smem_bytes == 16
    hdr.write_text("#define N 64\n")
    b = ptxas_resources(src, "sm_90", include_dirs=[tmp_path / "inc"])
    assert not b.cached and b.find("g").static_smem_bytes == 256


@needs_nvcc
def test_defines_reach_the_compiler(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void g(float* p) { __shared__ float s[TILE]; s[threadIdx.x % TILE] = p[0]; __syncthreads(); p[1] = s[1]; }\n")
    assert ptxas_resources(src, "sm_90", defines=["TILE=8"]).find("g").static_smem_bytes == 32
    assert ptxas_resources(src, "sm_90", defines=["-DTILE=32"]).find("g").static_smem_bytes == 128


@needs_nvcc
def test_arch_spellings(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    rep = ptxas_resources(src, "9.0")
    assert rep.ok and rep.arch == "sm_90" and f"-arch=sm_90" in rep.command
    supported = R.supported_archs() or []
    if "sm_100" in supported:
        rep = ptxas_resources(src, "sm_100a")
        assert rep.ok and rep.arch == "sm_100a" and next(iter(rep.kernels.values())).arch == "sm_100a"


# --------------------------------------------------------------------------- failure modes
def test_missing_nvcc(tmp_path, monkeypatch):
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    monkeypatch.setattr(R, "find_nvcc", lambda nvcc=None: None)
    from cudalint.analyzer import nvrtc
    monkeypatch.setattr(nvrtc, "find_nvrtc", lambda: None)
    rep = ptxas_resources(src, "sm_90")
    assert not rep.ok and "nvcc not found" in rep.reason and "NVRTC" in rep.reason and rep.functions == {}


def test_missing_file(tmp_path):
    rep = ptxas_resources(tmp_path / "nope.cu", "sm_90")
    assert not rep.ok and "cannot read" in rep.reason


@needs_nvcc
def test_dropped_architecture(tmp_path):
    supported = R.supported_archs()
    if not supported or "sm_70" in supported:
        pytest.skip("this nvcc still supports sm_70")
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    rep = ptxas_resources(src, "sm_70")
    assert not rep.ok and "sm_70" in rep.reason and "sm_75" in rep.reason
    rep = ptxas_resources(src, "sm_13")
    assert not rep.ok


@needs_nvcc
def test_compile_error(tmp_path):
    src = tmp_path / "bad.cu"
    src.write_text("__global__ void broken(float* p) { p[0] = undeclared_thing; }\n")
    rep = ptxas_resources(src, "sm_90")
    assert not rep.ok and "error" in rep.reason.lower() and rep.functions == {}
    assert "undeclared_thing" in rep.log


@needs_nvcc
def test_timeout_is_reported_not_raised(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_PTXAS_BACKEND", "nvcc")  # NVRTC runs in-process, without a timeout
    src = tmp_path / "k.cu"
    src.write_text(SRC)
    rep = ptxas_resources(src, "sm_90", timeout=0.001, use_cache=False)
    assert not rep.ok and "timed out" in rep.reason


# --------------------------------------------------------------------------- ground truth
def _gt_kernels():
    if not GT_JSON.is_file():
        return []
    return sorted(json.loads(GT_JSON.read_text())["kernels"].items())


@needs_nvcc
@pytest.mark.skipif(not GT_JSON.is_file(), reason="../shared/groundtruth not present")
def test_groundtruth_ptxas_counts(tmp_path):
    doc = json.loads(GT_JSON.read_text())
    m = re.search(r"nvcc (\d+\.\d+)", doc.get("tools", ""))
    local = R.nvcc_version() or ""
    if not m or not local.startswith(m.group(1) + "."):
        pytest.skip(f"measured with nvcc {m.group(1) if m else '?'}, local nvcc is {local}: counts may differ")
    kdir = GT_DIR / "kernels"
    kernels = _gt_kernels()

    def one(item):
        name, e = item
        return name, e, ptxas_resources(GT_DIR / e["file"], "sm_90", include_dirs=[kdir])

    with ThreadPoolExecutor(max_workers=8) as ex:
        results = list(ex.map(one, kernels))
    assert len(results) == 24
    for name, e, rep in results:
        assert rep.ok, (name, rep.reason)
        k = rep.find(name)
        assert k is not None and k.is_entry, name
        assert k.registers == e["ptxas_registers"], name
        assert k.stack_frame_bytes == e["stack_frame_bytes"], name
        assert k.spill_bytes == e["spill_bytes"], name
        assert k.static_smem_bytes == e["static_smem_bytes"], name


# --------------------------------------------------------------------------- nvcc's own facts
def _fake_toolkit(tmp_path: Path, release: str) -> tuple[Path, Path, Path]:
    """A compiler binary (a script here) that counts its runs, and a wrapper naming it."""
    count = tmp_path / "runs.txt"
    real = tmp_path / "cuda" / "bin" / "nvcc"
    real.parent.mkdir(parents=True)
    real.write_text(f"#!/bin/sh\necho run >> {count}\n"
                    f"case \"$1\" in --version) echo 'Cuda compilation tools, release {release}, V{release}.7';;\n"
                    "--list-gpu-arch) printf 'compute_75\\ncompute_90\\n';; esac\n")
    real.chmod(0o755)
    wrapper = tmp_path / "bin" / "nvcc"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, real, count


def test_nvcc_version_and_archs_kept_on_disk_until_the_compiler_changes(tmp_path):
    wrapper, real, count = _fake_toolkit(tmp_path, "12.4")
    runs = lambda: len(count.read_text().split()) if count.exists() else 0  # noqa: E731
    assert R.nvcc_version(str(wrapper)) == "12.4.7" and R.supported_archs(str(wrapper)) == ["sm_75", "sm_90"]
    assert runs() == 2
    R._tool_fact.cache_clear()  # a new process: read from disk, nvcc not run
    assert R.nvcc_version(str(wrapper)) == "12.4.7" and R.supported_archs(str(wrapper)) == ["sm_75", "sm_90"]
    assert runs() == 2
    # the toolkit behind the unchanged wrapper is replaced: its identity changes, nvcc is asked
    real.write_text(real.read_text().replace("12.4", "12.8"))
    R._tool_fact.cache_clear()
    assert R.nvcc_version(str(wrapper)) == "12.8.7" and runs() == 3


def test_a_wrapper_that_finds_nvcc_on_path_is_asked_every_process(tmp_path):
    _, real, count = _fake_toolkit(tmp_path, "12.4")
    blind = tmp_path / "blind-nvcc"
    blind.write_text('#!/bin/sh\nexec nvcc "$@"\n')  # which nvcc runs is decided by PATH
    blind.chmod(0o755)
    assert R._tool_identity(str(blind)) is None
    ident = R._tool_identity(str(tmp_path / "bin" / "nvcc"))
    assert ident is not None and ident[1][0] == str(real.resolve())


def test_a_header_nowhere_nvcc_looks_is_found_missing_without_compiling(tmp_path):
    # Which #include stops the preprocessor: one outside any #if (the include guard aside),
    # not in a comment, naming a header in none of the directories searched.
    (tmp_path / "here.h").write_text("int x;\n")
    src = tmp_path / "k.cuh"
    src.write_text('#ifndef K_CUH\n#define K_CUH\n/* #include <not_in_a_comment.h>\n*/\n'
                   '#include "here.h"\n#ifdef USE_MPI\n#include <mpi.h>\n#endif\n'
                   '#include <nowhere_lib.h>\n__global__ void k() {}\n#endif\n')
    sysdir = tmp_path / "sys"
    sysdir.mkdir()
    assert R._absent_include(src, [str(sysdir)]) == (9, 10, "nowhere_lib.h")
    (sysdir / "nowhere_lib.h").write_text("")
    assert R._absent_include(src, [str(sysdir)]) is None  # now found; mpi.h is conditional
    assert R._absent_include(src, []) is None  # the compiler's directories unknown: no guess


@needs_nvcc
def test_the_missing_header_report_is_the_one_nvcc_gives(tmp_path):
    # The same report whether nvcc runs or the missing header is seen first (one compile fewer).
    src = tmp_path / "m.cu"
    src.write_text("#include <stdio.h>\n  #include <cudalint_absent_header.h>\n__global__ void k(float *p) { p[0] = 1; }\n")
    cmd = [NVCC, "-cubin", "-arch=sm_90", "-o", "/dev/null", str(src)]
    ran = R._nvcc_run(cmd, "sm_90", NVCC, None, 120)
    dirs = R._header_search_dirs(NVCC, [str(tmp_path)])
    seen = R._not_found(R._absent_include(src, dirs), str(src), cmd, "sm_90", NVCC, None)
    assert not ran.ok and not seen.ok
    assert seen.reason == ran.reason
    assert R._missing_header(seen) == "cudalint_absent_header.h"
