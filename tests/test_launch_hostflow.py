"""Launch configurations and kernel arguments resolved through real host code
(analyzer/hostflow.py, analyzer/constprop.py). Each expected value is the C arithmetic done by
hand in the comment next to it."""
from __future__ import annotations

import textwrap

import pytest

from cudalint.analyzer.launch import resolve_launch_sites
from cudalint.analyzer.pipeline import AnalysisOptions, FileAnalysis, analyze_file, lower

HOST = r"""
#include <math.h>
#include <algorithm>
#define NI 1000
#define BS 128
const int N = 4096;
constexpr int TPB = 256;
static const unsigned int WIDTH = 1000;
__global__ void k(int n, float *a) { if (threadIdx.x < n) a[threadIdx.x] = n; }
int iDivUp(int a, int b) { return (a % b != 0) ? (a / b + 1) : (a / b); }
inline int divup(int a, int b) { int q = a / b; if (a % b) q++; return q; }
void run(int ni, float *a) {
  dim3 block(32, 8);
  dim3 grid1((size_t)(ceil(((float)NI) / ((float)block.x))), (size_t)ceil(((float)NI) / ((float)block.y)));
  k<<<grid1, block>>>(ni, a);
  k<<<(N + TPB - 1) / TPB, TPB>>>(N, a);
  k<<<N / BS + (N % BS != 0), BS>>>(N, a);
  k<<<iDivUp(NI, BS), BS>>>(ni, a);
  k<<<divup(NI, BS), BS>>>(ni, a);
  k<<<std::min(64, (NI + 255) / 256), 256>>>(ni, a);
  k<<<(int)floor(NI / 256.0) + 1, 256>>>(ni, a);
  size_t bytes = WIDTH * sizeof(float);
  unsigned int blocks = (WIDTH + BS - 1) / BS;
  k<<<blocks, BS>>>(bytes, a);
  dim3 g2; g2.x = grid1.y; g2.y = 2;
  k<<<g2, block>>>(ni, a);
  int m = ni * 2;
  k<<<m / 32, 32>>>(m, a);
  unsigned int u = 0u - 1u;
  k<<<u / 2147483648u, 32>>>(1, a);
}
int main(int argc, char **argv) {
  int ni = NI; float *a; run(ni, a);
  int n = atoi(argv[1]);
  k<<<n / 256, 256>>>(n, a);
  for (int t = 1; t < 4; t++) k<<<t, 64>>>(t, a);
  dim3 g3(1, 1); for (int t = 0; t < 4; t++) { g3.x = t + 1; k<<<g3, 64>>>(t, a); }
  int s = argc > 2 ? 64 : 128;
  k<<<s, 32>>>(s, a);
  int w = 100;
  if (argc > 3) w = 100;
  k<<<w, 32>>>(w, a);
}
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    p = tmp_path_factory.mktemp("host") / "host.cu"
    p.write_text(HOST)
    opts = AnalysisOptions(use_ptxas=False)
    fa = FileAnalysis(path=str(p), options=opts)
    tu = lower(str(p), HOST, opts, fa)
    resolve_launch_sites(tu)
    return sorted(tu.launches, key=lambda s: (s.range.line, s.range.column))


def test_grids_through_host_idioms(sites):
    grids = [s.grid for s in sites]
    assert grids[:11] == [
        (32, 125, 1),  # ceil(1000 / 32.0), ceil(1000 / 8.0): float casts, ceil, members of block
        (16, 1, 1),    # (4096 + 255) / 256 with const and constexpr
        (32, 1, 1),    # 4096 / 128 + (4096 % 128 != 0)
        (8, 1, 1),     # iDivUp(1000, 128): 7 + 1
        (8, 1, 1),     # divup: q = 7; q++ under a known condition
        (4, 1, 1),     # std::min(64, 1255 / 256)
        (4, 1, 1),     # (int)floor(3.90625) + 1
        (8, 1, 1),     # unsigned (1000 + 127) / 128
        (125, 2, 1),   # g2.x = grid1.y; g2.y = 2 on a default dim3
        (62, 1, 1),    # m = ni * 2 with ni = 1000 from main's `int ni = NI; run(ni, ...)`
        (1, 1, 1),     # unsigned wrap: (0u - 1u) / 2^31 = 4294967295 / 2147483648 = 1
    ]


def test_scalar_argument_from_the_caller(sites):
    assert sites[0].arg_values[0] == 1000   # `int ni = NI; run(ni, a)` -> k(ni, ...)
    assert sites[7].arg_values[0] == 4000   # size_t bytes = 1000 * sizeof(float)


def test_unknown_values_say_why(sites):
    by_line = {}
    for s in sites:
        by_line.setdefault(s.range.line, s)
    runtime = sites[11]
    assert runtime.grid is None
    assert any("`atoi(argv[1])` is computed at run time" in u for u in runtime.unknown)
    loop = sites[12]
    assert loop.grid is None and any("`t` changes in the loop" in u for u in loop.unknown)
    comp = sites[13]  # g3.x = t + 1 in the loop: only x is unknown, and why is the root cause
    (why,) = [u for u in comp.unknown if u.startswith("grid")]
    assert comp.grid is None and why == "grid `g3`: `t` changes in the loop at line 37"
    cond = sites[14]
    assert cond.grid is None and any("argc > 2" in u or "argc" in u for u in cond.unknown)
    # assigned under an unknown condition, but to the same value on both paths: known
    assert sites[15].grid == (100, 1, 1)


def test_explain_names_the_unknown(tmp_path):
    p = tmp_path / "u.cu"
    p.write_text(textwrap.dedent("""
        __global__ void k(float *a) { a[threadIdx.x] = 0; }
        int main(int argc, char **argv) {
            int n = atoi(argv[1]);
            float *a;
            k<<<(n + 255) / 256, 256>>>(a);
        }"""))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    lc = fa.kernels[0].launch
    assert lc.grid is None
    assert any(a.startswith("grid `(n + 255) / 256` at line 6 is not known statically: "
                            "`atoi(argv[1])` is computed at run time") for a in lc.assumptions)


def test_polybench_style_launch(tmp_path):
    """The issue's example: dim3 grid((size_t)ceil(((float)NJ) / ((float)block.x)), ...)
    with the sizes passed down from main through a host function."""
    p = tmp_path / "pb.cu"
    p.write_text(textwrap.dedent("""
        #include <math.h>
        #define NI 512
        #define NJ 1024
        __global__ void gemm(int ni, int nj, float *c) {
            int j = blockIdx.x * blockDim.x + threadIdx.x;
            int i = blockIdx.y * blockDim.y + threadIdx.y;
            if (i < ni && j < nj) c[i * nj + j] = 0;
        }
        void gemmCuda(int ni, int nj, float *c) {
            dim3 block(32, 8);
            dim3 grid((size_t)(ceil(((float)NJ) / ((float)block.x))), (size_t)(ceil(((float)NI) / ((float)block.y))));
            gemm<<<grid, block>>>(ni, nj, c);
        }
        int main() { int ni = NI; int nj = NJ; float *c; gemmCuda(ni, nj, c); }
        """))
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False))
    lc = fa.kernels[0].launch
    assert lc.grid == (32, 64, 1) and lc.block == (32, 8, 1)
    assert lc.param_values == {"ni": 512, "nj": 1024}
    # Said, not assumed silently: the values come from the one call in this file.
    assert lc.assumptions == [
        "values from the callers in this file (another caller elsewhere may pass others): "
        "`ni` = 512 in `gemmCuda`, as the only call in this file passes (line 15); "
        "`nj` = 1024 in `gemmCuda`, as the only call in this file passes (line 15)"]


def test_an_omitted_argument_takes_its_default(tmp_path):
    """simpleOccupancy's `static int test(bool automatic, const int count = 1000000)`, called as
    `test(false)` and `test(true)`: `count` is its default in every call; `automatic` differs."""
    p = tmp_path / "d.cu"
    p.write_text(textwrap.dedent("""
        __global__ void sq(int *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= a[i]; }
        static void launch(int *a, int n, bool big) {
            int bs = big ? 512 : 128;
            sq<<<(n + 127) / 128, 128>>>(a, n);
            sq<<<(n + bs - 1) / bs, bs>>>(a, n);
        }
        static int test(bool big, const int count = 1000000, int scale = 2) {
            int *a = 0;
            launch(a, count * scale, big);
            return 0;
        }
        int main() { test(false); test(true, 1000000); return 0; }
        """))
    opts = AnalysisOptions(use_ptxas=False)
    fa = FileAnalysis(path=str(p), options=opts)
    tu = lower(str(p), p.read_text(), opts, fa)
    resolve_launch_sites(tu)
    first, second = sorted(tu.launches, key=lambda s: s.range.line)
    # count * scale = 1000000 * 2 in both calls (defaults, or passed equal to the default)
    assert first.grid == (15625, 1, 1)  # (2000000 + 127) / 128 = 15625.99 -> 15625
    assert first.arg_values[1] == 2000000
    # `big` is false in one call and true in the other: the second block size stays unknown
    assert second.grid is None and any("`big`" in u for u in second.unknown)


def test_dim3_declared_by_a_macro_keeps_its_initializer(tmp_path):
    """LeetCUDA writes its launchers with macros (`dim3 block(256 / (n_elements));` inside
    TORCH_BINDING_ELEM_ADD). The source text at such a declaration is the macro invocation, so
    whether an initializer is written is read from clang's constructor call: written arguments
    have a source location, the default arguments of an implicit `dim3 b;` have none."""
    p = tmp_path / "m.cu"
    src = textwrap.dedent("""
        __global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
        #define LAUNCHER(name, n) void name(float *a) { \\
            dim3 block(256 / (n)); dim3 grid(8, 2); dim3 same = grid; k<<<same, block>>>(a); }
        LAUNCHER(run4, 4)
        #define DEFAULTED(name) void name(float *a) { dim3 b; b.x = 32; k<<<1, b>>>(a); }
        DEFAULTED(run_default)
        """)
    p.write_text(src)
    opts = AnalysisOptions(use_ptxas=False)
    tu = lower(str(p), src, opts, FileAnalysis(path=str(p), options=opts))
    resolve_launch_sites(tu)
    s4, sd = sorted(tu.launches, key=lambda s: s.range.line)
    assert s4.block == (64, 1, 1)   # 256 / 4
    assert s4.grid == (8, 2, 1)     # copied from grid(8, 2)
    assert sd.block == (32, 1, 1)   # default dim3 (1, 1, 1) with x set to 32
    assert sd.grid == (1, 1, 1)


DEVICE_QUERIES = r"""
#include <cstdio>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)
__global__ void k(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = n; }
int main() {
  float *y; int n = 1 << 20, numSMs = 0, per = 0, dev = 0;
  cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, dev);
  k<<<32 * numSMs, 256>>>(y, n);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, dev));
  k<<<prop.multiProcessorCount * 2, prop.maxThreadsPerBlock / 4>>>(y, n);
  k<<<4, prop.warpSize * 2>>>(y, prop.maxThreadsPerMultiProcessor);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, 256, 0);
  k<<<per * numSMs, 256>>>(y, n);
  int copied = 7;
  cudaError_t err = cudaMemcpy(&copied, y, sizeof(int), cudaMemcpyDeviceToHost);
  k<<<copied, 32>>>(y, n);
  return 0;
}
"""


def _device_sites(tmp_path, **kw):
    p = tmp_path / "dq.cu"
    p.write_text(DEVICE_QUERIES)
    fa = analyze_file(str(p), AnalysisOptions(use_ptxas=False, **kw))
    return sorted(fa.tu.launches, key=lambda s: s.range.line), fa


def test_device_queries_answer_with_the_target_device(tmp_path):
    """Grids sized from the GPU's SM count take the roofline's device (sm_90: the H100 SXM, 132
    SMs; --device h100-pcie: 114) and say so; the architecture's limits need no assumption."""
    sites, fa = _device_sites(tmp_path)
    attr, props, limits, occ, copied = sites
    assert attr.grid == (32 * 132, 1, 1) and attr.from_device
    assert props.grid == (264, 1, 1) and props.block == (256, 1, 1)  # 1024 / 4 on sm_90
    assert limits.block == (64, 1, 1) and limits.arg_values[1] == 2048 and not limits.from_device
    # blocks per SM of the occupancy query depend on registers ptxas reports later: unknown
    assert occ.grid is None
    # cudaMemcpy(&copied, ...) in a declaration's initializer overwrites `copied` (7 before)
    assert copied.grid is None
    lc = fa.kernels[0].launch
    assert any("assumed 132 SMs, as on the NVIDIA H100 SXM5" in a for a in lc.assumptions), lc.assumptions
    pcie, _ = _device_sites(tmp_path, device="h100-pcie")
    assert pcie[0].grid == (32 * 114, 1, 1) and pcie[1].grid == (228, 1, 1)


