"""A local HTTP endpoint in a thread that records the webhook requests it gets."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.client import HTTPMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: HTTPMessage  # names are case-insensitive, as in HTTP
    body: bytes


@dataclass
class Receiver:
    url: str
    statuses: list[int]  # answers in turn; the last one repeats
    requests: list[Received] = field(default_factory=list)


@contextmanager
def webhook_receiver(
    *statuses: int, location: str = "", tls: ssl.SSLContext | None = None, name: str = ""
) -> Iterator[Receiver]:
    """Serve on 127.0.0.1 (a free port) answering `statuses` in turn (default 204); over TLS
    with `tls` (a server context); `name` is the host its URL uses instead of 127.0.0.1."""
    receiver = Receiver(url="", statuses=list(statuses) or [204])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the name http.server calls
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            receiver.requests.append(Received(self.path, self.headers, body))
            index = min(len(receiver.requests), len(receiver.statuses)) - 1
            self.send_response(receiver.statuses[index])
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    scheme = "https" if tls is not None else "http"
    receiver.url = f"{scheme}://{name or '127.0.0.1'}:{server.server_address[1]}/hooks/ecomap"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
