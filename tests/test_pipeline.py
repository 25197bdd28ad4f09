"""The facts pipeline: typed facts per kernel, computed only when the selected rules read them."""
from __future__ import annotations

from pathlib import Path

from cudalint.analyzer.pipeline import ALL_FACTS, AnalysisOptions, analyze_file, needed_facts
from cudalint.analyzer.target import DEFAULT_ARCH
from cudalint.rules.runner import CheckOptions, check_file

FIX = Path(__file__).resolve().parents[1] / "fixtures"
COLUMN = FIX / "coalescing" / "column.cu"


def test_needed_facts_follow_the_rule_families():
    assert needed_facts(None) == frozenset(ALL_FACTS) | {"global_races", "requests"}
    # the request counts of the accesses: only the predicted counters read them
    assert needed_facts(["CL201", "CL301", "CL501"]) & {"requests", "predicted_counters"} == set()
    assert needed_facts(["CL201", "CL202"]) == {"accesses"}
    assert needed_facts(["CL401"]) == {"resources", "occupancy"}
    assert needed_facts(["CL501"]) == {"cgma", "roofline", "accesses"}  # CL502 reads the access addresses
    assert needed_facts(["CL602"]) == {"sync"}
    # the global-memory race check, a part of sync, only for CL606/CL607
    assert needed_facts(["CL606"]) == needed_facts(["CL607"]) == {"sync", "global_races"}
    assert needed_facts(["CL602", "CL603"]) == {"sync"}
    assert needed_facts(["CL000", "CL010", "CL701"]) == set()
    # occupancy and roofline are computed from resources and CGMA
    assert needed_facts(["CL4"]) >= {"resources"}


def test_whether_a_rule_may_read_a_fact_is_known_without_loading_the_rules():
    # options.rules_may_read (a one-file run's frontend process decides with it whether to
    # compile the register report): True whenever an enabled rule reads the fact, False only
    # when none does; checked against the registry for every select/ignore combination below
    from cudalint.analyzer.options import rules_may_read
    from cudalint.rules.registry import all_rules

    codes = [r.code for r in all_rules() if r.check is not None]
    prefixes = [[], ["CL1"], ["CL2"], ["CL4"], ["CL401"], ["CL6", "CL7"], ["CL10"], ["CL1", "CL4"], ["CL5"]]
    for select in prefixes:
        for ignore in prefixes:
            enabled = CheckOptions(select=select, ignore=ignore).enabled
            for fact in ALL_FACTS:
                exact = fact in needed_facts([c for c in codes if enabled(c)])
                assert rules_may_read(fact, enabled) or not exact, (select, ignore, fact)
    assert not rules_may_read("resources", CheckOptions(select=["CL2"]).enabled)
    assert not rules_may_read("resources", CheckOptions(ignore=["CL1", "CL4"]).enabled)
    assert rules_may_read("resources", CheckOptions().enabled)
    assert rules_may_read("resources", CheckOptions(select=["CL401"]).enabled)


def test_a_run_restricted_to_coalescing_computes_only_the_access_facts():
    fa = analyze_file(str(COLUMN), AnalysisOptions(use_ptxas=False, facts=needed_facts(["CL201"])))
    assert fa.target.arch == DEFAULT_ARCH
    (k,) = [k for k in fa.kernels if not k.skipped]
    assert k.accesses is not None and len(k.accesses.accesses) > 0
    assert (k.resources, k.occupancy, k.cgma, k.roofline, k.sync) == (None,) * 5
    full = analyze_file(str(COLUMN), AnalysisOptions(use_ptxas=False))
    (kf,) = [k for k in full.kernels if not k.skipped]
    assert all(getattr(kf, f) is not None for f in ALL_FACTS)
    # the same accesses and figures, but no request counts (no rule reads them)
    def without_counts(a):
        return {key: v for key, v in a.to_json().items() if key != "requests"}

    assert [without_counts(a) for a in k.accesses] == [without_counts(a) for a in kf.accesses]
    assert all(a.weight is None for a in k.accesses)
    assert [a.weight for a in kf.accesses] == [8.0, 8.0]  # 256 threads: 8 warps, one request each
    counted = analyze_file(str(COLUMN), AnalysisOptions(use_ptxas=False, facts=needed_facts(["CL201"]) | {"requests"}))
    (kc,) = [k for k in counted.kernels if not k.skipped]
    assert [a.to_json() for a in kc.accesses] == [a.to_json() for a in kf.accesses]


def test_selected_rules_give_the_same_findings_with_fewer_facts():
    sel = CheckOptions(select=["CL2"])
    res, fa = check_file(str(COLUMN), AnalysisOptions(use_ptxas=False), sel)
    assert fa.options.facts == {"accesses"}
    everything, _ = check_file(str(COLUMN), AnalysisOptions(use_ptxas=False), CheckOptions())
    codes = [d.code for d in res.diagnostics]
    assert codes and all(c.startswith("CL2") for c in codes)
    assert codes == [d.code for d in everything.diagnostics if d.code.startswith("CL2")]


def test_a_file_s_register_report_is_read_after_every_kernel_s_accesses(monkeypatch, tmp_path):
    # The report is compiled in the background; the analysis waits for it at the first kernel's
    # resources. Every kernel's accesses come first, so the compile has their time to finish
    # (cuda-samples' reduction_kernel.cu: nine kernels, 2.9 s of waiting at the first one).
    from cudalint.analyzer import pipeline

    order = []
    real_acc, real_res = pipeline._accesses, pipeline.kernel_resources
    monkeypatch.setattr(pipeline, "_accesses", lambda kf, *a, **k: (order.append(("accesses", kf.name)),
                                                                    real_acc(kf, *a, **k))[1])
    monkeypatch.setattr(pipeline, "kernel_resources", lambda fn, *a, **k: (order.append(("resources", fn.name)),
                                                                          real_res(fn, *a, **k))[1])
    src = tmp_path / "two.cu"
    src.write_text("__global__ void a(float *x) { x[threadIdx.x] *= 2.0f; }\n"
                   "__global__ void b(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f; }\n")
    fa = analyze_file(str(src), AnalysisOptions(use_ptxas=False))
    assert order == [("accesses", "a"), ("accesses", "b"), ("resources", "a"), ("resources", "b")]
    assert [k.name for k in fa.kernels] == ["a", "b"]
    assert all(k.resources is not None and k.cgma is not None for k in fa.kernels)


def test_sympy_s_cache_holds_a_file_s_expressions_unless_the_user_says_otherwise():
    # 1000 entries (sympy's default) let equal symbols come back as new objects mid-file:
    # 23 % more Python calls on issue 13's 40 files. Set before sympy is imported.
    import os
    import subprocess
    import sys

    probe = ("import cudalint, sympy; from sympy import Symbol; "
             "print(Symbol._Symbol__xnew_cached_.cache_info().maxsize)")
    env = {k: v for k, v in os.environ.items() if k != "SYMPY_CACHE_SIZE"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["20000"], out.stderr
    out = subprocess.run([sys.executable, "-c", probe], env={**env, "SYMPY_CACHE_SIZE": "500"},
                         capture_output=True, text=True)
    assert out.stdout.split() == ["500"], out.stderr
