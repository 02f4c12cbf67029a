"""The official MCP conformance harness (@modelcontextprotocol/conformance 0.2.0-alpha.12,
on node 22) against ``skillpack serve --http`` on the example bundle.

Every check of every scenario passes, except the ones listed in :data:`NOT_APPLICABLE`:
they need the harness's own diagnostic tools or subscriptions, or the harness itself
skips them. The checks of ``tools/list``, ``prompts/list`` and ``tools/call`` (the
caching hints, the Mcp-Method/Mcp-Name header cases) run against the server's prompts
and its load_skill tool and pass (:data:`MUST_RUN`).
The test fails if any other check does not pass, and also if a listed check changes
its verdict or gives another reason than the listed one (the list must stay true).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.http.conftest import Harness, HttpServer

MODERN, LEGACY = "2026-07-28", "2025-11-25"

#: (scenario, spec version, --force: an extension scenario)
SCENARIOS = [
    *(
        (scenario, version, True)
        for version in (MODERN, LEGACY)
        for scenario in (
            "sep-2640-skills-enumeration",
            "sep-2640-skills-manifest",
            "sep-2640-skills-directory",
        )
    ),
    ("dns-rebinding-protection", MODERN, False),
    ("dns-rebinding-protection", LEGACY, False),
    ("server-initialize", LEGACY, False),
    ("server-session-lifecycle", LEGACY, False),
    ("ping", LEGACY, False),
    ("sep-2164-resource-not-found", MODERN, False),
    ("caching", MODERN, False),
    ("server-stateless", MODERN, False),
    ("http-header-validation", MODERN, False),
]


@dataclass(frozen=True)
class NotApplicable:
    """A check that cannot pass here, the verdict the harness gives it and its reason.

    ``says`` must match (``re.search``) the harness's own explanation, its
    ``errorMessage`` (or ``details.note`` when it gives none), and every member of
    ``details`` must be in the check's ``details`` (recursively): so a listed check that
    fails for another reason than the one given here fails the test.
    """

    status: str
    why: str  #: ours, for the reader
    says: str
    details: Mapping[str, Any] = field(default_factory=dict)


#: tools/call of a tool this server does not have (MCP: "-32602 covers unknown tool")
UNKNOWN_TOOL = {"code": -32602}
LEGACY_CACHE = NotApplicable(
    "SKIPPED",
    "ttlMs/cacheScope exist from 2026-07-28 on (the harness skips it for 2025-11-25)",
    r"^not applicable on negotiated protocol 2025-11-25: ttlMs and cacheScope are defined "
    r"from 2026-07-28",
    {"specVersion": LEGACY},
)


def _diagnostic_tool(name: str, **details: Any) -> NotApplicable:
    return NotApplicable(
        "FAILURE",
        f"the diagnostic tool {name}: the harness's own test tool, which a skills server "
        f"does not have (its one tool is load_skill; tools/call of {name} is -32602)",
        rf"^Not testable: server does not list the diagnostic tool '{name}' in tools/list",
        {"untestable": True, **details},
    )


def _no_subscriptions(note: str) -> NotApplicable:
    return NotApplicable(
        "SKIPPED",
        "subscriptions/listen: nothing here changes, so no listChanged or subscribe "
        "capability is declared (the harness skips it)",
        note,
    )


#: (scenario, version) -> {check id: why it cannot pass here}
NOT_APPLICABLE: dict[tuple[str, str], dict[str, NotApplicable]] = {
    ("sep-2640-skills-enumeration", LEGACY): {
        "sep-2640-skills-list-cache-attributes": LEGACY_CACHE,
        "sep-2640-skills-get-cache-attributes": LEGACY_CACHE,
    },
    ("server-stateless", MODERN): {
        "sep-2575-server-rejects-undeclared-capability": _diagnostic_tool(
            "test_missing_capability", response={"error": UNKNOWN_TOOL}
        ),
        "sep-2575-missing-capability-http-400": _diagnostic_tool(
            "test_missing_capability", httpStatus=400
        ),
        "sep-2575-http-server-no-independent-requests-on-stream": _diagnostic_tool(
            "test_streaming_elicitation", response={"error": UNKNOWN_TOOL}
        ),
        "sep-2575-server-no-log-without-loglevel": _diagnostic_tool(
            "test_logging_tool", response={"error": UNKNOWN_TOOL}
        ),
        **{
            check: _no_subscriptions(
                r"^Server advertises no subscription-delivered capability; "
                r"subscriptions/listen is not applicable\.$"
            )
            for check in (
                "sep-2575-server-sends-subscription-ack",
                "sep-2575-server-tags-subscription-id",
                "sep-2575-server-honors-notification-filter",
            )
        },
        **{
            f"sep-2575-server-sends-{kind}-list-changed-on-subscription": _no_subscriptions(
                rf"^Server did not declare {kind}\.listChanged capability in server/discover$"
            )
            for kind in ("prompts", "tools")
        },
    },
}


#: checks that were not applicable before the server had prompts and a tool
#: (issue 23): each must now run, and pass like every check not listed above
MUST_RUN: dict[tuple[str, str], set[str]] = {
    ("caching", MODERN): {
        "sep-2549-tools-list-caching-hints",
        "sep-2549-prompts-list-caching-hints",
    },
    ("http-header-validation", MODERN): {
        "sep-2243-server-reject-invalid-headers",  # Mcp-Method and Mcp-Name of tools/call
        "sep-2243-server-accepts-whitespace-header-value",  # tools/call, "  load_skill  "
        "sep-2243-server-reject-error-code",
        "sep-2243-header-name-case-insensitive",
    },
}


def _contains(actual: Any, expected: Any) -> bool:
    """True when every member of ``expected`` is in ``actual`` (recursively, for objects)."""
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and _contains(actual[key], value) for key, value in expected.items()
        )
    return bool(actual == expected)


def _why_not(check: Mapping[str, Any], expected: NotApplicable) -> str | None:
    """How a check that did not pass differs from what :data:`NOT_APPLICABLE` says of it."""
    details = check.get("details") or {}
    said = check.get("errorMessage") or details.get("note") or ""
    if check["status"] != expected.status:
        return f"status {check['status']}, not {expected.status}: {said!r}"
    if not re.search(expected.says, said):
        return f"the harness says {said!r}, which does not match {expected.says!r}"
    if not _contains(details, expected.details):
        return f"details {details!r} do not contain {dict(expected.details)!r}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "version", "force"),
    SCENARIOS,
    ids=[f"{s}@{v}" for s, v, _ in SCENARIOS],
)
def test_the_official_harness_passes(
    harness: Harness, server: HttpServer, tmp_path: Path, scenario: str, version: str, force: bool
) -> None:
    extra = ["--spec-version", version, *(["--force"] if force else [])]
    checks = harness.run(server.url, scenario, tmp_path, *extra)
    assert checks, f"{scenario} ran no check"
    expected = NOT_APPLICABLE.get((scenario, version), {})
    wrong: dict[str, list[str]] = {}
    for check in checks:
        listed = expected.get(check["id"])
        if listed is not None:
            problem = _why_not(check, listed)
        elif check["status"] != "SUCCESS":
            problem = f"{check['status']}: {check.get('errorMessage')}"
        else:
            problem = None
        if problem is not None:
            wrong.setdefault(check["id"], []).append(problem)
    assert not wrong, wrong
    # every listed check was run (the list must stay true)
    assert set(expected) <= {check["id"] for check in checks}
    # the checks that need the prompts and the tool ran (and so passed)
    assert MUST_RUN.get((scenario, version), set()) <= {check["id"] for check in checks}


def test_the_not_applicable_reasons_are_checked() -> None:
    """A listed check that does not pass for its listed reason is reported."""
    reason = NOT_APPLICABLE[("server-stateless", MODERN)][
        "sep-2575-server-rejects-undeclared-capability"
    ]
    check: dict[str, Any] = {
        "id": "sep-2575-server-rejects-undeclared-capability",
        "status": "FAILURE",
        "errorMessage": "Not testable: server does not list the diagnostic tool "
        "'test_missing_capability' in tools/list",
        "details": {"untestable": True, "response": {"error": {"code": -32602}}},
    }
    assert _why_not(check, reason) is None
    timeout = {**check, "errorMessage": "tools/call: request timed out"}
    assert "does not match" in str(_why_not(timeout, reason))
    other_code = {**check, "details": {"untestable": True, "response": {"error": {"code": -32603}}}}
    assert "do not contain" in str(_why_not(other_code, reason))
    assert "status SUCCESS" in str(_why_not({**check, "status": "SUCCESS"}, reason))
    not_flagged = {**check, "details": {"response": {"error": {"code": -32602}}}}
    assert "do not contain" in str(_why_not(not_flagged, reason))
