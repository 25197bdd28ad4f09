"""Several files' device code in one nvcc call (analyzer/ptxas_batch): which files may share a
translation unit (pure: the device-code facts of small sources), and, with nvcc, that each file
of a batch gets the report a compile of that file alone gives."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from cudalint.analyzer import ptxas_batch as PB
from cudalint.analyzer import ptxas_jobs
from cudalint.analyzer import registers as R
from cudalint.analyzer.device_code import device_code

ROOT = Path(__file__).resolve().parents[1]
NVCC = R.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CUDALINT_NICE", "0")


def dc(tmp_path: Path, name: str, text: str):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return device_code(str(p), [str(p.parent)])


KERNEL = "__global__ void {k}(float *x) {{ x[threadIdx.x] = {body}; }}\n"


# --------------------------------------------------------------------------- pure rules
def test_a_name_one_file_declares_and_the_other_uses_keeps_them_apart(tmp_path):
    # b calls a `lerp` it does not declare (alone it finds another one): in a batch it would see a's
    a = dc(tmp_path, "a.cu", "__device__ float lerp(float a, float b, float t) { return a + t * (b - a); }\n"
           + KERNEL.format(k="ka", body="lerp(x[0], x[1], 0.5f)"))
    b = dc(tmp_path, "b.cu", KERNEL.format(k="kb", body="lerp(x[0], x[1], 0.25f)"))
    assert PB.conflict(a, b) == "`lerp` is declared by one and used by the other"
    assert PB.conflict(b, a) == PB.conflict(a, b)


def test_the_same_function_name_in_two_files_keeps_them_apart(tmp_path):
    a = dc(tmp_path, "a.cu", "__device__ float sq(float v) { return v * v; }\n" + KERNEL.format(k="ka", body="sq(x[0])"))
    b = dc(tmp_path, "b.cu", "__device__ double sq(double v) { return v * v; }\n" + KERNEL.format(k="kb", body="sq(1.0)"))
    assert "`sq`" in PB.conflict(a, b)


def test_disjoint_files_batch_and_identical_aliases_are_one_declaration(tmp_path):
    head = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
    a = dc(tmp_path, "a.cu", head + KERNEL.format(k="ka", body="cg::this_thread_block().thread_rank()"))
    b = dc(tmp_path, "b.cu", head + KERNEL.format(k="kb", body="cg::this_grid().size()"))
    assert PB.conflict(a, b) is None
    c = dc(tmp_path, "c.cu", "#include <cooperative_groups.h>\nnamespace cg = cuda::std;\n"
           + KERNEL.format(k="kc", body="cg::max(x[0], x[1])"))
    assert PB.conflict(a, c) == "`cg` is declared by one and used by the other"


def test_system_headers_and_using_directives_must_be_the_same(tmp_path):
    a = dc(tmp_path, "a.cu", "#include <cuda_fp16.h>\n" + KERNEL.format(k="ka", body="__half2float(__float2half(x[0]))"))
    b = dc(tmp_path, "b.cu", KERNEL.format(k="kb", body="x[1]"))
    assert PB.conflict(a, b) == "different system headers"
    c = dc(tmp_path, "c.cu", "#include <cuda_fp16.h>\nusing namespace std;\n" + KERNEL.format(k="kc", body="x[2]"))
    assert PB.conflict(a, c) == "different using-directives"


@pytest.mark.parametrize("text,reason", [
    ("template <int N> __global__ void k(float *x) { x[0] = N; }\nvoid h(float *x) { k<4><<<1, 1>>>(x); }\n",
     "template kernels"),
    (KERNEL.format(k="k", body='printf("%f", x[0])'), "global data"),
    (KERNEL.format(k="k", body="(assert(x[0] > 0), x[0])"), "global data"),
    ("__device__ int counter;\n" + KERNEL.format(k="k", body="counter"), "global data"),
    ("__global__ void k(int *x) { static __device__ int n; x[0] = n++; }\n", "global data"),
    (KERNEL.format(k="k", body="sinf(x[0])"), "global data"),  # __cudart_i2opi_f: 24 bytes gmem
    ("__device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }\n"
     + KERNEL.format(k="k", body="x[0]"), "operator overloads"),
    ("#pragma GCC optimize(\"O0\")\n" + KERNEL.format(k="k", body="x[0]"), "#pragma GCC"),
    ("#pragma pack(push, 1)\nstruct P { char c; int i; };\n" + KERNEL.format(k="k", body="sizeof(P)"), "#pragma pack"),
])
def test_what_is_never_batched(tmp_path, text, reason):
    assert (PB.alone_reason(dc(tmp_path, "k.cu", text)) or "").startswith(reason)


@pytest.mark.parametrize("text", [
    'extern "C" __global__ void k(float *x) { x[0] = 1; }\n',  # unmangled, but its name is its own
    '__global__ void k(int *x) { int v; asm volatile("mov.u32 %0, %%laneid;" : "=r"(v)); x[0] = v; }\n',
    "struct V { float a; };\n__device__ V operator+(V p, V q) { V r; r.a = p.a + q.a; return r; }\n"
    + KERNEL.format(k="k", body="(V{x[0]} + V{x[1]}).a"),  # only on its own type: no one else has a V
    "#pragma pack(push, 1)\nstruct P { char c; int i; };\n#pragma pack(pop)\n" + KERNEL.format(k="k", body="sizeof(P)"),
    "#define N 4\n#pragma unroll\n" + KERNEL.format(k="k", body="N"),
])
def test_what_may_be_batched(tmp_path, text):
    d = dc(tmp_path, "k.cu", text)
    assert PB.alone_reason(d) is None
    assert not d.global_data


def test_each_files_macros_and_packing_are_saved_and_restored(tmp_path):
    a = dc(tmp_path, "a.cu", "#define BLOCK 128\n#pragma pack(push, 1)\nstruct P { char c; int i; };\n#pragma pack(pop)\n"
           + KERNEL.format(k="ka", body="BLOCK + sizeof(P)"))
    b = dc(tmp_path, "b.cu", "#ifndef BLOCK\n#define BLOCK 64\n#endif\n" + KERNEL.format(k="kb", body="BLOCK"))
    src = PB.batch_source([SimpleNamespace(dc=a), SimpleNamespace(dc=b)])
    ka, kb = src.index("void ka"), src.index("void kb")
    assert src.index('#pragma push_macro("BLOCK")') < ka < src.index('#pragma pop_macro("BLOCK")') < kb
    assert src.index("#pragma pack(push)\n") < ka < src.index("#pragma pack(pop)\n#pragma pop_macro") < kb
    assert src.rindex('#pragma pop_macro("BLOCK")') > kb  # b's own definition is undone after it too


def test_an_extra_include_dir_holding_a_system_header_name_keeps_files_apart(tmp_path):
    text = "#include <cooperative_groups.h>\n" + KERNEL.format(k="{k}", body="1")
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a = dc(a_dir, "a.cu", text.replace("{k}", "ka"))
    b = dc(b_dir, "b.cu", text.replace("{k}", "kb"))

    def plan(d, src):
        return SimpleNamespace(dc=d, inc=[], src=src, tool="/nonexistent/nvcc")

    pa, pb = plan(a, a_dir / "a.cu"), plan(b, b_dir / "b.cu")
    assert PB.batch_dirs([pa, pb]) == [str(a_dir.resolve()), str(b_dir.resolve())]
    (b_dir / "cooperative_groups.h").write_text("")  # a's include would find it in b's directory
    assert PB.batch_dirs([pa, pb]) is None


# --------------------------------------------------------------------------- with nvcc
FIXTURES = [ROOT / "fixtures" / "examples" / "matmul.cu", ROOT / "fixtures" / "examples" / "transpose.cu",
            ROOT / "fixtures" / "occupancy" / "register_limited.cu"]
FIELDS = ("is_entry", "registers", "barriers", "stack_frame_bytes", "spill_store_bytes", "spill_load_bytes",
          "static_smem_bytes", "local_bytes", "cumulative_stack_bytes", "constant_bytes")


def resources(rep):
    return {k: tuple(getattr(f, x) for x in FIELDS) for k, f in rep.functions.items()}


@needs_nvcc
def test_a_batch_of_three_fixtures_gives_each_its_single_compile_report(tmp_path):
    plans = [R.nvcc_plan(str(f), "sm_90") for f in FIXTURES]
    assert PB.choose(plans, 8) == [0, 1, 2]
    alone = [p.compile() for p in plans]
    before = dict(PB.stats)
    batched = PB.compile_batch(plans)
    assert PB.stats["batches"] == before["batches"] + 1 and PB.stats["batched_files"] == before["batched_files"] + 3
    for f, a, b in zip(FIXTURES, alone, batched):
        assert a.ok and b.ok and a.functions
        assert resources(b) == resources(a)
        assert (b.gmem_bytes, b.mode) == (a.gmem_bytes, a.mode) == (0, "device code only")
        assert sorted(b.batch) == sorted(str(g) for g in FIXTURES if g != f)
        # stored where a one-file run looks: it reads the batch's report
        again = R.ptxas_resources(str(f), "sm_90")
        assert again.cached and resources(again) == resources(a)


@needs_nvcc
def test_a_macro_of_one_file_does_not_reach_the_next(tmp_path):
    (tmp_path / "a.cu").write_text("#define BLOCK 128\n__global__ void ka(float *x) {\n"
                                   "  __shared__ float s[BLOCK]; s[threadIdx.x] = x[0]; __syncthreads();"
                                   " x[threadIdx.x] = s[BLOCK - 1 - threadIdx.x]; }\n")
    (tmp_path / "b.cu").write_text("#ifndef BLOCK\n#define BLOCK 64\n#endif\n__global__ void kb(float *x) {\n"
                                   "  __shared__ float s[BLOCK]; s[threadIdx.x] = x[0]; __syncthreads();"
                                   " x[threadIdx.x] = s[BLOCK - 1 - threadIdx.x]; }\n")
    plans = [R.nvcc_plan(str(tmp_path / n), "sm_90") for n in ("a.cu", "b.cu")]
    ra, rb = PB.compile_batch(plans, use_cache=False)
    assert rb.batch == [str(tmp_path / "a.cu")]
    assert rb.find("kb").static_smem_bytes == 64 * 4  # alone; 512 if a's BLOCK leaked into b
    assert ra.find("ka").static_smem_bytes == 128 * 4


@needs_nvcc
def test_a_file_that_does_not_compile_leaves_the_batch(tmp_path):
    for n, body in (("a.cu", "x[0]"), ("b.cu", "undeclared_thing"), ("c.cu", "x[2]")):
        (tmp_path / n).write_text(KERNEL.format(k="k" + n[0], body=body))
    plans = [R.nvcc_plan(str(tmp_path / n), "sm_90") for n in ("a.cu", "b.cu", "c.cu")]
    before = dict(PB.stats)
    ra, rb, rc = PB.compile_batch(plans, use_cache=False)
    assert PB.stats["retries"] == before["retries"] + 1
    assert ra.ok and rc.ok and ra.batch == [str(tmp_path / "c.cu")] and rc.batch == [str(tmp_path / "a.cu")]
    alone = plans[1].compile()
    assert not rb.ok and rb.reason == alone.reason and not rb.batch


@needs_nvcc
def test_background_jobs_share_one_nvcc_call(tmp_path, monkeypatch):
    """The engine queues every file's compile up front; a worker takes the next ones that fit."""
    from cudalint.analyzer.options import AnalysisOptions

    calls = []
    gate = threading.Event()
    real = R._nvcc_run

    def counted(cmd, *a, **k):
        calls.append(cmd[-1])
        if len(calls) == 1:
            gate.wait(60)  # the first job's compile runs until every job is queued
        return real(cmd, *a, **k)

    monkeypatch.setattr(R, "_nvcc_run", counted)
    monkeypatch.delenv("CUDALINT_PTXAS_BATCH", raising=False)
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})  # no report of an earlier test for these files
    monkeypatch.setattr(ptxas_jobs, "_plans", {})
    files = [ROOT / "fixtures" / "occupancy" / "block_sizes.cu"] + FIXTURES
    opts = AnalysisOptions(include_dirs=[])
    ptxas_jobs.finish()
    ptxas_jobs.set_threads(1)
    try:
        for f in files:
            ptxas_jobs.start(str(f), opts)
        gate.set()
        reps = [ptxas_jobs.report(str(f), opts.arch, [], [], None) for f in files]
    finally:
        ptxas_jobs.finish()
    # the first job is taken at once and alone (the analysis of the first file waits for it),
    # the others in one batch while it compiles
    assert len(calls) == 2
    assert sorted(str(f) for f, r in zip(files, reps) if r.batch) in (
        sorted(map(str, files)), sorted(map(str, FIXTURES)))
    for f, rep in zip(files, reps):
        alone = R.nvcc_plan(str(f), "sm_90").compile()
        assert resources(rep) == resources(alone), f


