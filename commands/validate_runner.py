#!/usr/bin/env python3
"""The GPU side of ``cudalint validate``: compile one kernel with CuPy (NVRTC), read its
attributes and occupancy, fill its buffers with random data, launch and time it.

Runs as a child process (``python validate_runner.py JOB.json [time|profile|info]``) so that a
kernel that faults or hangs takes down only this process: the parent enforces the time limit
and reports what happened. Standard library, NumPy and CuPy only (no cudalint import): the
same script is what Nsight Compute profiles under ``--ncu`` (mode ``profile``: one launch).

The job (JSON, written by ``commands/validate.py``)::

    {"code": device source, "name_expression": "k<float, 256>", "options": [...],
     "grid": [x, y, z], "block": [x, y, z], "dynamic_smem": bytes,
     "args": [{"name", "kind": "buffer", "dtype", "count", "offset", "fill", "int_range"},
              {"name", "kind": "scalar", "dtype", "value"}],
     "globals": [{"name", "dtype", "count", "fill", "int_range"}],
     "repeat": N, "warmup": N, "seed": int, "flush_l2_bytes": bytes}

It prints one line ``CUDALINT_VALIDATE_RESULT {json}`` (also on failure, with ``stage`` and
``error``) and exits 0 on success, 3 on a failure it could report.
"""
import json
import os
import sys
import time
import traceback

MARK = "CUDALINT_VALIDATE_RESULT "
STAGE = "CUDALINT_VALIDATE_STAGE "


def stage(res, name):
    """Record and announce the stage (the parent names it when the child is killed)."""
    res["stage"] = name
    sys.stdout.write(STAGE + name + "\n")
    sys.stdout.flush()


def emit(res):
    sys.stdout.write(MARK + json.dumps(res) + "\n")
    sys.stdout.flush()


def _median(xs):
    s = sorted(xs)
    if not s:
        return None
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def _fill(cp, rs, arr, fill, int_range):
    """Random data, never zeros: floats in [0.5, 1.5), ints in int_range, bytes 1..100."""
    import numpy as np

    n = arr.size
    if n == 0:
        return
    dt = arr.dtype
    if fill == "float" and dt.kind == "f":
        arr[...] = rs.uniform(0.5, 1.5, size=n, dtype=np.float32 if dt.itemsize <= 4 else np.float64).astype(dt)
    elif fill in ("int", "bool") and dt.kind in "iub":
        lo, hi = int_range or (1, 101)
        hi = max(hi, lo + 1)
        tmp = np.int32 if hi < 2**31 and lo >= -2**31 else np.int64
        arr[...] = rs.randint(lo, hi, size=n, dtype=tmp).astype(dt)
    else:  # bytes of a struct, bfloat16 bit patterns, anything else
        raw = arr.view(cp.uint8)
        raw[...] = rs.randint(1, 101, size=raw.size, dtype=np.int32).astype(cp.uint8)


def _write_cubin(cp, code, expr, opts, props, path):
    """The same code compiled by NVRTC to a cubin for this GPU (with -lineinfo), for nvdisasm's
    line table: the parent maps the profiled SASS instructions to source lines with it. Returns
    the kernel's lowered (mangled) name, by which the cubin's function is found."""
    from cupy.cuda import nvrtc

    prog = nvrtc.createProgram(code, "kernel.cu", [], [])
    try:
        nvrtc.addNameExpression(prog, expr)
        arch = "--gpu-architecture=sm_%d%d" % (props["major"], props["minor"])
        nvrtc.compileProgram(prog, [o for o in opts if not o.startswith(("-arch", "--gpu-architecture"))] + [arch])
        data = nvrtc.getCUBIN(prog)
        lowered = nvrtc.getLoweredName(prog, expr)
    finally:
        nvrtc.destroyProgram(prog)
    with open(path, "wb") as f:
        f.write(data)
    return lowered


