"""The marketplace model (:func:`skillpack.plugins.read_marketplace`): every source kind
of both hosts, and the refusals naming ``file:line:col``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillpack.errors import SkillpackError
from skillpack.plugins import PluginSource, read_marketplace

CLAUDE = {
    "name": "acme",
    "owner": {"name": "Acme"},
    "plugins": [
        {"name": "local", "source": "./plugins/local/", "skills": ["./skills/a"], "strict": False},
        {"name": "root", "source": "./"},
        {"name": "gh", "source": {"source": "github", "repo": "acme/skills", "ref": "v1"}},
        {"name": "git", "source": {"source": "url", "url": "https://example.com/x.git",
                                   "sha": "a" * 40}},
        {"name": "sub", "source": {"source": "git-subdir", "url": "https://example.com/m.git",
                                   "path": "./plugins/sub"}},
    ],
}  # fmt: skip
CODEX = {
    "name": "acme",
    "plugins": [
        {"name": "local", "source": {"source": "local", "path": "./plugins/local"},
         "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"}},
        {"name": "dot", "source": {"source": "url", "url": "./"}},
        {"name": "sub", "source": {"source": "git-subdir", "url": "https://e.com/m.git",
                                   "path": "plugins/sub", "ref": "main"}},
    ],
}  # fmt: skip


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_claude_sources(tmp_path: Path) -> None:
    write(tmp_path, ".claude-plugin/marketplace.json", json.dumps(CLAUDE, indent=2))
    market = read_marketplace(tmp_path, "claude")
    assert market.name == "acme"
    assert [p.name for p in market.plugins] == ["local", "root", "gh", "git", "sub"]
    assert market.require("local").source == PluginSource("relative", "plugins/local")
    assert market.require("local").skills == ("./skills/a",)
    assert market.require("local").strict is False
    assert market.require("root").source.directory(tmp_path) == tmp_path
    assert market.require("gh").source == PluginSource("github", repo="acme/skills", ref="v1")
    assert market.require("git").source.sha == "a" * 40
    assert market.require("sub").source == PluginSource(
        "git-subdir", "plugins/sub", url="https://example.com/m.git"
    )
    assert market.require("sub").pos.line > market.require("local").pos.line
    with pytest.raises(SkillpackError) as info:
        market.require("nope")
    assert info.value.code == "PLG004" and "local, root, gh, git, sub" in info.value.message


def test_codex_sources(tmp_path: Path) -> None:
    write(tmp_path, ".agents/plugins/marketplace.json", json.dumps(CODEX))
    market = read_marketplace(tmp_path, "codex")
    assert market.require("local").source == PluginSource("relative", "plugins/local")
    assert market.require("dot").source == PluginSource("relative", "")  # obra/superpowers
    assert market.require("sub").source.ref == "main"


HEAD = '{"name": "m", "owner": {"name": "o"},'


@pytest.mark.parametrize(
    ("text", "code", "where", "words"),
    [
        ('{"name": "m",\n  "plugins": [1,]}', "PLG002", (2, 17), "trailing comma"),
        ('{"name": "m", "name": "n"}', "PLG002", (1, 15), "given twice"),
        (HEAD + '\n "plugins": [{"name": "p", "source": "plugins/p"}]}',
         "PLG003", (2, 28), "must start with './'"),
        (HEAD + '\n "plugins": [{"name": "p", "source": "../p"}]}', "PLG003", (2, 28), "'..'"),
        (HEAD + ' "plugins": [{"name": "p",\n"source": {"source": "svn"}}]}',
         "PLG003", (2, 12), "'svn'"),
        ('{"name": "m", "plugins": []}', "PLG003", (1, 1), "'owner' is required"),
    ],
)  # fmt: skip
def test_refusals_name_the_place(
    tmp_path: Path, text: str, code: str, where: tuple[int, int], words: str
) -> None:
    path = write(tmp_path, ".claude-plugin/marketplace.json", text)
    with pytest.raises(SkillpackError) as info:
        read_marketplace(tmp_path, "claude")
    assert info.value.code == code
    assert info.value.location is not None
    assert (info.value.location.path, info.value.location.line, info.value.location.column) == (
        str(path),
        *where,
    )
    assert words in info.value.message


def test_missing(tmp_path: Path) -> None:
    with pytest.raises(SkillpackError) as info:
        read_marketplace(tmp_path, "codex")
    assert info.value.code == "PLG001"


def test_codex_policy_enum(tmp_path: Path) -> None:
    bad = {
        "name": "m",
        "plugins": [{"name": "p", "source": "./", "policy": {"installation": "MAYBE"}}],
    }
    write(tmp_path, ".agents/plugins/marketplace.json", json.dumps(bad))
    with pytest.raises(SkillpackError) as info:
        read_marketplace(tmp_path, "codex")
    assert info.value.code == "PLG003" and "INSTALLED_BY_DEFAULT" in info.value.message


def test_claude_bare_names_under_plugin_root(tmp_path: Path) -> None:
    """Claude Code resolves a bare source name under ``metadata.pluginRoot`` (and refuses
    one without it), a './' path from the marketplace root."""
    entries = [{"name": "a", "source": "a"}, {"name": "b", "source": "./b"}]
    market = {"name": "m", "owner": {"name": "o"}, "metadata": {"pluginRoot": "./plugins"},
              "plugins": entries}  # fmt: skip
    write(tmp_path, ".claude-plugin/marketplace.json", json.dumps(market))
    found = read_marketplace(tmp_path, "claude")
    assert found.require("a").source == PluginSource("relative", "plugins/a")
    assert found.require("b").source == PluginSource("relative", "b")
    del market["metadata"]
    write(tmp_path, ".claude-plugin/marketplace.json", json.dumps(market))
    with pytest.raises(SkillpackError) as info:
        read_marketplace(tmp_path, "claude")
    assert info.value.code == "PLG003" and "pluginRoot" in info.value.message
