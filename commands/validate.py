"""``cudalint validate``: prove cudalint's predictions on a GPU.

``cudalint validate FILE --kernel NAME [--block X,Y,Z] [--grid X,Y,Z] [--param NAME=VALUE]
[--size ARG=ELEMENTS] [--repeat N] [--ncu] [--compare-fix] [--output-format text|json]
[--arch sm_XX]``

1. **Analyse** the file as ``cudalint explain`` does (launch configuration, accesses with their
   sectors/wavefronts per request, registers, local and shared memory, occupancy).
2. **Compile** only the kernel's device code with CuPy (NVRTC): the kernel, the device
   functions, variables, types and macros it needs (``validate_source.py``); host code is never
   compiled and never runs. Templates are looked up by name expression (``k<float, 256>``).
   Read registers, local memory, static shared memory and max threads per block from the
   function's attributes and the occupancy from the CUDA occupancy API.
3. **Run** it in a child process with a time limit (``--timeout``): every pointer argument gets
   a buffer sized by the static index analysis over the whole grid (or ``--size``), bounded in
   total (``--max-buffer-mb``), filled with random data (never zeros); scalars come from
   ``--param``, else the launch site, else the static analysis' stated default. Timing: warm-up
   launches, then the median of ``--repeat`` launches timed with CUDA events, L2 flushed before
   each (the warm median is reported too). A kernel that faults or outlives the limit is
   reported, not fatal.
4. **Counters** (``--ncu``): the same launch under Nsight Compute: sectors per request of
   global loads and stores, shared wavefronts per request, local traffic, theoretical occupancy.
5. **Report**: predicted vs measured with the tolerances of ``validate_report.py`` (global
   ±0.5 sectors, shared 10 %), every disagreement flagged ``DIFF``; ``--output-format json``.
6. ``--compare-fix``: apply the fixes cudalint proposes for the kernel (e.g. CL301's
   ``[32][32]`` -> ``[32][33]`` padding) to a temporary copy, run both, print the speedup.

CuPy is an optional extra (``pip install 'cudalint[gpu]'``). This module imports without it;
with no CuPy or no GPU the command says exactly what is missing and exits 2.

Exit status: 0 every compared figure agrees; 1 a disagreement, or the kernel faulted or timed
out (reported); 2 usage error, no CuPy/GPU, a file that cannot be analysed, a kernel that is
not there or does not compile.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, List, Optional

import typer

__all__ = ["validate_command", "gpu_environment", "run_job", "RUNNER", "EXIT_ENV"]

RUNNER = str(Path(__file__).with_name("validate_runner.py"))
MARK = "CUDALINT_VALIDATE_RESULT "
STAGE = "CUDALINT_VALIDATE_STAGE "
EXIT_ENV = 2
_FORMATS = ("text", "json")


def _v(x: Any) -> Any:
    """The value of a parameter when the function is called directly rather than by typer."""
    default = getattr(x, "default", x)
    if x is not default and type(x).__name__.endswith("Info"):
        return None if default is ... else default
    return x


def _fail(msg: str, code: int = EXIT_ENV) -> typer.Exit:
    sys.stderr.write(f"cudalint validate: error: {msg}\n")
    return typer.Exit(code)


# --------------------------------------------------------------------------- environment


def gpu_environment() -> tuple[Optional[str], dict]:
    """``(None, device)`` when CuPy and an NVIDIA GPU are usable; otherwise ``(message, {})``
    where the message says exactly what is missing."""
    mod = sys.modules.get("cupy")
    if mod is None:
        try:
            spec = importlib.util.find_spec("cupy")
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            return ("CuPy is not installed, and `cudalint validate` compiles and runs the kernel through "
                    "CuPy (NVRTC). Install the GPU extra on a machine with an NVIDIA GPU: "
                    "pip install 'cudalint[gpu]' for CUDA 13, or 'cudalint[gpu-cuda12]' for a "
                    "CUDA 12 driver."), {}
    try:
        import cupy  # noqa: F401
    except Exception as e:  # noqa: BLE001 - any import failure is reported as such
        return f"CuPy is installed but cannot be imported ({type(e).__name__}: {e})", {}
    try:
        n = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as e:  # noqa: BLE001
        return (f"no usable NVIDIA GPU: CuPy cannot reach a CUDA device ({type(e).__name__}: {e}). "
                "`cudalint validate` needs an NVIDIA GPU with its driver (libcuda) installed."), {}
    if n < 1:
        return "no NVIDIA GPU: the CUDA driver reports 0 devices", {}
    try:
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props.get("name", b"")
        name = name.decode() if isinstance(name, bytes) else str(name)
        return None, {"name": name, "major": int(props["major"]), "minor": int(props["minor"]), "count": n}
    except Exception as e:  # noqa: BLE001
        return f"no usable NVIDIA GPU: cannot read the properties of device 0 ({type(e).__name__}: {e})", {}


# --------------------------------------------------------------------------- child process


def run_job(job_path: str, mode: str, timeout: float) -> dict:
    """Run ``validate_runner.py`` on a job in its own process group, with a time limit.

    Returns the runner's result dict plus ``status``: ok | compile-error | fault | timeout | error."""
    cmd = [sys.executable, RUNNER, job_path, mode]
    t0 = time.time()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return {"ok": False, "status": "error", "error": f"cannot start the runner: {e}"}
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
    out_s = out.decode("utf-8", "replace")
    err_s = err.decode("utf-8", "replace")
    res: dict = {}
    last_stage = "start"
    for line in out_s.splitlines():
        if line.startswith(STAGE):
            last_stage = line[len(STAGE):].strip() or last_stage
        elif line.startswith(MARK):
            try:
                res = json.loads(line[len(MARK):])
            except ValueError:
                pass
    seconds = round(time.time() - t0, 2)
    if timed_out:
        res.update(ok=False, status="timeout", seconds=seconds,
                   error=f"the kernel did not finish within the time limit of {timeout:g} s "
                         f"(stage: {res.get('stage', last_stage)}); the process was killed")
        return res
    if not res:
        res = {"ok": False, "status": "error", "seconds": seconds,
               "error": f"the runner exited with {p.returncode} without a result: " + (err_s.strip()[-1500:] or out_s.strip()[-1500:])}
        return res
    res["seconds"] = seconds
    if res.get("ok"):
        res["status"] = "ok"
    elif res.get("stage") == "compile":
        res["status"] = "compile-error"
    elif res.get("fault"):
        res["status"] = "fault"
    else:
        res["status"] = "error"
    if p.returncode not in (0, 3) and res.get("ok"):
        res.update(ok=False, status="error", error=f"the runner exited with {p.returncode}: {err_s.strip()[-800:]}")
    return res


