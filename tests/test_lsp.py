"""`cudalint server`: a real LSP session over stdio (JSON-RPC framed by hand)."""
from __future__ import annotations

import sys

import pytest

pytest.importorskip("pygls.lsp.server", reason="needs pygls 2 (the lsp/test extra)")

from lsp_client import LspClient  # noqa: E402

SOURCE = """\
__global__ void shift_left(const float* in, float* out)
{
    __shared__ float s[257];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    s[256] = 0.0f;
    out[blockIdx.x * 256 + t] = s[t + 1];
}

__global__ void transpose(const float* in, float* out)
{
    __shared__ float tile[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = in[ty * 32 + tx];
    __syncthreads();
    out[ty * 32 + tx] = tile[tx][ty];
}

void host(const float* in, float* out)
{
    shift_left<<<64, 256>>>(in, out);
    transpose<<<1, dim3(32, 32)>>>(in, out);
}
"""


def apply_edits(text: str, edits: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for l in lines:
        offsets.append(offsets[-1] + len(l))

    def off(p):
        return offsets[p["line"]] + p["character"]

    for e in sorted(edits, key=lambda e: off(e["range"]["start"]), reverse=True):
        a, b = off(e["range"]["start"]), off(e["range"]["end"])
        text = text[:a] + e["newText"] + text[b:]
    return text


@pytest.fixture
def session(tmp_path):
    (tmp_path / "cudalint.toml").write_text('ignore = ["CL7"]\n')  # the server reads the config
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    client = LspClient([sys.executable, "-m", "cudalint.cli", "server"], cwd=tmp_path)
    init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(),
                                         "capabilities": {}}, timeout=60)
    client.notify("initialized", {})
    yield client, init, path
    rc = client.close()
    assert rc == 0, "".join(client.stderr[-20:])


def test_lsp_session(session):
    client, init, path = session
    caps = init["capabilities"]
    assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix"]
    assert init["serverInfo"]["name"] == "cudalint"
    uri = path.as_uri()

    # --- open: diagnostics with code, severity, range and race witnesses
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda",
                                                            "version": 1, "text": SOURCE}})
    pub = client.diagnostics(uri, timeout=120)
    assert pub["version"] == 1
    diags = sorted(pub["diagnostics"], key=lambda d: (d["range"]["start"]["line"], d["code"]))
    # CL702 ignored by cudalint.toml; the read of s[t + 1] races with the write of s[t] (one
    # CL602). Not with `s[256] = 0.0f`: every thread, the reader included, stores that same 0
    # before reading, so it reads 0 whichever store lands last (a benign race, not reported)
    assert [d["code"] for d in diags] == ["CL602", "CL301"]
    race = diags[0]
    assert race["severity"] == 1 and race["source"] == "cudalint"
    assert race["range"] == {"start": {"line": 6, "character": 32}, "end": {"line": 6, "character": 40}}
    assert race["codeDescription"]["href"].endswith("/CL602")
    witnesses = {(r["location"]["range"]["start"]["line"], r["message"]) for r in race["relatedInformation"]}
    assert witnesses == {(4, "thread 32 writes `s[32]` here")}
    assert "also conflicts" not in race["message"]
    assert all(r["location"]["uri"] == uri for r in race["relatedInformation"])
    bank = diags[1]
    assert bank["severity"] == 2 and bank["range"]["start"] == {"line": 15, "character": 24}

    # --- code actions: the padding fix, and a suppression for every diagnostic
    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": bank["range"], "context": {"diagnostics": [bank]}})
    titles = [a["title"] for a in actions]
    assert titles == ["pad `tile` to tile[32][33] (CL301)", "Ignore CL301 on this line"]
    fixed = apply_edits(SOURCE, actions[0]["edit"]["changes"][uri])
    assert "__shared__ float tile[32][33];" in fixed and fixed.count("\n") == SOURCE.count("\n")
    ignored = apply_edits(SOURCE, actions[1]["edit"]["changes"][uri])
    assert "tile[tx][ty];  // cudalint: ignore[CL301]" in ignored

    # --- changes are debounced: three quick edits, one analysis of the last version
    racefree = fixed.replace("    s[256] = 0.0f;\n", "    s[256] = 0.0f;\n    __syncthreads();\n")
    for version, text in ((2, SOURCE + "// typing\n"), (3, ignored), (4, racefree)):
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"text": text}]})
    pub = client.diagnostics(uri, timeout=120)
    assert pub["version"] == 4 and pub["diagnostics"] == []

    # --- an incremental edit that brings the race back, then save
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 5}, "contentChanges": [
        {"range": {"start": {"line": 6, "character": 0}, "end": {"line": 7, "character": 0}}, "text": ""}]})
    pub = client.diagnostics(uri, timeout=120)
    assert pub["version"] == 5 and [d["code"] for d in pub["diagnostics"]] == ["CL602"]
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    pub = client.diagnostics(uri, timeout=120)
    assert [d["code"] for d in pub["diagnostics"]] == ["CL602"]

    # --- close clears the diagnostics
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri, timeout=30)["diagnostics"] == []


def test_lsp_unparsable_buffer_is_cl000_not_a_dead_server(session):
    client, _, path = session
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1,
                                                            "text": "__global__ void k(float* a) { a[threadIdx.x] = nope(); }\n"}})
    pub = client.diagnostics(uri, timeout=120)
    assert [d["code"] for d in pub["diagnostics"]] == ["CL000"]
    assert "nope" in pub["diagnostics"][0]["message"]
