"""Likely secrets (rule SP305): private key and credential files by their names, and
keys and tokens in file contents.

By name (:func:`secret_file`): the usual names of SSH, PuTTY, PKCS#12, Java and GnuPG
private keys, password databases, cloud and cluster credentials, password files and
Terraform state; ``.pem`` and ``.key`` files that hold a private key (their bytes are
looked at: a certificate or a public key is no secret). Dot files (``.npmrc``,
``.pypirc``, ``.netrc``, ``.htpasswd``, ``.env``) are never published at all.

By content: each pattern has literal markers that every match contains. A file is
searched with a pattern's regular expression only when one of its markers occurs in it;
one scan for any marker of any pattern tells most files apart as clean first. Tokens
containing ``EXAMPLE`` (as the AWS documentation's keys do) are not reported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

#: File names that hold environment secrets by convention (``prod.env``, ``.env.local``).
ENV_FILE_RE = re.compile(r"(?:.+\.env|\.env(?:\..+)?)")

#: (file name pattern, what such a file is), matched against the lowercased name
SECRET_FILE_NAMES: tuple[tuple[str, str], ...] = (
    (r"id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[-_][a-z0-9-]+)?(?:\.(?:old|bak|key|pem))?",
     "an SSH private key"),
    (r".+\.ppk", "a PuTTY private key"),
    (r".+\.(?:p12|pfx)", "a PKCS#12 key store (a private key and its certificate)"),
    (r"(?:.+\.)?(?:jks|jceks|bks|keystore)", "a Java key store"),
    (r"secring\.(?:gpg|kbx|pgp)|.+\.(?:secret|private)\.(?:gpg|asc)", "a GnuPG secret key"),
    (r".+\.kdbx?", "a KeePass password database"),
    (r"credentials(?:\.(?:json|ya?ml|xml|toml|ini|csv))?|git-credentials",
     "a credentials file"),
    (r"application_default_credentials\.json|client_secrets?(?:[-_.].*)?\.json",
     "a Google OAuth or application credentials file"),
    (r".*service[-_]?account.*\.json", "a cloud service account key"),
    (r"(?:.+\.)?kubeconfig(?:\.ya?ml)?", "a Kubernetes config (cluster credentials)"),
    (r"(?:.+\.)?htpasswd", "an htpasswd password file"),
    (r"_?netrc|_npmrc|_pypirc", "a netrc-style credentials file"),
    (r"pgpass(?:\.conf)?", "a PostgreSQL password file"),
    (r".+\.tfstate(?:\.backup)?", "a Terraform state file (it holds secrets in plain text)"),
)  # fmt: skip
#: every name pattern in one: group ``n`` is pattern ``n``
_SECRET_NAME = re.compile(
    "|".join(f"(?P<n{i}>{pattern})" for i, (pattern, _) in enumerate(SECRET_FILE_NAMES))
)

#: the starts of a ``.key`` file that is not a private key (a public key, a
#: certificate, an Apple Keynote document)
_NOT_PRIVATE = (b"-----BEGIN PUBLIC KEY", b"-----BEGIN CERTIFICATE", b"ssh-", b"PK\x03\x04")


def secret_file(name: str, data: bytes | None = None) -> str | None:
    """What the file called ``name`` is when its name says it holds a private key or
    credentials (``id_ed25519``, ``deploy.p12``, ``credentials.json``...), else None.
    A ``.pem`` or ``.key`` file is one only when ``data`` (its bytes) holds a private key
    (``.key``: anything but a public key or certificate); without ``data`` it is not
    judged."""
    lowered = name.lower()
    label = _by_name(lowered)
    if label is not None or data is None:
        return label
    if lowered.endswith(".pem") and b"PRIVATE KEY" in data:
        return "a PEM private key"
    if lowered.endswith(".key") and data.lstrip() and not data.lstrip().startswith(_NOT_PRIVATE):
        return "a private key"
    return None


@functools.lru_cache(maxsize=4096)
def _by_name(lowered: str) -> str | None:
    """:func:`secret_file`'s judgement of a lowercased name alone (cached: a tree's names
    recur, ``run.py``, ``guide.md``, and each is judged once more with its bytes)."""
    match = _SECRET_NAME.fullmatch(lowered)
    if match is not None and match.lastgroup is not None:
        return SECRET_FILE_NAMES[int(match.lastgroup[1:])][1]
    return None


@functools.lru_cache(maxsize=4096)
def is_env_file(name: str) -> bool:
    """Whether the file name ``name`` is an environment file's (:data:`ENV_FILE_RE`)."""
    return ENV_FILE_RE.fullmatch(name) is not None


