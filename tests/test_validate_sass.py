"""Per-access measurements of ``validate --ncu`` (commands/validate_sass.py), without a GPU.

The texts below are cut from real outputs of nvdisasm 13.0 and Nsight Compute 2025.3.1 for
``tests/realcode/pb_atax.cu`` (atax_kernel1, run on an H100): line 34 is
``tmp[i] += A[i*NY + j] * x[j];``, unrolled four times by nvcc, whose tmp[i] load is forwarded
from the previous iteration's store (no LDG for it), A[i*NY + j] touching 32 sectors per
request (lanes NY floats apart) and x[j] one (a uniform address).
"""
from __future__ import annotations

import json
from pathlib import Path

from cudalint.commands.validate_sass import (base_name, compare_lines, instructions, match_function,
                                             parse_nvdisasm, parse_source_page, per_line)

NVDISASM = """
//--------------------- .text._Z12atax_kernel1iiPfS_S_ --------------------------
	.section	.text._Z12atax_kernel1iiPfS_S_,"ax",@progbits
_Z12atax_kernel1iiPfS_S_:
.text._Z12atax_kernel1iiPfS_S_:
	//## File "/x/pb_atax.cu", line 28
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "/x/pb_atax.cu", line 32
        /*0010*/                   STG.E desc[UR8][R2.64], RZ ;
	//## File "/x/pb_atax.cu", line 34
        /*0020*/                   LDG.E R10, desc[UR8][R4.64] ;
        /*0030*/                   LDG.E R12, desc[UR8][R6.64+-0x8] ;
        /*0040*/                   FFMA R11, R10, R12, R11 ;
        /*0050*/                   STG.E desc[UR8][R2.64], R11 ;
	//## File "/x/pb_atax.cu", line 36
        /*0060*/              @!P0 BRA `(.L_x_1) ;
        /*0070*/                   EXIT ;
"""

HDR = ('"Address","Source","Instructions Executed","Address Space","Access Operation","Access Size",'
       '"L1 Conflicts Shared N-Way","L2 Theoretical Sectors Global"')
SOURCE_PAGE = "\n".join([
    '"Kernel Name","atax_kernel1(int, int, float *, float *, float *)",',
    HDR,
    '"0x7f00000000","      LDC R1, c[0x0][0x28]","1024","-","-","-","0","0"',
    '"0x7f00000010","      STG.E desc[UR8][R2.64], RZ","1024","Global","Store","32","0","4096"',
    '"0x7f00000020","      LDG.E R10, desc[UR8][R4.64]","262144","Global","Load","32","0","262144"',
    '"0x7f00000030","      LDG.E R12, desc[UR8][R6.64+-0x8]","262144","Global","Load","32","0","8388608"',
    '"0x7f00000040","      FFMA R11, R10, R12, R11","262144","-","-","-","0","0"',
    '"0x7f00000050","      STG.E desc[UR8][R2.64], R11","262144","Global","Store","32","0","1048576"',
    '"0x7f00000060","      @!P0 BRA 0x7f00000010","262144","-","-","-","0","0"',
    '"0x7f00000070","      EXIT","1024","-","-","-","0","0"',
    # ncu prints the section a second time: ignored
    '"Kernel Name","atax_kernel1(int, int, float *, float *, float *)",',
    HDR,
    '"0x7f00000000","      LDC R1, c[0x0][0x28]","1","-","-","-","0","0"',
])


def test_names_of_the_source_page():
    assert base_name("void MatrixMulCUDA<(int)32>(float *, float *, float *, int, int)") == "MatrixMulCUDA<32>"
    assert base_name("atax_kernel1(int, int, float *, float *, float *)") == "atax_kernel1"


def test_instructions_get_their_source_lines_and_figures():
    funcs = parse_nvdisasm(NVDISASM)
    assert list(funcs) == ["_Z12atax_kernel1iiPfS_S_"]
    assert funcs["_Z12atax_kernel1iiPfS_S_"][0x30] == (34, "LDG.E R12, desc[UR8][R6.64+-0x8]")
    rows = parse_source_page(SOURCE_PAGE)["atax_kernel1"]
    assert len(rows) == 8  # the repeated section is not appended
    fn = match_function(rows, funcs)  # absolute branch target vs label: matched by opcodes
    assert fn == "_Z12atax_kernel1iiPfS_S_"
    ins = instructions(rows, funcs[fn])
    assert [(a["line"], a["op"], a["sectors_per_request"]) for a in ins] == [
        (32, "store", 4.0), (34, "load", 1.0), (34, "load", 32.0), (34, "store", 4.0)]
    lines = per_line(ins)
    # line 34's loads: (262144 + 8388608) sectors / (2 x 262144) requests = 16.5, the kernel
    # figure ncu measured for atax_kernel1
    assert lines[(34, "global", "load")] == {"measured": 16.5, "requests": 524288, "instructions": 2}
    assert lines[(32, "global", "store")]["measured"] == 4.0


