"""skillpack serve keeps serving through anything a pipe can carry, and exits cleanly."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from mcp_wire import (
    HANG_GUARD_S,
    META,
    UNENCODABLE,
    Server,
    check,
    request_line,
    run_piped,
)

from tests.conftest import EXAMPLES

SKILLS = EXAMPLES / "skills"
LIST = {"jsonrpc": "2.0", "method": "skills/list", "params": {"_meta": META}}


def _line(message: object) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_malformed_messages_get_errors_and_serving_goes_on() -> None:
    bad: list[tuple[bytes, int]] = [
        (b"{not json\n", -32700),
        (b"\xff\xfe\x00garbage\n", -32700),  # not UTF-8
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","x":NaN}\n', -32700),
        # valid JSON grammar, but no double holds it: refused, never read as infinity
        (b'{"jsonrpc":"2.0","id":1,"method":"ping","x":1e400}\n', -32700),
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", -32700),  # too deep for any parser
        (b"42\n", -32600),
        (b'"a string"\n', -32600),
        (b'{"jsonrpc":"2.0","id":null,"method":"skills/list"}\n', -32600),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"skills/list"}\n', -32600),
        (b'{"jsonrpc":"2.0","id":true,"method":"skills/list"}\n', -32600),
        (b"[]\n", -32600),  # an empty batch
    ]
    with Server(SKILLS) as server:
        for data, code in bad:
            server.send_bytes(data)
            response = server.recv()
            assert response["error"]["code"] == code, (data[:40], response)
            assert "id" not in response  # no usable id: none is echoed (never null)
            check("core", "JSONRPCErrorResponse", response)
            assert server.modern("skills/list")["skills"]  # still serving
        for message, code in [
            ({"id": 7, "method": "skills/list"}, -32600),  # no jsonrpc
            ({"jsonrpc": "1.0", "id": 7, "method": "skills/list"}, -32600),
            ({"jsonrpc": "2.0", "id": 7}, -32600),  # no method
            ({"jsonrpc": "2.0", "id": 7, "method": 12}, -32600),
            ({"jsonrpc": "2.0", "id": 7, "method": "skills/list", "params": "x"}, -32602),
            (
                {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "skills/list",
                    "params": {"_meta": META, "deep": [[[[[[[[[[[]]]]]]]]]]]},
                },
                None,
            ),
        ]:
            server.send(message)
            response = server.recv()
            assert response["id"] == 7
            if code is None:
                assert "result" in response
            else:
                assert response["error"]["code"] == code, (message, response)
        code_, _ = server.close()
    assert code_ == 0


def test_responses_from_the_client_are_never_answered_unless_malformed() -> None:
    """A client may answer a request this server never sent: a result with an id, or an
    error with or without one (the MCP schema lets it leave the id out). Those get no
    reply, as over HTTP (202); a malformed one is an Invalid Request (-32600)."""
    with Server(SKILLS) as server:
        for response in [
            {"jsonrpc": "2.0", "id": 5, "result": {}},
            {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "no"}},
            {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}},
        ]:
            server.send(response)
        assert server.modern("skills/list")["skills"]  # the next answer is this one's
        for malformed, text in [
            ({"jsonrpc": "2.0", "id": 5, "result": {}, "error": {"code": 1}}, "not both"),
            ({"jsonrpc": "2.0", "result": {}}, "needs an id"),
            ({"jsonrpc": "2.0", "error": "bad"}, "integer code"),
            ({"jsonrpc": "2.0", "id": 5, "error": {"code": "x"}}, "integer code"),
        ]:
            server.send(malformed)
            reply = server.recv()
            assert reply["error"]["code"] == -32600 and text in reply["error"]["message"], reply
        assert server.modern("skills/list")["skills"]


def test_batches_are_refused_perrequest_line() -> None:
    with Server(SKILLS) as server:
        server.send([{**LIST, "id": 1}, {**LIST, "id": "two"}, {"jsonrpc": "2.0", "method": "x"}])
        first, second = server.recv(), server.recv()
        assert (first["id"], second["id"]) == (1, "two")
        assert first["error"]["code"] == second["error"]["code"] == -32600
        assert "batch" in first["error"]["message"]
        assert server.modern("skills/list")["skills"]


def test_a_100_mb_line_is_discarded_not_held(tmp_path: Path) -> None:
    with Server(SKILLS) as server:
        server.modern("server/discover")
        head = b'{"jsonrpc":"2.0","id":"big","method":"resources/read","params":{"uri":"'
        server.send_bytes(head)
        chunk = b"a" * (1 << 20)
        for _ in range(100):
            server.send_bytes(chunk)
        server.send_bytes(b'","_meta":{}}}\n')
        response = server.recv()
        assert response["id"] == "big"  # found in the part that was kept
        assert response["error"]["code"] == -32600
        assert "exceeds the limit" in response["error"]["message"]
        assert server.modern("skills/list")["skills"]
        # the same without an id up front: answered without one
        server.send_bytes(b'{"params":{"x":"' + b"b" * (8 << 20) + b'"},"id":5}\n')
        assert "id" not in server.recv()
        assert _peak_rss_kb(server.proc.pid) < 96 * 1024  # a 100 MB line was never held
        assert server.close()[0] == 0


def test_piped_requests_are_all_answered_in_order_before_exit() -> None:
    data = b"".join(
        request_line(i, "resources/read", uri="skill://pdf-processing/SKILL.md")
        if i % 3 == 0
        else request_line(i, "skills/get", uri="skill://missing/SKILL.md")
        if i % 3 == 1
        else request_line(i)
        for i in range(1, 601)
    )
    data += _line(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 600}}
    )
    data += request_line(601, "resources/list").rstrip(b"\n")  # the last line has no newline
    responses, proc = run_piped([SKILLS], data)
    assert proc.returncode == 0
    assert [r["id"] for r in responses] == list(range(1, 602))
    assert all(("error" in r) == (r["id"] % 3 == 1 and r["id"] <= 600) for r in responses)


def test_exits_promptly_on_eof_and_on_sigterm() -> None:
    with Server(SKILLS) as server:
        server.modern("server/discover")
        assert server.close()[0] == 0
    with Server(SKILLS) as server:
        server.modern("server/discover")
        server.proc.send_signal(signal.SIGTERM)
        try:
            server.proc.wait(timeout=HANG_GUARD_S)
        except subprocess.TimeoutExpired:
            raise AssertionError("no exit on SIGTERM") from None
        assert server.proc.returncode == 0
        assert server.proc.stderr is not None
        assert b"Traceback" not in server.proc.stderr.read()


def test_nothing_but_protocol_messages_on_stdout() -> None:
    data = b"junk\n" + request_line(1) + b"\n\n   \n" + request_line(2, "nope/method")
    responses, proc = run_piped([SKILLS], data)
    assert [r.get("id") for r in responses] == [None, 1, 2]
    for line in proc.stdout.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert b"serving 5 skills" in proc.stderr


def test_a_string_utf8_cannot_encode_is_refused_naming_its_field_and_serving_goes_on() -> None:
    """A lone surrogate (``"\\ud800"``) is valid JSON but no UTF-8: the server can neither
    serve it nor echo it. It used to kill the server (exit 3); now every such message is
    answered (-32600, -32602 in params) naming the field, and the next request too."""
    with Server(SKILLS) as server:
        for data, code, field, request_id in UNENCODABLE:
            server.send_bytes(data + b"\n")
            reply = server.recv()
            check("core", "JSONRPCErrorResponse", reply)
            assert reply["error"]["code"] == code, (data[:60], reply)
            assert reply["error"]["data"] == {"field": field}, reply
            assert reply.get("id") == request_id, reply
            assert field[:40] in reply["error"]["message"]
            assert server.modern("skills/list")["skills"]  # still serving
        # a paired escape is one character, served as any other; an escaped backslash
        # before "ud800" is text, not a surrogate
        server.send_bytes(b'{"jsonrpc":"2.0","id":"\\ud83d\\ude00","method":"ping"}\n')
        assert server.recv() == {"jsonrpc": "2.0", "id": "\U0001f600", "result": {}}
        server.send_bytes(b'{"jsonrpc":"2.0","id":"\\\\ud800","method":"ping"}\n')
        assert server.recv() == {"jsonrpc": "2.0", "id": "\\ud800", "result": {}}
        # notifications and well-formed responses are never answered, surrogate or not
        server.send_bytes(b'{"jsonrpc":"2.0","method":"notifications/\\ud800"}\n')
        server.send_bytes(b'{"jsonrpc":"2.0","id":9,"result":{"x":"\\ud800"}}\n')
        # a batch: the members whose id can be sent back are answered
        server.send_bytes(
            b'[{"jsonrpc":"2.0","id":"\\ud800","method":"ping"},'
            b'{"jsonrpc":"2.0","id":10,"method":"ping"}]\n'
        )
        reply = server.recv()
        assert reply["id"] == 10 and reply["error"]["code"] == -32600
        # a line too long to keep, whose id is a lone surrogate: answered without it
        server.send_bytes(b'{"jsonrpc":"2.0","id":"\\ud800","x":"' + b"a" * (5 << 20) + b'"}\n')
        reply = server.recv()
        assert reply["error"]["code"] == -32600 and "id" not in reply
        assert server.modern("skills/list")["skills"]
        code_, stderr = server.close()
    assert code_ == 0, stderr
    assert "internal error" not in stderr and "Traceback" not in stderr


def test_overlong_strings_huge_numbers_and_deep_nesting_are_answered() -> None:
    """The rest of what a client can put in a message that parses: every one answered,
    with an error that does not send a megabyte back in its message, and serving goes
    on."""
    big = "m" * (3 << 20)
    with Server(SKILLS) as server:
        server.send({"jsonrpc": "2.0", "id": 1, "method": big})
        reply = server.recv()
        assert reply["error"]["code"] == -32601
        assert len(reply["error"]["message"]) <= 400  # cut, where data keeps it whole
        server.send_bytes(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}\n')
        reply = server.recv()
        assert reply["error"]["code"] == -32700
        assert reply["error"]["message"] == "Parse error: an integer has more than 4300 digits"
        server.send_bytes(b'{"jsonrpc":"2.0","id":' + b"9" * 4000 + b',"method":"ping"}\n')
        assert server.recv()["id"] == int("9" * 4000)  # a large id is an id: echoed whole
        server.send({"jsonrpc": "2.0", "id": "i" * (3 << 20), "method": "ping"})
        assert server.recv()["id"] == "i" * (3 << 20)
        deep: object = []
        for _ in range(800):
            deep = [deep]
        server.send({"jsonrpc": "2.0", "id": 2, "method": "skills/list",
                     "params": {"_meta": META, "deep": deep}})  # fmt: skip
        assert server.recv()["result"]["skills"]
        assert server.modern("skills/list")["skills"]
        code_, stderr = server.close()
    assert code_ == 0, stderr
