"""A minimal JSON-RPC/LSP client over a subprocess's stdio (Content-Length framing by hand)."""
from __future__ import annotations

import json
import queue
import subprocess
import threading
import time


class LspClient:
    def __init__(self, cmd, cwd=None, env=None):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.messages: "queue.Queue[dict]" = queue.Queue()
        self.next_id = 0
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        self.backlog: list[dict] = []
        self.refreshes: list[str] = []  # refresh requests the server sent (answered)

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, msg: dict) -> None:
        data = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params, timeout: float = 60):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        msg = self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)
        if "error" in msg:
            raise RuntimeError(msg["error"])
        return msg.get("result")

    def wait(self, pred, timeout: float = 60) -> dict:
        for i, m in enumerate(self.backlog):
            if pred(m):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching LSP message; stderr:\n" + "".join(self.stderr[-30:]))
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if m.get("method") in ("window/workDoneProgress/create", "client/registerCapability",
                                   "workspace/inlayHint/refresh", "workspace/codeLens/refresh") and "id" in m:
                if m["method"].endswith("/refresh"):
                    self.refreshes.append(m["method"])
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            if pred(m):
                return m
            self.backlog.append(m)

    def diagnostics(self, uri: str, timeout: float = 60) -> dict:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri, timeout)["params"]

    def close(self, timeout: float = 20) -> int:
        try:
            self.request("shutdown", None, timeout=timeout)
            self.notify("exit", None)
        except Exception:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