def test_lines_of_other_files_are_unknown():
    text = NVDISASM.replace('//## File "/x/pb_atax.cu", line 32', '//## File "/inc/helpers.cuh", line 32')
    lines = parse_nvdisasm(text, "/elsewhere/pb_atax.cu")["_Z12atax_kernel1iiPfS_S_"]
    assert lines[0x10] == (None, "STG.E desc[UR8][R2.64], RZ")  # from the header: no line here
    assert lines[0x20][0] == 34


def test_no_match_when_the_code_differs():
    funcs = parse_nvdisasm(NVDISASM)
    rows = parse_source_page(SOURCE_PAGE)["atax_kernel1"]
    other = [dict(r, Source="IMAD R1, R2, R3, R4") for r in rows]
    assert match_function(other, funcs) is None


def test_compare_lines_against_cudalint_accesses():
    measured = {(34, "global", "load"): {"measured": 16.5, "requests": 524288, "instructions": 2},
                (32, "global", "store"): {"measured": 4.0, "requests": 1024, "instructions": 1}}
    # what cudalint predicts today: tmp[i] (4), A[i*NY + j] (32), x[j] (1) on line 34
    acc = [{"line": 34, "column": 13, "space": "global", "kind": "load", "sectors_per_request": 4},
           {"line": 34, "column": 23, "space": "global", "kind": "load", "sectors_per_request": 32},
           {"line": 34, "column": 38, "space": "global", "kind": "load", "sectors_per_request": 1},
           {"line": 32, "column": 9, "space": "global", "kind": "store", "sectors_per_request": 4},
           {"line": 40, "column": 9, "space": "shared", "kind": "load", "wavefronts_per_request": 1}]
    rows = {(r["line"], r["space"], r["kind"]): r for r in compare_lines(acc, measured)}
    r34 = rows[(34, "global", "load")]
    assert r34["predicted"] == (4 + 32 + 1) / 3 and r34["measured"] == 16.5 and r34["agree"] is False
    assert r34["columns"] == [13, 23, 38]
    assert rows[(32, "global", "store")]["agree"] is True
    gone = rows[(40, "shared", "load")]
    assert gone["measured"] is None and gone["agree"] is False and "no instruction" in gone["note"]
    # with the forwarded load marked as not issued, line 34 agrees
    acc[0]["issued"] = False
    rows = {(r["line"], r["space"], r["kind"]): r for r in compare_lines(acc, measured)}
    assert rows[(34, "global", "load")]["predicted"] == 16.5 and rows[(34, "global", "load")]["agree"] is True


def test_compare_lines_weights_accesses_by_their_requests():
    # PolyBench mvt_kernel1 (N = 4096, 16 blocks of 256): x1[i] += a[i*N + j] * y_1[j] with x1
    # loaded once before the j loop (128 requests), a (32 sectors) and y_1 (1) every iteration
    # (524288 requests each). The H100 measured 16.4985 sectors per load request on the line:
    # (128*4 + 524288*32 + 524288*1) / (128 + 2*524288). The plain mean of the three accesses,
    # (4 + 32 + 1) / 3 = 12.33, disagreed by 4.2 sectors.
    measured = {(31, "global", "load"): {"measured": 16.4985, "requests": 1048704, "instructions": 33}}
    acc = [{"line": 31, "column": 13, "space": "global", "kind": "load", "sectors_per_request": 4,
            "requests": 128},
           {"line": 31, "column": 22, "space": "global", "kind": "load", "sectors_per_request": 32,
            "requests": 524288},
           {"line": 31, "column": 37, "space": "global", "kind": "load", "sectors_per_request": 1,
            "requests": 524288}]
    r = compare_lines(acc, measured)[0]
    assert r["predicted"] == (128 * 4 + 524288 * 33) / (128 + 2 * 524288)
    assert abs(r["predicted"] - 16.4985) < 1e-4 and r["agree"] is True
    # a count missing on the line: the plain mean, as before
    acc[0]["requests"] = None
    assert compare_lines(acc, measured)[0]["predicted"] == (4 + 32 + 1) / 3


def test_committed_measurements_are_consistent():
    """In the committed real-code set, the per-line grouping reproduces each kernel's measured
    global load sectors per request (the kernel counter is the same sum over instructions)."""
    data = json.loads((Path(__file__).parent / "data" / "realcode-measured.json").read_text())
    checked = 0
    for k in data["kernels"]:
        lines = per_line(k["accesses"])
        loads = [(v["measured"] * v["requests"], v["requests"]) for (ln, sp, op), v in lines.items()
                 if sp == "global" and op == "load"]
        want = k["measured"]["global_ld_sectors_per_request"]
        if not loads or want is None:
            continue
        got = sum(s for s, _ in loads) / sum(r for _, r in loads)
        assert abs(got - want) <= 0.05 * want + 0.01, (k["kernel"], got, want)
        checked += 1
    assert checked >= 40
