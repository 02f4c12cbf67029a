"""The official MCP conformance harness (@modelcontextprotocol/conformance 0.2.0-alpha.12,
on node 22) against ``skillpack serve --http`` on the example bundle.

Every check of every scenario passes, except the ones listed in :data:`NOT_APPLICABLE`:
they need tools or prompts (this server has neither) or the harness itself skips them.
The test fails if any other check does not pass, and also if a listed check changes
its verdict (the list must stay true).
"""

from __future__ import annotations

from pathlib import Path

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

NO_TOOLS = "needs a tool: this server has no tools (tools/list and tools/call are -32601)"
#: (scenario, version) -> {check id: (status the harness reports, why it cannot apply)}
NOT_APPLICABLE: dict[tuple[str, str], dict[str, tuple[str, str]]] = {
    ("sep-2640-skills-enumeration", LEGACY): {
        "sep-2640-skills-list-cache-attributes": (
            "SKIPPED",
            "ttlMs/cacheScope exist from 2026-07-28 on (the harness skips it for 2025-11-25)",
        ),
        "sep-2640-skills-get-cache-attributes": (
            "SKIPPED",
            "ttlMs/cacheScope exist from 2026-07-28 on (the harness skips it for 2025-11-25)",
        ),
    },
    ("caching", MODERN): {
        "sep-2549-tools-list-caching-hints": (
            "FAILURE",
            "caching hints on tools/list: this server has no tools, tools/list is -32601",
        ),
        "sep-2549-prompts-list-caching-hints": (
            "FAILURE",
            "caching hints on prompts/list: this server has no prompts, prompts/list is -32601",
        ),
    },
    ("http-header-validation", MODERN): {
        "sep-2243-server-standard-setup": (
            "FAILURE",
            "the scenario probes every header case with tools/list, which is -32601 here; "
            "tests/http/test_http_contract.py makes the same cases on skills/list and "
            "resources/read",
        ),
        "sep-2243-server-reject-invalid-headers": (
            "FAILURE",
            f"Mcp-Name of tools/call: {NO_TOOLS}",
        ),
        "sep-2243-server-accepts-whitespace-header-value": (
            "FAILURE",
            f"Mcp-Name of tools/call: {NO_TOOLS}",
        ),
    },
    ("server-stateless", MODERN): {
        "sep-2575-server-rejects-undeclared-capability": (
            "FAILURE",
            f"the diagnostic tool test_missing_capability: {NO_TOOLS}",
        ),
        "sep-2575-missing-capability-http-400": (
            "FAILURE",
            f"the diagnostic tool test_missing_capability: {NO_TOOLS}",
        ),
        "sep-2575-http-server-no-independent-requests-on-stream": (
            "FAILURE",
            f"the diagnostic tool test_streaming_elicitation: {NO_TOOLS}",
        ),
        "sep-2575-server-no-log-without-loglevel": (
            "FAILURE",
            f"the diagnostic tool test_logging_tool: {NO_TOOLS}",
        ),
        **{
            check: (
                "SKIPPED",
                "subscriptions/listen: nothing here changes, so no listChanged or subscribe "
                "capability is declared (the harness skips it)",
            )
            for check in (
                "sep-2575-server-sends-subscription-ack",
                "sep-2575-server-tags-subscription-id",
                "sep-2575-server-honors-notification-filter",
                "sep-2575-server-sends-prompts-list-changed-on-subscription",
                "sep-2575-server-sends-tools-list-changed-on-subscription",
            )
        },
    },
}


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
    not_passed = {c["id"]: c for c in checks if c["status"] != "SUCCESS"}
    unexpected = {
        check_id: (check["status"], check.get("errorMessage"))
        for check_id, check in not_passed.items()
        if check_id not in expected
    }
    assert not unexpected, unexpected
    verdicts = {check_id: check["status"] for check_id, check in not_passed.items()}
    assert verdicts == {check_id: status for check_id, (status, _) in expected.items()}
