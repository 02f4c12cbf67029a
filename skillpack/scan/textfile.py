"""How the scan reads a file's bytes as text, and how ``lint --fix`` writes them back.

A text file is always read, whatever bytes it holds: by its extension (Markdown, plain
text, shell, Python, JavaScript and TypeScript, Ruby, Perl, PHP, PowerShell, batch,
YAML, JSON, TOML, HTML, ...) or, without one, by a first line that is a shebang. One
NUL byte or one byte that is not UTF-8 never turns the scan off: a model reads past
them, so the scan does too. Any other file is binary only when it looks binary: a NUL
in its first 8 KiB, or the signature of a binary format (PNG, JPEG, GIF, PDF, ZIP,
gzip, ELF, Mach-O, WebAssembly, ...).

The text is UTF-16 with its byte order mark (unless what follows the mark is UTF-8
without a NUL), else UTF-8, a byte that is not UTF-8
read as U+FFFD (so columns stay in characters). UTF-16 without a byte order mark is
not guessed (a guess an attacker can steer, by a few NUL bytes, into reading a UTF-8
file as nonsense): it reads as UTF-8 with a NUL in every other byte, each NUL reported
(SP504). ``lint --fix`` reads the same characters and writes back exactly the bytes it
did not remove (:func:`fix_bytes`); it never removes a NUL.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from skillpack.scan import hidden

#: the extensions of the files always read as text
TEXT_SUFFIXES = frozenset(
    {
        "md", "markdown", "mdx", "txt", "text", "rst",
        "sh", "bash", "zsh", "ksh", "fish", "command",
        "py", "pyw", "pyi", "ipynb",
        "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx",
        "rb", "pl", "pm", "php", "lua", "r",
        "ps1", "psm1", "psd1", "bat", "cmd",
        "yaml", "yml", "json", "jsonl", "toml", "ini", "cfg", "conf", "env",
        "html", "htm", "xml", "svg", "css", "csv", "tsv", "sql",
    }
)  # fmt: skip

#: the extensions of the files whose lines a shell runs in order (a variable set on one
#: line is used on a later one): shell scripts, and YAML (a CI job's ``run:`` lines)
SHELL_SUFFIXES = frozenset({"sh", "bash", "zsh", "ksh", "command", "bats", "yaml", "yml"})

#: the signatures of binary formats (their first bytes)
BINARY_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n",  # PNG
    b"\xff\xd8\xff",  # JPEG
    b"GIF87a", b"GIF89a",
    b"%PDF-",
    b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08",  # ZIP (and .skp, .docx, .jar, ...)
    b"\x1f\x8b",  # gzip
    b"BZh", b"\xfd7zXZ\x00", b"(\xb5/\xfd", b"7z\xbc\xaf\x27\x1c",  # bzip2, xz, zstd, 7-Zip
    b"\x7fELF",
    b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",  # Mach-O (and Java classes)
    b"\x00asm",  # WebAssembly
    b"RIFF", b"OggS", b"fLaC", b"ID3", b"wOFF", b"wOF2", b"OTTO",  # media, fonts
    b"SQLite format 3\x00",
)  # fmt: skip

#: how much of a file decides whether it looks binary
SNIFF = 8192

_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def is_text_path(path: str, data: bytes) -> bool:
    """Whether the skill-relative ``path`` names a text file: by its extension, or,
    without one, by a shebang on its first line."""
    dot = path.rfind(".")
    if dot > path.rfind("/") + 1:  # an extension, not a name starting with a dot
        return path[dot + 1 :].lower() in TEXT_SUFFIXES
    return data.startswith(b"#!")


def is_shell_path(path: str) -> bool:
    """Whether the skill-relative ``path`` names a file a shell runs line by line
    (:data:`SHELL_SUFFIXES`, or no extension: a script with a shebang, a Dockerfile, a
    Makefile); JavaScript's ``e=$(this)`` is no shell variable."""
    dot = path.rfind(".")
    if dot > path.rfind("/") + 1:
        return path[dot + 1 :].lower() in SHELL_SUFFIXES
    return True


def _utf8_after_bom(data: bytes) -> bool:
    """Whether what follows a UTF-16 byte order mark is UTF-8 text, with no NUL: UTF-16
    text has NUL bytes (the high byte of every ASCII character, a newline's) or does not
    decode as UTF-8; a UTF-8 file given the two bytes of a mark reads as nonsense in
    UTF-16, and as text to a tool that reads UTF-8."""
    rest = data[2:]
    if b"\x00" in rest:
        return False
    try:
        rest.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def encoding(path: str, data: bytes) -> tuple[str, int] | None:
    """How the scan reads ``data``: (codec, bytes of the byte order mark to skip), or
    None for a binary file."""
    bom = _BOMS.get(data[:2])
    text = is_text_path(path, data)
    if bom is not None and not _utf8_after_bom(data):
        if text:
            return bom, 2
        try:
            data[2:].decode(bom)
            return bom, 2
        except UnicodeDecodeError:
            pass  # not UTF-16 after all: judged as any other file
    if not text and (b"\x00" in data[:SNIFF] or data.startswith(BINARY_SIGNATURES)):
        return None
    return "utf-8", 0


def read_text(path: str, data: bytes) -> str | None:
    """The text the scan reads in the file ``path`` (skill-relative), None if binary;
    a byte that does not decode is U+FFFD."""
    form = encoding(path, data)
    if form is None:
        return None
    codec, skip = form
    return data[skip:].decode(codec, "replace")


def _reversible(path: str, data: bytes) -> tuple[str, Callable[[str], bytes]] | None:
    """The file's characters as :func:`read_text` reads them, except that a byte that
    does not decode is kept (a lone surrogate), and the function writing such text back
    to bytes: what is not removed comes back byte for byte."""
    form = encoding(path, data)
    if form is None:
        return None
    codec, skip = form
    head = data[:skip]
    body = data[skip:]
    if codec == "utf-8":
        return body.decode(codec, "surrogateescape"), (
            lambda text: head + text.encode(codec, "surrogateescape")
        )
    tail = body[len(body) - len(body) % 2 :]
    body = body[: len(body) - len(tail)]
    try:
        text = body.decode(codec, "surrogatepass")
    except UnicodeDecodeError:
        return None
    return text, lambda fixed: head + fixed.encode(codec, "surrogatepass") + tail


def fix_bytes(path: str, data: bytes, codes: Collection[str] | None = None) -> bytes | None:
    """``data`` without the invisible characters the hidden-character rules flag (only
    ``codes``' when given), in the file's own encoding, every other byte kept; None when
    the file is binary (nothing to fix)."""
    form = _reversible(path, data)
    if form is None:
        return None
    text, encode = form
    fixed = hidden.strip_hidden(text, codes)
    return data if fixed is text else encode(fixed)


def fixable_positions(path: str, data: bytes) -> set[tuple[int, int]]:
    """The (line, column) places of the hidden-character findings that
    :func:`fix_bytes` removes: a finding of those rules elsewhere (a hidden character
    written as an escape in the frontmatter, a NUL) is for a person to fix."""
    form = _reversible(path, data)
    text = read_text(path, data)
    if form is None or text is None:
        return set()
    places: set[tuple[int, int]] = set()
    line, line_start, at = 1, 0, 0
    for found in hidden.find_hidden(text):
        if not found.fixable:
            continue
        start = found.start
        newlines = text.count("\n", at, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", at, start) + 1
        at = start
        places.add((line, start - line_start + 1))
    return places
