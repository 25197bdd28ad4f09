"""The precompiled prelude: same diagnostics and IR as the prelude parsed as text, rebuilt when
a header inside it changes, skipped where libclang cannot use one."""
from __future__ import annotations

import os
import time

import pytest

from cudalint.analyzer.frontend import pch
from cudalint.analyzer.frontend.parse import FrontendOptions, build_args, parse_file, prelude_path

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDALINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CUDALINT_NO_PCH", raising=False)
    monkeypatch.setattr(pch, "_memo", {})


def _diags(r):
    return sorted((e.severity, e.file, e.line, e.column, e.message) for e in r.errors + r.warnings)


def test_args_use_the_pch_and_it_is_on_disk(tmp_path):
    f = os.path.join(FIXTURES, "examples", "matmul.cu")
    args = build_args(f)
    assert "-include" in args
    out = pch.pch_args(args, prelude_path())
    i = out.index("-include-pch")
    assert os.path.isfile(out[i + 1]) and out[i + 1].startswith(str(tmp_path / "cache" / "pch"))
    assert prelude_path() not in out and len(out) == len(args)


@pytest.mark.parametrize("name", ["examples/matmul.cu", "coalescing/broadcast.cu", "banks/tile_column.cu",
                                  "barriers/barrier_in_callee.cu", "host/" + sorted(os.listdir(os.path.join(FIXTURES, "host")))[0]])
def test_same_diagnostics_and_ir_as_the_text_prelude(name, monkeypatch):
    from cudalint.analyzer.frontend.lower_clang import lower_translation_unit

    f = os.path.join(FIXTURES, name)
    if not os.path.isfile(f):
        pytest.skip(f"{name} not in this checkout")
    with_pch = parse_file(f)
    assert "-include-pch" in with_pch.args
    monkeypatch.setenv("CUDALINT_NO_PCH", "1")
    plain = parse_file(f)
    assert "-include-pch" not in plain.args
    assert _diags(with_pch) == _diags(plain)
    src = open(f, encoding="utf-8").read()
    a = lower_translation_unit(with_pch.tu, f, src)
    b = lower_translation_unit(plain.tu, f, src)
    assert [k.display_name for k in a.kernels] == [k.display_name for k in b.kernels]
    assert repr(a.kernels) == repr(b.kernels) and repr(a.launches) == repr(b.launches)


def test_rebuilt_when_a_header_inside_changes(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "part.h").write_text("#define PART 1\n")
    prelude = tmp_path / "prelude.h"
    prelude.write_text(f'#include "{inc / "part.h"}"\n')
    args = ["-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "-include", str(prelude)]
    first = pch.pch_args(args, str(prelude))
    path = first[first.index("-include-pch") + 1]
    built = os.stat(path).st_mtime_ns
    pch._memo.clear()  # a new process: the PCH on disk is fresh, reused
    assert pch.pch_args(args, str(prelude)) == first and os.stat(path).st_mtime_ns == built
    time.sleep(0.01)
    (inc / "part.h").write_text("#define PART 22\n")  # same key, stale content
    pch._memo.clear()
    again = pch.pch_args(args, str(prelude))
    assert again == first and os.stat(path).st_mtime_ns != built


def test_no_pch_for_cxx20_or_when_turned_off(monkeypatch):
    f = os.path.join(FIXTURES, "examples", "matmul.cu")
    assert "-include-pch" not in parse_file(f, FrontendOptions(std="c++20")).args
    monkeypatch.setenv("CUDALINT_NO_PCH", "1")
    assert "-include-pch" not in parse_file(f).args


def test_the_headers_inside_the_pch_count_as_included():
    # The result cache and the includer check read what a parse included; clang lists only
    # what it read as text, so the PCH's own headers are added from its record.
    f = os.path.join(FIXTURES, "examples", "matmul.cu")
    with_pch = parse_file(f)
    assert "-include-pch" in with_pch.args
    inside = set(pch.pch_dependencies(with_pch.args[with_pch.args.index("-include-pch") + 1]))
    assert prelude_path() in inside and len(inside) > 20
    assert inside <= set(with_pch.included_files())
