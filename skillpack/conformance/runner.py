"""Run the conformance scenarios against a server, spawned over stdio or reached over
Streamable HTTP, in each era it speaks."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Sequence
from typing import Literal

from skillpack._internal.words import shorten
from skillpack.client.connect import open_connection
from skillpack.client.session import McpSession, ServerDescription
from skillpack.client.transport import Connection, MalformedReply, RpcError, TransportError
from skillpack.client.verify import VerificationError
from skillpack.conformance.model import Outcome
from skillpack.conformance.scenarios import SCENARIOS, EraContext
from skillpack.errors import EXIT_FINDINGS, EXIT_OK

EraName = Literal["modern", "legacy"]
#: one scenario: it records its checks in the outcome
Scenario = Callable[[EraContext, Outcome], None]
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
    those in ``only``).

    A check cannot pass by accident: a server that dies, breaks the protocol (stdout
    that is not JSON-RPC, a reply that is not a JSON-RPC response) or, in no era, answers
    at all fails a ``connect`` outcome naming the problem. An era the server does not
    speak (an error response to its handshake, or silence while another era answers)
    is skipped."""
    chosen = [(n, fn) for n, fn in SCENARIOS if not only or n in only]
    by_era: list[list[Outcome]] = []
    unspoken: dict[int, tuple[str, str]] = {}  # index in by_era -> (era, why not spoken)
    with contextlib.ExitStack() as stack:
        sessions = []
        for era in eras:
            conn = open_connection(argv, url=url, timeout=timeout)
            stack.callback(conn.close)
            sessions.append(McpSession(conn, era))
        # every era's handshake at once: a server that never answers costs one timeout,
        # not one per era
        handshakes = _side_by_side(sessions)
        for era, session, handshake in zip(eras, sessions, handshakes, strict=True):
            rows, unspoken_why = _run_era(session, era, handshake, chosen)
            if unspoken_why is not None:
                unspoken[len(by_era)] = (era, unspoken_why)
            by_era.append(rows)
    if len(unspoken) == len(by_era):  # no era answered: nothing was checked
        for index, (name, reason) in unspoken.items():
            failed = Outcome("connect", name)
            failed.expect(False, f"the server answered in no era ({name}: {reason})")
            by_era[index] = [failed]
    return [outcome for rows in by_era for outcome in rows]


def _side_by_side(
    sessions: Sequence[McpSession],
) -> list[ServerDescription | TransportError | RpcError]:
    """Each session's handshake, run in threads of their own. Daemon threads, joined
    interruptibly: Ctrl-C stops the check at once (the connections are closed on the
    way out, which ends the servers and the waits), never after a pool's shutdown."""
    results: list[ServerDescription | TransportError | RpcError | None] = [None] * len(sessions)

    def run(index: int) -> None:
        results[index] = _handshake(sessions[index])

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r if r is not None else TransportError("the handshake did not finish") for r in results]


def _handshake(session: McpSession) -> ServerDescription | TransportError | RpcError:
    """The era's handshake: the server's description, or why it failed."""
    try:
        return session.connect()
    except (TransportError, RpcError) as exc:
        return exc


def _run_era(
    session: McpSession,
    era: str,
    handshake: ServerDescription | TransportError | RpcError,
    chosen: Sequence[tuple[str, Scenario]],
) -> tuple[list[Outcome], str | None]:
    """Run ``chosen`` in ``era`` after its ``handshake``: the outcomes, and why the era
    is not spoken (None when it is)."""
    conn = session.conn
    if isinstance(handshake, (TransportError, RpcError)):
        failed = _connect_failure(handshake, conn, era)
        if failed is not None:
            return [failed], None
        reason = f"the server does not speak the {era} era ({_why(handshake)})"
        return [Outcome(n, era, skipped=reason) for n, _ in chosen], _why(handshake)
    ctx = EraContext(session, handshake)
    rows: list[Outcome] = []
    broken: str | None = None
    stopped: str | None = None  # the transport error that broke the era
    for name, scenario in chosen:
        out = Outcome(name, era)
        rows.append(out)
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
            stopped = exc.render().replace("\n", " | ")
            out.expect(False, broken)
    problems = [stopped] if stopped is not None else []
    problems += _stdout_problems(conn)
    if problems:  # the connection itself failed: say so in a row of its own
        rows.insert(0, Outcome("connect", era, checks=1, failures=problems))
    return rows, None


def _why(exc: TransportError | RpcError) -> str:
    if isinstance(exc, TransportError):
        return exc.message
    return f"{exc.method} answered {exc}" if exc.method else str(exc)


#: distinct problems listed from what a server wrote that is not JSON-RPC
SHOWN_PROBLEMS = 5


def _stdout_problems(conn: Connection) -> list[str]:
    """What the server sent that is not a JSON-RPC message, as failures (MCP's stdio
    transport: a server MUST NOT write anything else on stdout): the first few distinct
    ones, and how many there were."""
    distinct = list(dict.fromkeys(conn.protocol_errors))
    problems = [f"stdout: {problem}" for problem in distinct[:SHOWN_PROBLEMS]]
    total = conn.protocol_error_count
    if total > len(problems):
        problems.append(f"stdout: {total} messages in all that are not JSON-RPC")
    return problems


def _connect_failure(exc: TransportError | RpcError, conn: Connection, era: str) -> Outcome | None:
    """The failed ``connect`` outcome of a handshake that broke the protocol, or None
    when the server may simply not speak ``era`` (an error response, or silence)."""
    failed = Outcome("connect", era)
    if isinstance(exc, MalformedReply):
        failed.expect(False, str(exc.refusal().message))
    elif isinstance(exc, RpcError):
        if not conn.protocol_errors:
            return None
        failed.expect(False, f"{exc.method or 'the handshake'} failed: {exc}")
    elif not exc.timed_out:  # the server died or closed the connection
        failed.expect(False, exc.render().replace("\n", " | "))
        return failed
    elif not conn.protocol_errors:
        return None  # silence: decided once every era was tried
    else:
        failed.expect(False, f"{exc.message}; the server wrote only messages that are not JSON-RPC")
    failed.failures += _stdout_problems(conn)
    return failed


def exit_code(outcomes: Sequence[Outcome]) -> int:
    """1 when a scenario failed, or when none ran (every one skipped: nothing was
    checked); else 0."""
    if any(o.status == "fail" for o in outcomes) or not _checked(outcomes):
        return EXIT_FINDINGS
    return EXIT_OK


def _checked(outcomes: Sequence[Outcome]) -> bool:
    return any(o.status != "skip" for o in outcomes)


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
    if not _checked(outcomes):
        lines.append("nothing was checked: every scenario was skipped")
    return "\n".join(lines)
