"""Occupancy calculator: NVIDIA's algorithm, checked against independent figures.

* the H200 measurements in ../shared/groundtruth (Nsight Compute's theoretical occupancy);
* NVIDIA's own cuda_occupancy.h, compiled into a small C++ harness, on thousands of random
  launch configurations for every compute capability it supports (3.0 .. 12.1);
* hand-worked cases of the occupancy calculator spreadsheet for sm_1x / sm_2x, which the
  header refuses, and the seed chapter's worked examples (section 5.5, exercise 5.11).
"""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cudalint.analyzer.occupancy import (
    LIMITERS,
    check_residency,
    compute_occupancy,
    next_step,
    sweep_registers,
    sweep_shared_memory,
    sweep_threads,
)
from cudalint.analyzer.target import all_targets, load_target
from cuda_toolkit import cuda_include_dirs  # tests/ is on sys.path

GT_DIR = Path(__file__).resolve().parents[2] / "shared" / "groundtruth"
GT_JSON = GT_DIR / "measured-h200.json"
KB = 1024


def _gt_kernels():
    if not GT_JSON.is_file():
        return []
    return sorted(json.loads(GT_JSON.read_text())["kernels"].items())


# --------------------------------------------------------------------------- ground truth
@pytest.mark.skipif(not GT_JSON.is_file(), reason="../shared/groundtruth not present")
@pytest.mark.parametrize("name,entry", _gt_kernels(), ids=[k for k, _ in _gt_kernels()])
@pytest.mark.parametrize("reg_field", ["registers_per_thread", "ptxas_registers"])
def test_groundtruth_occupancy(name, entry, reg_field):
    """Every measured kernel: blocks/SM, theoretical occupancy and the binding limiters."""
    bx, by, bz = entry["block"]
    r = compute_occupancy("sm_90", bx * by * bz, entry[reg_field], entry["static_smem_bytes"], entry["dyn_smem"])
    assert r.can_launch
    assert r.active_blocks_per_sm == entry["blocks_per_sm"]
    assert r.occupancy * 100 == pytest.approx(entry["theoretical_occupancy_pct"], abs=1e-9)
    measured = {{"shared_mem": "shared_memory"}.get(x, x) for x in entry["occupancy_limiters"]}
    assert set(r.limiters) == measured


@pytest.mark.skipif(not GT_JSON.is_file(), reason="../shared/groundtruth not present")
def test_groundtruth_named_cases():
    kern = dict(_gt_kernels())
    e = kern["occ_smem_40k"]
    r = compute_occupancy("sm_90", 256, e["ptxas_registers"], e["static_smem_bytes"])
    assert (r.active_blocks_per_sm, r.occupancy, r.limiters) == (5, 0.625, ["shared_memory"])
    assert r.smem_allocated_per_block == 40 * KB + KB  # 1 KB driver reservation on sm_80+
    e = kern["occ_regs_heavy"]
    r = compute_occupancy("sm_90", 256, e["ptxas_registers"])
    assert (r.active_blocks_per_sm, r.occupancy, r.limiters) == (2, 0.25, ["registers"])
    assert r.registers_per_block == 128 * 32 * 8  # 127 regs -> 4096 per warp, 8 warps


def test_measured_figures_without_groundtruth_folder():
    """The README's numbers, hard-coded so they are checked even in a user's clone."""
    r = compute_occupancy("sm_90", 256, 25, 40 * KB)
    assert (r.active_blocks_per_sm, r.active_warps_per_sm, r.occupancy_pct) == (5, 40, 62.5)
    assert r.limiters == ["shared_memory"]
    r = compute_occupancy("sm_90", 256, 127)
    assert (r.active_blocks_per_sm, r.occupancy_pct, r.limiters) == (2, 25.0, ["registers"])
    r = compute_occupancy("sm_90", 256, 16)
    assert (r.active_blocks_per_sm, r.occupancy_pct, r.limiters) == (8, 100.0, ["warps"])
    r = compute_occupancy("sm_90", 256, 38)  # local_const_index
    assert (r.active_blocks_per_sm, r.occupancy_pct, r.limiters) == (6, 75.0, ["registers"])
    r = compute_occupancy("sm_90", 1024, 12, 4096)  # smem_row_f32: 32x32 blocks
    assert (r.active_blocks_per_sm, r.occupancy_pct, r.limiters) == (2, 100.0, ["warps"])


