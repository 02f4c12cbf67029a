"""What every command says about one thing: "1 skill", never "1 skills" (issue 10 §6)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mcp_wire import Server

from tests.conftest import run_cli
from tests.lintutil import write

#: a count of one followed by a plural noun
ONE_PLURAL = re.compile(r"\b1 (?:skill|file|error|warning|path|byte|issue|change|finding)s\b")


def _tree(root: Path) -> Path:
    """One skill of one file, one byte short of nothing to say."""
    write(root / "skillpack.toml", 'name = "one"\nversion = "1.0.0"\n')
    write(
        root / "solo" / "SKILL.md",
        "---\nname: solo\ndescription: Does one thing. Use it for that thing.\n---\nBody.\n",
    )
    return root


def test_one_of_a_thing_is_said_in_the_singular(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "tree")
    outputs: list[str] = []

    def run(*args: str, cwd: Path = tree) -> None:
        proc = run_cli(*args, cwd=cwd)
        outputs.append(f"$ skillpack {' '.join(args)}\n{proc.stdout}{proc.stderr}")

    run("lint")
    run("lock")
    run("build")
    bundle = tree / "dist" / "one-1.0.0.skp"
    assert bundle.is_file(), outputs
    run("verify", str(bundle))
    run("inspect", str(bundle))
    run("unpack", str(bundle), str(tmp_path / "out"))
    one_byte = tmp_path / "byte"
    write(one_byte / "solo" / "SKILL.md", (tree / "solo" / "SKILL.md").read_text())
    write(one_byte / "solo" / "x.md", "x")
    run("diff", str(tree), str(one_byte))
    run("pull", "--", sys.executable, "-m", "skillpack", "serve", str(bundle))
    # one lint error: the build refuses it, and serve DIR too
    write(tree / "solo" / "SKILL.md", "---\nname: other\ndescription: x\n---\nBody.\n")
    run("build")
    run("serve", str(tree))
    with Server(bundle) as server:
        server.initialize()
        _, stderr = server.close()
    outputs.append(stderr)
    text = "\n".join(outputs)
    assert "serving 1 skill (1 file)" in text
    assert "lint found 1 error;" in text
    assert not ONE_PLURAL.findall(text), text
