"""`cudalint server`: hover, inlay hints and code lenses in a real LSP session over stdio, on a
naive and a tiled transpose and on a naive matrix product.

Expected values by hand (block 32x8 from the launch sites, 4-byte floats, 32-byte sectors,
32 banks of 4 bytes):
* naive transpose, load idata[(y+j)*width + x]: 32 consecutive floats = 128 B = 4 sectors;
  store odata[x*height + y+j]: lanes 1024 floats apart (height = 1024 at the launch) = 32
  sectors, 4 of 32 bytes used = 12.5%.
* tiled transpose, tile[threadIdx.x][threadIdx.y + j]: lane tx reads word 32*tx + c, bank c
  for every lane: 32-way, 32 wavefronts where 1 would do; padding to [32][33] makes it bank
  (tx + c) mod 32: no conflict.
* naive matmul, block 16x16: a warp is two rows of 16 threads; M[row*width + k] is one word
  per row: 2 sectors, 8 of 64 bytes used (12.5%); N[k*width + col] is 16 consecutive floats
  for both rows: 2 sectors; CGMA 1 in the k loop (2 flops per 2 loads); on an A100 80GB
  (19,500 GFLOPS, 2039 GB/s, balance 38.3) that is memory-bound at 2039/4 = 509.8 GFLOPS.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls.lsp.server", reason="needs pygls 2 (the lsp/test extra)")

from lsp_client import LspClient  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures"
CAPS = {"workspace": {"inlayHint": {"refreshSupport": True}, "codeLens": {"refreshSupport": True}},
        "textDocument": {"hover": {"contentFormat": ["markdown"]}}}


@pytest.fixture
def session(tmp_path):
    # the project's configuration: the roofline device and a default block for kernels
    # without a launch site
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cudalint]\ndevice = "a100-80gb"\ndefault-block = [32, 32]\nignore = ["CL7"]\n')
    client = LspClient([sys.executable, "-m", "cudalint.cli", "server"], cwd=tmp_path)
    init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(),
                                         "capabilities": CAPS}, timeout=60)
    client.notify("initialized", {})
    yield client, init, tmp_path
    rc = client.close()
    assert rc == 0, "".join(client.stderr[-20:])


def open_doc(client, path: Path) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1,
                                                            "text": path.read_text()}})
    return uri


def hover(client, uri, line0, char):
    r = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                              "position": {"line": line0, "character": char}}, timeout=120)
    return None if r is None else r["contents"]["value"]


def hints(client, uri, text):
    r = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": {
        "start": {"line": 0, "character": 0}, "end": {"line": text.count("\n") + 1, "character": 0}}}, timeout=120)
    lines = text.splitlines()
    for h in r:  # at the end of its line
        assert h["position"]["character"] == len(lines[h["position"]["line"]])
    return {h["position"]["line"] + 1: h["label"] for h in r}


def lenses(client, uri):
    r = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}}, timeout=120)
    return {l["range"]["start"]["line"] + 1: l["command"]["title"] for l in r}


def col(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle)


def test_transpose_hover_inlay_and_lens_follow_the_typing(session):
    client, init, root = session
    caps = init["capabilities"]
    assert caps["hoverProvider"] and "inlayHintProvider" in caps and "codeLensProvider" in caps
    path = root / "transpose.cu"
    shutil.copyfile(FIX / "examples" / "transpose.cu", path)
    text = path.read_text()
    uri = open_doc(client, path)
    assert {d["code"] for d in client.diagnostics(uri, timeout=120)["diagnostics"]} == {"CL201", "CL301"}

    got = hints(client, uri, text)
    assert got == {15: "odata 32 sect/req · idata 4 sect/req",
                   24: "tile no conflict · idata 4 sect/req",
                   29: "odata 4 sect/req · tile 32-way"}

    # an access: the naive store, with the parameter value that decided it
    h = hover(client, uri, 14, col(text, 15, "odata[x"))
    assert "**global store of `odata`** in kernel `transposeNaive`" in h
    assert "strided (stride 1024)" in h and "- 32 sectors per request, 12.5% efficiency" in h
    assert "block 32x8x1, grid 32x32x1" in h and "from launch-site: line 35" in h
    assert "- assumed: height = 1024 from the launch site at line 35" in h
    # the column read of the tile, then the variable itself (the same words as explain)
    h = hover(client, uri, 28, col(text, 29, "tile[threadIdx.x]") + 1)
    assert "**shared load of `tile`** in kernel `transposeTiled`" in h
    assert "- 32 wavefronts per request (1 without conflicts): 32-way bank conflict" in h
    assert "**`tile`**: shared memory, block scope, kernel lifetime, 4096 bytes\n\nwhy: __shared__ variable" in h
    # a register variable
    h = hover(client, uri, 20, col(text, 21, "x ="))
    assert h == "**`x`**: register memory, thread scope, kernel lifetime, 4 bytes\n\nwhy: automatic scalar variable"
    # the kernel name: launch, registers, occupancy and limiter, CGMA, roofline on the device
    h = hover(client, uri, 17, col(text, 18, "transposeTiled") + 3)
    assert h.startswith("**kernel `transposeTiled`** (sm_90)")
    assert "- launch: block 32x8x1, grid 32x32x1, dynamic smem 0 B (from launch-site: line 38" in h
    assert "per thread (from " in h and "4096 B static shared memory" in h
    assert "- occupancy: 100% (8 blocks, 64 of 64 warps per SM), limited by warps" in h
    assert "- CGMA (flops per global access, one thread): kernel 0" in h
    assert "roofline on NVIDIA A100 80GB" in h and "memory-bound" in h
    # hovering the name at a launch site gives the same kernel facts
    assert hover(client, uri, 37, col(text, 38, "transposeTiled") + 1) == h
    assert hover(client, uri, 0, 0) is None

    got = lenses(client, uri)
    assert set(got) == {10, 18}
    assert got[18].startswith("occupancy 100% (limited by warps") and "CGMA 0 (hot loop)" in got[18]
    assert got[18].endswith("memory-bound on a100-80gb")

    # type the padding: the hints and the hover follow (the request waits for the analysis)
    n_refresh = len(client.refreshes)
    text2 = text.replace("__shared__ float tile[TILE_DIM][TILE_DIM];", "__shared__ float tile[TILE_DIM][TILE_DIM + 1];")
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": text2}]})
    got = hints(client, uri, text2)
    assert got[29] == "odata 4 sect/req · tile no conflict"
    h = hover(client, uri, 19, col(text2, 20, "tile"))
    assert "4224 bytes" in h  # 32 x 33 x 4
    assert client.diagnostics(uri, timeout=120)["version"] == 2
    # the server asked the client to refresh both after the analysis
    assert {"workspace/inlayHint/refresh", "workspace/codeLens/refresh"} <= set(client.refreshes[n_refresh:])
    # and an edit that breaks a line: hints move with the text
    text3 = text2.replace("    __syncthreads();\n", "    __syncthreads();\n\n")
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                             "contentChanges": [{"text": text3}]})
    got = hints(client, uri, text3)
    assert got[30] == "odata 4 sect/req · tile no conflict" and 29 not in got


def test_naive_matmul_and_default_block_from_configuration(session):
    client, _, root = session
    path = root / "naive_matmul.cu"
    shutil.copyfile(FIX / "cgma" / "naive_matmul.cu", path)
    text = path.read_text()
    uri = open_doc(client, path)
    client.diagnostics(uri, timeout=120)
    got = hints(client, uri, text)
    assert got[14] == "M 2 sect/req · N 2 sect/req" and got[15] == "P 4 sect/req"
    h = hover(client, uri, 13, col(text, 14, "M[row"))
    assert "- 2 sectors per request, 12.5% efficiency" in h
    assert "block 16x16x1" in h and "- assumed: width assumed 1024 (no value known)" in h
    h = hover(client, uri, 6, col(text, 7, "matmul_naive"))
    assert "hot loop at line 13: 1" in h and "limit 1 as the sizes grow" in h
    assert "roofline on NVIDIA A100 80GB SXM4 (Ampere GA100) (--device a100-80gb" in h
    assert "memory-bound, CGMA 1 vs balance 38.25, at most 509.8 GFLOPS (2.6% of peak)" in h
    lens = lenses(client, uri)
    assert lens == {7: lens[7]} and "CGMA 1 (hot loop)" in lens[7] and lens[7].endswith("memory-bound on a100-80gb")

    # a kernel with no launch site: the configured default-block [32, 32] decides the figures
    tpath = root / "tile_column.cu"
    shutil.copyfile(FIX / "banks" / "tile_column.cu", tpath)
    ttext = tpath.read_text()
    turi = open_doc(client, tpath)
    assert hints(client, turi, ttext)[12] == "out 4 sect/req · tile 32-way"
    h = hover(client, turi, 11, col(ttext, 12, "tile[tx]"))
    assert "block 32x32x1" in h and "configured default-block" in h
    assert lenses(client, turi)[5].endswith("block 32x32x1 assumed")


def test_unsafe_fix_is_offered_but_not_preferred(session):
    client, _, root = session
    path = root / "pad_shape_used.cu"
    shutil.copyfile(FIX / "fix" / "pad_shape_used.cu", path)
    uri = open_doc(client, path)
    diags = [d for d in client.diagnostics(uri, timeout=120)["diagnostics"] if d["code"] == "CL301"]
    assert len(diags) == 1  # block 32x32 from the configured default-block
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": diags[0]["range"], "context": {"diagnostics": diags}})
    pad = actions[0]
    assert pad["title"].startswith("pad `tile` to tile[32][33] (CL301) (unsafe: the array's shape is used "
                                   "beyond its elements: used as a pointer or row at line 21")
    assert not pad.get("isPreferred")
