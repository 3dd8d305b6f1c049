"""The fake model provider: a loopback HTTP server that plays the model for one conversation.

Why this module exists: coding agents run their tool loop inside their own process and talk to
a model over HTTP. Pointing an agent's base URL here lets the suite script the model: the first
conversation request is answered with one assistant turn holding the case's tool calls; the next
one carries the tool results as the model would see them, and is captured; every later request
gets a final text turn, so the agent ends its run. Dialect details are in dialects.py; this module
is only the server, the conversation's state and the time bound.

Which requests belong to the conversation: agents also send side requests (titles, token counts,
quota probes, model lists). A request is the conversation's when it speaks a model dialect and
offers tools (every agent offers its built-in tools, so this holds even for a case without
tools; title and summary requests offer none); anything else gets the final text (or a model
list) and is only logged.

Bounds: 127.0.0.1 only, an ephemeral port, request bodies up to 256 MiB, and `wait()` returns
after its timeout whether or not the conversation finished. Standard library only.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import dialects

MAX_BODY = 256 * 1024 * 1024


class Conversation:
    """One scripted conversation: emit the calls once, capture the next request, then end.

    `calls` are wire calls (dialects.py), already named as the agent exposes the tools.
    `expose(name)` maps a case tool name to the name the agent offers the model; it is used to
    check that every case tool was offered. `cut_off` makes the tool turn stop for max tokens
    inside the last call's arguments.
    """

    def __init__(self, calls: list[dict], tool_names: list[str], model: str = "fake-model",
                 cut_off: bool = False):
        self.calls = calls
        self.tool_names = tool_names  # the exposed names that must be on offer
        self.model = model
        self.cut_off = cut_off
        self.state = "emit"  # emit → wait → done
        self.dialect: str | None = None
        self.stream: bool | None = None
        self.offered: list[str] = []
        self.captured: dict | None = None  # the request that followed the tool turn
        self.problem: str | None = None  # why the conversation could not be played
        self.not_offered: list[str] = []  # the case's tools the agent's request left out
        self.log: list[dict] = []
        self.started = time.monotonic()  # request times in the log are seconds since this
        self.lock = threading.Lock()
        self.finished = threading.Event()

    @staticmethod
    def belongs(dialect: str, body: dict) -> bool:
        return bool(dialects.tool_names(dialect, body))

    def answer(self, method: str, path: str, body: dict | None) -> tuple[int, str, bytes]:
        """(status, content type, body) for one request."""
        dialect = dialects.dialect_of(method, path)
        with self.lock:
            self.log.append({"method": method, "path": path[:300], "dialect": dialect, "state": self.state,
                             "at": round(time.monotonic() - self.started, 3), "body": body})
            if dialect is None:
                return self._not_model(method, path)
            if not isinstance(body, dict):
                return 400, "application/json", b'{"error":{"message":"fake provider: the body is not a JSON object"}}'
            stream = dialects.wants_stream(dialect, path, body)
            calls: list[dict] = []
            cut_off = False
            if self.belongs(dialect, body):
                if self.state == "emit":
                    self.dialect, self.stream = dialect, stream
                    self.offered = [n for n in dialects.tool_names(dialect, body) if isinstance(n, str)]
                    missing = [n for n in self.tool_names if n not in self.offered]
                    if missing:
                        self.not_offered = missing
                        self.problem = (f"the agent did not offer the model {', '.join(map(repr, missing))[:300]} "
                                        f"(it offered {len(self.offered)} tools: {', '.join(self.offered)[:600]})")
                        self.state = "done"
                        self.finished.set()
                    else:
                        calls, cut_off = self.calls, self.cut_off
                        self.state = "wait"
                elif self.state == "wait":
                    self.captured = body
                    self.state = "done"
                    self.finished.set()
            try:
                events = dialects.render_turn(dialect, calls, stream, self.model, cut_off)
            except dialects.Unexpressible as exc:
                self.problem = str(exc)
                self.state = "done"
                self.finished.set()
                events = dialects.render_turn(dialect, [], stream, self.model)
            content_type = "text/event-stream" if stream else "application/json"
            return 200, content_type, dialects.encode(events, stream)

    def _not_model(self, method: str, path: str) -> tuple[int, str, bytes]:
        route = path.split("?")[0].rstrip("/")
        if method == "GET" and route.endswith("/models"):
            listing = {"object": "list", "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}],
                       "models": []}
            return 200, "application/json", json.dumps(listing).encode()
        if method == "HEAD" or (method == "GET" and route in ("", "/")):
            return 200, "application/json", b"{}"
        return 404, "application/json", b'{"error":{"type":"not_found","message":"fake provider: no such endpoint"}}'

    def results(self) -> list[dict]:
        """The tool results of the captured request, in order (empty when nothing was captured)."""
        if self.captured is None or self.dialect is None:
            return []
        return dialects.results(self.dialect, self.captured)


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks, total = [], 0
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                break
            total += size
            if total > MAX_BODY:
                raise ValueError("request body too large")
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
        raw = b"".join(chunks)
    else:
        length = int(handler.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        raw = handler.rfile.read(length)
    encoding = handler.headers.get("Content-Encoding", "").lower()
    if encoding == "gzip":
        raw = gzip.decompress(raw)
    elif encoding == "deflate":
        raw = zlib.decompress(raw)
    return raw


def _handler_class(conversation: Conversation) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args) -> None:  # keep stderr for the adapter
            pass

        def _serve(self) -> None:
            try:
                raw = _read_body(self)
                body = json.loads(raw) if raw.strip() else None
            except (ValueError, OSError, zlib.error) as exc:
                status, kind, payload = 400, "application/json", json.dumps({"error": {"message": f"fake provider: {exc}"[:300]}}).encode()
            else:
                status, kind, payload = conversation.answer(self.command, self.path, body)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            if kind == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
            self.wfile.flush()

        do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = _serve

    return Handler


class Provider:
    """The server around one Conversation: `with Provider(conv) as p: ... p.base_url ...`."""

    def __init__(self, conversation: Conversation):
        self.conversation = conversation
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(conversation))
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "Provider":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def wait(self, timeout: float, alive: Callable[[], bool] = lambda: True) -> bool:
        """Waits until the results were captured (True) or the timeout passed or `alive()` is false."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.conversation.finished.wait(0.05):
                return True
            if not alive():
                return self.conversation.finished.is_set()
        return self.conversation.finished.is_set()
