"""Secrets: the credential stores a command reads (SSH keys, cloud and registry
credentials, agents' tokens, the keychain, browser profiles), what only a flow to the
network makes a finding (a whole credential directory, a .env file, the process
environment), and a credential used where it belongs (``ssh -i KEY``).
"""

from __future__ import annotations

import re

from skillpack.scan.text import Lazy

_I = re.IGNORECASE

_HOME = (
    r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/[\w.-]+|/Users/[\w.-]+|/root)"
)
#: a path separator, also as code writes it ('.ssh', 'id_rsa' / Path.home()/'.ssh'/...)
_SEP = r"(?:[/\\]|[\"']\s*[,/+]\s*[\"']/?)"
_STORES = (
    r"\.(?:ssh" + _SEP + r"(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:[-_]sk)?\b(?!\.pub)|"
    r"authorized_keys\b)|aws" + _SEP + r"credentials\b|netrc\b|git-credentials\b|"
    r"docker"
    + _SEP
    + r"config\.json\b|kube"
    + _SEP
    + r"config\b|config"
    + _SEP
    + r"(?:gcloud\b|gh"
    + _SEP
    + r"hosts\.yml\b)|gnupg\b|npmrc\b|pypirc\b|"
    r"claude" + _SEP + r"\.credentials\.json\b|codex" + _SEP + r"auth\.json\b|"
    r"gemini" + _SEP + r"(?:oauth_creds\.json|google_accounts\.json|"
    r"mcp-oauth-tokens[\w.-]*\.json|\.env)\b|"
    r"azure" + _SEP + r"(?:accessTokens\.json|msal_token_cache\.\w+|"
    r"service_principal_entries\.json)\b)"
)
#: the macOS ``security`` subcommands that print a keychain's secrets
KEYCHAIN_READS = ("find-generic-password", "find-internet-password", "dump-keychain")
#: a credential store read (SP526 and the flows of SP525); ``.env`` only for the flows
SECRET = Lazy(
    r"(?:" + _HOME + r"|expanduser\(\s*[\"']~|Path\.home\(\)|os\.homedir\(\))?"
    r"[/\\\"' +]{0,4}" + _STORES + r"|(?<![\w)\].$])\.env\b(?![.\w-])"
    r"|\bsecurity\s+(?:" + "|".join(KEYCHAIN_READS) + r")\b"
    r"|Library/Keychains|\blogin\.keychain|\blogins\.json\b|\bkey4\.db\b|\bcookies\.sqlite\b"
    r"|/etc/shadow\b",
    _I,
)
_BROWSER = Lazy(r"Google/Chrome|Chromium|BraveSoftware|Microsoft/Edge|\.mozilla/firefox|"
                r"Firefox/Profiles", _I)  # fmt: skip
_BROWSER_FILE = Lazy(r"[/\\](?:Login Data|Cookies|Local State)\b", _I)
#: what only a flow to the network makes a finding: a whole credential directory, any
#: .env file but a template, the process environment, a private key by its name
_FLOW_ONLY = Lazy(
    r"^(?:" + _HOME + r"[/\\])?\.(?:ssh|aws|azure|kube|gnupg|docker|config[/\\](?:gcloud|gh))"
    r"(?:[/\\][^\s\"'`;|&]*)?$"
    r"|^" + _HOME + r"[/\\]\.(?:claude|codex|gemini)[/\\]?$"
    r"|(?:^|[/\\])\.env(?:rc|\.(?!example\b|sample\b|template\b|dist\b|defaults?\b|"
    r"schema\b)[\w-]+)?$"
    r"|^/proc/(?:self|\d+|\*)/environ$"
    r"|(?:^|[/\\])id_(?:rsa|dsa|ecdsa|ed25519)(?:[-_]sk)?$",
    _I,
)
#: a credential used where it belongs (ssh -i KEY, --netrc-file, IdentityFile, ssh-add)
_IDENTITY = Lazy(
    r"(?:(?:^|\s)(?:-i|--identity|-identity|--netrc-file|--key|--cert|-E|--cacert)|"
    r"IdentityFile|\bssh-add|\bssh-keygen\b[^\n|;&]{0,40}-f|\bchmod\s+\S+)[=\s]*[\"']?$",
    _I,
)

#: the whole environment as code writes it (only sent out counts)
ENV_DUMP = Lazy(
    r"/proc/(?:self|\d+)/environ|\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)"
    r"|\b(?:json\.dumps|str|repr)\(\s*(?:dict\()?os\.environ\b"
    r"|\{\s*\*\*\s*os\.environ\b|\bin\s+os\.environ\.items\(\)"
    r"|JSON\.stringify\(\s*(?:\{\s*\.\.\.\s*)?process\.env\b|\{\s*\.\.\.\s*process\.env\b"
    r"|\bGet-ChildItem\s+env:|\[Environment\]::GetEnvironmentVariables"
    r"|\b(?:data|json|params|body)\s*[=:]\s*(?:dict\()?(?:os\.environ|process\.env)\b(?![.\[])",
    _I,
)


def flow_secret(path: str) -> str:
    """``path`` (a word, quotes removed) when it names a secret sent in a flow."""
    path = path.strip()
    if not path or path.endswith((".pub", "known_hosts")):
        return ""
    if SECRET.search(path) or _FLOW_ONLY.search(path):
        return path
    browser = _BROWSER.search(path)
    if browser and _BROWSER_FILE.search(path, browser.end()):
        return path
    return ""


def secret_read(text: str, start: int, end: int) -> re.Match[str] | tuple[int, str] | None:
    """The first credential store named in ``text[start:end]`` not used as an identity
    (``ssh -i KEY``): a match, or (offset, text) for a browser profile's file."""
    for match in SECRET.finditer(text, start, end):
        if match.group().strip().lower() == ".env":
            continue
        if _IDENTITY.search(text, max(start, match.start() - 48), match.start()):
            continue
        return match
    browser = _BROWSER.search(text, start, end)
    if browser:
        found = _BROWSER_FILE.search(text, browser.end(), end)
        if found:
            return browser.start(), text[browser.start() : found.end()][:80]
    return None