def test_device_queries_without_an_sm_count_stay_unknown(tmp_path):
    """A custom device (peak and bandwidth only) has no SM count: the grid is unknown, and why."""
    sites, _ = _device_sites(tmp_path, peak_gflops=1000.0, bandwidth_gbs=500.0)
    assert sites[0].grid is None and sites[1].grid is None
    assert sites[1].block == (256, 1, 1)
    assert any("the SM count of the GPU is not known (give --device)" in u for u in sites[1].unknown)


FILE_SCOPE = r"""
#include <cstdlib>
const int mx = 64, my = 64, mz = 64, sPencils = 4, lPencils = 32;
dim3 grid[3][2], block[3][2];
int threads;
__global__ void k(float *f) { f[threadIdx.x] = 0.f; }
void setThreads(int t) { threads = t; }
void setParameters() {
  grid[0][0] = dim3(my / sPencils, mz, 1);
  block[0][0] = dim3(mx, sPencils, 1);
  grid[1][1] = dim3(mx / lPencils, mz, 1);
  block[1][1] = dim3(lPencils, my * sPencils / lPencils, 1);
  setThreads(128);
}
void maybe(int argc) { if (argc > 1) threads = atoi("7"); }
int main(int argc, char **argv) {
  float *f;
  setParameters();
  k<<<grid[0][0], block[0][0]>>>(f);
  k<<<grid[1][1], block[1][1]>>>(f);
  k<<<1, threads>>>(f);
  for (int i = 0; i < 3; i++) setThreads(i + 1);
  k<<<1, threads>>>(f);
  setThreads(256);
  maybe(argc);
  k<<<1, threads>>>(f);
  return 0;
}
"""