# --------------------------------------------------------------------------- parsing


def _dim(text: Optional[str], what: str) -> Optional[tuple[int, int, int]]:
    if text is None:
        return None
    parts = [p for p in text.replace("x", ",").split(",") if p.strip()]
    try:
        vals = [int(p) for p in parts]
    except ValueError:
        vals = []
    if not 1 <= len(vals) <= 3 or any(v <= 0 for v in vals):
        raise _fail(f"{what} must be 1 to 3 positive integers like 32,8 (got {text!r})")
    return tuple((vals + [1, 1])[:3])


def _pairs(items: Optional[List[str]], what: str, integer: bool = False) -> dict:
    out: dict = {}
    for it in items or []:
        if "=" not in it:
            raise _fail(f"{what} expects NAME=VALUE (got {it!r})")
        k, v = (s.strip() for s in it.split("=", 1))
        try:
            val: Any = int(v, 0)
        except ValueError:
            if integer:
                raise _fail(f"{what} {k}: the value must be an integer (got {v!r})")
            try:
                val = float(v)
            except ValueError:
                raise _fail(f"{what} {k}: the value must be a number (got {v!r})")
        if integer and val <= 0:
            raise _fail(f"{what} {k}: the value must be positive (got {v!r})")
        out[k] = val
    return out


# --------------------------------------------------------------------------- the command