# --------------------------------------------------------------------------- seed chapter 5.5
def test_seed_cc10_register_example():
    # "G80 ... 8K registers, 768 threads ... if each thread uses 11 registers ... 256 threads
    # reduced to 512 threads/SM"
    r10 = compute_occupancy("1.0", 256, 10)
    assert (r10.active_blocks_per_sm, r10.active_threads_per_sm) == (3, 768)
    assert set(r10.limiters) == {"warps", "registers"}
    r11 = compute_occupancy("1.0", 256, 11)
    assert (r11.active_blocks_per_sm, r11.active_threads_per_sm) == (2, 512)
    assert r11.limiters == ["registers"]
    assert r11.registers_per_block == 2816  # 8 warps x 32 x 11, a multiple of 256


def test_seed_device_d_register_example():
    # "device D ... 1,536 threads and 16,384 registers ... 512-thread blocks ... 11 registers
    # ... the next lower number of threads from 1,536 would be 512" (one third less)
    d = dataclasses.replace(load_target("2.0"), registers_per_sm=16384, max_registers_per_block=16384)
    assert compute_occupancy(d, 512, 10).active_threads_per_sm == 1536
    assert compute_occupancy(d, 512, 11).active_threads_per_sm == 1024


def test_seed_shared_memory_examples():
    # 16x16 float tiles: Mds + Nds = 2 KB per block on a 16 KB, 8-block, 768-thread SM
    r = compute_occupancy("1.0", 256, 0, 2 * KB)
    assert r.block_limits["shared_memory"] == 8 and r.block_limits["blocks"] == 8
    assert r.active_blocks_per_sm == 3 and r.limiters == ["warps"]  # the thread limit
    assert r.active_blocks_per_sm * 2 * KB == 6 * KB
    # "if each block uses 5 K bytes of shared memory, no more than three blocks"
    r = compute_occupancy("1.0", 64, 0, 5 * KB)
    assert r.active_blocks_per_sm == 3 and r.limiters == ["shared_memory"]


@pytest.mark.parametrize("cc,blocks,threads,smem_per_thread,ok,limits", [
    ("1.0", 4, 128, 32, True, []),                                   # a: 512 threads, 16 KB
    ("1.0", 8, 128, 16, False, ["warps"]),                           # b: 1024 threads > 768
    ("1.0", 16, 32, 64, False, ["shared_memory", "blocks"]),         # c: 16 > 8 blocks, 32 KB > 16 KB
    ("1.2", 2, 512, 32, False, ["shared_memory"]),                   # d: 2 x 16 KB > 16 KB
    ("1.2", 4, 256, 16, True, []),                                   # e: 1024 threads, 16 KB
    ("1.2", 8, 256, 8, False, ["warps"]),                            # f: 2048 threads > 1024
])
def test_seed_exercise_5_11(cc, blocks, threads, smem_per_thread, ok, limits):
    verdict, why = check_residency(cc, blocks, threads, 0, smem_per_thread * threads)
    assert verdict is ok
    assert sorted(why) == sorted(limits)


# --------------------------------------------------------------------------- sm_1x / sm_2x
@pytest.mark.parametrize("cc,threads,regs,smem,blocks,limiters,regs_alloc", [
    # 1.x: registers per block = roundup(roundup(warps, 2) * regs * 32, 256 | 512)
    ("1.0", 100, 20, 0, 3, ["registers"], 2560),        # 4 warps -> 2560 -> 8192 // 2560
    ("1.1", 96, 10, 0, 6, ["registers"], 1280),         # 3 warps -> 4 -> 1280 -> 6 (warps allow 8)
    ("1.3", 256, 16, 0, 4, ["warps", "registers"], 4096),
    ("1.2", 96, 10, 0, 8, ["blocks"], 1536),            # roundup(1280, 512) = 1536 -> 10 > 8 slots
    ("1.3", 64, 31, 0, 8, ["registers", "blocks"], 2048),  # 1984 -> 2048 -> 8
    ("1.0", 256, 0, 8 * KB + 1, 1, ["shared_memory"], 0),   # 8193 -> 8704 (512 units) -> 1
    # 2.x: per warp roundup(regs * 32, 64); warps the file holds rounded down to 2
    ("2.0", 256, 21, 0, 5, ["registers"], 704 * 8),     # 32768 // 704 = 46 -> 46 // 8 = 5
    ("2.0", 192, 63, 0, 2, ["registers"], 2048 * 6),    # 16 warps // 6
    ("2.1", 1024, 32, 0, 1, ["warps", "registers"], 32768),
    ("2.0", 64, 8, 0, 8, ["blocks"], 512),
    ("2.0", 128, 0, 12 * KB + 1, 3, ["shared_memory"], 0),  # 12289 -> 12416 (128 units)
])
def test_legacy_calculator_cases(cc, threads, regs, smem, blocks, limiters, regs_alloc):
    r = compute_occupancy(cc, threads, regs, smem)
    assert r.algorithm.startswith("occupancy calculator")
    assert r.can_launch
    assert r.active_blocks_per_sm == blocks
    assert set(r.limiters) == set(limiters)
    assert r.registers_per_block == regs_alloc


