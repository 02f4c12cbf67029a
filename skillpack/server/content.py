"""Verified reads: no byte leaves the server before its size and sha256 match the lock.

Every ``resources/read`` goes through :meth:`VerifiedReader.contents`. Bytes are
checked with :func:`skillpack.content.read_verified` (the one check every reader
applies), then judged by the content scan on a file's first read (admission: an
error-level finding not accepted with ``--accept`` keeps the file from ever being
sent, whoever built the bundle); only then are they encoded as a
``TextResourceContents`` (valid UTF-8) or ``BlobResourceContents`` (anything else). The
encoded form of verified small files is
kept in a bounded LRU cache; large files are streamed out in chunks, so a big file
costs about its own size in memory, once.
"""

from __future__ import annotations

import base64
import codecs
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from skillpack.content import IntegrityError, read_verified
from skillpack.manifest import EXECUTABLE_META
from skillpack.server.index import ServedFile
from skillpack.server.jsonrpc import encode_json, encode_string

if TYPE_CHECKING:
    from skillpack.policy.admission import Accept, Block

#: Files above this size are streamed out in chunks (and not cached) instead of being
#: encoded in one piece.
STREAM_THRESHOLD = 256 * 1024
#: Default byte budget of the cache of encoded, verified contents.
DEFAULT_CACHE_BYTES = 16 * 1024 * 1024
#: Chunk size for streaming (a multiple of 3, so base64 chunks concatenate cleanly).
CHUNK = 3 * 64 * 1024

Encoded = Sequence[bytes] | Iterator[bytes]


class ReadFailure(Exception):
    """A file could not be served; ``message`` names its URI and says why."""

    def __init__(self, uri: str, message: str) -> None:
        super().__init__(message)
        self.uri = uri
        self.message = message


def _is_utf8(data: bytes) -> bool:
    """True if ``data`` decodes as UTF-8 (checked piecewise: no full-size copy)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), CHUNK):
            decoder.decode(view[start : start + CHUNK], final=False)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


_EXECUTABLE = b',"_meta":{"' + EXECUTABLE_META.encode() + b'":true}'


def _head(uri: str, mime: str | None, key: str, executable: bool = False) -> bytes:
    meta: dict[str, str] = {"uri": uri}
    if mime:
        meta["mimeType"] = mime
    head = encode_json(meta)[:-1] + (_EXECUTABLE if executable else b"")
    return head + b',"' + key.encode() + b'":"'


def encode_contents(uri: str, mime: str | None, data: bytes, executable: bool = False) -> bytes:
    """One ``contents`` item: ``text`` when ``data`` is valid UTF-8, else a base64 ``blob``."""
    try:
        body = b'"text":' + encode_string(data.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        body = b'"blob":"' + base64.b64encode(data) + b'"'
    head = b'{"uri":' + encode_string(uri).encode("utf-8")
    if mime:
        head += b',"mimeType":' + encode_string(mime).encode("utf-8")
    if executable:
        head += _EXECUTABLE
    return head + b"," + body + b"}"


def stream_contents(
    uri: str, mime: str | None, data: bytes, executable: bool = False
) -> Iterator[bytes]:
    """:func:`encode_contents` in chunks, for files too large to encode in one piece."""
    view = memoryview(data)
    if _is_utf8(data):
        yield _head(uri, mime, "text", executable)
        decoder = codecs.getincrementaldecoder("utf-8")()
        for start in range(0, len(view), CHUNK):
            piece = decoder.decode(view[start : start + CHUNK], final=start + CHUNK >= len(view))
            if piece:
                yield encode_string(piece)[1:-1].encode("utf-8")
    else:
        yield _head(uri, mime, "blob", executable)
        for start in range(0, len(view), CHUNK):
            yield base64.b64encode(view[start : start + CHUNK])
    yield b'"}'


class VerifiedReader:
    """Reads, verifies and encodes files; caches encoded verified bytes within a budget."""

    def __init__(
        self,
        log: Callable[[str], None],
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        accepts: Sequence[Accept] = (),
        block: Block = frozenset(),
    ) -> None:
        self._log = log
        self._budget = cache_bytes
        self._used = 0
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._accepts = tuple(accepts)
        self._block = block
        #: the content scan's verdict on each file read: why it is refused ("" if not)
        self._verdicts: dict[str, str] = {}

    def contents(self, file: ServedFile) -> Encoded:
        """The encoded ``contents`` item of ``file``; ReadFailure if it cannot be vouched for."""
        cached = self._cache.get(file.uri)
        if cached is not None:
            self._cache.move_to_end(file.uri)
            return (cached,)
        data = self.verified(file)
        executable = file.entry.executable
        if len(data) > STREAM_THRESHOLD:
            return stream_contents(file.uri, file.mime_type, data, executable)
        encoded = encode_contents(file.uri, file.mime_type, data, executable)
        self._remember(file.uri, encoded)
        return (encoded,)

    def verified(self, file: ServedFile) -> bytes:
        """The bytes of ``file``, read and checked against its size and digest now (not
        cached); ReadFailure, logged, when they cannot be vouched for."""
        try:
            data = read_verified(file.source, file.entry)
        except IntegrityError as exc:
            detail = exc.message.removeprefix(f"{exc.uri}: ")
            self._log(f"INT001 {file.uri}: {detail}; not sent")
            raise ReadFailure(
                file.uri, f"{file.uri} does not match its locked size and digest; not sent"
            ) from None
        except Exception as exc:  # a source that cannot be read: name the URI, keep serving
            self._log(f"cannot read {file.uri}: {type(exc).__name__}: {exc}")
            raise ReadFailure(file.uri, f"{file.uri} cannot be read") from None
        verdict = self._verdicts.get(file.uri)
        if verdict is None:
            verdict = self._verdicts[file.uri] = self._judge(file, data)
        if verdict:
            raise ReadFailure(file.uri, verdict)
        return data

    def _judge(self, file: ServedFile, data: bytes) -> str:
        """The content scan of a file on its first read: "" to serve it, else why not
        (each finding logged, ``ADM001`` for one that blocks)."""
        from skillpack.policy.admission import judge_file

        flagged = judge_file(file.skill, file.entry, data, self._accepts, self._block)
        for found in flagged:
            code = "ADM001 " if found.blocks else ""
            self._log(f"{code}{found.line()}{'; not sent' if found.blocks else ''}")
        refused = [f for f in flagged if f.blocks]
        if not refused:
            return ""
        codes = sorted({f.finding.code for f in refused})
        # the log names the policy file and its rule; the client (over HTTP, perhaps
        # another machine) learns that a policy refused, not where the server keeps it
        if any(f.rule or f.outdated for f in refused):
            after = "the server's log names the policy rule that refused it"
        else:
            after = f"after review: serve --accept {file.skill.name}:{codes[0]}"
        return f"{file.uri} is refused by the content scan ({', '.join(codes)}); not sent ({after})"

    def _remember(self, uri: str, encoded: bytes) -> None:
        self._cache[uri] = encoded
        self._used += len(encoded)
        while self._used > self._budget:
            _, dropped = self._cache.popitem(last=False)
            self._used -= len(dropped)
