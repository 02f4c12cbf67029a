"""Directives hidden from the reader, in Markdown files.

* SP510 (error): a comment a renderer hides (``<!-- ... -->``, ``[//]: # (...)``)
  outside code that keeps something from the user, overrides the agent's instructions
  or sends data to an address (a URL, an e-mail address).
* SP511 (warning): another hidden comment that gives an instruction (starts with an
  imperative such as "run", "always" or "ignore", tells to copy or send files or
  secrets, or addresses the assistant with an action); templates' notes to their
  authors look like this too.
* SP512 (error): an override phrase outside code: "ignore previous instructions",
  "you are in developer mode", "never refuse", "do not tell the user".
* SP513 (error): a Markdown image or link (or an HTML image) whose URL carries the
  conversation, files or secrets in a placeholder (``?q={conversation}``): a model
  filling it in sends them to that host, an image without even a click. A placeholder
  naming an identifier (``{conversation_id}``, ``{file_path}``) is an API reference.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from itertools import pairwise

from skillpack.scan.markdown import CodeMap, hidden_comments
from skillpack.scan.model import ERROR, WARNING
from skillpack.scan.text import Lazy, marked_lines

COMMENT_DIRECTIVE = "SP510"
COMMENT_INSTRUCTION = "SP511"
OVERRIDE = "SP512"
EXFIL_URL = "SP513"

SEVERITY = {
    COMMENT_DIRECTIVE: ERROR,
    COMMENT_INSTRUCTION: WARNING,
    OVERRIDE: ERROR,
    EXFIL_URL: ERROR,
}

_I = re.IGNORECASE

_USER = r"(?:the\s+|your\s+)?(?:user|human|operator|owner|anyone|them)\b"
_SECRECY = Lazy(
    r"\b(?:do\s+not|don't|dont|never|must\s+not)\s+(?:ever\s+)?(?:tell|inform|alert|notify|"
    r"show|reveal|mention|disclose|let)\b[^.\n]{0,40}?\b" + _USER
    + r"|\bwithout\s+(?:telling|informing|asking|notifying|alerting|showing)\s+" + _USER
    + r"|\b(?:hide|conceal|keep)\s+(?:this|it|these|that)\b[^.\n]{0,30}\bfrom\s+" + _USER
    + r"|\b(?:secretly|covertly|silently|quietly)\s+(?:send|upload|post|run|execute|copy|"
    r"forward|email|include|add|append|exfiltrate)\b",
    _I,
)  # fmt: skip
_SEND = Lazy(
    r"\b(?:send|upload|post|email|e-mail|forward|exfiltrate|transmit|leak|report|submit)\b"
    r"[^\n]{0,80}?(?:https?://|\b[\w.+-]+@[\w-]+\.[\w.]+)",
    _I,
)
_SENSITIVE = Lazy(
    r"\b(?:send|upload|post|email|e-mail|forward|exfiltrate|transmit|leak|copy|append|"
    r"attach|paste)\b[^.\n]{0,80}?\b(?:conversation|chat|history|messages|transcript|"
    r"files?|secrets?|keys?|tokens?|credentials?|passwords?|env|environment|\.ssh|\.aws|"
    r"cookies?|system\s+prompt)\b",
    _I,
)
_AGENT = Lazy(
    r"\byou\s+(?:must|should|will|are\s+to|need\s+to|have\s+to)\b"
    r"|\b(?:the\s+)?(?:assistant|agent|ai|model|llm|claude)\s+(?:must|should|will|needs?\s+to|"
    r"has\s+to)\b"
    r"|(?:^|[.!]\s+)(?:assistant|agent|ai|claude|model|llm)\s*[:,]",
    _I,
)
_ACTION = Lazy(
    r"\b(?:run|execute|send|upload|post|email|fetch|download|delete|remove|read|open|visit|"
    r"install|call|invoke|include|append|insert|ignore|disregard|override|write|modify|"
    r"change|curl|wget)\b",
    _I,
)
_IMPERATIVE = Lazy(
    r"^\s*(?:(?:important|note|system|instruction|instructions|ai|assistant|claude|agent)"
    r"\s*[:!-]\s*)?(?:always|never|ignore|disregard|forget|run|execute|send|upload|fetch|"
    r"download|delete|do\s+not|don't|you\s+must|you\s+should|make\s+sure|before\s+"
    r"(?:answering|responding|replying)|when\s+(?:the\s+user|you|asked))\b",
    _I,
)
_TOOL_COMMENT = Lazy(
    r"^\s*(?:markdownlint|prettier|eslint|vale|textlint|cspell|spell-?checker|toc|end\s*toc|"
    r"start|end|begin|omit|copilot|include|snippet|region|endregion|docs?-|generated|"
    r"auto-generated|do\s+not\s+edit|begin\s+generated|keep\s+this)\b",
    _I,
)

_OVERRIDE = Lazy(
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?"
    r"(?:the\s+|your\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|"
    r"former|system|original|existing|other)\s+(?:instructions|prompts?|rules|directions|"
    r"directives|guidelines|messages|constraints|commands)\b"
    r"|\bignore\s+(?:all\s+)?(?:your|safety|security)\s+(?:rules|guidelines|policies|"
    r"restrictions|instructions|training)\b"
    r"|\b(?:you\s+are|you're|you\s+have\s+entered|you\s+are\s+now\s+in|now\s+in|act\s+as\s+if"
    r"\s+you\s+are\s+in|switch\s+to|enter)\s+(?:an?\s+)?(?:developer|dan|god|jailbreak|"
    r"jailbroken|unrestricted|unfiltered)\s+mode\b"
    r"|\bdo\s+anything\s+now\b"
    r"|\b(?:never|do\s+not|don't|must\s+not|will\s+not|won't)\s+(?:ever\s+)?refuse\b"
    r"|\byou\s+(?:have|has)\s+no\s+(?:restrictions|rules|guidelines|limits|filters)\b"
    r"|\bsystem\s+override\b"
    r"|\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|reveal\s+(?:this|it)\s+to|"
    r"mention\s+(?:this|it)\s+to)\s+the\s+user\b"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b",
    _I,
)
#: the markers of :data:`_OVERRIDE`: each of its alternatives holds one of them (a
#: space in a marker is any run of white space, as the expression allows)
OVERRIDE_MARKERS = (
    "ignor", "disregard", "forget", "overrid", "bypass", "skip", "developer mode",
    "dan mode", "god mode", "jailbr", "unrestricted mode", "unfiltered mode", "anything now",
    "refuse", "have no", "has no", "the user",
)  # fmt: skip

_IMAGE_OR_LINK = Lazy(
    r"(?P<image>!?)\[[^\]\n]*\]\(\s*<?(?P<url>https?://[^\s)]+)"
    r"|<img\b[^>]*?\bsrc\s*=\s*[\"']?(?P<src>https?://[^\s\"'>]+)"
    r"|^ {0,3}\[[^\]\n]+\]:\s*<?(?P<ref>https?://\S+?)>?\s*$",
    _I | re.MULTILINE,
)
_PLACEHOLDER = Lazy(
    r"(?:\{\{?|\$\{|%7B%7B|%7B|<|%3C|\[|%5B)\s*(?P<a>[\w .:-]{2,60}?)\s*(?:\}\}?|%7D|>|%3E|\]|%5D)"
    r"|[?&=/](?P<b>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b"
    r"|\$(?P<c>[A-Z][A-Z0-9_]{2,})\b",
)
#: a placeholder's words: ``conversationId`` -> conversation, id; ``CHAT_HISTORY`` ->
#: chat, history
_WORDS = Lazy(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
#: a placeholder whose last word is one of these names a thing, not its content: an API
#: reference's ``/files/{file_id}/content``, ``?path={file_path}``, ``/{filename}``
_IDENTIFIER = frozenset(
    {
        "id", "ids", "uuid", "guid", "name", "names", "path", "paths", "url", "urls", "uri",
        "uris", "filename", "filenames", "filepath", "page", "pages", "limit", "offset",
        "count", "version", "number", "num", "no", "index", "idx", "slug", "type", "format",
        "size", "cursor", "sort", "order", "lang", "locale",
    }
)  # fmt: skip
#: the same written as one word's end: ``fileid``, ``chatname``, ``sessionpath``
_IDENTIFIER_END = ("id", "ids", "name", "path", "url", "uri")
#: words that are content: the conversation, files' contents, secrets
_CONTENT = frozenset(
    {
        "conversation", "conversations", "chat", "chats", "history", "histories", "messages",
        "transcript", "transcripts", "prompt", "prompts", "context", "summary", "memory",
        "memories", "contents", "ssh", "env", "environ", "environment", "cookie", "cookies",
        "credential", "credentials", "password", "passwords", "secret", "secrets",
        "userdata", "userinput", "filecontent", "filecontents", "filedata",
    }
)  # fmt: skip
#: two words that are content together: ``user_data``, ``file_content``
_CONTENT_PAIRS = frozenset(
    {("user", "data"), ("user", "input"), ("file", "content"), ("file", "data"),
     ("file", "text"), ("file", "body")}
)  # fmt: skip
#: what an image (fetched without a click) must not carry either
_KEYS = frozenset(
    {"token", "tokens", "key", "keys", "apikey", "apikeys", "auth", "session", "bearer",
     "jwt"}
)  # fmt: skip
#: content named in one word with no separator: ``chathistory``, ``conversationsummary``
_CONTENT_IN = Lazy(
    r"conversation|chathistory|messagehistory|transcript|prompt|context|summary|memory|"
    r"filecontent|secret|password|credential|cookie",
    _I,
)


def _carries(name: str, image: bool) -> bool:
    """Whether a placeholder ``name`` denotes data a model would fill in: the
    conversation, files' contents or secrets (in an image, keys and tokens too), not an
    identifier of them (``conversation_id``, ``file_path``, ``filename``, ``page``)."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words:
        return False
    last = words[-1]
    if last in _IDENTIFIER or (len(words) == 1 and last.endswith(_IDENTIFIER_END)):
        return False
    if any(w in _CONTENT for w in words) or any(p in _CONTENT_PAIRS for p in pairwise(words)):
        return True
    if image and any(w in _KEYS or w.endswith(("token", "key")) for w in words):
        return True
    return len(words) == 1 and _CONTENT_IN.search(last) is not None


