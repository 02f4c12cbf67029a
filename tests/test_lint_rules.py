"""Every rule: a failing and a passing case, through the real CLI.

One tree and one ``skillpack lint --format json --select <group>`` run per rule group.
Each tree holds skills that break one rule each (``bad-*``) and skills that come as close
as possible without breaking it (``ok-*``); the test asserts the exact set of findings,
so a missed violation, a wrong line and a false positive all fail.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.lintutil import findings, lint_json, skill_md, write


def _tree(root: Path, skills: dict[str, str | bytes]) -> None:
    for rel, content in skills.items():
        write(root / rel / "SKILL.md", content)


def test_frontmatter_block_rules_sp0xx(tmp_path: Path) -> None:
    nested = "a: " + "[" * 15 + "]" * 15 + "\n"  # root mapping + 15 sequences = 16 levels
    too_deep = "a: " + "[" * 16 + "]" * 16 + "\n"
    _tree(
        tmp_path,
        {
            "bad-001": "# Title\n\nNo frontmatter.\n",
            "bad-002": "---\nname: bad-002\n\nbody\n",
            "bad-003": "---\nname: a: b\n---\n",
            "bad-004": "---\n- a\n- b\n---\n",
            "bad-005": "---\n%YAML 1.2\nname: x\n---\n",
            "bad-006": "---\nname: !!str x\n---\n",
            "bad-007": "---\na: &x 1\n---\n",
            "bad-007b": "---\na: 1\nb: *x\n---\n",
            "bad-008": "---\n<<: {a: 1}\n---\n",
            "bad-009": "---\nname: x\n1: x\n---\n",
            "bad-010": "---\nname: a\nname: b\n---\n",
            "bad-011": "---\n" + too_deep + "---\n",
            "bad-012": "---\ndescription: " + "x" * 66_000 + "\n---\n",
            "bad-013": "---\nname: x\nok: yes\n---\n",
            "bad-014": "---\ndescription: a\u2028b\n---\n",
            "bad-015": "---\nbig: 9007199254740992\n---\n",
            "bad-016": "---\na: 1\n...\n---\n",
            "bad-017": b"---\nname: caf\xe9\n---\n",
            # an escaped lone surrogate (no UTF-8 holds it); a pair is two of them
            "bad-018": '---\ndescription: "a \\udb40 b"\n---\n',
            "bad-018b": '---\nx-emoji: "\\ud83d\\ude00"\n---\n',
            "ok-all": (
                "\ufeff---\n# a comment\nname: ok-all\ndescription: 'yes'\nbig: 9007199254740991\n"
                'emoji: "\\U0001F600"\nversion: "010"\nwhen: "2024-01-31"\nflag: true\nratio: 1.5\n'
                + nested
                + "text: |\n  literal\n  # not a comment\n"
                + "long: "
                + "y" * 60_000
                + "\n---\n\nbody with --- inside\n"
            ),
        },
    )
    proc, report = lint_json(tmp_path, "--select", "SP0")
    assert proc.returncode == 1
    assert findings(report) == {
        ("SP001", "bad-001/SKILL.md", 1),
        ("SP002", "bad-002/SKILL.md", 1),
        ("SP003", "bad-003/SKILL.md", 2),
        ("SP004", "bad-004/SKILL.md", 2),
        ("SP005", "bad-005/SKILL.md", 2),
        ("SP006", "bad-006/SKILL.md", 2),
        ("SP007", "bad-007/SKILL.md", 2),
        ("SP007", "bad-007b/SKILL.md", 3),
        ("SP008", "bad-008/SKILL.md", 2),
        ("SP009", "bad-009/SKILL.md", 3),
        ("SP010", "bad-010/SKILL.md", 3),
        ("SP011", "bad-011/SKILL.md", 2),
        ("SP012", "bad-012/SKILL.md", 2),
        ("SP013", "bad-013/SKILL.md", 3),
        ("SP014", "bad-014/SKILL.md", 2),
        ("SP015", "bad-015/SKILL.md", 2),
        ("SP016", "bad-016/SKILL.md", 3),
        ("SP017", "bad-017/SKILL.md", 2),
        ("SP018", "bad-018/SKILL.md", 2),
        ("SP018", "bad-018b/SKILL.md", 2),
    }
    columns = {f["path"].split("/")[0]: f["column"] for f in report["findings"]}
    assert columns["bad-003"] == 8  # the second ': '
    assert columns["bad-006"] == 7  # the tag
    assert columns["bad-011"] == 19  # the 16th '[', the 17th level
    assert columns["bad-013"] == 5  # the value 'yes'
    assert columns["bad-014"] == 15  # the U+2028
    assert columns["bad-017"] == 10  # the byte 0xe9
    hints = {f["code"]: f["hint"] for f in report["findings"]}
    assert hints["SP013"] == 'quote it to keep it a string: "yes"'


def test_agent_skills_field_rules_sp1xx(tmp_path: Path) -> None:
    name64 = "a" * 30 + "-" + "b" * 33
    assert len(name64) == 64
    _tree(
        tmp_path,
        {
            "bad-101": "---\ndescription: Does things.\n---\n",
            "bad--102": "---\nname: bad--102\ndescription: Does things.\n---\n",
            "Bad-102b": "---\nname: Bad-102b\ndescription: Does things.\n---\n",
            "bad-102c": "---\nname: 102\ndescription: Does things.\n---\n",
            "x" * 65: f"---\nname: {'x' * 65}\ndescription: Does things.\n---\n",
            "bad-103": skill_md("other-name"),
            "bad-104": "---\nname: bad-104\n---\n",
            "bad-105": "---\nname: bad-105\ndescription: ''\n---\n",
            "bad-105b": f"---\nname: bad-105b\ndescription: {'d' * 1025}\n---\n",
            "bad-106": skill_md("bad-106", "compatibility:\n  - python3\n"),
            "bad-106b": skill_md("bad-106b", f"compatibility: {'c' * 501}\n"),
            "bad-107": skill_md("bad-107", "metadata:\n  owner: docs\n  version: 2\n"),
            "bad-107b": skill_md("bad-107b", "metadata: [a, b]\n"),
            "bad-108": skill_md("bad-108", "license:\n  - MIT\n"),
            "bad-109": skill_md("bad-109", "allowed-tools: [Read, Bash]\n"),
            "bad-110": skill_md("bad-110", "allowed-tools: Bash(git:*) Read\n"),
            "bad-111": skill_md("bad-111", "version: 1.2.0\n"),
            "bad-112": skill_md("bad-112", "metadata:\n  io.modelcontextprotocol/x: value\n"),
            name64: (
                f"---\nname: {name64}\ndescription: {'d' * 1024}\nlicense: MIT\n"
                f"compatibility: {'c' * 500}\nmetadata:\n  owner: docs\n  version: '2'\n"
                "  io.modelcontextprotocol.example: allowed\n---\n"
            ),
            "ok-9": skill_md("ok-9", "license: Complete terms in LICENSE.txt\n"),
        },
    )
    proc, report = lint_json(tmp_path, "--select", "SP1")
    assert proc.returncode == 1
    assert findings(report) == {
        ("SP101", "bad-101/SKILL.md", 2),
        ("SP102", "bad--102/SKILL.md", 2),
        ("SP102", "Bad-102b/SKILL.md", 2),
        ("SP102", "bad-102c/SKILL.md", 2),
        ("SP102", f"{'x' * 65}/SKILL.md", 2),
        ("SP103", "bad-103/SKILL.md", 2),
        ("SP104", "bad-104/SKILL.md", 2),
        ("SP105", "bad-105/SKILL.md", 3),
        ("SP105", "bad-105b/SKILL.md", 3),
        ("SP106", "bad-106/SKILL.md", 4),
        ("SP106", "bad-106b/SKILL.md", 4),
        ("SP107", "bad-107/SKILL.md", 6),
        ("SP107", "bad-107b/SKILL.md", 4),
        ("SP108", "bad-108/SKILL.md", 4),
        ("SP109", "bad-109/SKILL.md", 4),
        ("SP110", "bad-109/SKILL.md", 4),
        ("SP110", "bad-110/SKILL.md", 4),
        ("SP111", "bad-111/SKILL.md", 4),
        ("SP112", "bad-112/SKILL.md", 5),
    }
    messages = {f["path"].split("/")[0]: f["message"] for f in report["findings"]}
    assert "consecutive hyphens" in messages["bad--102"]
    assert "lowercase" in messages["Bad-102b"]
    assert "not an integer" in messages["bad-102c"]
    assert "65 characters" in messages["x" * 65]
    assert "1025 characters" in messages["bad-105b"]
    severities = {f["code"]: f["severity"] for f in report["findings"]}
    assert severities["SP110"] == "info" and severities["SP111"] == "warning"


def test_skill_path_and_limit_rules_sp2xx(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "team docs" / "bad-201" / "SKILL.md", skill_md("bad-201"))
    write(root / "a.b_c~d-e" / "ok-201" / "SKILL.md", skill_md("ok-201"))
    # 512 files including SKILL.md is the limit
    write(root / "bad-203" / "SKILL.md", skill_md("bad-203"))
    write(root / "ok-203" / "SKILL.md", skill_md("ok-203"))
    for i in range(512):
        write(root / "bad-203" / "data" / f"{i:03d}.txt", "x")
    for i in range(511):
        write(root / "ok-203" / "data" / f"{i:03d}.txt", "x")
    # nested skills' files count in the enclosing skill: 300 + 300 > 512
    write(root / "bad-203n" / "SKILL.md", skill_md("bad-203n"))
    write(root / "bad-203n" / "inner" / "SKILL.md", skill_md("inner"))
    for i in range(300):
        write(root / "bad-203n" / "a" / f"{i:03d}.txt", "x")
        write(root / "bad-203n" / "inner" / "b" / f"{i:03d}.txt", "x")
    # 16 MiB is the limit (sparse files: only their size matters)
    write(root / "bad-204" / "SKILL.md", skill_md("bad-204"))
    write(root / "ok-204" / "SKILL.md", skill_md("ok-204"))
    for name, extra in (("bad-204", 1), ("ok-204", 0)):
        skill_bytes = (root / name / "SKILL.md").stat().st_size
        with open(root / name / "big.bin", "wb") as fh:
            fh.truncate(16 * 1024 * 1024 - skill_bytes + extra)
    write(root / "x" / "dup" / "SKILL.md", skill_md("dup"))
    write(root / "y" / "dup" / "SKILL.md", skill_md("dup"))
    write(root / "bad-206" / "SKILL.md", skill_md("bad-206"))
    write(root / "bad-206" / "references" / "User Guide.md", "x")
    write(root / "bad-206" / "references" / "user-guide_v2.~md", "x")
    write(root / "bad-207" / "SKILL.md", skill_md("bad-207"))
    write(root / "bad-207" / "references" / "Guide.md", "x")
    write(root / "bad-207" / "references" / "guide.md", "x")
    write(root / "bad-207u" / "SKILL.md", skill_md("bad-207u"))
    write(root / "bad-207u" / unicodedata.normalize("NFC", "café.md"), "x")
    write(root / "bad-207u" / unicodedata.normalize("NFD", "café.md"), "x")
    write(root / "bad-208" / "SKILL.md", skill_md("bad-208"))
    os.makedirs(root / "bad-208" / "refs")
    with open(os.path.join(os.fsencode(root / "bad-208" / "refs"), b"caf\xe9.md"), "wb") as fh:
        fh.write(b"x")
    write(root / "bad-209" / "skill.md", skill_md("bad-209"))

    proc, report = lint_json(root, "--select", "SP2")
    assert proc.returncode == 1
    got = findings(report)
    assert got == {
        ("SP201", "team docs/bad-201/SKILL.md", None),
        ("SP203", "bad-203/SKILL.md", None),
        ("SP203", "bad-203n/SKILL.md", None),
        ("SP204", "bad-204/SKILL.md", None),
        ("SP205", "x/dup/SKILL.md", None),
        ("SP205", "y/dup/SKILL.md", None),
        ("SP206", "bad-206/references/User Guide.md", None),
        # bad-207: Guide.md and guide.md; bad-207u: NFC and NFD "café.md" (each also
        # needs percent-encoding)
        ("SP207", "bad-207/references/guide.md", None),
        ("SP207", f"bad-207u/{unicodedata.normalize('NFD', 'café.md')}", None),
        ("SP206", f"bad-207u/{unicodedata.normalize('NFD', 'café.md')}", None),
        ("SP206", f"bad-207u/{unicodedata.normalize('NFC', 'café.md')}", None),
        ("SP208", "bad-208/refs/caf\\xe9.md", None),
        ("SP209", "bad-209/skill.md", None),
    }
    messages = {(f["code"], f["path"]): f["message"] for f in report["findings"]}
    assert "513 files (nested" not in messages[("SP203", "bad-203/SKILL.md")]
    assert "602 files (nested skills' files included)" in messages[("SP203", "bad-203n/SKILL.md")]
    assert "'y/dup'" in messages[("SP205", "x/dup/SKILL.md")]
    assert "User%20Guide.md" in messages[("SP206", "bad-206/references/User Guide.md")]
    assert "letter case" in messages[("SP207", "bad-207/references/guide.md")]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_file_rules_sp3xx(tmp_path: Path) -> None:
    root = tmp_path
    write(root / "bad-301" / "SKILL.md", skill_md("bad-301"))
    write(root / "outside.md", "x")
    os.symlink("../outside.md", root / "bad-301" / "link.md")
    write(root / "bad-302" / "SKILL.md", skill_md("bad-302"))
    write(root / "bad-302" / "a.txt", "shared")
    os.link(root / "bad-302" / "a.txt", root / "bad-302" / "b.txt")
    write(root / "bad-303" / "SKILL.md", skill_md("bad-303"))
    os.mkfifo(root / "bad-303" / "pipe")
    write(root / "bad-304" / "SKILL.md", skill_md("bad-304"))
    write(root / "bad-304" / ".notes.md", "x")
    write(root / "bad-304" / ".git" / "config", "x")
    key_body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" * 2
    write(root / "bad-305" / "SKILL.md", skill_md("bad-305"))
    write(
        root / "bad-305" / "key.pem",
        f"-----BEGIN PRIVATE KEY-----\n{key_body}\n-----END PRIVATE KEY-----\n",
    )
    write(
        root / "bad-305" / "gcp.json",
        '{"type": "service_account",\n "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + key_body
        + '\\n-----END PRIVATE KEY-----\\n"}\n',
    )
    write(root / "bad-305" / "aws.py", "# creds\nKEY = 'AKIA" + "Q" * 16 + "'\n")
    write(root / "bad-305" / "aws.ini", "[default]\naws_secret_access_key = " + "a1B2" * 10 + "\n")
    write(root / "bad-305" / "gh.sh", "export T=ghp_" + "a" * 36 + "\n")
    write(root / "bad-305" / "slack.txt", "xoxb-123456789012-abcdefghij\n")
    write(root / "bad-305" / "openai.py", "k = 'sk-proj-" + "A" * 48 + "'\n")
    write(root / "bad-305" / "google.js", "const k = 'AIza" + "B" * 35 + "';\n")
    write(root / "bad-305" / "prod.env", "DEBUG=1\n")
    write(
        root / "ok-305" / "SKILL.md",
        skill_md(
            "ok-305",
            body=(
                "Never commit a `-----BEGIN PRIVATE KEY-----` block.\n"
                "The AWS docs use AKIAIOSFODNN7EXAMPLE as a key.\n"
                "Set OPENAI_API_KEY=sk-... in your shell; tokens look like ghp_xxx.\n"
            ),
        ),
    )
    write(root / "ok-305" / ".env", "SECRET=1\n")  # a dotfile: never published (SP304)
    write(root / "ok-305" / "environment.md", "x")
    # a directory whose path is too long to open: unreadable even for root
    write(root / "bad-306" / "SKILL.md", skill_md("bad-306"))
    fd = os.open(root / "bad-306", os.O_RDONLY)
    try:
        for _ in range(18):
            os.mkdir("d" * 250, dir_fd=fd)
            new_fd = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = new_fd
    finally:
        os.close(fd)

    proc, report = lint_json(root, "--select", "SP3")
    assert proc.returncode == 1
    got = {(c, p, line) for c, p, line in findings(report) if c != "SP306"}
    assert got == {
        ("SP301", "bad-301/link.md", None),
        ("SP302", "bad-302/a.txt", None),
        ("SP302", "bad-302/b.txt", None),
        ("SP303", "bad-303/pipe", None),
        ("SP304", "bad-304/.git", None),
        ("SP304", "bad-304/.notes.md", None),
        ("SP304", "ok-305/.env", None),
        ("SP305", "bad-305/key.pem", 1),
        ("SP305", "bad-305/gcp.json", 2),
        ("SP305", "bad-305/aws.py", 2),
        ("SP305", "bad-305/aws.ini", 2),
        ("SP305", "bad-305/gh.sh", 1),
        ("SP305", "bad-305/slack.txt", 1),
        ("SP305", "bad-305/openai.py", 1),
        ("SP305", "bad-305/google.js", 1),
        ("SP305", "bad-305/prod.env", None),
    }
    unreadable = [f for f in report["findings"] if f["code"] == "SP306"]
    assert len(unreadable) == 1 and unreadable[0]["path"].startswith("bad-306/dddd")
    assert unreadable[0]["severity"] == "error"
    labels = {f["path"]: f["message"] for f in report["findings"]}
    assert labels["bad-305/key.pem"] == "looks like a private key block"
    assert labels["bad-305/aws.py"] == "looks like an AWS access key ID"
    assert "'../outside.md'" in labels["bad-301/link.md"]
    assert labels["bad-303/pipe"].startswith("FIFO")


def test_body_rules_sp4xx(tmp_path: Path) -> None:
    root = tmp_path
    lines = lambda n: "".join(f"line {i}\n" for i in range(n))  # noqa: E731
    head = skill_md("x").count("\n") - 1  # lines before the body
    write(root / "bad-401" / "SKILL.md", skill_md("bad-401", body=lines(501 - head)))
    write(root / "ok-401" / "SKILL.md", skill_md("ok-401", body=lines(500 - head)))
    for name, size in (("bad-402", 20_001), ("ok-402", 20_000)):
        text = skill_md(name, body="")
        write(root / name / "SKILL.md", text + "w" * (size - len(text) - 1) + "\n")
    body_403 = (
        "See [forms](references/FORMS.md) and [gone](references/missing.md#part).\n"
        "Run `python scripts/fill.py in.pdf` or `scripts/nope.py`.\n"
        "Read `references/missing-too.md`, [the notes](.notes.md) and ![logo](assets/logo.png).\n"
        "Not checked: `src/app.py`, [site](https://example.com/x.md), [top](#top), "
        "`~/.config/x`.\n"
        "```\n[in code](references/absent.md)\n```\n"
        "[ref]: references/also-missing.md\n"
    )
    write(root / "bad-403" / "SKILL.md", skill_md("bad-403", body=body_403))
    write(root / "bad-403" / "references" / "FORMS.md", "x")
    write(root / "bad-403" / "scripts" / "fill.py", "x")
    write(root / "bad-403" / ".notes.md", "x")
    write(root / "bad-403" / "assets" / "logo.png", b"\x89PNG")
    body_404 = "See [shared](../shared/rules.md), [abs](/etc/passwd) and `../other/x.md`.\n"
    write(root / "bad-404" / "SKILL.md", skill_md("bad-404", body=body_404))
    write(
        root / "ok-404" / "SKILL.md",
        skill_md("ok-404", body="See [a](./refs/../refs/a.md) and [dir](refs/).\n"),
    )
    write(root / "ok-404" / "refs" / "a.md", "x")
    write(root / "bad-405" / "SKILL.md", skill_md("bad-405").replace("\n", "\r\n"))
    write(root / "bad-406" / "SKILL.md", "\ufeff" + skill_md("bad-406"))
    write(root / "bad-407" / "SKILL.md", skill_md("bad-407", body="no newline"))

    proc, report = lint_json(root, "--select", "SP4")
    assert proc.returncode == 1
    b = head + 1  # first body line of a skill_md() file
    assert findings(report) == {
        ("SP401", "bad-401/SKILL.md", 501),
        ("SP402", "bad-402/SKILL.md", None),
        ("SP403", "bad-403/SKILL.md", b),
        ("SP403", "bad-403/SKILL.md", b + 1),
        ("SP403", "bad-403/SKILL.md", b + 2),
        ("SP403", "bad-403/SKILL.md", b + 7),
        ("SP404", "bad-404/SKILL.md", b),
        ("SP405", "bad-405/SKILL.md", 1),
        ("SP406", "bad-406/SKILL.md", 1),
        ("SP407", "bad-407/SKILL.md", b),
    }
    by_line: dict[tuple[str, int], list[dict[str, object]]] = {}
    for f in report["findings"]:
        by_line.setdefault((f["path"], f["line"]), []).append(f)
    first = by_line[("bad-403/SKILL.md", b)]
    assert [(f["column"], f["message"]) for f in first] == [
        (45, "'references/missing.md#part' does not exist in the skill"),
    ]
    third = by_line[("bad-403/SKILL.md", b + 2)]
    assert sorted(f["message"] for f in third) == [
        "'.notes.md' exists but is not published (a dotfile, a link, or excluded)",
        "'references/missing-too.md' does not exist in the skill",
    ]
    outside = by_line[("bad-404/SKILL.md", b)]
    assert [f["column"] for f in outside] == [14, 41, 59]
    fixable = {f["code"] for f in report["findings"] if f["fixable"]}
    assert fixable == {"SP405", "SP406", "SP407"}


def test_workers_find_exactly_what_one_process_finds(tmp_path: Path) -> None:
    """Large runs share the per-skill checks among forked workers: same findings, same order."""
    from skillpack.build.pipeline import lint_tree
    from skillpack.lint import LintOptions
    from skillpack.source.config import config_from_table
    from skillpack.source.discovery import discover

    for i in range(24):
        extra = "version: 1.0.0\n" if i % 3 == 0 else ""
        body = "See [gone](references/gone.md).\n" if i % 4 == 0 else "Body.\n"
        write(tmp_path / f"s{i:02d}" / "SKILL.md", skill_md(f"s{i:02d}", extra, body))
        write(tmp_path / f"s{i:02d}" / "references" / "a.md", "k = 'AKIA" + "Z" * 16 + "'\n")
        write(tmp_path / f"s{i:02d}" / f"n{i}" / "SKILL.md", skill_md(f"n{i}", "flag: yes\n"))
    tree = discover(config_from_table({}, tmp_path, None))
    options = LintOptions()
    one = lint_tree(tree, options=options, jobs=1)
    assert len(one.findings) > 50
    for jobs in (2, 3, 5):
        assert lint_tree(tree, options=options, jobs=jobs).findings == one.findings


def test_private_key_and_credential_files_are_found_by_their_names(tmp_path: Path) -> None:
    """SP305 by name (issue 10 §2): a key or credential file is a secret whatever its
    content looks like; a public key, a certificate or a document about keys is not."""
    skill = tmp_path / "deploy-helper"
    write(skill / "SKILL.md", skill_md("deploy-helper"))
    secrets = {
        "keys/id_ecdsa": "(an SSH key, content not recognizable)\n",
        "keys/id_ed25519-ci": "...\n",
        "certs/client.pfx": b"\x30\x82\x0a\x1f binary",
        "certs/release.keystore": b"\xfe\xed\xfe\xed",
        "config/credentials.json": '{"installed": {"client_id": "x"}}\n',
        "config/aws/credentials": "[default]\nregion = eu-west-1\n",
        "config/ci-service-account.json": '{"type": "x"}\n',
        "ops/terraform.tfstate": '{"version": 4}\n',
        "ops/staging.kubeconfig": "apiVersion: v1\n",
        "ops/htpasswd": "admin:$apr1$x\n",
        "tls/server.key": "-----BEGIN EC PRIVATE KEY-----\nshort\n-----END EC PRIVATE KEY-----\n",
        "tls/intermediate.pem": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMII\n",
    }
    harmless = {
        "keys/id_ecdsa.pub": "ecdsa-sha2-nistp256 AAAA... ci@example\n",
        "tls/ca.pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
        "tls/signing.key": "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n",
        "docs/id_rsa_setup.md": "How to make an SSH key.\n",
        "docs/credentials.md": "Where the credentials live (not here).\n",
    }
    for rel, content in {**secrets, **harmless}.items():
        write(skill / rel, content)
    write(skill / ".npmrc", "//registry.npmjs.org/:_authToken=x\n")  # a dot file: left out
    proc, report = lint_json(tmp_path)
    assert proc.returncode == 1
    found = {f["path"]: f["message"] for f in report["findings"] if f["code"] == "SP305"}
    assert set(found) == {f"deploy-helper/{rel}" for rel in secrets}
    assert found["deploy-helper/keys/id_ecdsa"] == (
        "'id_ecdsa' is an SSH private key (by its name): it must never be published"
    )
    assert "PKCS#12" in found["deploy-helper/certs/client.pfx"]
    assert "Terraform state" in found["deploy-helper/ops/terraform.tfstate"]
    dotfile = [f for f in report["findings"] if f["path"] == "deploy-helper/.npmrc"]
    assert [f["code"] for f in dotfile] == ["SP304"]  # never published, so no leak
    build = run_cli("build", tmp_path, "-o", tmp_path / "out.skp")
    assert build.returncode == 1 and "SP305" in build.stderr


def test_a_footnote_definition_is_not_a_link_but_a_reference_definition_is(
    tmp_path: Path,
) -> None:
    """``[^1]: GitHub Blog. (2022) ...`` is a footnote's text (scientific skills use
    them), not a link to a file ``GitHub``; ``[guide]: missing.md`` still is a link."""
    body = (
        "See the study[^1] and the [guide].\n\n"
        "[^1]: GitHub Blog. (2022) Research: quantifying GitHub Copilot's impact.\n"
        "[^note]: notes/ideas.md is only text here.\n"
        "[guide]: missing.md\n"
    )
    write(tmp_path / "sci" / "SKILL.md", skill_md("sci", body=body))
    _, report = lint_json(tmp_path, ".")
    broken = {(f["code"], f["line"]) for f in report["findings"] if f["code"] == "SP403"}
    assert broken == {("SP403", 10)}, report["findings"]