def validate_command(
    path: Path = typer.Argument(..., help="The CUDA file."),
    kernel: str = typer.Option(..., "--kernel", "-k", help="The kernel to run (plain name, or an instantiation such as 'scale<float, 256>')."),
    block: Optional[str] = typer.Option(None, "--block", help="Block shape X[,Y[,Z]]; default: the launch site."),
    grid: Optional[str] = typer.Option(None, "--grid", help="Grid shape X[,Y[,Z]]; default: the launch site."),
    dynamic_smem: Optional[int] = typer.Option(None, "--dynamic-smem", min=0, help="Dynamic shared memory per block, bytes."),
    param: Optional[List[str]] = typer.Option(None, "--param", help="Scalar parameter NAME=VALUE (repeatable); default: the launch site."),
    size: Optional[List[str]] = typer.Option(None, "--size", help="Buffer size ARG=ELEMENTS for a pointer parameter (repeatable); default: from the index analysis."),
    repeat: int = typer.Option(20, "--repeat", min=1, max=10000, help="Timed launches; the median is reported."),
    warmup: int = typer.Option(3, "--warmup", min=0, max=1000, help="Untimed launches first."),
    ncu: bool = typer.Option(False, "--ncu", help="Also read the hardware counters with Nsight Compute."),
    compare_fix: bool = typer.Option(False, "--compare-fix", help="Apply cudalint's fixes for the kernel to a copy, run both, print the speedup."),
    output_format: str = typer.Option("text", "--output-format", help="text | json"),
    output_file: Optional[Path] = typer.Option(None, "--output-file", help="Write the report here."),
    arch: Optional[str] = typer.Option(None, "--arch", help="Architecture of the predictions (default: the GPU's)."),
    include: Optional[List[Path]] = typer.Option(None, "-I", "--include-dir", help="Include directory (repeatable)."),
    define: Optional[List[str]] = typer.Option(None, "-D", "--define", help="Preprocessor define NAME[=VALUE] (repeatable)."),
    std: str = typer.Option("c++17", "--std", help="C++ standard."),
    timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Seconds the compile and run may take before the child is killed."),
    max_buffer_mb: int = typer.Option(8192, "--max-buffer-mb", min=1, help="Upper bound on all buffers together, MiB."),
    seed: int = typer.Option(12345, "--seed", help="Seed of the random buffer contents."),
) -> None:
    """Compile, run, time (and with --ncu profile) one kernel on the GPU and compare with
    cudalint's predictions."""
    path, kernel = _v(path), _v(kernel)
    block, grid, dynamic_smem = _v(block), _v(grid), _v(dynamic_smem)
    param, size, repeat, warmup = _v(param), _v(size), _v(repeat) or 20, _v(warmup)
    ncu, compare_fix = bool(_v(ncu)), bool(_v(compare_fix))
    output_format, output_file, arch = _v(output_format) or "text", _v(output_file), _v(arch)
    include, define, std = _v(include) or [], _v(define) or [], _v(std) or "c++17"
    timeout, max_buffer_mb, seed = float(_v(timeout) or 120.0), int(_v(max_buffer_mb) or 8192), int(_v(seed) or 0)
    warmup = 3 if warmup is None else int(warmup)

    if output_format not in _FORMATS:
        raise _fail(f"--output-format must be text or json (got {output_format!r})")
    block_t, grid_t = _dim(block, "--block"), _dim(grid, "--grid")
    params = _pairs(param, "--param")
    sizes = _pairs(size, "--size", integer=True)
    if not Path(path).is_file():
        raise _fail(f"{path}: no such file")

    missing, device = gpu_environment()
    if missing:
        raise _fail(missing)

    from ..analyzer.pipeline import AnalysisOptions, analyze_file
    from ..analyzer.target import load_target
    from .validate_plan import PlanError, build_plan, device_globals
    from .validate_report import REPORT_VERSION, compare, predictions, render_json, render_text
    from .validate_source import ExtractError, extract_device_source

    dev_arch = f"sm_{device['major']}{device['minor']}"
    arch = arch or dev_arch
    try:
        load_target(arch)
    except ValueError as e:
        raise _fail(str(e))
    notes: list[str] = []
    if arch != dev_arch:
        notes.append(f"predictions are for {arch}, the GPU is {dev_arch}: expect differences")
    inc = [str(i) for i in include]
    aopts = AnalysisOptions(arch=arch, block=block_t, grid=grid_t, dynamic_smem=dynamic_smem, params=params,
                            include_dirs=inc, defines=list(define), std=std)
    fa = analyze_file(str(path), aopts)
    if fa.error is not None:
        raise _fail(f"cannot analyse {path}: {fa.error.message}")
    kf = _pick_kernel(fa, kernel, notes)
    if kf.skipped:
        raise _fail(f"kernel `{kf.name}` was not analysed: {kf.skipped}")
    try:
        layouts = _struct_layouts(kf, str(path), inc, define, std, arch)
        plan = build_plan(kf, params, sizes, max_buffer_mb << 20, device_globals(kf, fa.source),
                          struct_layouts=layouts)
    except PlanError as e:
        raise _fail(str(e))
    try:
        dsrc = extract_device_source(fa.source, kf.function.name, str(path), inc,
                                     name_expression=kf.name, defines=define)
    except ExtractError as e:
        raise _fail(str(e))
    notes.extend(dsrc.notes)

    work = tempfile.mkdtemp(prefix="cudalint_validate_")
    try:
        job = _job(dsrc, plan, inc, std, repeat, warmup, seed)
        run = _run_variant(job, work, "original", timeout)
        if run.get("status") == "compile-error":
            sys.stderr.write(f"cudalint validate: error: NVRTC could not compile `{kf.name}`:\n{run.get('error', '')}\n")
            raise typer.Exit(EXIT_ENV)
        ncu_doc = None
        access_rows, access_note = None, ""
        if ncu:
            ncu_doc = _profile(kf.function.name, work, "original", timeout) if run.get("ok") else \
                {"ok": False, "error": "not profiled: the kernel did not run"}
            if ncu_doc.get("ok"):
                access_rows, access_note = _per_access(kf, work, "original", timeout, dev_arch, inc, std)
        pred = predictions(kf, params)
        rows = compare(pred, run, (ncu_doc or {}).get("derived") if ncu_doc else None)
        if ncu and ncu_doc is not None and not ncu_doc.get("ok"):
            rows = compare(pred, run, None)
        doc: dict = {
            "version": REPORT_VERSION,
            "file": str(path),
            "kernel": kf.name,
            "name_expression": dsrc.name_expression,
            "arch": arch,
            "device": (run.get("device") or {"name": device.get("name"), "cc": f"{device['major']}.{device['minor']}"}),
            "launch": {"block": list(plan.block), "grid": list(plan.grid), "dynamic_smem": plan.dynamic_smem,
                       "source": kf.launch.source},
            "arguments": [a.to_json() for a in plan.args],
            "run": _run_summary(run),
            "attributes": run.get("attributes"),
            "occupancy_api": run.get("occupancy"),
            "timing": run.get("timing"),
            "predicted": pred,
            "rows": [r.to_json() for r in rows],
            "ncu": _ncu_summary(ncu_doc) if ncu else None,
            "accesses": access_rows,
            "accesses_note": access_note or None,
            "compare_fix": None,
            "assumptions": list(plan.assumptions) + [a for a in kf.launch.assumptions if a not in plan.assumptions],
            "notes": notes + list(run.get("notes") or []),
        }
        doc["disagreements"] = sum(1 for r in rows if r.agree is False)
        if compare_fix:
            doc["compare_fix"] = _compare_fix(fa, kf, aopts, path, inc, define, std, plan, job, work, run,
                                              timeout, ncu, params)
        text = render_json(doc) if output_format == "json" else render_text(doc)
        if output_file is not None:
            Path(output_file).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        failed_run = run.get("status") != "ok"
        raise typer.Exit(1 if (failed_run or doc["disagreements"]) else 0)
    finally:
        if not os.environ.get("CUDALINT_VALIDATE_KEEP"):
            shutil.rmtree(work, ignore_errors=True)


