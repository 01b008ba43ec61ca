"""Python side of bench/quality/quality_server.cpp: a tpeopt sampler's ask/tell and a
strategy's batch evaluation, over the server's stdin/stdout protocol."""
import json
import subprocess

import numpy as np


class QualityServer:
    """One quality_server process for one study config (plus a JSON merge patch)."""

    def __init__(self, server, config, patch=None, executor="cpu", threads=0):
        cmd = [server, "--config", str(config), "--executor", executor, "--threads", str(threads)]
        if patch:
            cmd += ["--set", json.dumps(patch)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.info = json.loads(self._line("info"))
        self.axes = self.info["axes"]
        self.d = len(self.axes)
        self.maximize = self.info["direction"] == "maximize"

    def _send(self, line, payload=None):
        self.proc.stdin.write((line + "\n").encode())
        if payload is not None:
            self.proc.stdin.write(np.ascontiguousarray(payload, dtype="<f8").tobytes())
        self.proc.stdin.flush()

    def _line(self, line, payload=None):
        self._send(line, payload)
        out = self.proc.stdout.readline().decode()
        if out.startswith("error:") or not out:
            raise RuntimeError(f"quality_server: {out.strip() or 'exited'}")
        return out

    def _values(self, count):
        raw = self.proc.stdout.read(8 * count)
        if len(raw) != 8 * count:
            tail = raw.decode(errors="replace")
            raise RuntimeError(f"quality_server: short reply ({tail.strip()})")
        return np.frombuffer(raw, dtype="<f8").copy()

    def ask(self, first, n):
        self._send(f"ask {first} {n}")
        return self._values(n * self.d).reshape(n, self.d)

    def tell(self, first, scores, violations):
        payload = np.column_stack([scores, violations])
        self._line(f"tell {first} {len(scores)}", payload)

    def evaluate(self, X, part="in"):
        """(scores, violations) of the rows of X (external values) on part "in" or "out"."""
        X = np.asarray(X, dtype=float).reshape(-1, self.d)
        self._send(f"eval {part} {len(X)}", X)
        r = self._values(2 * len(X)).reshape(len(X), 2)
        return r[:, 0], r[:, 1]

    def close(self):
        if self.proc.poll() is None:
            try:
                self._send("quit")
            except BrokenPipeError:
                pass
            self.proc.wait()
