"""Target tables: parsing of architecture names, internal consistency, sources, and the
figures themselves against independent references (NVIDIA's cuda_occupancy.h compiled and
queried, CCCL's arch traits, the occupancy calculator's GPU data sheet)."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from cudalint.analyzer.target import Target, all_targets, known_archs, known_ccs, load_target, parse_arch
from cuda_toolkit import cuda_include_dirs  # tests/ is on sys.path

KB = 1024
EXPECTED_CCS = ["1.0", "1.1", "1.2", "1.3", "2.0", "2.1", "3.0", "3.2", "3.5", "3.7", "5.0", "5.2", "5.3",
                "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3",
                "11.0", "12.0", "12.1"]


def _raw():
    return json.loads(resources.files("cudalint.analyzer").joinpath("data/targets.json").read_text())


# --------------------------------------------------------------------------- names
def test_every_compute_capability_is_present_in_order():
    assert known_ccs() == EXPECTED_CCS
    assert known_archs()[0] == "sm_10" and known_archs()[-1] == "sm_121"
    assert "sm_103" in known_archs() and "sm_110" in known_archs()
    assert len(all_targets()) == 29


@pytest.mark.parametrize("spelling", ["sm_90", "sm90", "90", "9.0", "compute_90", "SM_90", " sm_90 "])
def test_spellings_of_sm90(spelling):
    t = load_target(spelling)
    assert (t.cc, t.arch, t.sm) == ("9.0", "sm_90", 90)


def test_arch_specific_suffixes_keep_the_limits():
    a = load_target("sm_90a")
    assert a.cc == "9.0" and a.arch == "sm_90a" and a.base_arch == "sm_90"
    assert a.registers_per_sm == load_target("sm_90").registers_per_sm
    b = load_target("sm_100a")
    assert (b.cc, b.arch, b.major, b.minor) == ("10.0", "sm_100a", 10, 0)
    assert load_target("sm_100f").arch == "sm_100f"
    assert load_target("121").cc == "12.1" and load_target("10").cc == "1.0"
    assert load_target("compute_103").arch == "sm_103"
    assert parse_arch("sm_120a") == ("12.0", "a")


@pytest.mark.parametrize("bad", ["sm_99", "sm_40", "9.9", "foo", "", "sm_", "compute_1000"])
def test_unknown_arch_lists_known_ones(bad):
    with pytest.raises(ValueError) as ei:
        load_target(bad)
    msg = str(ei.value)
    assert "sm_90" in msg and "sm_10" in msg and "sm_121" in msg


def test_target_is_frozen():
    t = load_target("sm_80")
    with pytest.raises(Exception):
        t.registers_per_sm = 1  # type: ignore[misc]
    assert isinstance(t, Target) and t.to_dict()["cc"] == "8.0"


# --------------------------------------------------------------------------- consistency
@pytest.mark.parametrize("t", all_targets(), ids=lambda t: t.cc)
def test_internal_consistency(t):
    assert t.warp_size == 32
    assert t.max_warps_per_sm * t.warp_size == t.max_threads_per_sm
    assert t.max_threads_per_block <= t.max_threads_per_sm
    assert t.max_registers_per_block <= t.registers_per_sm
    assert t.shared_memory_carveouts == tuple(sorted(t.shared_memory_carveouts))
    assert t.shared_memory_carveouts[-1] == t.shared_memory_per_sm
    assert t.max_shared_memory_per_block <= t.max_shared_memory_per_block_optin <= t.shared_memory_per_sm
    assert t.max_shared_memory_per_block == (16 * KB if t.major == 1 else 48 * KB)
    assert t.reserved_shared_memory_per_block == (KB if t.major >= 8 else 0)
    if t.major >= 8:  # the opt-in maximum leaves room for the reservation
        assert t.max_shared_memory_per_block_optin == t.shared_memory_per_sm - KB
    if t.major < 7:
        assert t.max_shared_memory_per_block_optin == t.max_shared_memory_per_block
    assert t.shared_memory_banks == (16 if t.major == 1 else 32)
    assert t.bank_width_bytes == 4
    assert t.constant_memory_bytes == 64 * KB
    assert t.register_allocation_granularity == ("block" if t.major == 1 else "warp")
    assert t.local_memory_per_thread_bytes == (16 * KB if t.major == 1 else 512 * KB)


def test_every_field_has_a_source():
    raw = _raw()
    refs = set(raw["references"])
    assert {"PG", "XLS", "OCC_H", "CCCL"} <= refs
    fields = [k for k in Target.__dataclass_fields__ if k not in ("cc", "arch", "family", "sources")]
    for cc, e in raw["targets"].items():
        for f in fields:
            assert f in e, (cc, f)
            src = e["sources"].get(f)
            assert src, (cc, f)
            if f == "barriers_per_block_slot" and src == "n/a":
                continue
            assert any(src.startswith(r) or f"; {r}" in src or f"{r} " in src for r in refs), (cc, f, src)


# --------------------------------------------------------------------------- independent figures
# CCCL libcu++ cuda/__device/arch_traits.h: (smem per SM KB, blocks/SM, threads/SM, opt-in KB,
# registers per block)
CCCL = {
    "6.0": (64, 32, 2048, 48, 65536), "6.1": (96, 32, 2048, 48, 65536), "6.2": (64, 32, 2048, 48, 32768),
    "7.0": (96, 32, 2048, 96, 65536), "7.5": (64, 16, 1024, 64, 65536), "8.0": (164, 32, 2048, 163, 65536),
    "8.6": (100, 16, 1536, 99, 65536), "8.7": (164, 16, 1536, 163, 65536), "8.9": (100, 24, 1536, 99, 65536),
    "9.0": (228, 32, 2048, 227, 65536), "10.0": (228, 32, 2048, 227, 65536), "10.3": (228, 32, 2048, 227, 65536),
    "11.0": (228, 24, 1536, 227, 65536), "12.0": (100, 24, 1536, 99, 65536), "12.1": (100, 24, 1536, 99, 65536),
}


@pytest.mark.parametrize("cc", sorted(CCCL))
def test_against_cccl_arch_traits(cc):
    t = load_target(cc)
    smem_kb, blocks, threads, optin_kb, regs_block = CCCL[cc]
    assert t.shared_memory_per_sm == smem_kb * KB
    assert t.max_blocks_per_sm == blocks
    assert t.max_threads_per_sm == threads
    assert t.max_shared_memory_per_block_optin == optin_kb * KB
    assert t.max_registers_per_block == regs_block
    assert t.registers_per_sm == 65536 and t.max_registers_per_thread == 255


# CUDA Occupancy Calculator 'GPU Data' sheet: warps/SM, blocks/SM, smem/SM, register file,
# register allocation unit, granularity, max regs/thread, smem allocation unit, warp
# allocation granularity, max block size
XLS = {
    "1.0": (24, 8, 16384, 8192, 256, "block", 124, 512, 2, 512),
    "1.1": (24, 8, 16384, 8192, 256, "block", 124, 512, 2, 512),
    "1.2": (32, 8, 16384, 16384, 512, "block", 124, 512, 2, 512),
    "1.3": (32, 8, 16384, 16384, 512, "block", 124, 512, 2, 512),
    "2.0": (48, 8, 49152, 32768, 64, "warp", 63, 128, 2, 1024),
    "2.1": (48, 8, 49152, 32768, 64, "warp", 63, 128, 2, 1024),
    "3.0": (64, 16, 49152, 65536, 256, "warp", 63, 256, 4, 1024),
    "3.2": (64, 16, 49152, 65536, 256, "warp", 255, 256, 4, 1024),
    "3.5": (64, 16, 49152, 65536, 256, "warp", 255, 256, 4, 1024),
    "3.7": (64, 16, 114688, 131072, 256, "warp", 255, 256, 4, 1024),
    "5.0": (64, 32, 65536, 65536, 256, "warp", 255, 256, 4, 1024),
    "5.2": (64, 32, 98304, 65536, 256, "warp", 255, 256, 4, 1024),
    "5.3": (64, 32, 65536, 65536, 256, "warp", 255, 256, 4, 1024),
    "6.0": (64, 32, 65536, 65536, 256, "warp", 255, 256, 2, 1024),
    "6.1": (64, 32, 98304, 65536, 256, "warp", 255, 256, 4, 1024),
    "6.2": (64, 32, 65536, 65536, 256, "warp", 255, 256, 4, 1024),
    "7.0": (64, 32, 98304, 65536, 256, "warp", 255, 256, 4, 1024),
    "7.5": (32, 16, 65536, 65536, 256, "warp", 255, 256, 4, 1024),
    "8.0": (64, 32, 167936, 65536, 256, "warp", 255, 128, 4, 1024),
    "8.6": (48, 16, 102400, 65536, 256, "warp", 255, 128, 4, 1024),
}


@pytest.mark.parametrize("cc", sorted(XLS, key=lambda c: tuple(map(int, c.split(".")))))
def test_against_occupancy_calculator_sheet(cc):
    t = load_target(cc)
    got = (t.max_warps_per_sm, t.max_blocks_per_sm, t.shared_memory_per_sm, t.registers_per_sm,
           t.register_allocation_unit, t.register_allocation_granularity, t.max_registers_per_thread,
           t.shared_memory_allocation_unit, t.warp_allocation_granularity, t.max_threads_per_block)
    assert got == XLS[cc]


def test_programming_guide_register_limits_per_block():
    # 32 K registers per block on the Tegra parts 3.2, 5.3 and 6.2; 128 K per SM on GK210
    assert {t.cc for t in all_targets() if t.major >= 3 and t.max_registers_per_block == 32768} == {"3.2", "5.3", "6.2"}
    assert load_target("3.7").registers_per_sm == 131072
    assert load_target("3.7").max_registers_per_block == 65536


def test_hopper_matches_h100_device_properties():
    # cudaGetDeviceProperties on an H100/H200: sharedMemPerMultiprocessor 233472,
    # sharedMemPerBlockOptin 232448, reservedSharedMemPerBlock 1024
    t = load_target("sm_90")
    assert (t.shared_memory_per_sm, t.max_shared_memory_per_block_optin, t.reserved_shared_memory_per_block) == \
        (233472, 232448, 1024)
    assert t.shared_memory_carveouts_kb == (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)


# --------------------------------------------------------------------------- cuda_occupancy.h probe
PROBE = r"""
#include <cstdio>
#include "cuda_occupancy.h"
int main() {
    int major, minor; long smemPerSM;
    while (scanf("%d %d %ld", &major, &minor, &smemPerSM) == 3) {
        cudaOccDeviceProp p; p.computeMajor = major; p.computeMinor = minor;
        p.sharedMemPerMultiprocessor = smemPerSM;
        int sg = -1, rg = -1, sub = -1, blocks = -1, maxr = -1, bars = -1;
        cudaOccSMemAllocationGranularity(&sg, &p);
        cudaOccRegAllocationGranularity(&rg, &p);
        cudaOccSubPartitionsPerMultiprocessor(&sub, &p);
        cudaOccMaxBlocksPerMultiprocessor(&blocks, &p);
        cudaOccRegAllocationMaxPerThread(&maxr, &p);
        cudaOccFuncAttributes a; a.numBlockBarriers = 1;
        if (cudaOccMaxBlocksPerSMBlockBarrierLimit(&bars, 1, &p, &a) != CUDA_OCC_SUCCESS) bars = -1;
        printf("%d %d %d %d %d %d", sg, rg, sub, blocks, maxr, bars);
        if (major >= 7) {            /* carveout options: distinct align-ups of 0..300 KB */
            long last = -1;
            for (long kb = 0; kb <= 300; ++kb) {
                size_t s = (size_t)kb * 1024;
                if (cudaOccAlignUpShmemSizeVoltaPlus(&s, &p) != CUDA_OCC_SUCCESS) break;
                if ((long)s != last) { printf(" %ld", (long)s / 1024); last = (long)s; }
            }
        } else if (major == 3) {     /* Kepler: shared size for each cache preference */
            cudaOccCacheConfig cfgs[3] = {CACHE_PREFER_L1, CACHE_PREFER_EQUAL, CACHE_PREFER_SHARED};
            for (int i = 0; i < 3; ++i) {
                cudaOccDeviceState st; st.cacheConfig = cfgs[i]; size_t lim = 0;
                cudaOccSMemPreference(&lim, &p, &st);
                printf(" %ld", (long)lim / 1024);
            }
        }
        printf("\n");
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def header_probe(tmp_path_factory):
    gxx = shutil.which("g++") or shutil.which("c++")
    incs = cuda_include_dirs()
    if not gxx or not incs:
        pytest.skip("g++ or cuda_occupancy.h not available")
    d = tmp_path_factory.mktemp("probe")
    (d / "p.cpp").write_text(PROBE)
    p = subprocess.run([gxx, "-O1", "-w", f"-I{incs[0]}", str(d / "p.cpp"), "-o", str(d / "p")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot build the probe: {p.stderr[-400:]}")
    ts = [t for t in all_targets() if t.major >= 3]
    out = subprocess.run([str(d / "p")], input="".join(f"{t.major} {t.minor} {t.shared_memory_per_sm}\n" for t in ts),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    return {t.cc: [int(x) for x in line.split()] for t, line in zip(ts, out)}


@pytest.mark.parametrize("t", [t for t in all_targets() if t.major >= 3], ids=lambda t: t.cc)
def test_against_cuda_occupancy_h(header_probe, t):
    vals = header_probe[t.cc]
    sg, rg, sub, blocks, maxr, bars, *extra = vals
    assert t.shared_memory_allocation_unit == sg
    assert t.register_allocation_unit == rg
    assert t.warp_allocation_granularity == sub
    assert t.max_blocks_per_sm == blocks
    assert t.max_registers_per_thread <= maxr  # the header allows 256 from 7.0 (ptxas stops at 255)
    if t.major >= 5:
        assert t.barriers_per_block_slot == bars
    if t.major >= 7:
        assert list(t.shared_memory_carveouts_kb) == extra
    elif t.major == 3:
        assert sorted(set(extra)) == list(t.shared_memory_carveouts_kb)