def _struct_layouts(kf, path: str, inc, define, std: str, arch: str) -> dict:
    """Byte layouts of the kernel's struct parameters passed by value (asked of clang)."""
    from .validate_struct import record_layout

    return {p.name: record_layout(path, kf.function.name, p.name, inc, define, std, arch)
            for p in kf.function.params if p.type.kind == "record"}


def _pick_kernel(fa, kernel: str, notes: list):
    want = kernel.replace(" ", "")
    exact = [k for k in fa.kernels if k.name.replace(" ", "") == want]
    cands = exact or [k for k in fa.kernels if k.function.name == kernel]
    if not cands:
        names = sorted({k.name for k in fa.kernels})
        raise _fail(f"no kernel `{kernel}` in {fa.path}" + (f" (kernels: {', '.join(names)})" if names else " (no kernels found)"))
    if len(cands) > 1:
        notes.append(f"`{kernel}` has {len(cands)} instantiations ({', '.join(k.name for k in cands)}); "
                     f"validating {cands[0].name} (pass --kernel '{cands[1].name}' for another)")
    kf = cands[0]
    if kf.function.template_params and not kf.function.template_bindings:
        raise _fail(f"`{kf.name}` is a template with no instantiation in the file: launch it in the file "
                    "or pass an instantiation such as --kernel 'name<float, 256>'")
    return kf