def test_file_scope_launch_shapes_set_by_a_called_function(tmp_path):
    """The NVIDIA blog's finite-difference code fills file-scope `dim3 grid[3][2], block[3][2]`
    in setDerivativeParameters() and launches with grid[0][0], block[0][0] in main: what a
    called function stores in file-scope variables comes back to the caller (through one more
    call too); a call in a loop or a store under an unknown condition leaves them unknown."""
    p = tmp_path / "fs.cu"
    p.write_text(FILE_SCOPE)
    opts = AnalysisOptions(use_ptxas=False)
    fa = FileAnalysis(path=str(p), options=opts)
    tu = lower(str(p), FILE_SCOPE, opts, fa)
    resolve_launch_sites(tu)
    s = sorted(tu.launches, key=lambda x: x.range.line)
    assert (s[0].grid, s[0].block) == ((16, 64, 1), (64, 4, 1))   # 64/4, 64; 64, 4
    assert (s[1].grid, s[1].block) == ((2, 64, 1), (32, 8, 1))    # 64/32, 64; 32, 64*4/32
    assert s[2].block == (128, 1, 1)                               # setThreads(128) inside
    assert s[3].block is None and any("changes in the loop" in u for u in s[3].unknown), s[3].unknown
    assert s[4].block is None and any("argc > 1" in u for u in s[4].unknown), s[4].unknown


