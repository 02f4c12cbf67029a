"""``skillpack serve``: an MCP server for Agent Skills bundles and source trees, on stdio
or over Streamable HTTP.

The stdio serve path imports only the standard library and skillpack's stdlib-only
modules (:mod:`skillpack.manifest`, :mod:`skillpack.content`, :mod:`skillpack._internal.uri`,
:mod:`skillpack.errors`), so a host gets its first response fast; ``--http`` adds uvicorn
(the ``http`` extra), imported only then.

Modules, one job each:

* :mod:`.cli` -- argument parsing and start-up (``skillpack serve ...``);
* :mod:`.sources` -- turning a bundle or a directory into a mounted content source;
* :mod:`.index` -- the in-memory catalogue: URIs, skills, directories, pagination;
* :mod:`.content` -- verified reads and the wire form of file contents;
* :mod:`.jsonrpc` -- JSON-RPC framing values: error codes, errors, response bytes;
* :mod:`.protocol` -- message validation, era handling (2026-07-28 and legacy), dispatch;
* :mod:`.handlers` -- one function per MCP method;
* :mod:`.transports.stdio` -- the bounded line reader and the serving loop;
* :mod:`.transports.http` -- the Streamable HTTP contract and the ASGI app over it;
* :mod:`.transports.http_serve` -- uvicorn, its limits, the socket and the workers.
"""