def test_legacy_launch_failures():
    r = compute_occupancy("2.0", 1024, 33)  # 1088 per warp x 32 > 32768
    assert not r.can_launch and r.active_blocks_per_sm == 0 and r.limiters == ["registers"]
    r = compute_occupancy("2.0", 128, 64)  # > 63 registers per thread
    assert not r.can_launch and "63" in r.launch_errors[0]
    r = compute_occupancy("1.3", 513, 1)
    assert not r.can_launch and r.limiters == ["warps"]
    r = compute_occupancy("2.0", 128, 8, 48 * KB + 1)
    assert not r.can_launch


# --------------------------------------------------------------------------- edge cases, sm_90
def test_one_thread_block():
    r = compute_occupancy("sm_90", 1, 0)
    assert r.warps_per_block == 1
    assert (r.active_blocks_per_sm, r.active_warps_per_sm, r.active_threads_per_sm) == (32, 32, 32)
    assert r.occupancy == 0.5 and r.limiters == ["blocks"]
    assert r.block_limits["registers"] is None  # no registers: not limiting
    assert r.block_limits["shared_memory"] == 228  # the 1 KB reservation alone
    assert any("multiple of the warp size" in n for n in r.notes)


def test_full_block_sizes():
    r = compute_occupancy("sm_90", 1024, 32)
    assert (r.active_blocks_per_sm, r.occupancy) == (2, 1.0)
    r = compute_occupancy("sm_90", 1024, 64)  # 2048 per warp x 32 warps = the whole file
    assert (r.active_blocks_per_sm, r.occupancy, r.limiters) == (1, 0.5, ["registers"])
    r = compute_occupancy("sm_90", 1024, 65)  # 2304 per warp x 32 > 65536: cannot launch
    assert not r.can_launch and r.active_blocks_per_sm == 0 and r.limiters == ["registers"]
    r = compute_occupancy("sm_90", 1025, 8)
    assert not r.can_launch and r.limiters == ["warps"]


def test_255_registers():
    r = compute_occupancy("sm_90", 256, 255)  # 8192 per warp; 2 warps per sub-partition
    assert (r.active_blocks_per_sm, r.active_warps_per_sm) == (1, 8)
    r = compute_occupancy("sm_90", 288, 255)  # 9 warps, rounded to 12 for the hardware check
    assert not r.can_launch
    r = compute_occupancy("sm_90", 128, 256)
    assert not r.can_launch and "255" in r.launch_errors[0]


