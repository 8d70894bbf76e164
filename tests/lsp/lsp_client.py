"""A small LSP client for the server's tests and benchmark: starts `synclint lsp`, frames messages,
waits for replies and notifications with a deadline (a misbehaving server fails the test, never hangs it)."""
import json
import os
import queue
import subprocess
import threading
import time


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frames(stream):
    """Yields the JSON messages of a framed byte stream until it ends."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return
            line = line.strip()
            if not line:
                if length is not None:
                    break
                continue
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        body = stream.read(length)
        if len(body) < length:
            return
        yield json.loads(body)


def uri(path):
    return "file://" + os.path.abspath(path)


class Client:
    def __init__(self, synclint, root=None, timeout=30, args=(), capabilities=None, init_options=None, env=None):
        """`env`: variables added to this process's environment for the server."""
        self.proc = subprocess.Popen([synclint, "lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={**os.environ, **env} if env else None)
        self.timeout = timeout
        self.inbox = queue.Queue()
        self.next_id = 1
        self.kept = []  # messages read while waiting for something else
        threading.Thread(target=self._read, daemon=True).start()
        if root is not None:
            params = {"processId": os.getpid(), "rootUri": uri(root), "capabilities": capabilities or {}}
            if init_options is not None:
                params["initializationOptions"] = init_options
            self.result = self.request("initialize", params)
            self.notify("initialized", {})

    def _read(self):
        for m in read_frames(self.proc.stdout):
            self.inbox.put(m)
        self.inbox.put(None)

    def send(self, message):
        self.proc.stdin.write(frame(message))
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return i

    def request(self, method, params):
        i = self.request_async(method, params)
        m = self.wait(lambda m: m.get("id") == i and "method" not in m)
        if "error" in m:
            raise RuntimeError(m["error"])
        return m["result"]

    def wait(self, pred, timeout=None):
        for k, m in enumerate(self.kept):
            if pred(m):
                return self.kept.pop(k)
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            try:
                m = self.inbox.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no matching message from the server")
            if m is None:
                raise EOFError("the server closed its output")
            if "method" in m and "id" in m:  # a request from the server: answer it
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
            if pred(m):
                return m
            self.kept.append(m)

    def diagnostics(self, path, timeout=None, pred=lambda d: True):
        """The next publishDiagnostics for `path` whose list satisfies pred."""
        u = uri(path)
        m = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == u and pred(m["params"]["diagnostics"]), timeout)
        return m["params"]["diagnostics"]

    def open(self, path, text=None, version=1):
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "python",
                                                              "version": version, "text": text}})

    def change(self, path, version, start, end, text):
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri(path), "version": version},
            "contentChanges": [{"range": {"start": {"line": start[0], "character": start[1]},
                                          "end": {"line": end[0], "character": end[1]}}, "text": text}]})

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
        except Exception:
            pass
        try:
            return self.proc.wait(timeout=self.timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