OUT_PARAMS = r"""
#include <cstdlib>
__global__ void k(float *f) { f[threadIdx.x] = 0.f; }
unsigned int nextPow2(unsigned int x) { --x; x |= x >> 1; x |= x >> 2; x |= x >> 4; x |= x >> 8; x |= x >> 16; return ++x; }
void getNumBlocksAndThreads(int n, int maxBlocks, int maxThreads, int &blocks, int &threads) {
  if (n == 1) { threads = 1; blocks = 1; }
  else {
    threads = (n < maxThreads * 2) ? nextPow2((n + 1) / 2) : maxThreads;
    blocks = (n + (threads * 2 - 1)) / (threads * 2);
  }
  blocks = blocks < maxBlocks ? blocks : maxBlocks;
}
void compute_active_thread(unsigned int *thread, unsigned int *grid, int task, int pad, int sm) {
  int _thread, _grid;
  if (task * pad > sm * 1536) { _thread = 192; _grid = (task * pad + _thread - 1) / _thread; }
  else { _thread = pad; _grid = task; }
  thread[0] = _thread;
  *grid = _grid;
}
int main(int argc, char **argv) {
  float *f;
  int blocks = 0, threads = 0;
  getNumBlocksAndThreads(1 << 20, 64, 256, blocks, threads);
  k<<<blocks, threads>>>(f);
  getNumBlocksAndThreads(1000, 64, 256, blocks, threads);
  k<<<blocks, threads>>>(f);
  getNumBlocksAndThreads(atoi(argv[1]), 64, 256, blocks, threads);
  k<<<blocks, threads>>>(f);
  unsigned int grid, block;
  compute_active_thread(&block, &grid, 4096, 32, 132);
  k<<<grid, block>>>(f);
  compute_active_thread(&block, &grid, 65536, 32, 132);
  k<<<grid, block>>>(f);
  return 0;
}
"""