STATIC_4 = ("__global__ void {k}(int *x) {{ __shared__ int s; if (threadIdx.x == 0) s = 0; __syncthreads();"
            " atomicAdd(&s, x[threadIdx.x]); __syncthreads(); x[0] = s; }}\n")
DYNAMIC = "__global__ void {k}(int *x) {{ extern __shared__ int d[]; x[0] = d[threadIdx.x]; }}\n"


def test_extern_shared_in_one_file_only_keeps_them_apart(tmp_path):
    # cicc aligns an extern __shared__ array to 16 and ptxas then rounds every kernel's static
    # shared memory up to 16 bytes: found on HeCBench (sad-cuda batched with rsc-cuda: 4 -> 16)
    a = dc(tmp_path, "a.cu", STATIC_4.format(k="ka"))
    b = dc(tmp_path, "b.cu", DYNAMIC.format(k="kb"))
    assert PB.conflict(a, b) == "extern __shared__ in one only"
    assert b.dynamic_shared and not a.dynamic_shared
    unused = dc(tmp_path, "c.cu", "__global__ void kc(int *x) { extern __shared__ int d[]; x[0] = 1; }\n"
                + STATIC_4.format(k="kd"))
    assert PB.alone_reason(unused) == "an extern __shared__ array it does not use"
    # without static shared variables there is nothing to round: 0 bytes either way
    no_static = dc(tmp_path, "d.cu", "__global__ void ke(int *x) { extern __shared__ int d[]; x[0] = 1; }\n")
    assert PB.alone_reason(no_static) is None and PB.conflict(no_static, a) == "extern __shared__ in one only"
    assert PB.conflict(no_static, b) is None and PB.conflict(b, dc(tmp_path, "e.cu", KERNEL.format(k="kf", body="1"))) is None