def test_dynamic_shared_memory_above_48k():
    r = compute_occupancy("sm_90", 256, 32, 0, 100 * KB)
    assert r.can_launch and r.active_blocks_per_sm == 2 and r.limiters == ["shared_memory"]
    assert any("cudaFuncAttributeMaxDynamicSharedMemorySize" in n for n in r.notes)
    r = compute_occupancy("sm_90", 256, 32, 0, 227 * KB)  # exactly the opt-in maximum
    assert r.can_launch and r.active_blocks_per_sm == 1 and r.carveout_bytes == 228 * KB
    r = compute_occupancy("sm_90", 256, 32, 0, 227 * KB + 1)
    assert not r.can_launch and r.limiters == ["shared_memory"]
    r = compute_occupancy("sm_90", 256, 32, 49 * KB)  # static shared memory stops at 48 KB
    assert not r.can_launch
    r = compute_occupancy("sm_75", 256, 32, 0, 64 * KB)  # Turing: 64 KB opt-in, no reservation
    assert r.can_launch and r.active_blocks_per_sm == 1
    r = compute_occupancy("sm_61", 256, 32, 0, 48 * KB + 1)  # Pascal: no opt-in
    assert not r.can_launch
    r = compute_occupancy("sm_90", 256, 32, 0, 40 * KB)  # below 48 KB: no opt-in note
    assert not any("opt" in n for n in r.notes)
    # the attribute is needed above 48 KB of static + dynamic; the 1 KB reservation does not count
    r = compute_occupancy("sm_90", 256, 32, 8 * KB, 40 * KB)
    assert r.can_launch and not any("opt" in n for n in r.notes)
    assert r.smem_allocated_per_block == 49 * KB and r.active_blocks_per_sm == 4
    r = compute_occupancy("sm_90", 256, 32, 8 * KB, 40 * KB + 1)
    assert r.can_launch and any("opts in" in n for n in r.notes)


def test_carveout_choice():
    r = compute_occupancy("sm_90", 256, 10)  # 8 blocks x 1 KB reserved
    assert r.carveout_bytes == 8 * KB
    r = compute_occupancy("sm_90", 256, 25, 40 * KB)  # 5 x 41 KB = 205 KB
    assert r.carveout_bytes == 228 * KB
    r = compute_occupancy("sm_80", 128, 32, 20 * KB)  # 16 warps x 4: blocks by smem 164 KB / 21 KB = 7
    assert r.active_blocks_per_sm == 7 and r.carveout_bytes == 164 * KB
    r = compute_occupancy("sm_86", 512, 32, 10 * KB)  # 3 blocks x 11 KB = 33 KB -> 64 KB carveout
    assert r.active_blocks_per_sm == 3 and r.carveout_bytes == 64 * KB


def test_carveout_preference():
    # 50% of 228 KB = 114 KB -> the 132 KB configuration; 41 KB blocks: 3 fit
    r = compute_occupancy("sm_90", 256, 25, 40 * KB, carveout_pct=50)
    assert r.smem_config_bytes == 132 * KB and r.active_blocks_per_sm == 3
    # a preference too small for one block is overridden by the smallest carveout that fits
    r = compute_occupancy("sm_90", 256, 25, 40 * KB, carveout_pct=0)
    assert r.smem_config_bytes == 64 * KB and r.active_blocks_per_sm == 1
    # Kepler: prefer L1 -> 16 KB of shared memory, 48 KB when a block needs more
    assert compute_occupancy("sm_35", 128, 16, 8 * KB, cache_config="l1").active_blocks_per_sm == 2
    assert compute_occupancy("sm_35", 128, 16, 8 * KB).active_blocks_per_sm == 6
    assert compute_occupancy("sm_35", 128, 16, 20 * KB, cache_config="l1").active_blocks_per_sm == 2


def test_barrier_limit_on_consumer_blackwell():
    # sm_120: one barrier per block slot, so 24 barrier-using blocks at most
    r = compute_occupancy("sm_120", 32, 16)
    assert r.active_blocks_per_sm == 24 and set(r.limiters) == {"blocks", "barriers"}
    r = compute_occupancy("sm_120", 32, 16, block_barriers=2)
    assert r.active_blocks_per_sm == 12 and r.limiters == ["barriers"]
    r = compute_occupancy("sm_90", 32, 16)
    assert r.active_blocks_per_sm == 32 and r.limiters == ["blocks"] and r.barrier_limit == 64


def test_gp100_half_register_file_rule():
    # GP100 has 2 sub-partitions; a block that cannot run on GP10x (4) is refused on GP100 too
    # 9 warps x 192 regs (6144 per warp): GP100 rounds to 10 warps (61440 <= 65536) and holds
    # 4 warps per half -> 1 block; GP10x rounds to 12 warps (73728) and refuses the launch
    r61 = compute_occupancy("6.1", 288, 192)
    assert not r61.can_launch
    r60 = compute_occupancy("6.0", 288, 192)
    assert not r60.can_launch and r60.active_blocks_per_sm == 0
    assert any("GP10x" in e for e in r60.launch_errors)
    # GP100 holds more warps than GP10x when both accept the block: 2 x 5 vs 4 x 2 warps of 6144
    assert compute_occupancy("6.0", 160, 192).active_blocks_per_sm == 2
    assert compute_occupancy("6.1", 160, 192).active_blocks_per_sm == 1