def _job(dsrc, plan, inc, std, repeat, warmup, seed) -> dict:
    opts = [f"-std={std.replace('gnu++', 'c++')}"] + [f"-I{os.path.abspath(d)}" for d in inc]
    job = {"code": dsrc.code, "name_expression": dsrc.name_expression, "options": opts,
           "repeat": int(repeat), "warmup": int(warmup), "seed": int(seed), "flush_l2_bytes": 256 << 20}
    job.update(plan.to_job())
    return job


def _run_variant(job: dict, work: str, tag: str, timeout: float) -> dict:
    jp = os.path.join(work, f"job_{tag}.json")
    with open(jp, "w") as f:
        json.dump(job, f)
    with open(os.path.join(work, f"kernel_{tag}.cu"), "w") as f:
        f.write(job["code"])
    return run_job(jp, "time", timeout)


def _profile(plain_name: str, work: str, tag: str, timeout: float) -> dict:
    from .validate_ncu import find_ncu, run_ncu

    exe = find_ncu()
    if exe is None:
        return {"ok": False, "error": "Nsight Compute (ncu) not found on PATH, in $NCU or under /usr/local/cuda*/"
                                      "/opt/nvidia/nsight-compute: the counters were not read"}
    jp = _profile_job(work, tag)
    d = os.path.join(work, f"ncu_{tag}")
    os.makedirs(d, exist_ok=True)
    return run_ncu(exe, plain_name, [sys.executable, RUNNER, jp, "profile"], d, timeout=max(180.0, 3 * timeout))


def _profile_job(work: str, tag: str) -> str:
    """The job the profiler runs: built with -lineinfo, and its cubin written for nvdisasm."""
    with open(os.path.join(work, f"job_{tag}.json")) as f:
        job = json.load(f)
    job.update(lineinfo=True, cubin_out=os.path.join(work, f"kernel_{tag}.cubin"))
    jp = os.path.join(work, f"job_{tag}_profile.json")
    with open(jp, "w") as f:
        json.dump(job, f)
    return jp