def _struct_value(np, a, bufs):
    """A struct passed by value, as a NumPy structured scalar with the C layout (CuPy passes
    its bytes): pointer fields hold their buffers' device addresses."""
    fields = a["fields"]
    dt = np.dtype({"names": ["f%d" % i for i in range(len(fields))],
                   "formats": [f["dtype"] for f in fields],
                   "offsets": [int(f["offset"]) for f in fields],
                   "itemsize": int(a["size"])}, align=True)
    rec = np.zeros((), dtype=dt)
    for i, f in enumerate(fields):
        if "buffer" in f:
            rec["f%d" % i] = bufs[f["buffer"]].data.ptr
        elif "value" in f:
            rec["f%d" % i] = f["value"]
    return rec[()]


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: validate_runner.py JOB.json [time|profile|info]\n")
        return 2
    with open(argv[1]) as f:
        job = json.load(f)
    mode = argv[2] if len(argv) > 2 else job.get("mode", "time")
    res = {"ok": False, "stage": "import", "mode": mode}
    try:
        import numpy as np
        import cupy as cp
    except Exception as e:  # noqa: BLE001 - reported to the parent
        res["error"] = "cannot import CuPy: %s: %s" % (type(e).__name__, e)
        emit(res)
        return 3
    try:
        stage(res, "device")
        dev = cp.cuda.Device(0)
        dev.use()
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props.get("name", b"")
        res["device"] = {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "cc": "%d.%d" % (props["major"], props["minor"]),
            "sm_count": props.get("multiProcessorCount"),
            "max_threads_per_sm": props.get("maxThreadsPerMultiProcessor"),
            "regs_per_sm": props.get("regsPerMultiprocessor"),
            "smem_per_sm": props.get("sharedMemPerMultiprocessor"),
            "l2_bytes": props.get("l2CacheSize"),
            "cupy": cp.__version__,
        }
        try:
            res["device"]["nvrtc"] = "%d.%d" % cp.cuda.nvrtc.getVersion()
        except Exception:  # noqa: BLE001
            pass

        stage(res, "compile")
        t0 = time.time()
        expr = job["name_expression"]
        opts = tuple(job.get("options") or ()) + (("-lineinfo",) if job.get("lineinfo") else ())
        mod = cp.RawModule(code=job["code"], options=opts, name_expressions=[expr])
        fn = None
        if job.get("cubin_in"):  # a cubin built for its line table (validate --ncu, per access)
            try:
                cmod = cp.RawModule(path=job["cubin_in"])
                fn, mod = cmod.get_function(job["cubin_function"]), cmod
            except Exception as e:  # noqa: BLE001
                fn = None
                res.setdefault("notes", []).append("cubin not loaded (%s: %s)" % (type(e).__name__, e))
        elif job.get("cubin_out"):
            try:
                lowered = _write_cubin(cp, job["code"], expr, list(opts), props, job["cubin_out"])
                # run exactly the disassembled code (CuPy may otherwise JIT its own build)
                cmod = cp.RawModule(path=job["cubin_out"])
                fn, mod = cmod.get_function(lowered), cmod
            except Exception as e:  # noqa: BLE001 - per-access lines are then not available
                fn = None
                res.setdefault("notes", []).append("per-access lines: no cubin (%s: %s)" % (type(e).__name__, e))
        try:
            fn = fn or mod.get_function(expr)
        except Exception as e:  # noqa: BLE001
            log = getattr(e, "get_message", None)
            res["error"] = "compile failed: %s" % (log() if callable(log) else e)
            emit(res)
            return 3
        res["compile_seconds"] = round(time.time() - t0, 3)
        grid = tuple(int(x) for x in job["grid"])
        block = tuple(int(x) for x in job["block"])
        dyn = int(job.get("dynamic_smem") or 0)
        threads = block[0] * block[1] * block[2]
        attrs = {}
        for k in ("num_regs", "local_size_bytes", "shared_size_bytes", "const_size_bytes",
                  "max_threads_per_block", "ptx_version", "binary_version"):
            try:
                attrs[k] = int(getattr(fn, k))
            except Exception:  # noqa: BLE001
                pass
        res["attributes"] = attrs
        if dyn > 48 * 1024:
            try:
                fn.max_dynamic_shared_size_bytes = dyn
            except Exception as e:  # noqa: BLE001
                res.setdefault("notes", []).append("could not raise the dynamic shared memory limit: %s" % e)
        stage(res, "occupancy")
        try:
            blocks = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, threads, dyn)
            warps_pb = (threads + 31) // 32
            max_warps = (res["device"]["max_threads_per_sm"] or 2048) // 32
            res["occupancy"] = {"blocks_per_sm": int(blocks),
                                "occupancy_pct": 100.0 * blocks * warps_pb / max_warps}
        except Exception as e:  # noqa: BLE001
            res["occupancy"] = {"error": "%s: %s" % (type(e).__name__, e)}
        if mode == "info":
            res["ok"] = True
            res["stage"] = "done"
            emit(res)
            return 0

        stage(res, "allocate")
        rs = cp.random.RandomState(int(job.get("seed", 12345)))
        free, total = cp.cuda.runtime.memGetInfo()
        need = 0
        for a in job["args"]:
            if a["kind"] == "buffer":
                need += int(a["count"]) * np.dtype(a["dtype"]).itemsize
        flush_bytes = int(job.get("flush_l2_bytes", 256 << 20))
        if need + flush_bytes > 0.9 * free:
            res["error"] = ("buffers need %.0f MiB but only %.0f MiB of GPU memory are free"
                            % ((need + flush_bytes) / 2**20, free / 2**20))
            emit(res)
            return 3
        kargs, keep, bufs = [], [], {}
        for a in job["args"]:
            if a["kind"] == "buffer":
                arr = cp.empty(int(a["count"]), dtype=a["dtype"])
                _fill(cp, rs, arr, a.get("fill", "float"), a.get("int_range"))
                keep.append(arr)
                off = int(a.get("offset") or 0)
                bufs[a["name"]] = arr[off:] if off else arr
        for a in job["args"]:
            if a.get("member_of"):
                continue  # a pointer field of a struct argument: its address goes in the struct
            if a["kind"] == "buffer":
                kargs.append(bufs[a["name"]])
            elif a["kind"] == "struct":
                kargs.append(_struct_value(np, a, bufs))
            else:
                kargs.append(np.dtype(a["dtype"]).type(a["value"]))
        for g in job.get("globals") or []:
            try:
                ptr = mod.get_global(g["name"])
                arr = cp.ndarray((int(g["count"]),), dtype=g["dtype"], memptr=ptr)
                _fill(cp, rs, arr, g.get("fill", "float"), g.get("int_range"))
            except Exception as e:  # noqa: BLE001
                res.setdefault("notes", []).append("global `%s` not filled: %s" % (g["name"], e))
        cp.cuda.Device().synchronize()

        stage(res, "launch")
        kargs = tuple(kargs)

        def launch():
            fn(grid, block, kargs, shared_mem=dyn)

        if mode == "profile":
            launch()
            cp.cuda.Device().synchronize()
            res["ok"] = True
            res["stage"] = "done"
            emit(res)
            return 0
        launch()  # first launch alone: a fault is reported as a fault, not as a timing error
        cp.cuda.Device().synchronize()
        stage(res, "timing")
        for _ in range(int(job.get("warmup", 3))):
            launch()
        cp.cuda.Device().synchronize()
        reps = max(1, int(job.get("repeat", 20)))
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        flush = cp.empty(flush_bytes, dtype=cp.uint8) if flush_bytes else None
        cold, warm = [], []
        for _ in range(reps):  # L2 flushed before each launch
            if flush is not None:
                flush.fill(0x5A)
            e0.record()
            launch()
            e1.record()
            e1.synchronize()
            cold.append(cp.cuda.get_elapsed_time(e0, e1) * 1000.0)
        for _ in range(reps):  # back to back
            e0.record()
            launch()
            e1.record()
            e1.synchronize()
            warm.append(cp.cuda.get_elapsed_time(e0, e1) * 1000.0)
        res["timing"] = {"repeat": reps, "median_us": _median(cold), "median_warm_us": _median(warm),
                         "samples_us": [round(x, 3) for x in cold],
                         "samples_warm_us": [round(x, 3) for x in warm], "l2_flushed": bool(flush_bytes)}
        res["ok"] = True
        res["stage"] = "done"
        emit(res)
        return 0
    except Exception as e:  # noqa: BLE001 - a fault in the kernel: reported, not fatal
        msg = "%s: %s" % (type(e).__name__, e)
        res["error"] = msg
        res["fault"] = res["stage"] in ("launch", "timing")
        res["traceback"] = traceback.format_exc()[-2000:]
        emit(res)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
