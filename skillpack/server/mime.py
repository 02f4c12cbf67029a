"""MIME types by file extension: a fixed table, so every machine answers the same.

(``mimetypes`` reads the system's ``mime.types`` files, which differ between machines
and cost start-up time.) Unknown extensions get no ``mimeType`` at all.
"""

from __future__ import annotations

DIRECTORY = "inode/directory"
MARKDOWN = "text/markdown"

_BY_EXTENSION: dict[str, str] = {
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".txt": "text/plain",
    ".rst": "text/x-rst",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".html": "text/html",
    ".htm": "text/html",
    ".css": "text/css",
    ".xml": "application/xml",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".ini": "text/plain",
    ".cfg": "text/plain",
    ".py": "text/x-python",
    ".sh": "application/x-sh",
    ".bash": "application/x-sh",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".ts": "text/x-typescript",
    ".rb": "text/x-ruby",
    ".go": "text/x-go",
    ".rs": "text/x-rust",
    ".java": "text/x-java",
    ".c": "text/x-c",
    ".h": "text/x-c",
    ".cpp": "text/x-c++",
    ".sql": "application/sql",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".ico": "image/vnd.microsoft.icon",
    ".pdf": "application/pdf",
    ".zip": "application/zip",
    ".gz": "application/gzip",
    ".tar": "application/x-tar",
    ".wasm": "application/wasm",
    ".bin": "application/octet-stream",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}


def mime_type(file_name: str) -> str | None:
    """The MIME type of a file name (``SKILL.md`` is ``text/markdown``), or None."""
    dot = file_name.rfind(".")
    if dot <= 0:
        return None
    return _BY_EXTENSION.get(file_name[dot:].lower())
