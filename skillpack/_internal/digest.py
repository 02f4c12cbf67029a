"""The one spelling of a content digest, ``sha256:`` and 64 lowercase hex digits, in a
module of its own: the install lock and the policy file check digests without loading
the manifest model."""

from __future__ import annotations

import re

DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")