def test_launch_shapes_returned_through_reference_and_pointer_arguments(tmp_path):
    """cuda-samples' getNumBlocksAndThreads(n, maxBlocks, maxThreads, blocks, threads) writes the
    launch shape through `int &` parameters; Parboil spmv's compute_active_thread(&block, &grid,
    ...) through pointers (`thread[0] = ...`, `*grid = ...`). The values come back; an input
    known only at run time leaves them unknown, and says why."""
    p = tmp_path / "out.cu"
    p.write_text(OUT_PARAMS)
    opts = AnalysisOptions(use_ptxas=False)
    fa = FileAnalysis(path=str(p), options=opts)
    tu = lower(str(p), OUT_PARAMS, opts, fa)
    resolve_launch_sites(tu)
    s = sorted(tu.launches, key=lambda x: x.range.line)
    # n = 2^20 >= 512: 256 threads, (2^20 + 511) / 512 = 2048 blocks, capped at 64
    assert (s[0].grid, s[0].block) == ((64, 1, 1), (256, 1, 1))
    # n = 1000 < 512? no, 1000 >= 512: 256 threads, (1000 + 511) / 512 = 2 blocks
    assert (s[1].grid, s[1].block) == ((2, 1, 1), (256, 1, 1))
    assert s[2].grid is None and s[2].block is None
    assert any("set by `getNumBlocksAndThreads()` at line 27" in u and "`n == 1`" in u
               for u in s[2].unknown), s[2].unknown
    # 4096 * 32 <= 132 * 1536: one warp per block, 4096 blocks; 65536 * 32 > 202752: 192 threads,
    # (2097152 + 191) / 192 = 10923 blocks
    assert (s[3].grid, s[3].block) == ((4096, 1, 1), (32, 1, 1))
    assert (s[4].grid, s[4].block) == ((10923, 1, 1), (192, 1, 1))


