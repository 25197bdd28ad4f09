"""`check --fix` / `--unsafe-fixes` / `--diff` / `--fix-only` on copies of the fixtures."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cudalint.cli import app
from cudalint.fix import apply_edits, select_fixes
from cudalint.rules.diagnostic import Diagnostic, Edit, Fix, Location

FIX = Path(__file__).resolve().parents[1] / "fixtures"
runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def copy(tmp_path: Path, rel: str) -> Path:
    dst = tmp_path / Path(rel).name
    shutil.copyfile(FIX / rel, dst)
    return dst


def codes(r) -> list[str]:
    return [d["code"] for f in json.loads(r.stdout)["files"] for d in f["diagnostics"]]


def test_padding_fix_removes_the_conflict_and_a_second_run_changes_nothing(tmp_path):
    f = copy(tmp_path, "banks/tile_column.cu")
    r = run("check", f, "--block", "32,32", "--fix", "--no-cache")
    # tile[32][33]: the column read tile[tx][ty] is word 33*tx + ty, bank (tx + ty) mod 32:
    # 32 lanes in 32 distinct banks, so nothing remains to report.
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout == ""
    assert "1 finding(s) (1 fixed, 0 remaining)" in r.stderr
    text = f.read_text()
    assert "__shared__ float tile[32][33];" in text and "tile[32][32]" not in text
    again = run("check", f, "--block", "32,32", "--output-format", "json", "--no-cache")
    assert again.exit_code == 0 and codes(again) == []
    before = f.read_bytes()
    second = run("check", f, "--block", "32,32", "--fix", "--no-cache")
    assert second.exit_code == 0 and f.read_bytes() == before
    assert "(0 fixed, 0 remaining)" in second.stderr


def test_padding_of_a_tile_whose_shape_is_used_is_unsafe(tmp_path):
    f = copy(tmp_path, "fix/pad_shape_used.cu")
    before = f.read_bytes()
    stats = run("check", f, "--statistics", "--output-format", "json", "--block", "32,32", "--no-cache")
    row = {r["code"]: r for r in json.loads(stats.stdout)}["CL301"]
    assert (row["count"], row["fixable"], row["unsafe_fixable"]) == (1, 0, 1)
    r = run("check", f, "--fix", "--output-format", "json", "--block", "32,32", "--no-cache")
    assert r.exit_code == 1 and codes(r) == ["CL301"] and f.read_bytes() == before
    fix = json.loads(r.stdout)["files"][0]["diagnostics"][0]["fix"]
    assert fix["applicability"] == "unsafe"
    assert "used as a pointer or row at line 21" in fix["caveat"] and "`sizeof` of it at line 21" in fix["caveat"]
    assert "1 more fixable with --unsafe-fixes" in r.stderr
    stats = run("check", f, "--statistics", "--unsafe-fixes", "--block", "32,32", "--no-cache")
    assert "1  CL301  shared-bank-conflict" in stats.stdout and "(1 fixable)" in stats.stdout
    r = run("check", f, "--fix", "--unsafe-fixes", "--block", "32,32", "--no-cache")
    assert r.exit_code == 0, r.stdout
    assert "__shared__ float tile[32][33];" in f.read_text()


def test_deprecated_calls_are_replaced(tmp_path):
    f = copy(tmp_path, "host/deprecated_api.cu")
    r = run("check", f, "--fix", "--select", "CL703", "--no-cache")
    assert r.exit_code == 0 and r.stdout == ""
    assert "3 finding(s) (3 fixed, 0 remaining)" in r.stderr
    text = f.read_text()
    assert "cudaThread" not in text.split("\n", 1)[1]  # the header comment names them
    assert "cudaError_t e = cudaDeviceSynchronize();" in text
    assert "if (cudaDeviceSetLimit(cudaLimitStackSize, 4096) != cudaSuccess)" in text
    assert "return cudaDeviceReset() == cudaSuccess ? 0 : 1;" in text
    before = f.read_bytes()
    assert run("check", f, "--fix", "--select", "CL703", "--no-cache").exit_code == 0
    assert f.read_bytes() == before


def test_unused_suppressions_are_removed(tmp_path):
    f = copy(tmp_path, "fix/unused_suppressions.cu")
    lines = f.read_text().splitlines()
    r = run("check", f, "--fix", "--output-format", "json", "--no-cache")
    assert "3 fixed" in r.stderr
    assert "CL010" not in codes(r)
    new = f.read_text().splitlines()
    # the comment alone on line 7 takes its line; line 8 loses its comment; line 9 keeps CL201
    assert new == lines[:6] + ["    float v = in[i];", "    out[i * stride] = 2.0f * v;  // cudalint: ignore[CL201]  expect: CL010"] + lines[9:]
    before = f.read_bytes()
    run("check", f, "--fix", "--no-cache")
    assert f.read_bytes() == before


def test_a_file_that_does_not_parse_is_never_written(tmp_path):
    f = copy(tmp_path, "fix/broken.cu")
    before = f.read_bytes()
    r = run("check", f, "--fix", "--no-cache")
    assert r.exit_code == 2 and "[CL000]" in r.stdout
    assert f.read_bytes() == before
    d = run("check", f, "--diff", "--no-cache")
    assert d.exit_code == 2 and d.stdout == "" and f.read_bytes() == before


def test_diff_shows_without_writing_and_fix_only_does_not_report(tmp_path):
    f = copy(tmp_path, "banks/tile_column.cu")
    before = f.read_bytes()
    d = run("check", f, "--block", "32,32", "--diff", "--no-cache")
    assert d.exit_code == 1 and f.read_bytes() == before
    assert "-    __shared__ float tile[32][32];\n+    __shared__ float tile[32][33];\n" in d.stdout
    assert d.stdout.startswith(f"--- {f}\n+++ {f}\n")
    g = copy(tmp_path, "fix/pad_shape_used.cu")
    o = run("check", g, "--fix-only", "--block", "32,32", "--no-cache")  # the unsafe CL301 remains, unreported
    assert o.exit_code == 0 and o.stdout == ""
    assert "fixed 0 finding(s) in 0 file(s) (1 more fixable with --unsafe-fixes)" in o.stderr


def test_fixable_counts_agree_with_what_fix_does(tmp_path):
    for rel in ("banks/tile_column.cu", "host/deprecated_api.cu", "fix/unused_suppressions.cu",
                "fix/pad_shape_used.cu", "banks/matmul_tiled.cu"):
        copy(tmp_path, rel)
    stats = json.loads(run("check", tmp_path, "--statistics", "--output-format", "json",
                           "--block", "32,32", "--no-cache").stdout)
    fixable = sum(r["fixable"] for r in stats)
    assert fixable == 7  # 1 padding + 3 renames + 3 suppressions; the unsafe padding not
    r = run("check", tmp_path, "--fix", "--block", "32,32", "--no-cache")
    assert f"({fixable} fixed," in r.stderr
    after = json.loads(run("check", tmp_path, "--statistics", "--output-format", "json",
                           "--block", "32,32", "--no-cache").stdout)
    assert sum(r["fixable"] for r in after) == 0


def test_fix_is_a_configuration_key(tmp_path):
    f = copy(tmp_path, "host/deprecated_api.cu")
    (tmp_path / "cudalint.toml").write_text("fix = true\nselect = [\"CL703\"]\n")
    r = run("check", f, "--no-cache")
    assert r.exit_code == 0 and "cudaThreadExit" not in f.read_text()
    (tmp_path / "cudalint.toml").write_text("fix = 1\n")
    assert run("check", f, "--no-cache").exit_code == 2


def _diag(line, a, b, text):
    return Diagnostic("CL010", "x", "warning", "m", "f.cu", Location(line, a), Location(line, b),
                      fix=Fix("d", (Edit(Location(line, a), Location(line, b), text),)))


def test_overlapping_fixes_wait_for_the_next_round():
    data = b"abcdef\nghij\n"
    diags = [_diag(1, 2, 5, "X"), _diag(1, 4, 6, "Y"), _diag(1, 2, 5, "X"), _diag(2, 1, 1, "<")]
    edits, n = select_fixes(diags, data, "f.cu", unsafe_fixes=False)
    # bcd -> X is taken; de -> Y overlaps it and waits; the identical X counts without
    # applying twice; the insertion on line 2 is independent
    assert n == 3
    assert apply_edits(data, edits) == b"aXef\n<ghij\n"
    unsafe = Diagnostic("CL301", "x", "warning", "m", "f.cu", Location(1, 1), Location(1, 2),
                        fix=Fix("d", (Edit(Location(1, 1), Location(1, 2), "Z"),), "unsafe"))
    assert select_fixes([unsafe], data, "f.cu", False) == ([], 0)
    assert select_fixes([unsafe], data, "f.cu", True)[1] == 1