@needs_nvcc
def test_files_that_all_use_extern_shared_batch_with_their_rounding(tmp_path):
    (tmp_path / "a.cu").write_text(STATIC_4.format(k="ka") + DYNAMIC.format(k="da"))
    (tmp_path / "b.cu").write_text(STATIC_4.format(k="kb") + DYNAMIC.format(k="db"))
    (tmp_path / "c.cu").write_text(STATIC_4.format(k="kc"))
    plans = [R.nvcc_plan(str(tmp_path / n), "sm_90") for n in ("a.cu", "b.cu", "c.cu")]
    assert PB.choose(plans, 8) == [0, 1]
    alone = [p.compile() for p in plans]
    assert alone[0].find("ka").static_smem_bytes == 16 and alone[2].find("kc").static_smem_bytes == 4
    batched = PB.compile_batch(plans[:2], use_cache=False)
    assert [resources(r) for r in batched] == [resources(r) for r in alone[:2]] and batched[0].batch


@needs_nvcc
def test_what_common_headers_put_in_every_compile_is_each_files(tmp_path):
    # cub/cub.cuh puts CUB's EmptyKernel and 40 bytes of libcu++ objects (gmem) into every
    # compile (nvcc 13): alone each file's report has them, so each batched one must too
    for n in ("a", "b"):
        (tmp_path / f"{n}.cu").write_text("#include <cub/cub.cuh>\n" + KERNEL.format(k="k" + n, body=f"x[{n == 'b':d}] * 2"))
    plans = [R.nvcc_plan(str(tmp_path / f"{n}.cu"), "sm_90") for n in ("a", "b")]
    alone = [p.compile() for p in plans]
    batched = PB.compile_batch(plans, use_cache=False)
    assert all(r.batch for r in batched)
    for a, b in zip(alone, batched):
        assert resources(b) == resources(a) and b.gmem_bytes == a.gmem_bytes
    assert any(f.plain_name == "EmptyKernel" for f in batched[0].functions.values()) == \
        any(f.plain_name == "EmptyKernel" for f in alone[0].functions.values())



