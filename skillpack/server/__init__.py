"""``skillpack serve``: a stdio MCP server for Agent Skills bundles and source trees.

The serve path imports only the standard library and skillpack's stdlib-only modules
(:mod:`skillpack.manifest`, :mod:`skillpack.content`, :mod:`skillpack._internal.uri`,
:mod:`skillpack.errors`), so a host gets its first response fast.

Modules, one job each:

* :mod:`.cli` -- argument parsing and start-up (``skillpack serve ...``);
* :mod:`.sources` -- turning a bundle or a directory into a mounted content source;
* :mod:`.index` -- the in-memory catalogue: URIs, skills, directories, pagination;
* :mod:`.content` -- verified reads and the wire form of file contents;
* :mod:`.jsonrpc` -- JSON-RPC framing values: error codes, errors, response bytes;
* :mod:`.protocol` -- message validation, era handling (2026-07-28 and legacy), dispatch;
* :mod:`.handlers` -- one function per MCP method;
* :mod:`.stdio` -- the bounded line reader and the serving loop.
"""
