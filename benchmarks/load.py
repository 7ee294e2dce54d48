"""Bounded HTTP load: wrk when it is installed, else a small Python load generator.

Nothing is installed here. Both report requests per second of successful (2xx) answers over a fixed
time; the Python generator also stops after ``max_requests``.
"""

from __future__ import annotations

import http.client
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass
class LoadResult:
    url: str
    tool: str
    seconds: float
    ok: int
    errors: int

    @property
    def rps(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0


def tool_name(prefer: str = "auto") -> str:
    if prefer == "python":
        return "python"
    if shutil.which("wrk"):
        return "wrk"
    if prefer == "wrk":
        raise SystemExit("wrk was asked for but is not installed (apt-get install wrk), or use --tool python")
    return "python"


def measure(
    url: str,
    *,
    seconds: float,
    connections: int,
    tool: str,
    max_requests: int = 200_000,
    headers: dict[str, str] | None = None,
) -> LoadResult:
    """Requests per second of ``url`` (``headers``, e.g. a session cookie, sent with each)."""
    if tool == "wrk":
        return _wrk(url, seconds=seconds, connections=connections, headers=headers or {})
    return _python(url, seconds=seconds, connections=connections, max_requests=max_requests, headers=headers or {})


def _wrk(url: str, *, seconds: float, connections: int, headers: dict[str, str]) -> LoadResult:
    threads = max(1, min(2, connections))
    extra = [arg for name, value in headers.items() for arg in ("-H", f"{name}: {value}")]
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s", *extra, url],
        capture_output=True,
        text=True,
        timeout=seconds + 30,
        check=True,
    ).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    m = re.search(r"requests in ([\d.]+)(us|ms|s|m)\b", out)
    elapsed = float(m.group(1)) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[m.group(2)]
    non2xx = int(m2.group(1)) if (m2 := re.search(r"Non-2xx or 3xx responses: (\d+)", out)) else 0
    # wrk also counts a "read" socket error whenever gunicorn's sync worker closes a connection after
    # answering; those are not failures. Non-2xx answers and timeouts are.
    m3 = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    timeouts = int(m3.group(4)) + int(m3.group(1)) if m3 else 0
    return LoadResult(url=url, tool="wrk", seconds=elapsed, ok=total - non2xx, errors=non2xx + timeouts)


def _python(url: str, *, seconds: float, connections: int, max_requests: int, headers: dict[str, str]) -> LoadResult:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    lock = threading.Lock()
    counts = {"ok": 0, "errors": 0, "sent": 0}
    deadline = time.monotonic() + seconds

    def worker() -> None:
        conn = None
        while time.monotonic() < deadline:
            with lock:
                if counts["sent"] >= max_requests:
                    return
                counts["sent"] += 1
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
                conn.request("GET", path, headers={"Host": parts.netloc, **headers})
                resp = conn.getresponse()
                resp.read()
                good = 200 <= resp.status < 300
                if resp.getheader("Connection", "").lower() == "close" or resp.will_close:
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException):
                good = False
                if conn is not None:
                    conn.close()
                conn = None
            with lock:
                counts["ok" if good else "errors"] += 1
        if conn is not None:
            conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 15)
    elapsed = time.monotonic() - started
    return LoadResult(url=url, tool="python", seconds=elapsed, ok=counts["ok"], errors=counts["errors"])