def test_invalid_inputs():
    r = compute_occupancy("sm_90", 0, 32)
    assert not r.can_launch and r.active_blocks_per_sm == 0
    with pytest.raises(ValueError):
        compute_occupancy("sm_90", 32, -1)
    with pytest.raises(ValueError):
        compute_occupancy("sm_99", 32, 1)


def test_json_shape():
    doc = compute_occupancy("sm_90", 256, 127, 1000, 24).to_json()
    for key in ("arch", "threads_per_block", "registers_per_thread", "smem_per_block", "active_blocks_per_sm",
                "active_warps_per_sm", "occupancy", "limiters", "block_limits"):
        assert key in doc
    assert set(doc["block_limits"]) == set(LIMITERS)
    assert doc["arch"] == "sm_90" and doc["smem_per_block"] == 1024 and doc["occupancy"] == 0.25
    assert doc["block_limits"] == {"warps": 8, "registers": 2, "shared_memory": 114, "blocks": 32}  # 1000 + 24 + 1024 reserved = 2 KB
    json.dumps(doc)


def test_next_step_messages():
    ns = next_step("sm_90", 256, 38)  # local_const_index: 6 blocks, registers
    s = ns.step("registers")
    assert (s.value, s.active_blocks_per_sm, s.extra_blocks) == (32, 8, 2)
    assert s.message.startswith("≤ 32 registers per thread") and "fits 2 more blocks" in s.message
    ns = next_step("sm_90", 256, 127)
    assert ns.step("registers").value == 80 and ns.step("registers").extra_blocks == 1
    ns = next_step("sm_90", 256, 25, 40 * KB)
    s = ns.step("shared_memory")
    assert s.value == 37 * KB and s.active_blocks_per_sm == 6  # 228 KB / 6 - 1 KB reserved
    assert compute_occupancy("sm_90", 256, 25, 0, s.value + 1).active_blocks_per_sm == 5
    assert ns.step("registers") is None  # registers do not bind
    ns = next_step("sm_90", 32, 16)  # 32 one-warp blocks: block slots bind at 50 %
    t = ns.step("threads")
    assert t is not None and t.occupancy == 1.0 and t.value == 64
    assert next_step("sm_90", 256, 16).steps == []


def test_sweeps():
    th = sweep_threads("sm_90", 32)
    assert th[0] == (32, 32) and dict(th)[256] == 64 and len(th) == 32
    rg = sweep_registers("sm_90", 256)
    assert dict(rg)[32] == 64 and dict(rg)[127] == 16 and dict(rg)[255] == 8
    sm = sweep_shared_memory("sm_90", 256, 25)
    assert dict(sm)[40 * KB] == 40 and sm[-1][0] <= 227 * KB


def test_every_target_computes():
    for t in all_targets():
        r = compute_occupancy(t, 128, 32, 4 * KB)
        assert r.can_launch, t.cc
        assert 0 < r.occupancy <= 1
        assert r.active_warps_per_sm <= t.max_warps_per_sm


