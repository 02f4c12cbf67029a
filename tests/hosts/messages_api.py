"""A loopback stand-in for the Anthropic Messages API, for running a real agent host
(Claude Code) offline in tests.

It records every request it receives (path, headers, JSON body) and answers
``POST /v1/messages`` from a script: each answer of the script is a list of content
blocks (``{"type": "text", ...}`` or ``{"type": "tool_use", ...}``), given in turn to
the requests that offer the model tools (the agent's own loop); any other message
request (a title, a quota probe) gets a short text. Requests with ``"stream": true``
are answered as the API streams them (server-sent events: ``message_start``, one
``content_block_start``/``_delta``/``_stop`` per block, ``message_delta``,
``message_stop``); others with one JSON message. ``count_tokens`` gets a count; every
other path a 404 in the API's error shape.

Nothing here talks to the network: the server binds 127.0.0.1 on a free port and stops
with its context.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Block = dict[str, Any]

MODEL = "claude-stand-in"


def text(words: str) -> Block:
    return {"type": "text", "text": words}


def tool_use(name: str, arguments: dict[str, Any], use_id: str = "toolu_01") -> Block:
    return {"type": "tool_use", "id": use_id, "name": name, "input": arguments}


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class MessagesApi:
    """The stand-in: ``with MessagesApi([...]) as api: ... api.url ... api.requests``."""

    script: Sequence[Sequence[Block]]
    requests: list[Recorded] = field(default_factory=list)
    _turn: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def agent_requests(self) -> list[Any]:
        """The bodies of the message requests that offered the model tools, in order."""
        return [r.body for r in self.requests if r.path.startswith("/v1/messages")
                and isinstance(r.body, dict) and r.body.get("tools")
                and "count_tokens" not in r.path]  # fmt: skip

    def __enter__(self) -> MessagesApi:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                api._record(self, None)
                self._json(404, _error("not_found_error", f"{self.path} is not served here"))

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                api._record(self, body)
                path = self.path.split("?", 1)[0]
                if path.endswith("/count_tokens"):
                    self._json(200, {"input_tokens": 100})
                    return
                if not path.endswith("/v1/messages") or not isinstance(body, dict):
                    self._json(404, _error("not_found_error", f"{path} is not served here"))
                    return
                blocks = api._answer(body)
                if body.get("stream"):
                    self._stream(blocks)
                else:
                    self._json(200, _message(blocks))

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_stand_in")
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, blocks: Sequence[Block]) -> None:
                data = b"".join(_events(blocks))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", "req_stand_in")
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _record(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        with self._lock:
            self.requests.append(Recorded(handler.path, dict(handler.headers.items()), body))

    def _answer(self, body: dict[str, Any]) -> Sequence[Block]:
        if not body.get("tools"):
            return [text("ok")]
        with self._lock:
            turn = self._turn
            self._turn += 1
        if turn < len(self.script):
            return self.script[turn]
        return [text("done")]


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _usage() -> dict[str, int]:
    return {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0}  # fmt: skip


def _stop_reason(blocks: Sequence[Block]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def _message(blocks: Sequence[Block]) -> dict[str, Any]:
    return {
        "id": "msg_stand_in",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": list(blocks),
        "stop_reason": _stop_reason(blocks),
        "stop_sequence": None,
        "usage": _usage(),
    }


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _events(blocks: Sequence[Block]) -> Iterator[bytes]:
    start = {**_message([]), "stop_reason": None}
    yield _event("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        started = {"type": "content_block_start", "index": index, "content_block": opened}
        yield _event("content_block_start", started)
        moved = {"type": "content_block_delta", "index": index, "delta": delta}
        yield _event("content_block_delta", moved)
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _event(
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": _stop_reason(blocks),
                                            "stop_sequence": None},
         "usage": {"output_tokens": 10}},
    )  # fmt: skip
    yield _event("message_stop", {"type": "message_stop"})
