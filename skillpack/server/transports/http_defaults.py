"""The defaults of ``serve --http``, in one place: the transport (:mod:`.http`), the
server that runs it (:mod:`.http_serve`) and serve's help read them from here, so the
help shows the values applied without importing either. Standard library only (and no
imports at all)."""

PATH = "/mcp"
WORKERS = 1
LOG_FORMAT = "text"
#: Largest accepted message body, as on stdio.
MAX_BODY_BYTES = 4 * 1024 * 1024
MAX_HEADER_BYTES = 32 * 1024
MAX_CONNECTIONS = 512
MAX_SESSIONS = 1024
SESSION_IDLE_S = 3600.0
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
KEEPALIVE_TIMEOUT_S = 30.0
GRACE_S = 10.0
