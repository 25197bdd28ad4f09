"""CUB (include/cub/cub.cuh): kernels using cub's block and warp collectives are analysed (in
HeCBench, 13 files' kernels were CL000 "use of undeclared identifier 'cub'"), and each
collective's TempStorage takes the shared memory it takes with nvcc's CUB.

TempStorage sizes by hand, from CUB's layouts (32 threads per warp, 32 banks):
* BlockReduce<float, 256> (warp reductions): 8 warps; a shuffle warp reduction needs no storage
  (NullType, 1 byte each: 8 B), then float warp_aggregates[8] (32 B) and float block_prefix:
  8 + 32 + 4 = 44 B, alignment 4.
* BlockScan<int, 256> (raking): the raking grid has 32 raking threads of 8-element segments,
  padded by one (an even segment longer than 2): 32 * 9 ints = 1152 B, 16-aligned. The struct is
  {NullType warp_scan (1 B); grid at offset 16; int block_aggregate at 1168}: 1172, rounded up
  to the 16-byte alignment, 1184 B.
* BlockLoad<float, 128, 4, WARP_TRANSPOSE>: a BlockExchange of 128 * 4 floats (no padding for 4
  items per thread) = 2048 B. BlockStore<float, 128, 4, WARP_TRANSPOSE>: the same plus an int
  (the guarded item count): 2052, rounded to 16 = 2064 B.
* WarpReduce<int, 7> (not a power of two: shared memory): 7 + 4 (half of the next power of two)
  = 11 ints and 11 byte flags = 55, rounded to 4 = 56 B.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import textwrap

import pytest

from cudalint.analyzer.frontend.parse import FrontendOptions, parse_file
from cudalint.analyzer.pipeline import AnalysisOptions
from cudalint.rules.runner import CheckOptions, check_file


def _check(tmp_path, src, **opts):
    p = tmp_path / "k.cu"
    p.write_text(textwrap.dedent(src))
    opts.setdefault("use_ptxas", False)
    res, fa = check_file(str(p), AnalysisOptions(**opts), CheckOptions())
    assert fa.error is None and not fa.kernel_errors, [d.message for d in res.diagnostics]
    return res, fa


def test_block_reduce_and_scan_are_analysed_with_cubs_shared_memory(tmp_path):
    res, fa = _check(tmp_path, """
        #include <cub/cub.cuh>
        __global__ void k(const int *in, int *out, float *sums) {
            typedef cub::BlockReduce<float, 256> BlockReduce;
            typedef cub::BlockScan<int, 256> BlockScan;
            __shared__ typename BlockReduce::TempStorage reduce_storage;
            __shared__ typename BlockScan::TempStorage scan_storage;
            int i = blockIdx.x * 256 + threadIdx.x;
            int x = in[i], y;
            BlockScan(scan_storage).ExclusiveSum(x, y);
            float s = BlockReduce(reduce_storage).Sum((float)x);
            out[i] = y;
            if (threadIdx.x == 0) sums[blockIdx.x] = s;
        }
        void run(const int *in, int *out, float *sums) { k<<<64, 256>>>(in, out, sums); }""")
    k = fa.kernels[0]
    assert k.resources.static_smem_source != "ptxas"
    assert k.resources.static_smem_bytes == 44 + 1184
    acc = {(a.array, a.kind): (a.element_bytes, a.sectors_per_request) for a in k.accesses}
    assert acc[("in", "load")] == (4, 4) and acc[("out", "store")] == (4, 4)
    # Handing a TempStorage to the collective's constructor (a reference) reads nothing: no
    # whole-struct shared load is invented for it.
    assert set(acc) == {("in", "load"), ("out", "store"), ("sums", "store")}
    assert not [d for d in res.diagnostics if d.code == "CL000"]


def test_block_load_store_and_warp_reduce(tmp_path):
    res, fa = _check(tmp_path, """
        #include <cub/block/block_load.cuh>
        #include <cub/block/block_store.cuh>
        #include <cub/warp/warp_reduce.cuh>
        using namespace cub;
        template <int BLOCK_THREADS, int ITEMS>
        __global__ void k(const float *in, float *out, int *counts) {
            typedef BlockLoad<float, BLOCK_THREADS, ITEMS, BLOCK_LOAD_WARP_TRANSPOSE> Load;
            typedef BlockStore<float, BLOCK_THREADS, ITEMS, BLOCK_STORE_WARP_TRANSPOSE> Store;
            typedef WarpReduce<int, 7> WarpReduce7;
            __shared__ typename Load::TempStorage load_storage;
            __shared__ typename Store::TempStorage store_storage;
            __shared__ typename WarpReduce7::TempStorage warp_storage[2];
            float items[ITEMS];
            int offset = blockIdx.x * BLOCK_THREADS * ITEMS;
            Load(load_storage).Load(in + offset, items);
            Store(store_storage).Store(out + offset, items);
            int n = WarpReduce7(warp_storage[threadIdx.x / 32 % 2]).Sum(1);
            if (threadIdx.x == 0) counts[blockIdx.x] = n;
        }
        void run(const float *in, float *out, int *c) { k<128, 4><<<8, 128>>>(in, out, c); }""")
    k = fa.kernels[0]
    assert k.resources.static_smem_bytes == 2048 + 2064 + 2 * 56


def test_device_wide_algorithms_in_host_code(tmp_path):
    # The two-phase temp-storage calls of host code type-check (no clang error at all).
    p = tmp_path / "h.cu"
    p.write_text(textwrap.dedent("""
        #include <cub/cub.cuh>
        void run(const int *in, int *out, int *sum, const char *flags, int *nsel, int n) {
            void *tmp = nullptr; size_t bytes = 0;
            cub::DeviceReduce::Sum(tmp, bytes, in, sum, n);
            cub::DeviceReduce::Max(tmp, bytes, in, sum, n, 0);
            cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);
            cub::DeviceScan::ExclusiveScan(tmp, bytes, in, out, cub::Max(), 0, n);
            cub::DeviceSelect::Flagged(tmp, bytes, in, flags, out, nsel, n);
            cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, n);
            cub::CountingInputIterator<int> it(0);
            cub::DeviceReduce::Sum(tmp, bytes, it, sum, n);
        }"""))
    pr = parse_file(str(p), FrontendOptions())
    assert pr.errors == []


# Configurations whose TempStorage size and alignment are compared with nvcc's CUB when a CUDA
# toolkit is installed (the header was checked this way on 1272 of them).
_SAMPLE = [
    "cub::BlockReduce<float, 256>", "cub::BlockReduce<double, 1024>", "cub::BlockReduce<char, 96>",
    "cub::BlockReduce<float4, 200, cub::BLOCK_REDUCE_RAKING>",
    "cub::BlockReduce<int, 256, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>",
    "cub::BlockReduce<short, 64, cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>",
    "cub::BlockReduce<double, 16, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 4>",
    "cub::BlockScan<int, 128>", "cub::BlockScan<double, 200, cub::BLOCK_SCAN_WARP_SCANS>",
    "cub::BlockScan<float, 256, cub::BLOCK_SCAN_WARP_SCANS>", "cub::BlockScan<char, 1024, cub::BLOCK_SCAN_RAKING_MEMOIZE>",
    "cub::BlockExchange<int, 128, 8>", "cub::BlockExchange<double, 96, 4, true>",
    "cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>", "cub::BlockLoad<short, 64, 8, cub::BLOCK_LOAD_DIRECT>",
    "cub::BlockStore<int, 256, 8, cub::BLOCK_STORE_WARP_TRANSPOSE>", "cub::BlockStore<char, 32, 1, cub::BLOCK_STORE_TRANSPOSE>",
    "cub::BlockAdjacentDifference<int, 128>", "cub::WarpReduce<float>", "cub::WarpReduce<double, 12>",
    "cub::WarpScan<int, 7>", "cub::WarpScan<float4, 16>", "cub::WarpExchange<int, 4, 16>",
]


@pytest.mark.skipif(not (shutil.which("nvcc") or shutil.which("/usr/local/cuda/bin/nvcc")),
                    reason="needs nvcc and its CUB")
def test_temp_storage_layouts_match_nvccs_cub(tmp_path):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    lines = "\n".join(f'  printf("%zu %zu\\n", sizeof(typename {c}::TempStorage), alignof(typename {c}::TempStorage));'
                      for c in _SAMPLE)
    (tmp_path / "sz.cu").write_text("#include <cub/cub.cuh>\n#include <cstdio>\nint main() {\n" + lines + "\n}\n")
    r = subprocess.run([nvcc, "-o", str(tmp_path / "sz"), str(tmp_path / "sz.cu")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("nvcc could not build the probe: " + r.stderr[-300:])
    real = subprocess.run([str(tmp_path / "sz")], capture_output=True, text=True, check=True).stdout.split("\n")
    checks = "\n".join(f'static_assert(sizeof(typename {c}::TempStorage) == {s} && '
                       f'alignof(typename {c}::TempStorage) == {a}, "{c}");'
                       for c, (s, a) in zip(_SAMPLE, (x.split() for x in real)))
    (tmp_path / "chk.cu").write_text("#include <cub/cub.cuh>\n" + checks + "\n")
    pr = parse_file(str(tmp_path / "chk.cu"), FrontendOptions())
    assert [e.message for e in pr.errors] == []