@needs_nvcc
def test_the_headers_own_compile_runs_only_where_the_batch_needs_it(tmp_path, monkeypatch):
    from cudalint.analyzer import system_headers

    runs = []
    real = system_headers.baseline
    monkeypatch.setattr(system_headers, "baseline", lambda *a, **k: (runs.append(a[-1]), real(*a, **k))[1])
    for n in ("a", "b"):  # every function of the batch is one file's: nothing to learn from the headers
        (tmp_path / f"{n}.cu").write_text("#include <cooperative_groups.h>\n"
                                          + KERNEL.format(k="k" + n, body=f"x[{n == 'b':d}] * 2"))
    plans = [R.nvcc_plan(str(tmp_path / f"{n}.cu"), "sm_90") for n in ("a", "b")]
    alone = [p.compile() for p in plans]
    batched = PB.compile_batch(plans, use_cache=False)
    assert all(r.batch for r in batched) and runs == []
    for a, b in zip(alone, batched):
        assert resources(b) == resources(a) and b.gmem_bytes == a.gmem_bytes
    for n in ("c", "d"):  # CUB's EmptyKernel belongs to no file: the headers' compile tells
        (tmp_path / f"{n}.cu").write_text("#include <cub/cub.cuh>\n" + KERNEL.format(k="k" + n, body="x[0]"))
    PB.compile_batch([R.nvcc_plan(str(tmp_path / f"{n}.cu"), "sm_90") for n in ("c", "d")], use_cache=False)
    assert runs == [("cub/cub.cuh",)]