# --------------------------------------------------------------------------- cuda_occupancy.h
HARNESS = r"""
#include <cstdio>
#include <climits>
#include "cuda_occupancy.h"
int main() {
    int major, minor, maxTpb, maxTpsm, regsPerBlock, regsPerSM, warpSize, block, regs, carveout, cacheCfg;
    long smemPerBlock, smemPerSM, optin, reserved, stat, dyn;
    while (scanf("%d %d %d %d %d %d %d %ld %ld %ld %ld %d %d %ld %ld %d %d", &major, &minor, &maxTpb,
                 &maxTpsm, &regsPerBlock, &regsPerSM, &warpSize, &smemPerBlock, &smemPerSM, &optin,
                 &reserved, &block, &regs, &stat, &dyn, &carveout, &cacheCfg) == 17) {
        cudaOccDeviceProp p;
        p.computeMajor = major; p.computeMinor = minor; p.maxThreadsPerBlock = maxTpb;
        p.maxThreadsPerMultiprocessor = maxTpsm; p.regsPerBlock = regsPerBlock;
        p.regsPerMultiprocessor = regsPerSM; p.warpSize = warpSize; p.sharedMemPerBlock = smemPerBlock;
        p.sharedMemPerMultiprocessor = smemPerSM; p.numSms = 1; p.sharedMemPerBlockOptin = optin;
        p.reservedSharedMemPerBlock = reserved;
        cudaOccFuncAttributes a;  /* as cudaOccFuncAttributes(cudaFuncAttributes) sets them */
        a.maxThreadsPerBlock = INT_MAX; a.numRegs = regs; a.sharedSizeBytes = stat;
        a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        a.maxDynamicSharedSizeBytes = dyn; a.numBlockBarriers = 1; a.virtualResourceCount = 0;
        cudaOccDeviceState s;
        s.carveoutConfig = carveout; s.cacheConfig = (cudaOccCacheConfig)cacheCfg;
        cudaOccResult r;
        cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, block, dyn);
        printf("%d %d %u %d %d %d %d\n", (int)e, r.activeBlocksPerMultiprocessor, r.limitingFactors,
               r.blockLimitWarps, r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitBlocks);
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def occ_harness(tmp_path_factory):
    gxx = shutil.which("g++") or shutil.which("c++")
    incs = cuda_include_dirs()
    if not gxx or not incs:
        pytest.skip("g++ or cuda_occupancy.h not available")
    d = tmp_path_factory.mktemp("occ")
    (d / "h.cpp").write_text(HARNESS)
    exe = d / "h"
    p = subprocess.run([gxx, "-O1", "-w", f"-I{incs[0]}", str(d / "h.cpp"), "-o", str(exe)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot build the cuda_occupancy.h harness: {p.stderr[-500:]}")
    return exe


_CACHE = {0: None, 1: "shared", 2: "l1", 3: "equal"}
_BITS = {1: "warps", 2: "registers", 4: "shared_memory", 8: "blocks", 16: "barriers"}
INT_MAX = 2**31 - 1


def _random_cases(n, seed=20240531):
    rnd = random.Random(seed)
    targets = [t for t in all_targets() if t.major >= 3]
    cases = []
    for i in range(n):
        t = targets[i % len(targets)]
        u = rnd.random()
        if u < 0.05:
            threads = rnd.randint(t.max_threads_per_block + 1, 2048)
        elif u < 0.5:
            threads = t.warp_size * rnd.randint(1, t.max_threads_per_block // t.warp_size)
        else:
            threads = rnd.randint(1, t.max_threads_per_block)
        # ptxas never exceeds the per-thread limit (63 on sm_30, where cuda_occupancy.h accepts 255)
        regs = min(t.max_registers_per_thread,
                   rnd.choice([0, rnd.randint(1, 64), rnd.randint(1, 255), rnd.randint(16, 40)]))
        stat = 0 if rnd.random() < 0.35 else rnd.randint(0, t.max_shared_memory_per_block)
        top = max(t.max_shared_memory_per_block_optin, t.max_shared_memory_per_block) + 4096
        dyn = 0 if rnd.random() < 0.4 else rnd.choice([rnd.randint(0, 16 * KB), rnd.randint(0, top)])
        carve = rnd.choice([-1, -1, -1, 0, 10, 25, 33, 50, 75, 100]) if t.major >= 7 else -1
        cache = rnd.choice([0, 0, 1, 2, 3])
        cases.append((t, threads, regs, stat, dyn, carve, cache))
    return cases


def test_agreement_with_cuda_occupancy_h(occ_harness):
    """>= 5,000 random launches on every cc the header supports: 100 % agreement on active
    blocks, limiting factors and each per-resource block limit."""
    cases = _random_cases(6000)
    lines = []
    for t, threads, regs, stat, dyn, carve, cache in cases:
        lines.append(" ".join(str(x) for x in (
            t.major, t.minor, t.max_threads_per_block, t.max_threads_per_sm, t.max_registers_per_block,
            t.registers_per_sm, t.warp_size, t.max_shared_memory_per_block, t.shared_memory_per_sm,
            t.max_shared_memory_per_block_optin, t.reserved_shared_memory_per_block, threads, regs,
            stat, dyn, carve, cache)))
    out = subprocess.run([str(occ_harness)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")
    mismatches = []
    per_cc = {}
    for case, line in zip(cases, out):
        t, threads, regs, stat, dyn, carve, cache = case
        err, active, bits, lw, lr, ls, lb = (int(x) for x in line.split())
        assert err == 0, (case, line)
        r = compute_occupancy(t, threads, regs, stat, dyn, carveout_pct=None if carve == -1 else carve,
                              cache_config=_CACHE[cache])
        want_lim = {name for bit, name in _BITS.items() if bits & bit}
        got = (r.active_blocks_per_sm, set(r.limiters), r.block_limits["warps"],
               INT_MAX if r.block_limits["registers"] is None else r.block_limits["registers"],
               INT_MAX if r.block_limits["shared_memory"] is None else r.block_limits["shared_memory"],
               r.block_limits["blocks"])
        want = (active, want_lim, lw, lr, ls, lb)
        per_cc[t.cc] = per_cc.get(t.cc, 0) + 1
        if got != want:
            mismatches.append((t.cc, threads, regs, stat, dyn, carve, cache, got, want))
    assert len(out) - 1 >= len(cases) >= 5000
    assert set(per_cc) == {t.cc for t in all_targets() if t.major >= 3}
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ, e.g. {mismatches[:5]}"


# --------------------------------------------------------------------------- CLI
def _app():
    typer = pytest.importorskip("typer")
    from cudalint.commands.occupancy import occupancy_command

    app = typer.Typer()
    app.command("occupancy")(occupancy_command)

    @app.command("other")
    def _other():  # a second command keeps "occupancy" a real subcommand
        pass

    return app


def _run(args):
    from typer.testing import CliRunner

    return CliRunner().invoke(_app(), ["occupancy", *args])


def test_cli_json():
    res = _run(["--arch", "sm_90", "--threads", "256", "--regs", "25", "--smem", "40960", "--output-format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["active_blocks_per_sm"] == 5 and doc["occupancy"] == 0.625
    assert doc["limiters"] == ["shared_memory"]
    assert doc["block_limits"] == {"warps": 8, "registers": 8, "shared_memory": 5, "blocks": 32}
    assert doc["next_steps"] and "37 KB" in doc["next_steps"][0]


def test_cli_text_and_dynamic():
    res = _run(["--arch", "86", "--threads", "256", "--regs", "38", "--dynamic-smem", "70000"])
    assert res.exit_code == 0, res.output
    assert "16.7%" in res.stdout and "shared memory" in res.stdout and "opts in" in res.stdout


def test_cli_bad_arch_and_format():
    res = _run(["--arch", "sm_99", "--threads", "256", "--regs", "32"])
    assert res.exit_code == 2
    assert "sm_90" in (res.stderr if hasattr(res, "stderr") else res.output)
    res = _run(["--threads", "256", "--regs", "32", "--output-format", "xml"])
    assert res.exit_code == 2


def test_cli_cannot_launch():
    res = _run(["--arch", "sm_10", "--threads", "1024", "--regs", "8", "--output-format", "json"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["can_launch"] is False and doc["active_blocks_per_sm"] == 0


def test_cli_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "occ.png"
    res = _run(["--threads", "256", "--regs", "127", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_cli_plot_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    res = _run(["--threads", "256", "--regs", "127", "--plot", str(tmp_path / "x.png")])
    assert res.exit_code == 2
    assert not (tmp_path / "x.png").exists()


def test_cli_is_fast():
    """The command answers well under a second (fresh interpreter, JSON path)."""
    import resource

    def cpu() -> float:  # the child's processor time: a loaded machine stretches wall time
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    code = ("import typer\nfrom cudalint.commands.occupancy import occupancy_command\n"
            "app = typer.Typer()\napp.command('occupancy')(occupancy_command)\n"
            "app.command('x')(lambda: None)\napp()\n")
    t0 = cpu()
    p = subprocess.run([sys.executable, "-c", code, "occupancy", "--threads", "256", "--regs", "127",
                        "--output-format", "json"], capture_output=True, text=True)
    elapsed = cpu() - t0
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["active_blocks_per_sm"] == 2
    assert elapsed < 1.5  # typically ~0.15 s of processor time