def _comment_findings(text: str, code: CodeMap) -> Iterator[tuple[int, str, str, str]]:
    for offset, body in hidden_comments(text, code):
        body_text = " ".join(body.split())
        if not body_text or _TOOL_COMMENT.match(body_text):
            continue
        shown = body_text if len(body_text) <= 120 else body_text[:120] + "..."
        why = ""
        if _SECRECY.search(body_text):
            why = "keeps something from the user"
        elif _OVERRIDE.search(body_text):
            why = "tries to override the agent's instructions"
        elif _SEND.search(body_text):
            why = "tells the agent to send data to an address"
        if why:
            yield (
                offset,
                COMMENT_DIRECTIVE,
                ERROR,
                (f"a comment hidden from the reader {why}: {shown!r}"),
            )
        elif (
            _IMPERATIVE.match(body_text)
            or _SENSITIVE.search(body_text)
            or (_AGENT.search(body_text) and _ACTION.search(body_text))
        ):
            yield (
                offset,
                COMMENT_INSTRUCTION,
                WARNING,
                (f"a comment hidden from the reader gives an instruction: {shown!r}"),
            )


def _override_findings(
    text: str, lowered: str, markers: list[str], code: CodeMap
) -> Iterator[tuple[int, str, str, str]]:
    for start, end in marked_lines(lowered, markers):
        for match in _OVERRIDE.finditer(text, start, end):
            if code.in_code(match.start()):
                continue
            yield (
                match.start(),
                OVERRIDE,
                ERROR,
                (f"an instruction override phrase: {' '.join(match.group().split())!r}"),
            )


