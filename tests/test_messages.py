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
    run("vendor", "--", sys.executable, "-m", "skillpack", "serve", str(bundle))
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
    assert "skill://solo/SKILL.md\t1 file\t" in text  # vendor's listing
    assert not ONE_PLURAL.findall(text), text


def test_errors_name_the_destination_never_the_staging_directory(tmp_path: Path) -> None:
    """unpack and pull fill a staging directory beside the destination: an error met
    there names the destination (issue 10 §6). Here the staging directory's longer name
    pushes a file over PATH_MAX where the destination itself would not."""
    import os
    import zipfile

    tree = _tree(tmp_path / "tree")
    assert run_cli("build", cwd=tree).returncode == 0
    bundle = tree / "dist" / "one-1.0.0.skp"
    # what unpack writes: the skills' files, the lock and the project file (the bundle's
    # own metadata entries are not written)
    written = [n for n in zipfile.ZipFile(bundle).namelist() if not n.startswith(".skillpack/")]
    longest = max(len(n) for n in [*written, "skillpack.lock", "skillpack.toml"])
    length = 4095 - 1 - longest  # the destination's path: its files just fit in PATH_MAX
    parent = tmp_path / "deep"
    while length - len(str(parent)) > 240:
        parent = parent / ("d" * 200)
    if length - len(str(parent)) - 1 > 30:
        parent = parent / ("e" * (length - len(str(parent)) - 32))
    os.makedirs(parent)
    dest = parent / ("o" * (length - len(str(parent)) - 1))
    assert len(str(dest)) == length
    proc = run_cli("unpack", bundle, dest, cwd=tmp_path)
    assert proc.returncode != 0
    assert f"/.{dest.name}." not in proc.stderr, proc.stderr
    assert str(dest) in proc.stderr
    assert not dest.exists() and [p.name for p in parent.iterdir()] == []

    proc = run_cli("vendor", "--into", dest, "--", sys.executable, "-m", "skillpack", "serve",
                   bundle, cwd=tmp_path)  # fmt: skip
    assert "USE000" not in proc.stderr and "Traceback" not in proc.stderr
    assert f"/.{dest.name}." not in proc.stdout + proc.stderr, proc.stderr
    assert [p.name for p in parent.iterdir()] == ([dest.name] if proc.returncode == 0 else [])