def test_launches_through_the_runtime_api(tmp_path):
    # cudaLaunchCooperativeKernel / cudaLaunchKernel are launches: grid and block by value, the
    # kernel's arguments through `void *args[]` (taking their addresses writes none of them).
    # The call returns the launch's error (CL701 when ignored), so no CL702 for it.
    src = tmp_path / "coop.cu"
    src.write_text(textwrap.dedent("""
        #include <cooperative_groups.h>
        namespace cg = cooperative_groups;
        __global__ void steps(float *d, int n) {
          cg::grid_group g = cg::this_grid();
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) d[i] += 1.0f;
          g.sync();
          if (i < n) d[i] *= 2.0f;
        }
        __global__ void plain(float *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] = 0; }
        int main() {
          float *d; int n = 8192;
          cudaMalloc(&d, n * sizeof(float));
          dim3 grid(n / 128), block(128);
          void *args[] = {(void *)&d, (void *)&n};
          cudaLaunchCooperativeKernel((void *)steps, grid, block, args, 0, 0);
          cudaError_t e = cudaLaunchKernel((const void *)plain, dim3(32), dim3(256), args, 0, 0);
          return e != cudaSuccess;
        }
    """))
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False))
    by = {k.name: k.launch for k in fa.kernels}
    assert by["steps"].block == (128, 1, 1) and by["steps"].grid == (64, 1, 1)  # 8192 / 128
    assert by["steps"].source == "launch-site"
    assert by["plain"].block == (256, 1, 1) and by["plain"].grid == (32, 1, 1)
    sites = {s.kernel: s for s in fa.tu.launches}
    assert sites["steps"].api == "cudaLaunchCooperativeKernel"
    assert sites["steps"].arg_values == [None, 8192]  # d is a pointer; n is 8192
    from cudalint.rules.runner import check_file
    res, _ = check_file(str(src), AnalysisOptions(use_ptxas=False))
    codes = sorted((d.code, d.location.line) for d in res.diagnostics if d.code.startswith("CL70"))
    assert ("CL701", 17) in codes  # the cooperative launch's error is ignored
    assert not any(c == "CL702" for c, _ in codes)


def test_api_launches_of_a_function_pointer(tmp_path):
    # `auto kernel = f; cudaLaunchKernel((void *)kernel, ...)` (FlashInfer's style), and a wrapper
    # handed the kernel: the kernels the pointer is set to, or each call hands the wrapper
    src = tmp_path / "ptr.cu"
    src.write_text(textwrap.dedent("""
        __global__ void scale(float *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] *= 2; }
        __global__ void shift(float *d, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] += 1; }
        typedef void (*kern_t)(float *, int);
        cudaError_t run(kern_t k, float *d, int n, int threads) {
          void *args[] = {(void *)&d, (void *)&n};
          return cudaLaunchKernel((void *)k, dim3(n / threads), dim3(threads), args, 0, 0);
        }
        int main() {
          float *d; int n = 4096;
          cudaMalloc(&d, n * sizeof(float));
          auto kernel = scale;
          void *args[] = {(void *)&d, (void *)&n};
          cudaError_t e = cudaLaunchKernel((void *)kernel, dim3(n / 64), dim3(64), args, 0, 0);
          e = run(shift, d, n, 512);
          return e != cudaSuccess;
        }
    """))
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False))
    by = {k.name: k.launch for k in fa.kernels}
    assert by["scale"].block == (64, 1, 1) and by["scale"].grid == (64, 1, 1)  # 4096 / 64
    assert by["shift"].block == (512, 1, 1) and by["shift"].grid == (8, 1, 1)  # 4096 / 512
    assert by["shift"].param_values.get("n") == 4096
