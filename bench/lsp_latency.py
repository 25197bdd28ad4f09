"""How long after the last keystroke the editor's inlay hints are up to date.

Starts ``cudalint server`` over stdio, opens FILE, then N times: appends a comment line to the
buffer (a keystroke burst ending now), asks for the inlay hints (the server answers once the
debounced analysis of that version is done) and prints the seconds from the change to the
answer. Usage: python bench/lsp_latency.py FILE [N] [-- server args]
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from lsp_client import LspClient  # noqa: E402


def main() -> None:
    path = Path(sys.argv[1]).resolve()
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    text = path.read_text()
    client = LspClient([sys.executable, "-m", "cudalint.cli", "server"], cwd=path.parent)
    client.request("initialize", {"processId": os.getpid(), "rootUri": path.parent.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}})
    rng = {"start": {"line": 0, "character": 0}, "end": {"line": text.count("\n") + 50, "character": 0}}
    t0 = time.perf_counter()
    first = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": rng}, timeout=300)
    print(f"open: {time.perf_counter() - t0:.2f} s to {len(first)} hints")
    times = []
    for i in range(n):
        text += f"// edit {i}\n"
        t0 = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": i + 2},
                                                 "contentChanges": [{"text": text}]})
        hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": rng}, timeout=300)
        times.append(time.perf_counter() - t0)
        print(f"edit {i}: {times[-1]:.2f} s ({len(hints)} hints)")
    print(f"median {statistics.median(times):.2f} s, max {max(times):.2f} s over {n} edits")
    client.close()


if __name__ == "__main__":
    main()
