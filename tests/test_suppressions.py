"""Suppression comments (DESIGN.md): ignore, ignore-next-line, file-ignore, reasons, CL010."""
from __future__ import annotations

import pytest

from cuda_sources import kernel
from cudalint.rules.runner import CheckOptions, check_file
from cudalint.rules.suppressions import apply_suppressions, parse_suppressions


def check(tmp_path, src, **copts):
    p = tmp_path / "k.cu"
    p.write_text(src)
    res, _ = check_file(str(p), copts=CheckOptions(**copts))
    return sorted((d.location.line, d.code) for d in res.diagnostics), res


def test_unsuppressed_baseline(tmp_path):
    got, _ = check(tmp_path, kernel())
    assert got == [(11, "CL201"), (12, "CL201"), (14, "CL702")]


def test_ignore_on_the_line_with_reason(tmp_path):
    got, _ = check(tmp_path, kernel(c11="  // cudalint: ignore[CL201] -- stride 4 is intended"))
    assert got == [(12, "CL201"), (14, "CL702")]


def test_ignore_next_line_with_prefix_and_several_codes(tmp_path):
    got, _ = check(tmp_path, kernel(n12="    // cudalint: ignore-next-line[CL7, CL2] because reasons\n"))
    # the inserted line shifts everything below line 11 by one
    assert (13, "CL201") not in got
    assert got == [(11, "CL201"), (12, "CL010"), (15, "CL702")]  # CL7 matched nothing there


def test_file_ignore_and_block_comment(tmp_path):
    got, _ = check(tmp_path, kernel(head="/* cudalint: file-ignore[CL201] legacy code */\n"))
    assert got == [(15, "CL702")]


def test_bare_ignore_silences_everything_on_the_line(tmp_path):
    got, _ = check(tmp_path, kernel(c12="  // cudalint: ignore"))
    assert got == [(11, "CL201"), (14, "CL702")]


def test_unused_suppression_is_reported_with_a_fix(tmp_path):
    got, res = check(tmp_path, kernel(c11="  // cudalint: ignore[CL201,CL301]", c14="  // cudalint: ignore[CL101]"))
    assert got == [(11, "CL010"), (12, "CL201"), (14, "CL010"), (14, "CL702")]
    cl010 = [d for d in res.diagnostics if d.code == "CL010"]
    by_line = {d.location.line: d for d in cl010}
    # CL301 is unused on line 11 but CL201 there is used: only CL301 is reported, and the fix
    # narrows the bracket instead of deleting the comment.
    assert 11 in by_line and "CL301" in by_line[11].message and "CL201" not in by_line[11].message
    assert by_line[11].fix.edits[0].text == "CL201"
    # line 14: the whole suppression is unused; the fix removes the comment and the spaces before it
    fix = by_line[14].fix
    line14 = kernel(c14="  // cudalint: ignore[CL101]").splitlines()[13]
    e = fix.edits[0]
    assert e.text == "" and line14[e.start.column - 1:e.end.column - 1] == "  // cudalint: ignore[CL101]"


def test_unknown_code_and_malformed_directive(tmp_path):
    got, res = check(tmp_path, kernel(c11="  // cudalint: ignore[CL999]", c12="  // cudalint: ignroe[CL201]"))
    msgs = {d.location.line: d.message for d in res.diagnostics if d.code == "CL010"}
    assert "no rule code CL999" in msgs[11]
    assert "unknown cudalint directive `ignroe`" in msgs[12]
    assert (12, "CL201") in got  # a malformed directive suppresses nothing


def test_codes_of_disabled_rules_are_not_called_unused(tmp_path):
    src = kernel(c14="  // cudalint: ignore[CL702]")
    got, _ = check(tmp_path, src, ignore=["CL7"])
    assert got == [(11, "CL201"), (12, "CL201")]
    got, _ = check(tmp_path, src, ignore=["CL010"])  # CL010 itself can be switched off
    assert got == [(11, "CL201"), (12, "CL201")]


def test_cl010_can_be_silenced_by_file_ignore(tmp_path):
    got, _ = check(tmp_path, kernel(head="// cudalint: file-ignore[CL010]\n", c12="  // cudalint: ignore[CL301]"))
    assert got == [(12, "CL201"), (13, "CL201"), (15, "CL702")]


def test_text_in_strings_is_not_a_suppression():
    src = 'const char* s = "// cudalint: ignore[CL201]";\nconst char* r = R"x(/* cudalint: file-ignore[CL2] */)x";\nint a; // cudalint: ignore[CL101]\n'
    sups, bad = parse_suppressions(src)
    assert [(s.kind, s.codes, s.line) for s in sups] == [("line", ("CL101",), 3)]
    assert bad == []


def test_directive_must_start_the_comment():
    sups, _ = parse_suppressions("int a; // see the docs, cudalint: ignore[CL201]\n")
    assert sups == []


def test_cl000_is_never_suppressed(tmp_path):
    p = tmp_path / "bad.cu"
    p.write_text("// cudalint: file-ignore[CL0]\n__global__ void k(float* a) { a[threadIdx.x] = undeclared(); }\n")
    res, _ = check_file(str(p))
    assert [d.code for d in res.diagnostics if d.code == "CL000"] and res.error


@pytest.mark.parametrize("comment,codes,reason", [
    ("// cudalint: ignore[CL201] -- stride intended", ("CL201",), "stride intended"),
    ("// cudalint:ignore[cl201, CL3]: reason", ("CL201", "CL3"), "reason"),
    ("// cudalint: ignore[ALL]", (), ""),
    ("/* cudalint: ignore[CL6] because racy by design */", ("CL6",), "racy by design"),
])
def test_parse_forms(comment, codes, reason):
    sups, bad = parse_suppressions(f"int x; {comment}\n")
    assert not bad and len(sups) == 1
    assert sups[0].codes == codes and sups[0].reason == reason and sups[0].target_line == 1


def test_apply_suppressions_is_a_pure_function():
    from cudalint.rules.diagnostic import Diagnostic, Location
    d = Diagnostic("CL201", "uncoalesced-global-access", "warning", "m", "f.cu", Location(2, 1), Location(2, 5))
    src = "// cudalint: ignore-next-line[CL201]\nx = a[i];\n"
    assert apply_suppressions([d], src, "f.cu", known_codes=["CL201"]) == []
    out = apply_suppressions([d], src.replace("CL201", "CL202"), "f.cu", known_codes=["CL201", "CL202"])
    assert [x.code for x in out] == ["CL201", "CL010"]