def test_batches_only_where_cpu_is_short(monkeypatch):
    """Batching saves nvcc CPU but makes a file's report wait for its batch: with 4 or more
    compile threads (cores to spare) each file has its own call."""
    from cudalint.analyzer import ptxas_jobs

    monkeypatch.delenv("CUDALINT_PTXAS_BATCH", raising=False)
    monkeypatch.setattr(ptxas_jobs, "_taken", 5)
    monkeypatch.setattr(ptxas_jobs, "_threads", 2)
    assert ptxas_jobs._batch_limit() == 8
    monkeypatch.setattr(ptxas_jobs, "_taken", 0)  # the run's first job: its file's analysis waits
    assert ptxas_jobs._batch_limit() == 1
    monkeypatch.setattr(ptxas_jobs, "_taken", 5)
    monkeypatch.setattr(ptxas_jobs, "_threads", 4)
    assert ptxas_jobs._batch_limit() == 1
    monkeypatch.setenv("CUDALINT_PTXAS_BATCH", "3")
    assert ptxas_jobs._batch_limit() == 3


def test_two_workers_do_not_split_a_batch(tmp_path, monkeypatch):
    # With two compile threads, the second used to take the next job while the first was still
    # choosing its partners: each took part of the same batch (cuda-samples' bitonicSort was
    # compiled alone, reading cooperative_groups.h again). One worker chooses at a time now.
    import time as _time

    files = []
    for i in range(6):
        f = tmp_path / f"k{i}.cu"
        f.write_text(f"__global__ void k{i}(int *x) {{ x[0] = {i}; }}\n")
        files.append(f)
    batches, alone = [], []

    def slow_choose(plans, limit):
        _time.sleep(0.3)  # the first worker is still choosing when the second is free
        return list(range(min(limit, len(plans))))

    def fake_batch(plans):
        batches.append(len(plans))
        return [f"report {i}" for i in range(len(plans))]

    monkeypatch.setattr(PB, "choose", slow_choose)
    monkeypatch.setattr(PB, "compile_batch", fake_batch)
    monkeypatch.setattr(ptxas_jobs, "_plan", lambda key: key)
    monkeypatch.setattr(ptxas_jobs, "_no_kernel", lambda key: False)
    monkeypatch.setattr(ptxas_jobs, "_compile", lambda key, *a: alone.append(key) or "alone")
    monkeypatch.setattr(ptxas_jobs, "_jobs", {})
    monkeypatch.setattr(ptxas_jobs, "_taken", 5)  # past the small first batch: 8 a batch
    monkeypatch.setenv("CUDALINT_PTXAS_BATCH", "8")
    from cudalint.analyzer.options import AnalysisOptions

    opts = AnalysisOptions(include_dirs=[])
    ptxas_jobs.finish()
    ptxas_jobs.set_threads(2)
    try:
        with ptxas_jobs.queueing():
            for f in files:
                ptxas_jobs.start(str(f), opts)
        futs = list(ptxas_jobs._jobs.values())
        assert len(futs) == 6
        for fut in futs:
            fut.result(timeout=30)
    finally:
        ptxas_jobs.finish()
        ptxas_jobs.set_threads(1)
    assert batches == [6] and alone == []


@needs_nvcc
def test_what_cuda_runtime_h_reads_is_listed_once_a_process(tmp_path, monkeypatch):
    from cudalint.analyzer import system_headers as SH

    listed = []
    real = SH._dependencies
    monkeypatch.setattr(SH, "_dependencies", lambda tool, sm, inc: (listed.append(inc), real(tool, sm, inc))[1])
    monkeypatch.setattr(SH, "_base_memo", {})
    monkeypatch.setattr(SH, "_memo", {})
    a = SH.header_names(NVCC, None, "sm_90", ("cuda_fp16.h",))
    b = SH.header_names(NVCC, None, "sm_90", ("mma.h",))
    assert sorted(listed) == [(), ("cuda_fp16.h",), ("mma.h",)]  # not () once per include set
    assert "__half2float" in a.identifiers and "nvcuda" in b.identifiers and "nvcuda" not in a.identifiers