def _url_findings(text: str, code: CodeMap) -> Iterator[tuple[int, str, str, str]]:
    for match in _IMAGE_OR_LINK.finditer(text):
        url = match.group("url") or match.group("src") or match.group("ref") or ""
        image = bool(match.group("image")) or bool(match.group("src"))
        tail = url.split("://", 1)[-1]
        if "/" not in tail and "?" not in tail:
            continue
        tail = tail[min(i for i in (tail.find("/"), tail.find("?"), len(tail)) if i >= 0) :]
        for placeholder in _PLACEHOLDER.finditer(tail):
            name = placeholder.group("a") or placeholder.group("b") or placeholder.group("c")
            if not name or not _carries(name, image):
                continue
            kind = "an image" if image else "a link"
            yield (
                match.start(),
                EXFIL_URL,
                ERROR,
                (
                    f"{kind} whose URL carries {name.strip()!r} to "
                    f"{url.split('://', 1)[-1].split('/', 1)[0].split('?', 1)[0]}: a model "
                    f"filling it in sends that data out"
                    + (" as soon as the image is shown" if image else "")
                ),
            )
            break


def find_directives(
    text: str, lowered: str, present: Collection[str]
) -> Iterator[tuple[int, str, str, str]]:
    """(offset, code, severity, message) of each hidden directive in a Markdown text
    (``lowered``: :func:`~skillpack.scan.text.ascii_lower` of it; ``present``: the
    markers it holds, :data:`OVERRIDE_MARKERS` among them)."""
    has_comment = "<!--" in text or "]:" in text
    overrides = [marker for marker in OVERRIDE_MARKERS if marker in present]
    has_override = bool(overrides)
    has_url = "http" in lowered and ("](" in text or "<img" in lowered or "]:" in text)
    if not (has_comment or has_override or has_url):
        return
    code = CodeMap(text)
    if has_comment:
        yield from _comment_findings(text, code)
    if has_override:
        yield from _override_findings(text, lowered, overrides, code)
    if has_url:
        yield from _url_findings(text, code)
