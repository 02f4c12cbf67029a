"""One command line: one table of commands, one usage-error format, one help style, only
the invoked command imported, exit codes that survive a closed pipe."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal

import pytest
import typer

from skillpack.cli.table import COMMANDS
from tests.conftest import EXAMPLES, REPO, cli_env, run_cli, write_skill

SERVERS = REPO / "tests" / "servers"
USAGE_ERROR = re.compile(r"USE000 \S.*\n  hint: see 'skillpack( [a-z]+)? --help'\n")

#: runs the real entry point, then writes the names of the imported modules to argv[1]
MODULES_OF = """\
import json, sys
from skillpack.__main__ import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump(sorted(sys.modules), out)
sys.exit(code)
"""


def modules_after(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    report = tmp_path / "modules.json"
    proc = subprocess.run(
        [sys.executable, "-c", MODULES_OF, str(report), *args],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc, set(json.loads(report.read_text()))


def command_modules(modules: set[str]) -> set[str]:
    return {row.module for row in COMMANDS} & modules


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_skill(root, "skills/alpha")
    write_skill(root, "skills/beta", files={"references/notes.md": "Notes.\n"})
    return root


@pytest.fixture
def failing(tmp_path: Path) -> Path:
    root = tmp_path / "failing"
    write_skill(root, "skills/gamma", frontmatter="name: not-gamma\ndescription: Mismatch.\n")
    return root


@pytest.fixture
def bundle(project: Path, tmp_path: Path) -> Path:
    out = tmp_path / "project.skp"
    proc = run_cli("build", project, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return out


# --- one table ---------------------------------------------------------------------------
def test_help_lists_every_command_of_the_table_without_importing_them(tmp_path: Path) -> None:
    proc, modules = modules_after(tmp_path, "--help")
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^  ([a-z]+) +(\S.*)$", proc.stdout.split("Commands:")[1], re.M)
    assert [name for name, _ in listed] == [row.name for row in COMMANDS]
    for row in COMMANDS:
        assert " ".join(row.summary.split()[:5]) in " ".join(proc.stdout.split())
    assert command_modules(modules) == set()
    assert "pydantic" not in modules


@pytest.mark.parametrize("row", [r for r in COMMANDS if r.name != "serve"], ids=lambda r: r.name)
def test_only_the_invoked_command_is_imported(tmp_path: Path, row: object) -> None:
    from skillpack.cli.table import CommandRow

    assert isinstance(row, CommandRow)
    proc, modules = modules_after(tmp_path, row.name, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Usage: skillpack {row.name} [OPTIONS]")
    assert command_modules(modules) == {row.module}
    assert "pydantic" not in modules  # typer's coercion of plain parameters is not used


def test_a_lint_run_imports_lint_only(tmp_path: Path, project: Path) -> None:
    proc, modules = modules_after(tmp_path, "lint", str(project / "skills" / "alpha" / "SKILL.md"))
    assert proc.returncode == 0, proc.stderr
    assert command_modules(modules) == {"skillpack.cli.lint_cmd"}
    assert not {"pydantic", "rich", "sigstore"} & {m.split(".")[0] for m in modules}
    # start-up: what a lint does not use stays unimported, the lock renderer and the
    # archive writer (with its thread pool), pathspec for the default excludes, pickle
    # without a worker, tomllib without a configuration file, the report writer without -o
    unused = {"skillpack.lockfile.lock", "skillpack.bundle.writer", "concurrent.futures"}
    unused |= {"pathspec", "pickle", "tomllib", "skillpack._internal.fsutil"}
    assert not unused & modules


def test_serve_is_dispatched_before_typer(tmp_path: Path) -> None:
    proc, modules = modules_after(tmp_path, "serve", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: skillpack serve [OPTIONS] SOURCE...")
    assert not {"typer", "click", "pydantic"} & {m.split(".")[0] for m in modules}
    assert not any(m.startswith("skillpack.cli") for m in modules)


# --- one usage-error format, one help style ------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["lint", "--bogus"],
        ["serve", "--bogus", str(EXAMPLES / "skills")],
        ["verify", "--bogus", "x.skp"],
        ["check", "--bogus", "--", "true"],
        ["build", "--compression", "zip"],
        ["serve", "--cache-scope", "shared", str(EXAMPLES / "skills")],
        ["lint", "--format", "xml"],
        ["serve", "--ttl-ms", "soon", str(EXAMPLES / "skills")],
        ["check", "--timeout", "soon", "--", "true"],
        ["inspect"],
        ["serve"],
        ["diff", "only-one.skp"],
        ["lint", "--select"],
        ["rule", "SP101", "--format"],
        ["vendor", "--era", "future", "--", "true"],
        ["nosuchcommand"],
        ["pull", "--into", "vendored", "--", "true"],
    ],
    ids=" ".join,
)
def test_one_usage_error_format(args: list[str], tmp_path: Path) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert USAGE_ERROR.fullmatch(proc.stderr) or args[0] in ("nosuchcommand", "pull"), proc.stderr
    assert proc.stderr.startswith("USE000 ")
    assert "Usage:" not in proc.stderr and "Error:" not in proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing started


def test_the_same_error_reads_the_same_in_serve_and_in_typer_commands(tmp_path: Path) -> None:
    serve = run_cli("serve", "--bogus", EXAMPLES / "skills")
    lint = run_cli("lint", "--bogus")
    assert serve.stderr.splitlines()[0] == lint.stderr.splitlines()[0]
    assert (
        serve.stderr
        == "USE000 unrecognized arguments: --bogus\n  hint: see 'skillpack serve --help'\n"
    )
    missing_serve, missing_verify = run_cli("serve"), run_cli("verify")
    assert missing_serve.stderr.startswith("USE000 the following arguments are required: SOURCE")
    assert missing_verify.stderr.startswith("USE000 the following arguments are required: BUNDLE")


def test_pull_is_no_longer_the_mcp_client(tmp_path: Path) -> None:
    """``pull`` is the OCI registry pull now (docs/registry.md): the MCP client's old
    invocation is refused, naming ``vendor``."""
    server = [sys.executable, str(SERVERS / "faulty_skills.py"), str(EXAMPLES / "skills")]
    proc = run_cli("pull", "--into", tmp_path / "out", "--", *server)
    assert proc.returncode == 2
    assert proc.stderr.startswith("USE000 'pull' is another command now; -- --into belong")
    assert "skillpack vendor" in proc.stderr
    assert not (tmp_path / "out").exists()
    listed = run_cli("vendor", "--", *server)
    assert listed.returncode == 0, listed.stderr
    assert "skill://" in listed.stdout


def test_one_help_style(tmp_path: Path) -> None:
    for row in COMMANDS:
        proc = run_cli(row.name, "--help")
        assert proc.returncode == 0, (row.name, proc.stderr)
        text = proc.stdout
        assert text.startswith(f"Usage: skillpack {row.name} [OPTIONS]"), row.name
        assert "\nOptions:\n" in text, row.name
        assert re.search(r"^  -h, --help +Show this message and exit\.$", text, re.M), row.name
        for line in text.splitlines():  # options named, never argparse's {a,b} or typer's {x}
            assert not re.search(r"\{[a-z_,]+\}", line), (row.name, line)


def test_unknown_commands_are_suggested() -> None:
    proc = run_cli("lnt")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "USE000 unknown command 'lnt'",
        "  hint: did you mean 'lint'? run 'skillpack --help' to list the commands",
    ]


# --- machine output ------------------------------------------------------------------------
def test_format_json_everywhere(project: Path, bundle: Path, tmp_path: Path) -> None:
    verified = json.loads(run_cli("verify", bundle, "--format", "json").stdout)
    assert verified["archive-digest"].startswith("sha256:") and verified["signature"] is None
    assert verified["skills"] == 2 and verified["files"] == 3
    inspected = json.loads(run_cli("inspect", bundle, "-f", "json").stdout)
    assert inspected["totals"]["skills"] == 2
    same = run_cli("diff", bundle, project, "--format", "json")
    assert same.returncode == 0 and json.loads(same.stdout)["same"] is True
    rule = json.loads(run_cli("rule", "SP101", "--format", "json").stdout)
    assert rule["code"] == "SP101"
    lint = run_cli("lint", project, "--format", "json")
    assert json.loads(lint.stdout)["summary"]["skills"] == 2
    # the older spelling still works where it existed
    assert json.loads(run_cli("inspect", bundle, "--json").stdout) == inspected


# --- exit codes ----------------------------------------------------------------------------
def _closed_pipe_run(
    args: list[str | os.PathLike[str]], *, stderr_too: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI with stdout on a pipe whose reader is already gone (``| head -c0``)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "skillpack", *map(str, args)],
            stdout=write_end,
            stderr=write_end if stderr_too else subprocess.PIPE,
            env=cli_env(),
            timeout=120,
        )
    finally:
        os.close(write_end)


def test_a_closed_stdout_changes_no_exit_code(
    project: Path, failing: Path, bundle: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.skp"
    write_skill(tmp_path / "changed", "skills/alpha", body="Other steps.")
    assert run_cli("build", tmp_path / "changed", "-o", other).returncode == 0
    cases: list[tuple[list[str | os.PathLike[str]], int]] = [
        (["lint", failing], 1),
        (["lint", failing, "--format", "json"], 1),
        (["lint", project, "--format", "json"], 0),
        (["rule", "--all"], 0),
        (["inspect", bundle], 0),
        (["verify", bundle], 0),
        (["diff", bundle, other], 1),
        (["diff", bundle, project], 0),
        (["lock", "--check", failing], 1),
    ]
    for args, expected in cases:
        for stderr_too in (False, True):
            proc = _closed_pipe_run(args, stderr_too=stderr_too)
            assert proc.returncode == expected, (args, stderr_too, proc.stderr)
            if not stderr_too:
                assert b"Traceback" not in proc.stderr and b"Exception ignored" not in proc.stderr


def _limited_output(limit: int) -> None:  # in the child: stdout stops at ``limit`` bytes
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_FSIZE semantics")
def test_a_failed_write_of_the_output_is_out001(failing: Path, tmp_path: Path) -> None:
    """stdout on a file that cannot grow (as on a full disk): a coded error, exit 1; a
    command that failed already keeps its own exit code."""
    for args, expected in ((["rule", "--all"], 1), (["lint", failing, "-f", "json"], 1),
                           (["rule", "--bogus"], 2)):  # fmt: skip
        out = tmp_path / "out.txt"
        with open(out, "wb") as stdout:
            proc = subprocess.run(
                [sys.executable, "-m", "skillpack", *map(str, args)],
                stdout=stdout,
                stderr=subprocess.PIPE,
                env=cli_env({"PYTHONDONTWRITEBYTECODE": "1"}),
                preexec_fn=lambda: _limited_output(64),
                timeout=120,
            )
        err = proc.stderr.decode()
        assert proc.returncode == expected, err
        assert "Traceback" not in err and "Exception ignored" not in err
        if expected == 1:
            assert err.splitlines()[-1].startswith("stdout: OUT001 cannot write: "), err


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "٣"])
def test_bad_skillpack_jobs_is_refused(project: Path, tmp_path: Path, value: str) -> None:
    out = tmp_path / "jobs.skp"
    for args in (["build", project, "-o", out], ["lint", project], ["lock", "--check", project]):
        proc = run_cli(*args, env={"SKILLPACK_JOBS": value})
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"CFG020 SKILLPACK_JOBS={value!r} is not a number of processes" in proc.stderr
    assert not out.exists()
    assert run_cli("build", project, "-o", out, env={"SKILLPACK_JOBS": "2"}).returncode == 0
    assert run_cli("lint", project, env={"SKILLPACK_JOBS": ""}).returncode == 0


def test_a_missing_path_is_use001_in_every_command(project: Path, tmp_path: Path) -> None:
    gone = tmp_path / "gone.skp"
    for args in (
        ["lint", gone],
        ["fmt", gone],
        ["lock", gone],
        ["build", gone],
        ["verify", gone],
        ["verify", gone, "--key", tmp_path / "k.pub"],
        ["inspect", gone],
        ["diff", gone, project],
        ["unpack", gone, tmp_path / "out"],
        ["sign", gone, "--key", tmp_path / "k.key"],
        ["serve", gone],
    ):
        proc = run_cli(*args, input=b"")
        assert proc.returncode == 2, (args, proc.stderr)
        assert f"{gone}: USE001 path does not exist" in proc.stderr, (args, proc.stderr)
    assert not (tmp_path / "out").exists()


def test_the_readme_exit_table_is_the_registry() -> None:
    from skillpack.errors import EXIT_CODES

    readme = (REPO / "README.md").read_text("utf-8")
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", readme.split("## Exit codes")[1], re.M))
    assert {int(code): meaning for code, meaning in table.items()} == EXIT_CODES


def test_sigint_exits_130(tmp_path: Path) -> None:
    """A run interrupted with Ctrl-C says so and exits 130 (the documented code)."""
    import signal
    import time

    started = tmp_path / "started"
    server = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(120)"
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpack", "check", "--timeout", "120", "--",
         sys.executable, "-c", server, str(started)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:  # check waits on it now
        time.sleep(0.05)
    assert started.exists()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.decode().splitlines()[-1] == "interrupted"
    assert b"Traceback" not in err


def test_plain_coercion_gives_what_typer_gives() -> None:
    """The pydantic-free coercion (skillpack/cli/base.py) agrees with typer's own."""
    from typer import _click as click
    from typer._click.exceptions import BadParameter
    from typer._coercion import build_runtime_param

    from skillpack.cli.base import CommandApp, _plain_coercion

    app = CommandApp()

    @app.command("probe")
    def probe(
        text: Annotated[str, typer.Option()] = "",
        count: Annotated[int, typer.Option()] = 0,
        ratio: Annotated[float, typer.Option()] = 0.0,
        flag: Annotated[bool, typer.Option()] = False,
        path: Annotated[Path | None, typer.Option()] = None,
        choice: Annotated[Literal["text", "json"], typer.Option()] = "text",
        many: Annotated[list[str] | None, typer.Option()] = None,
        paths: Annotated[list[Path] | None, typer.Argument()] = None,
    ) -> None: ...

    command = typer.main.get_command(app)
    ctx = click.Context(command)
    samples = {
        "text": ["abc", "", "ünï"],
        "count": ["3", "-2", 7, "x", "1.5"],
        "ratio": ["1.5", "2", 0.25, "nan?"],
        "flag": [True, False, "true", "0"],
        "path": ["a/b", Path("c")],
        "choice": ["text", "json", "xml", "JSON"],
        "many": [["a", "b"], []],
        "paths": [["a", "b/c"], []],
    }
    for param in command.get_params(ctx):
        if param.name not in samples:
            continue
        plain = _plain_coercion(param)
        assert plain is not None, param.name
        theirs = build_runtime_param(param.type_descriptor)  # type: ignore[attr-defined]
        for value in [None, *samples[param.name]]:
            try:
                expected: object = theirs.coerce(value, param=param, ctx=ctx)
            except BadParameter:
                with pytest.raises(BadParameter):
                    plain.coerce(value, param, ctx)
                continue
            got = plain.coerce(value, param, ctx)
            assert (type(got), got) == (type(expected), expected), (param.name, value)
