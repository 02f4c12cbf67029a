"""Configuration: where it is found, what it means, and how a bad one is reported (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillpack.errors import ConfigError, UsageError
from skillpack.source.config import DEFAULT_EXCLUDE, find_config, resolve_config
from tests.conftest import run_cli
from tests.lintutil import lint_json, skill_md, write


def test_pyproject_table_and_skillpack_toml(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.skillpack]\nname = "from-pyproject"\nroots = ["skills"]\n',
    )
    write(tmp_path / "skills" / "a" / "SKILL.md", skill_md("a"))
    config = resolve_config([tmp_path / "skills" / "a"])
    assert config.source == tmp_path / "pyproject.toml"
    assert config.name == "from-pyproject"
    assert config.roots[0].path == tmp_path / "skills"
    assert config.exclude == DEFAULT_EXCLUDE
    # skillpack.toml wins in the same directory
    write(
        tmp_path / "skillpack.toml",
        'name = "from-toml"\nroots = [{path = "skills", prefix = "acme"}]\n',
    )
    config = resolve_config([tmp_path / "skills" / "a"])
    assert config.source == tmp_path / "skillpack.toml"
    assert config.name == "from-toml" and config.roots[0].prefix == "acme"
    # a pyproject.toml without [tool.skillpack] is not a configuration
    (tmp_path / "skillpack.toml").unlink()
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    assert find_config(tmp_path / "skills") is None


def test_defaults_without_a_configuration(tmp_path: Path) -> None:
    config = resolve_config([tmp_path])
    assert config.source is None and config.project_dir == tmp_path.resolve()
    assert config.lint.select == ("ALL",)
    assert config.name  # derived from the directory name


def test_prefix_changes_skill_paths_in_reports(tmp_path: Path) -> None:
    write(tmp_path / "skillpack.toml", 'roots = [{path = "skills", prefix = "acme/billing"}]\n')
    write(tmp_path / "skills" / "refunds" / "SKILL.md", skill_md("refunds", "version: '1'\n"))
    _, report = lint_json(tmp_path)
    assert [f["skill"] for f in report["findings"]] == ["acme/billing/refunds"]


KEY = "invalid configuration key"
BAD_CONFIGS = [
    ("skillpack.toml", "roots = 3\n", f"CFG004 {KEY} 'roots': 3 is not of type 'array'"),
    # the offending key, not "(top level)" (issue 10 §6)
    ("skillpack.toml", "colour = true\n", f"CFG004 {KEY} 'colour': unknown key; the keys here"),
    ("skillpack.toml", "[lint]\nselct = []\n", f"CFG004 {KEY} 'lint.selct': unknown key"),
    ("pyproject.toml", "[tool.skillpack]\nnam = 'x'\n", f"CFG004 {KEY} 'tool.skillpack.nam'"),
    ("skillpack.toml", "[lint]\nselect = ['E501']\n", f"CFG004 {KEY} 'lint.select.0'"),
    ("skillpack.toml", "[lint.severity]\nSP101 = 'fatal'\n", f"CFG004 {KEY} 'lint.severity.SP101'"),
    ("skillpack.toml", "[lint]\nselect = ['SP9']\n", f"CFG010 {KEY} 'lint.select': SP9 matches no"),
    ("skillpack.toml", "roots = ['missing']\n", "CFG005 source root"),
    ("skillpack.toml", "roots = [\n", "CFG002 not valid TOML"),
    ("pyproject.toml", "[tool.skillpack]\nversion = 1\n", f"CFG004 {KEY} 'tool.skillpack.version'"),
    ("pyproject.toml", "[tool.skillpack.lint]\nignore = ['SP9']\n", "'tool.skillpack.lint.ignore'"),
]


# lint and build resolve the configuration alike: the errors must come out the same
@pytest.mark.parametrize("command", ["lint", "build"])
@pytest.mark.parametrize(("file", "text", "expected"), BAD_CONFIGS)
def test_bad_configuration_names_file_and_key_and_exits_2(
    tmp_path: Path, file: str, text: str, expected: str, command: str
) -> None:
    write(tmp_path / file, text)
    write(tmp_path / "s" / "SKILL.md", skill_md("s"))
    proc = run_cli(command, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / file}: "), first
    assert expected in first, first
    assert "Traceback" not in proc.stderr


def test_the_schema_hint_names_a_file_the_user_has(tmp_path: Path) -> None:
    """The hint of CFG004 points at the schema installed with skillpack (a pip user has
    no checkout with a schemas/ folder), run from a directory far from the checkout."""
    import json

    write(tmp_path / "skillpack.toml", "colour = true\n")
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2
    (hint,) = [line for line in proc.stderr.splitlines() if line.startswith("  hint: ")]
    path = Path(hint.rsplit(" ", 1)[-1])
    assert path.is_absolute() and path.name == "config.schema.json"
    assert "colour" not in json.loads(path.read_text("utf-8"))["properties"]


def test_explicit_config_file(tmp_path: Path) -> None:
    write(tmp_path / "conf" / "lint.toml", 'roots = ["../skills"]\n[lint]\nignore = ["SP111"]\n')
    write(tmp_path / "skills" / "a" / "SKILL.md", skill_md("a", "version: '1'\n"))
    proc, report = lint_json(tmp_path, "--config", "conf/lint.toml")
    assert proc.returncode == 0 and report["findings"] == []
    assert report["summary"]["skills"] == 1
    proc = run_cli("lint", "--config", "conf/missing.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "conf/missing.toml: CFG001 configuration file not found" in proc.stderr


def test_config_errors_are_values(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_config([], tmp_path / "missing.toml")
    assert info.value.code == "CFG001" and info.value.exit_code == 2
    # a missing path is USE001 in every command (it was CFG006 here: retired)
    with pytest.raises(UsageError) as missing:
        resolve_config([Path("/nonexistent/path/x")])
    assert missing.value.code == "USE001" and missing.value.exit_code == 2


def test_documented_examples_are_valid(tmp_path: Path) -> None:
    import re
    import tomllib

    from skillpack.source.config import config_from_table
    from tests.conftest import REPO

    text = (REPO / "docs" / "configuration.md").read_text("utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    for directory in ("skills", "teams/billing"):
        (tmp_path / directory).mkdir(parents=True)
    skillpack_toml = tomllib.loads(blocks[0])
    config = config_from_table(skillpack_toml, tmp_path, tmp_path / "skillpack.toml")
    assert config.roots[1].prefix == "acme/billing"
    assert config.lint.severity == {"SP111": "error"}
    pyproject = tomllib.loads(blocks[1])["tool"]["skillpack"]
    assert config_from_table(pyproject, tmp_path, tmp_path / "pyproject.toml").lint.ignore == (
        "SP110",
    )