def _per_access(kf, work: str, tag: str, timeout: float, arch: str, inc, std: str) -> tuple[Optional[list], str]:
    """Per-access rows (``validate_sass.compare_lines``) from Nsight Compute's source counters,
    or (None, why not). The profiled code is a cubin whose line table nvdisasm reads: built by
    the toolkit's nvcc next to nvdisasm when there is one (the same toolkit reads it), else the
    NVRTC cubin the runner wrote."""
    from .validate_ncu import find_ncu, find_tool, run_source_counters
    from .validate_sass import (base_name, compare_lines, instructions, match_function, mismatch, parse_nvdisasm,
                                parse_source_page, per_line)

    ncu = find_ncu()
    nvdisasm = find_tool("nvdisasm", ncu)
    if nvdisasm is None:
        return None, "nvdisasm (CUDA toolkit) not found: SASS instructions cannot be mapped to source lines"
    tried = []
    for cubin, jp in _line_cubins(kf, work, tag, arch, inc, std, nvdisasm, tried):
        try:
            p = subprocess.run([nvdisasm, "-g", "-c", cubin], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            tried.append(f"nvdisasm failed: {e}")
            continue
        funcs = parse_nvdisasm(p.stdout, kf.function.range.file)
        if not funcs:
            tried.append(f"nvdisasm gave no code for {os.path.basename(cubin)} (exit {p.returncode}: "
                         f"{(p.stderr or p.stdout).strip()[-300:]})")
            continue
        d = os.path.join(work, f"src_{tag}_{len(tried)}")
        os.makedirs(d, exist_ok=True)
        sc = run_source_counters(ncu, kf.function.name, [sys.executable, RUNNER, jp, "profile"], d,
                                 timeout=max(180.0, 3 * timeout))
        if not sc.get("ok"):
            return None, sc.get("error") or "no source counters"
        pages = parse_source_page(sc["csv"])
        rows = pages.get(base_name(kf.name)) or pages.get(kf.function.name) or \
            next((v for k, v in pages.items() if k.split("<")[0] == kf.function.name), None)
        if not rows:
            return None, "the source page has no rows for the kernel"
        fn = match_function(rows, funcs)
        if fn is None:
            tried.append(f"the profiled SASS does not match {os.path.basename(cubin)} ({mismatch(rows, funcs)})")
            continue
        measured = per_line(instructions(rows, funcs[fn]))
        return compare_lines(kf.to_json().get("accesses") or [], measured), ""
    return None, "; ".join(tried) or "no cubin to read source lines from"


def _line_cubins(kf, work: str, tag: str, arch: str, inc, std: str, nvdisasm: str, tried: list):
    """(cubin, profile job) pairs to try: nvcc's build of the extracted code (non-template
    kernels), then the runner's NVRTC cubin."""
    src = os.path.join(work, f"kernel_{tag}.cu")
    nvcc = find_tool_near("nvcc", nvdisasm)
    if nvcc and not kf.function.template_params and os.path.exists(src):
        cubin = os.path.join(work, f"kernel_{tag}_nvcc.cubin")
        cmd = [nvcc, "-cubin", "-lineinfo", f"-arch={arch}", f"-std={std.replace('gnu++', 'c++')}", "-o", cubin, src]
        cmd[1:1] = [f"-I{os.path.abspath(d)}" for d in inc]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if p.returncode == 0:
                name = _mangled_in(cubin, kf.function.name, nvdisasm)
                if name:
                    with open(os.path.join(work, f"job_{tag}.json")) as f:
                        job = json.load(f)
                    job.update(cubin_in=cubin, cubin_function=name)
                    jp = os.path.join(work, f"job_{tag}_nvcc.json")
                    with open(jp, "w") as f:
                        json.dump(job, f)
                    yield cubin, jp
                else:
                    tried.append(f"`{kf.function.name}` not found in nvcc's cubin")
            else:
                tried.append(f"nvcc -cubin failed: {p.stderr.strip()[-300:]}")
        except (OSError, subprocess.TimeoutExpired) as e:
            tried.append(f"nvcc failed: {e}")
    cubin = os.path.join(work, f"kernel_{tag}.cubin")
    if os.path.exists(cubin):
        yield cubin, os.path.join(work, f"job_{tag}_profile.json")
    else:
        tried.append("the runner could not write the NVRTC cubin")


def find_tool_near(name: str, near: str) -> Optional[str]:
    from .validate_ncu import find_tool

    return find_tool(name, near)


def _mangled_in(cubin: str, plain: str, nvdisasm: str) -> Optional[str]:
    """The cubin's function symbol for kernel ``plain`` (``_Z<len><name>...`` or ``name``)."""
    import re

    try:
        p = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for m in re.finditer(r"^\s*\.text\.(\S+):", p.stdout, re.M):
        sym = m.group(1)
        mm = re.match(r"_Z(\d+)(\w+)", sym)
        if sym == plain or (mm and mm.group(2)[:int(mm.group(1))] == plain):
            return sym
    return None


def _run_summary(run: dict) -> dict:
    out = {"status": run.get("status"), "seconds": run.get("seconds")}
    if run.get("error"):
        out["error"] = run["error"]
    if run.get("stage") and run.get("status") != "ok":
        out["stage"] = run["stage"]
    if run.get("compile_seconds") is not None:
        out["compile_seconds"] = run["compile_seconds"]
    return out


def _ncu_summary(ncu_doc: Optional[dict]) -> Optional[dict]:
    if ncu_doc is None:
        return None
    keep = ("ok", "error", "derived", "metrics", "seconds", "dropped_metrics", "command")
    return {k: ncu_doc[k] for k in keep if k in ncu_doc}


def _compare_fix(fa, kf, aopts, path, inc, define, std, plan, job, work, run, timeout, ncu, params) -> dict:
    from ..analyzer.pipeline import AnalysisOptions, analyze_file
    from ..rules.runner import CheckOptions, check_file
    from .validate_report import compare, predictions
    from .validate_source import ExtractError, apply_edits, extract_device_source

    res, _ = check_file(str(path), aopts, CheckOptions())
    diags = [d for d in res.diagnostics if d.fix is not None and d.kernel in (kf.name, kf.function.name)]
    out: dict = {"fixes": [{"code": d.code, "line": d.location.line, "message": d.message,
                            "fix": d.fix.description} for d in diags]}
    if not diags:
        out["error"] = f"cudalint proposes no fix for `{kf.name}`: nothing to compare"
        return out
    fixed = apply_edits(fa.source, [e for d in diags for e in d.fix.edits])
    tmp_src = os.path.join(work, "fixed_" + os.path.basename(str(path)))
    with open(tmp_src, "w", encoding="utf-8") as f:
        f.write(fixed)
    try:
        dsrc = extract_device_source(fixed, kf.function.name, str(path), inc, name_expression=kf.name, defines=define)
    except ExtractError as e:
        out["error"] = f"the fixed source cannot be compiled: {e}"
        return out
    job2 = dict(job, code=dsrc.code, name_expression=dsrc.name_expression)
    run2 = _run_variant(job2, work, "fixed", timeout)
    out["run"] = _run_summary(run2)
    if run2.get("status") != "ok":
        out["error"] = run2.get("error") or run2.get("status")
        return out
    # predictions for the fixed copy (its local includes resolve against the original folder)
    opts2 = AnalysisOptions(**{**aopts.__dict__, "include_dirs": list(aopts.include_dirs) + [os.path.dirname(os.path.abspath(str(path)))]})
    fa2 = analyze_file(tmp_src, opts2)
    kf2 = next((k for k in fa2.kernels if k.name == kf.name), None) if fa2.error is None else None
    ncu2 = _profile(kf.function.name, work, "fixed", timeout) if ncu else None
    if kf2 is not None:
        rows = compare(predictions(kf2, params), run2, (ncu2 or {}).get("derived") if ncu2 and ncu2.get("ok") else None)
        out["rows"] = [r.to_json() for r in rows]
    if ncu2 is not None and not ncu2.get("ok"):
        out["ncu_error"] = ncu2.get("error")
    t0 = (run.get("timing") or {}).get("median_us")
    t1 = (run2.get("timing") or {}).get("median_us")
    w0 = (run.get("timing") or {}).get("median_warm_us")
    w1 = (run2.get("timing") or {}).get("median_warm_us")
    if t0 and t1:
        out.update(original_us=t0, fixed_us=t1, speedup=t0 / t1)
    if w0 and w1:
        out.update(original_warm_us=w0, fixed_warm_us=w1, speedup_warm=w0 / w1)
    return out
