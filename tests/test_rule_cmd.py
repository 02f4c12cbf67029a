"""``skillpack rule`` and the generated docs/rules.md."""

from __future__ import annotations

import json
import subprocess
import sys

from skillpack.lint.catalog import RULES
from tests.conftest import REPO, cli_env, run_cli


def test_rule_by_code_and_by_name() -> None:
    proc = run_cli("rule", "SP013")
    assert proc.returncode == 0
    text = proc.stdout
    assert text.startswith("SP013 ambiguous-scalar\n")
    assert "Severity: error. Fixable: yes" in text
    assert "Why:" in text and "Example:" in text and "How to fix:" in text
    assert "reviewed: yes" in text  # the example
    assert run_cli("rule", "ambiguous-scalar").stdout == text
    assert run_cli("rule", "sp013").stdout == text


def test_rule_all_and_json() -> None:
    proc = run_cli("rule", "--all")
    assert proc.returncode == 0
    codes = [line.split()[0] for line in proc.stdout.splitlines()]
    assert codes == list(RULES)
    proc = run_cli("rule", "--all", "--format", "json")
    rules = json.loads(proc.stdout)
    assert [r["code"] for r in rules] == list(RULES)
    assert {r["severity"] for r in rules} == {"error", "warning", "info"}
    one = json.loads(run_cli("rule", "SP305", "--format", "json").stdout)
    assert one["name"] == "likely-secret" and one["fixable"] is False


def test_rule_usage_errors() -> None:
    proc = run_cli("rule", "SP999")
    assert proc.returncode == 2
    assert "no rule 'SP999'" in proc.stderr
    assert run_cli("rule").returncode == 2
    assert run_cli("rule", "SP001", "--all").returncode == 2


def test_every_rule_is_documented() -> None:
    for rule in RULES.values():
        assert rule.code.startswith("SP") and len(rule.code) == 5
        assert rule.name == rule.name.lower() and " " not in rule.name
        assert rule.severity in ("error", "warning", "info")
        assert rule.summary and rule.why and rule.example and rule.fix
    assert len({r.name for r in RULES.values()}) == len(RULES)


def test_docs_rules_md_is_up_to_date() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpack.lint.docs", "--check"],
        cwd=REPO,
        env=cli_env(),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr + " (run: python -m skillpack.lint.docs)"
    text = (REPO / "docs" / "rules.md").read_text("utf-8")
    for code in RULES:
        assert f"### {code}" in text
