"""Roofline arithmetic, checked against the seed's worked examples by hand."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from cudalint.analyzer.devices import custom_device, load_device
from cudalint.analyzer.roofline import (
    RooflinePoint,
    attainable_gflops,
    balance_cgma,
    roofline,
)
from cudalint.reporters.roofline_plot import plot_roofline


# --- seed exercise 5.10 (Kirk & Hwu, ch. 5) ------------------------------------------------------
# "A kernel performs 36 floating-point operations and 7 32-bit word global memory accesses per
# thread." CGMA = 36 / 7 = 5.142857...


def test_exercise_5_10_a_memory_bound():
    # (a) 200 GFLOPS, 100 GB/s. 100 GB/s / 4 B = 25 G words/s; 25 x 36/7 = 128.57 GFLOPS < 200.
    # Balance = 200 / 25 = 8 > 5.14, so memory-bound.
    pt = roofline(custom_device(200, 100), 36 / 7)
    assert pt.bound == "memory"
    assert pt.balance_cgma == pytest.approx(8.0)
    assert pt.attainable_gflops == pytest.approx(900 / 7)  # 25 * 36 / 7 = 128.571...
    assert pt.fraction_of_peak == pytest.approx(900 / 7 / 200)


def test_exercise_5_10_b_compute_bound():
    # (b) 300 GFLOPS, 250 GB/s. 250 / 4 = 62.5 G words/s; 62.5 x 36/7 = 321.4 GFLOPS > 300.
    # Balance = 300 / 62.5 = 4.8 < 5.14, so compute-bound at the full 300 GFLOPS.
    pt = roofline(custom_device(300, 250), 36 / 7)
    assert pt.bound == "compute"
    assert pt.balance_cgma == pytest.approx(4.8)
    assert pt.attainable_gflops == pytest.approx(300.0)
    assert pt.fraction_of_peak == pytest.approx(1.0)


# --- seed G80 example (lecture 20, lines 38-41 and 306) -------------------------------------------


def test_g80_cgma_1():
    # 86.4 GB/s / 4 B = 21.6 G floats/s, so CGMA 1 gives at most 21.6 GFLOPS of the 367 peak.
    pt = roofline(load_device("g80"), 1)
    assert pt.attainable_gflops == pytest.approx(21.6)
    assert pt.bound == "memory"
    assert pt.peak_gflops == 367
    assert pt.fraction_of_peak == pytest.approx(21.6 / 367)


def test_g80_tiled_16():
    # 16x16 tiles: [(86.4 / 4) x 16] = 345.6 GFLOPS, "very close to the peak (367gigaflops)".
    # Balance = 367 / 21.6 = 16.99, so CGMA 16 is still (just) memory-bound.
    g80 = load_device("g80")
    pt = roofline(g80, 16)
    assert pt.attainable_gflops == pytest.approx(345.6)
    assert pt.bound == "memory"
    assert balance_cgma(g80) == pytest.approx(367 / 21.6)
    assert roofline(g80, 32).bound == "compute"
    assert roofline(g80, 32).attainable_gflops == 367


# --- seed chapter 5 text (Kirk & Hwu 5.1 and 5.4) --------------------------------------------------


def test_chapter_5_1_200_gbs():
    # "global memory bandwidth is around 200 GB/s ... no more than 50 (200/4) giga single-precision
    # operands per second. With a CGMA ratio of 1.0 ... no more than 50 GFLOPS"; to reach the peak
    # 1,500 GFLOPS "we need a CGMA value of 30" (1500 / 50).
    dev = custom_device(1500, 200)
    assert attainable_gflops(dev, 1.0) == pytest.approx(50.0)
    assert balance_cgma(dev) == pytest.approx(30.0)


def test_chapter_5_4_150_gbs_tiled():
    # "this improvement allows a 150 GB/s global memory bandwidth to support (150/4) x 16 = 600 GFLOPS"
    assert attainable_gflops(custom_device(1500, 150), 16) == pytest.approx(600.0)


def test_farber_vector_multiply():
    # Seed 002 (Farber): c[i] = a[i] * b[i] is 1 flop per 3 accesses; "a GPU with 177 GB/s of memory
    # bandwidth could only deliver 14 Gflop, or approximately 1.4 percent of the performance of a
    # teraflop GPU". 177 / 4 / 3 = 14.75 GFLOPS; 14.75 / 1000 = 1.475 %.
    pt = roofline(custom_device(1000, 177), 1 / 3)
    assert pt.attainable_gflops == pytest.approx(14.75)
    assert pt.fraction_of_peak == pytest.approx(0.01475)
    assert pt.bound == "memory"


# --- issue acceptance: naive vs tiled matrix product on modern parts -------------------------------


def test_matrix_product_on_h100():
    h100 = load_device("H100 SXM")
    # Balance = 67,000 / (3,350 / 4) = 80.
    assert balance_cgma(h100) == pytest.approx(80.0)
    # naive CGMA 1: 837.5 GFLOPS; 16x16 tiles: 13,400; 32x32: 26,800 -- all memory-bound.
    assert [roofline(h100, c).attainable_gflops for c in (1, 16, 32)] == pytest.approx([837.5, 13_400, 26_800])
    assert all(roofline(h100, c).bound == "memory" for c in (1, 16, 32))


def test_a100_balance():
    # A100 40GB: 19,500 / (1,555 / 4) = 50.16; A100 80GB: 19,500 / (2,039 / 4) = 38.25.
    assert balance_cgma(load_device("a100-40gb")) == pytest.approx(19_500 / (1_555 / 4))
    assert balance_cgma(load_device("a100-80gb")) == pytest.approx(38.254, rel=1e-4)


def test_fp64_uses_the_fp64_peak_and_8_byte_words():
    # H100 SXM FP64: 34,000 / (3,350 / 8) = 81.19; a double CGMA of 2 gives 2 x 418.75 = 837.5.
    h100 = load_device("h100-sxm")
    pt = roofline(h100, 2, precision="fp64")
    assert pt.word_bytes == 8
    assert pt.balance_cgma == pytest.approx(34_000 / (3_350 / 8))
    assert pt.attainable_gflops == pytest.approx(837.5)
    with pytest.raises(ValueError):
        roofline(load_device("g80"), 1, precision="fp64")  # no FP64 on sm_10


def test_word_bytes_explicit():
    # Default word is 4 bytes for fp32; passing 4 explicitly changes nothing, 8 halves the roof.
    g80 = load_device("g80")
    assert roofline(g80, 1, word_bytes=4).attainable_gflops == pytest.approx(21.6)
    assert roofline(g80, 1, word_bytes=8).attainable_gflops == pytest.approx(10.8)
    assert balance_cgma(g80, word_bytes=8) == pytest.approx(2 * balance_cgma(g80))


# --- edge cases -------------------------------------------------------------------------------------


def test_ridge_point_is_compute_bound():
    dev = custom_device(200, 100)
    pt = roofline(dev, 8.0)
    assert pt.bound == "compute" and pt.attainable_gflops == pytest.approx(200)


def test_no_global_accesses_and_zero_flops():
    dev = load_device("h100")
    inf = roofline(dev, math.inf)
    assert inf.bound == "compute" and inf.attainable_gflops == dev.peak_fp32_gflops
    assert inf.to_json()["cgma"] is None
    zero = roofline(dev, 0)
    assert zero.bound == "memory" and zero.attainable_gflops == 0 and zero.fraction_of_peak == 0


def test_rejects_bad_cgma():
    dev = load_device("h100")
    for bad in (-1, float("nan"), "abc", None):
        with pytest.raises(ValueError):
            roofline(dev, bad)
    with pytest.raises(ValueError):
        roofline(dev, 1, word_bytes=0)
    with pytest.raises(ValueError):
        roofline(dev, 1, precision="fp16")


def test_sympy_numbers_accepted_symbols_rejected():
    sympy = pytest.importorskip("sympy")
    pt = roofline(custom_device(200, 100), sympy.Rational(36, 7))
    assert isinstance(pt.cgma, float) and pt.attainable_gflops == pytest.approx(900 / 7)
    assert roofline(custom_device(200, 100), sympy.oo).bound == "compute"
    with pytest.raises(ValueError, match="symbolic"):
        roofline(custom_device(200, 100), sympy.Symbol("N") / 2)


def test_to_json():
    pt = roofline(load_device("g80"), 16)
    assert isinstance(pt, RooflinePoint)
    doc = pt.to_json()
    assert {"device", "cgma", "balance_cgma", "bound", "attainable_gflops", "peak_gflops",
            "fraction_of_peak"} <= set(doc)
    assert doc["device"] == "g80"
    assert doc["bound"] == "memory"
    assert doc["attainable_gflops"] == pytest.approx(345.6)
    json.dumps(doc, allow_nan=False)  # strictly valid JSON


# --- plotting --------------------------------------------------------------------------------------


def test_plot_writes_png(tmp_path: Path):
    pytest.importorskip("matplotlib")
    out = plot_roofline(
        load_device("g80"),
        [("mm_naive", 1.0), ("mm_tiled16", 16.0), ("mm_tiled32", 32.0), ("no_global", math.inf)],
        tmp_path / "roofline.png",
    )
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 5_000


def test_plot_fp64_and_per_point_word_size(tmp_path: Path):
    pytest.importorskip("matplotlib")
    out = plot_roofline(
        load_device("a100-80gb"), [("dgemm", 8.0, 8), ("daxpy", 2 / 3)], tmp_path / "r64.png", precision="fp64"
    )
    assert out.exists() and out.stat().st_size > 5_000


def test_plot_without_matplotlib(monkeypatch, tmp_path: Path):
    # Simulate an install without the `plot` extra: the import must fail with an install hint.
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match="pip install"):
        plot_roofline(load_device("g80"), [("k", 1.0)], tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
