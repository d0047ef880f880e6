"""A real HTTP server on 127.0.0.1 for the adapters' tests: every POST's JSON body goes to `respond`, every request is
recorded. The chat, embeddings, proposer and graph tests each script their replies on top of it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Reply = tuple[int, dict[str, str], bytes]  # status, headers, body
Respond = Callable[[str, dict], Reply]  # (path, request JSON) -> reply


def json_reply(payload: object, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(payload).encode()


class LoopbackServer:
    """Serves `respond` on a free loopback port in a thread; `received` holds (path, lower-cased headers, body) of
    every request in order; `stop()` is idempotent."""

    def __init__(self, respond: Respond) -> None:
        self.received: list[tuple[str, dict[str, str], dict]] = []
        self._lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                with recorder._lock:
                    recorder.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status, headers, data = respond(self.path, body)
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and hung up
                    pass

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self._stopped = False

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self.server.shutdown()
            self.server.server_close()
            self._thread.join(timeout=2)


def status(code: int, body: dict | str = "", headers: dict[str, str] | None = None) -> Callable[[dict], Reply]:
    """A scripted reply: this status with a JSON object or a raw text body."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body.encode()
    return lambda request: (code, {"Content-Type": "application/json", **(headers or {})}, data)


def raw(data: bytes) -> Callable[[dict], Reply]:
    """A scripted 200 whose body is these bytes, JSON or not."""
    return lambda request: (200, {"Content-Type": "application/json"}, data)
