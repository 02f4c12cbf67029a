"""The stdio transport: newline-delimited JSON-RPC on stdin/stdout.

Lines are read with a bounded buffer: a line longer than the message limit is not
kept; its first bytes are (to find its ``id``), the rest is discarded up to the next
newline, and it is answered with ``-32600``. Every complete line is answered in
order; responses are flushed whenever no further input is already buffered, so a
pipelined client gets throughput and an interactive one gets each answer at once.
On EOF, the lines already received are answered (a last line without a newline
too) before returning.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import BinaryIO

from skillpack.server.protocol import Protocol

#: Longest accepted message line, in bytes. MCP requests are small; this is generous.
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
#: Bytes of an oversized line kept to find its id.
HEAD_BYTES = 64 * 1024
READ_SIZE = 256 * 1024


class _Oversized:
    """A line being discarded because it is too long."""

    def __init__(self, head: bytes) -> None:
        self.head = head
        self.size = len(head)


class LineServer:
    """Reads lines from ``in_fd``, answers through ``protocol`` on ``out``."""

    def __init__(
        self, protocol: Protocol, in_fd: int, out: BinaryIO, limit: int = MAX_MESSAGE_BYTES
    ) -> None:
        self.protocol = protocol
        self.in_fd = in_fd
        self.out = out
        self.limit = limit
        self._buf = bytearray()
        self._oversized: _Oversized | None = None

    def _emit(self, parts: Iterable[bytes] | None) -> None:
        if parts is not None:
            write = self.out.write
            for part in parts:
                write(part)

    def _too_long(self, oversized: _Oversized) -> None:
        self._emit(self.protocol.handle_oversized(oversized.head, oversized.size, self.limit))

    def _feed(self, chunk: bytes) -> None:
        if self._oversized is not None:
            newline = chunk.find(b"\n")
            if newline == -1:
                self._oversized.size += len(chunk)
                return
            self._oversized.size += newline
            self._too_long(self._oversized)
            self._oversized = None
            chunk = chunk[newline + 1 :]
        buf = self._buf
        buf += chunk
        start = 0
        handle = self.protocol.handle_line
        while (newline := buf.find(b"\n", start)) != -1:
            if newline - start > self.limit:
                line = _Oversized(bytes(buf[start : start + HEAD_BYTES]))
                line.size = newline - start
                self._too_long(line)
            else:
                self._emit(handle(bytes(buf[start:newline])))
            start = newline + 1
        del buf[:start]
        if len(buf) > self.limit:
            self._oversized = _Oversized(bytes(buf[:HEAD_BYTES]))
            self._oversized.size = len(buf)
            buf.clear()

    def run(self) -> None:
        """Serve until EOF on the input."""
        while chunk := os.read(self.in_fd, READ_SIZE):
            self._feed(chunk)
            self.out.flush()
        if self._oversized is not None:
            self._too_long(self._oversized)
        elif self._buf.strip():
            self._emit(self.protocol.handle_line(bytes(self._buf)))
        self._buf.clear()
        self.out.flush()
