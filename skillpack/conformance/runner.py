"""Run the conformance scenarios against a server, spawned over stdio or reached over
Streamable HTTP, in each era it speaks."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Literal

from skillpack._internal.words import shorten
from skillpack.client.connect import open_connection
from skillpack.client.session import McpSession
from skillpack.client.transport import RpcError, TransportError
from skillpack.client.verify import VerificationError
from skillpack.conformance.model import Outcome
from skillpack.conformance.scenarios import SCENARIOS, EraContext
from skillpack.errors import EXIT_FINDINGS, EXIT_OK

EraName = Literal["modern", "legacy"]
SKILLS_SCENARIOS = {"skills-list", "resources-read", "frontmatter", "skills-get", "directory-read"}


def run_check(
    argv: Sequence[str],
    *,
    eras: Sequence[EraName] = ("modern", "legacy"),
    only: Sequence[str] = (),
    timeout: float = 30.0,
    url: str | None = None,
) -> list[Outcome]:
    """Spawn ``argv`` (or connect to ``url``) once per era and run every scenario (or
    those in ``only``)."""
    chosen = [(n, fn) for n, fn in SCENARIOS if not only or n in only]
    outcomes: list[Outcome] = []
    for era in eras:
        conn = open_connection(argv, url=url, timeout=timeout)
        with contextlib.closing(conn):
            session = McpSession(conn, era)
            try:
                description = session.connect()
            except TransportError as exc:
                if not exc.timed_out:  # the server died: that is a failure, not an era
                    failed = Outcome("connect", era)
                    failed.expect(False, exc.render().replace("\n", " | "))
                    outcomes.append(failed)
                    continue
                reason = f"the server does not speak the {era} era ({exc.message})"
                outcomes += [Outcome(n, era, skipped=reason) for n, _ in chosen]
                continue
            except RpcError as exc:
                reason = f"the server does not speak the {era} era ({exc})"
                outcomes += [Outcome(n, era, skipped=reason) for n, _ in chosen]
                continue
            ctx = EraContext(session, description)
            broken: str | None = None
            for name, scenario in chosen:
                out = Outcome(name, era)
                outcomes.append(out)
                if broken is not None:
                    out.expect(False, broken)
                    continue
                if name in SKILLS_SCENARIOS and not ctx.declares_skills:
                    out.skipped = f"the skills extension is not declared in the {era} era"
                    continue
                try:
                    scenario(ctx, out)
                except RpcError as exc:
                    out.expect(False, f"unexpected error response: {exc}")
                except VerificationError as exc:
                    out.expect(False, exc.message)
                except TransportError as exc:
                    broken = f"the server stopped answering: {exc.message}"
                    out.expect(False, broken)
            for problem in conn.protocol_errors:
                outcomes[-1].failures.append(f"stdout: {problem}")
    return outcomes


def exit_code(outcomes: Sequence[Outcome]) -> int:
    return EXIT_FINDINGS if any(o.status == "fail" for o in outcomes) else EXIT_OK


def render_json(outcomes: Sequence[Outcome]) -> str:
    summary = {
        s: sum(1 for o in outcomes if o.status == s) for s in ("pass", "warn", "fail", "skip")
    }
    return json.dumps({"summary": summary, "scenarios": [o.to_json() for o in outcomes]}, indent=2)


def render_table(outcomes: Sequence[Outcome], color: bool = False) -> str:
    colors = {"pass": "32", "warn": "33", "fail": "31", "skip": "2"}
    rows = [("scenario", "era", "status", "checks", "first problem")]
    for o in outcomes:
        problem = (o.failures or o.warnings or [o.skipped or ""])[0]
        rows.append((o.scenario, o.era, o.status, str(o.checks), shorten(problem, 90)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for index, row in enumerate(rows):
        cells = [row[i].ljust(widths[i]) for i in range(4)] + [row[4]]
        if color and index:
            cells[2] = f"\x1b[{colors[row[2]]}m{cells[2]}\x1b[0m"
        lines.append("  ".join(cells).rstrip())
    details = []
    for o in outcomes:
        first = (o.failures or o.warnings or [o.skipped or ""])[0]
        cut = [first] if shorten(first, 90) != first else []  # the table shows it cut
        for message in cut + o.failures[1:] + (o.warnings[1:] if not o.failures else o.warnings):
            details.append(f"  {o.scenario} ({o.era}): {message}")
    if details:
        lines += ["", "more:", *details[:200]]
        if len(details) > 200:
            lines.append(f"  ... and {len(details) - 200} more (use --format json)")
    counts = {
        s: sum(1 for o in outcomes if o.status == s) for s in ("pass", "warn", "fail", "skip")
    }
    lines += ["", ", ".join(f"{v} {k}" for k, v in counts.items())]
    return "\n".join(lines)