@dataclass(frozen=True)
class SecretPattern:
    label: str
    markers: tuple[bytes, ...]
    regex: re.Pattern[bytes]


# A private key block counts only with key material after it, so prose that mentions
# "-----BEGIN PRIVATE KEY-----" or shows it with "..." is not reported.
_B64 = rb"[A-Za-z0-9+/=]"
PATTERNS: tuple[SecretPattern, ...] = (
    SecretPattern(
        "a private key block",
        (b"PRIVATE KEY-----",),
        re.compile(
            rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            rb"(?:\\r|\\n|\s)+(?:[A-Za-z-]+: [^\n]*(?:\\n|\n))*(?:\\n|\s)*" + _B64 + rb"{40}"
        ),
    ),
    SecretPattern(
        "an AWS access key ID",
        (b"AKIA", b"ASIA"),
        re.compile(rb"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"),
    ),
    SecretPattern(
        "an AWS secret access key",
        (b"aws_secret_access_key", b"AWS_SECRET_ACCESS_KEY"),
        re.compile(
            rb"(?i:aws_secret_access_key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])"
        ),
    ),
    SecretPattern(
        "a Google API key",
        (b"AIza",),
        re.compile(rb"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    ),
    SecretPattern(
        "a GitHub token",
        (b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_"),
        re.compile(
            rb"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{80,})"
        ),
    ),
    SecretPattern(
        "a Slack token or webhook",
        (b"xox", b"hooks.slack.com/"),
        re.compile(
            rb"(?<![A-Za-z0-9])xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{8,}"
            rb"|https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}"
        ),
    ),
    SecretPattern(
        "an OpenAI or Anthropic API key",
        (b"sk-",),
        re.compile(
            rb"(?<![A-Za-z0-9_-])sk-(?:"
            rb"ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}"
            rb"|(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
            rb"|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"
            rb")"
        ),
    ),
)


@dataclass(frozen=True)
class SecretHit:
    label: str
    offset: int  #: byte offset of the match in the data


def _marker_tests(
    markers: Iterable[bytes],
) -> tuple[tuple[bytes, ...], tuple[Callable[[bytes], object], ...]]:
    """Whether a file holds any of ``markers``, as a few tests: ``in`` for a marker
    that no other shares its first byte with (the markers returned first), one
    expression for the markers that do (their common start first, which the engine
    skips along to; their searches returned second). One expression for all of them,
    most starting with a common letter (``a``, ``g``, ``s``, ``x``), stopped at each of
    those letters: about twice as slow over a skill's text."""
    by_first: dict[int, list[bytes]] = {}
    for marker in dict.fromkeys(markers):
        by_first.setdefault(marker[0], []).append(marker)
    alone: list[bytes] = []
    searches: list[Callable[[bytes], object]] = []
    for group in by_first.values():
        if len(group) == 1:
            alone.append(group[0])
            continue
        common = group[0]
        for marker in group[1:]:
            while not marker.startswith(common):
                common = common[:-1]
        rests = b"|".join(re.escape(m[len(common) :]) for m in group)
        searches.append(re.compile(re.escape(common) + b"(?:" + rests + b")").search)
    return tuple(alone), tuple(searches)


#: any marker of any pattern: a few scans tell most files apart as clean
_ALONE, _SEARCHES = _marker_tests(m for p in PATTERNS for m in p.markers)


def holds_marker(data: bytes) -> bool:
    """Whether ``data`` holds a marker of any pattern (plain loops: most files hold
    none, and a generator's set-up costs as much as the tests of a small file)."""
    for marker in _ALONE:
        if marker in data:
            return True
    for search in _SEARCHES:  # noqa: SIM110 (any() of a generator costs more)
        if search(data):
            return True
    return False


def find_secrets(data: bytes) -> list[SecretHit]:
    """Likely secrets in ``data``, at most one per pattern (the first), by offset."""
    if not holds_marker(data):
        return []
    hits: list[SecretHit] = []
    for pattern in PATTERNS:
        if not any(marker in data for marker in pattern.markers):
            continue
        for match in pattern.regex.finditer(data):
            if b"EXAMPLE" not in match.group(0):
                hits.append(SecretHit(pattern.label, match.start()))
                break
    return sorted(hits, key=lambda h: h.offset)


def line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters when the prefix is UTF-8) of a byte offset."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return line, len(data[start:offset].decode("utf-8", "replace")) + 1
