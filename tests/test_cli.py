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

from skillpack.cli.table import BY_NAME, COMMANDS
from tests.conftest import EXAMPLES, REPO, cli_env, modules_after, run_cli, write_skill

SERVERS = REPO / "tests" / "servers"
USAGE_ERROR = re.compile(r"USE000 \S.*\n  hint: see 'skillpack( [a-z]+)? --help'\n")


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
    # --help imports no stage's work: options come from cli/ and the option tables
    working = {m for m in modules if m.startswith("skillpack.") and m.count(".") >= 1}
    working -= {m for m in working if m.startswith(("skillpack.cli", "skillpack._internal"))}
    working -= {"skillpack.errors", "skillpack.__main__"}
    working -= {m for m in working if m.startswith("skillpack.signing.")} - {
        "skillpack.signing.sign",
        "skillpack.signing.verify",
    }  # the signature options' table and policy
    working.discard("skillpack.signing")
    assert not working, (row.name, sorted(working))
    assert not {"requests", "sigstore", "argparse"} & {m.split(".")[0] for m in modules}


def test_a_lint_run_imports_lint_only(tmp_path: Path, project: Path) -> None:
    proc, modules = modules_after(tmp_path, "lint", str(project / "skills" / "alpha" / "SKILL.md"))
    assert proc.returncode == 0, proc.stderr
    assert command_modules(modules) == {"skillpack.cli.lint_cmd"}
    assert not {"pydantic", "rich", "sigstore"} & {m.split(".")[0] for m in modules}
    # start-up: what a lint does not use stays unimported, the lock renderer and the
    # archive writer (with its thread pool), pathspec for the default excludes, pickle
    # without a worker, tomllib without a configuration file, the report writer without
    # -o, serve's argparse parser
    unused = {"skillpack.lockfile.lock", "skillpack.bundle.writer", "concurrent.futures"}
    unused |= {"pathspec", "pickle", "tomllib", "skillpack._internal.fsutil", "argparse"}
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
        ["serve", "--bogus"],
        ["serve", "--timeout", "0", str(EXAMPLES / "skills")],
        ["pull", "--timeout", "0", "oci://localhost:1/x:1"],
        ["vendor", "--timeout", "x", "--", "true"],
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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # an unrecognized option comes before a missing argument, as in every command
        (["serve", "--bogus"], "unrecognized arguments: --bogus"),
        (["verify", "--bogus"], "unrecognized arguments: --bogus"),
        # numbers are refused in the same words (no converter's name)
        (["serve", "--ttl-ms", "abc", "x"], "argument --ttl-ms: invalid int value: 'abc'"),
        (["serve", "--page-size", "x", "x"], "argument --page-size: invalid int value: 'x'"),
        (["serve", "--cache-mb", "1.5", "x"], "argument --cache-mb: invalid int value: '1.5'"),
        (["serve", "--workers", "x", "x"], "argument --workers: invalid int value: 'x'"),
        (["serve", "--grace", "x", "x"], "argument --grace: invalid float value: 'x'"),
        (["serve", "--timeout", "abc", "x"], "argument --timeout: invalid float value: 'abc'"),
        (["check", "--timeout", "abc"], "argument --timeout: invalid float value: 'abc'"),
        (["pull", "--timeout", "abc", "x"], "argument --timeout: invalid float value: 'abc'"),
        (["serve", "--page-size", "0", "x"], "argument --page-size: must be 1 or more"),
        (["serve", "--ttl-ms", "-1", "x"], "argument --ttl-ms: must be 0 or more"),
        (
            ["serve", "--timeout", "0", "x"],
            "argument --timeout: must be a positive number of seconds",
        ),
        (
            ["pull", "--timeout", "0", "x"],
            "argument --timeout: must be a positive number of seconds",
        ),
        (["check", "--timeout", "-1"], "argument --timeout: must be a positive number of seconds"),
        (
            ["vendor", "--timeout", "inf"],
            "argument --timeout: must be a positive number of seconds",
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_usage_errors_word_for_word(args: list[str], message: str, tmp_path: Path) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"USE000 {message}\n  hint: see 'skillpack {args[0]} --help'\n"


def test_pull_is_no_longer_the_mcp_client(tmp_path: Path) -> None:
    """``pull`` is the OCI registry pull now (docs/registry.md): the MCP client's old
    invocation is refused, naming ``vendor``."""
    server = [sys.executable, str(SERVERS / "faulty_skills.py"), str(EXAMPLES / "skills")]
    proc = run_cli("pull", "--into", tmp_path / "out", "--", *server)
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "USE000 'pull' is another command now; --into belongs to 'skillpack vendor'\n"
    )
    assert "skillpack vendor" in proc.stderr
    assert not (tmp_path / "out").exists()
    listed = run_cli("vendor", "--", *server)
    assert listed.returncode == 0, listed.stderr
    assert "skill://" in listed.stdout


def _helps() -> dict[str, str]:
    helps = {}
    for row in COMMANDS:
        proc = run_cli(row.name, "--help")
        assert proc.returncode == 0, (row.name, proc.stderr)
        helps[row.name] = proc.stdout
    return helps


#: an option's line in a help: its flags and metavar, then its help (and the lines the
#: help continues on, indented further)
OPTION_LINE = re.compile(r"^  (-[-\w]+(?:, -[-\w]+)*)(?: (\S+))?(?: {2,}(\S.*))?$")


def _options(text: str) -> dict[str, tuple[str | None, str]]:
    """``--flag`` -> (metavar, help as one line) of every option a help lists."""
    found: dict[str, tuple[str | None, str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        match = OPTION_LINE.match(line)
        if match:
            flags, metavar, first = match.groups()
            current = [first or ""]
            for flag in flags.split(", "):
                found[flag] = (metavar, "")
            names = flags.split(", ")
        elif current and line.startswith("      ") and line.strip():
            current.append(line.strip())
        else:
            current = []
            continue
        for flag in names:
            found[flag] = (found[flag][0], " ".join(p for p in current if p))
    return found


def test_one_help_style(tmp_path: Path) -> None:
    for name, text in _helps().items():
        assert text.startswith(f"Usage: skillpack {name} [OPTIONS]"), name
        assert "\nOptions:\n" in text, name
        assert re.search(r"^  -h, --help +Show this message and exit\.$", text, re.M), name
        for line in text.splitlines():
            assert not re.search(r"\{[a-z_,]+\}", line), (name, line)  # never {a,b} or {x}
            assert len(line) <= 78, (name, line)  # wrapped at click's width, serve's too
            assert not re.search(r"<(float|int|integer|text|path)>", line), (name, line)
            assert not re.search(r"--[\w-]+ / --no-", line), (name, line)  # plain flags
        words = " ".join(text.split())
        assert not re.search(r"\(default:? [^)]*\)\.? *\[default", words), name
        assert "exit status" not in words and "exit codes" not in words.lower(), name
        for default in re.findall(r"(.)\[default: ", text):  # as typer shows it
            assert default == " ", name
        if name in ("serve", "lint", "build", "pull"):
            assert "Exit status: " in words, name


def test_the_table_lists_each_commands_own_first_help_line() -> None:
    """``skillpack --help`` shows each command's summary from the table without importing
    the command: it is the first paragraph of the command's own help, word for word."""
    for name, text in _helps().items():
        first = text.split("\n\n")[1]
        assert " ".join(first.split()) == BY_NAME[name].summary, name
    assert "HTTP" in BY_NAME["serve"].summary and "oci://" in BY_NAME["serve"].summary


def test_the_clients_timeout_default_is_the_clients() -> None:
    from skillpack.cli.options import RESPONSE_TIMEOUT
    from skillpack.client.transport import DEFAULT_TIMEOUT

    assert RESPONSE_TIMEOUT == DEFAULT_TIMEOUT


def test_an_option_reads_the_same_in_every_command(tmp_path: Path) -> None:
    """Options declared once (registry, signature, client options) have one metavar and
    one help wherever they appear, serve's argparse included."""
    helps = {name: _options(text) for name, text in _helps().items()}
    families = {
        ("pull", "push", "verify", "inspect", "install", "serve"): [
            "--insecure-registry",
            "--timeout",
        ],
        ("pull", "verify", "inspect", "install", "serve"): ["--offline"],
        ("pull", "push", "verify", "inspect", "install"): ["--username", "--password-stdin"],
        ("verify", "pull", "serve"): ["--key", "--cert-identity", "--workflow-ref", "--online"],
        ("check", "vendor"): ["--timeout", "--url"],
        ("lint", "fmt", "lock", "build", "install", "uninstall"): ["--config"],
    }
    for commands, flags in families.items():
        for flag in flags:
            # compared without spaces: a long word is broken where the column ends
            seen = {
                name: "".join(" ".join(map(str, helps[name][flag])).split()) for name in commands
            }
            assert len(set(seen.values())) == 1, (flag, seen)
    assert helps["serve"]["--timeout"] == (
        "SECONDS",
        "Seconds for each exchange with a registry, retries included.  [default: 30.0]",
    )


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


#: the entry point as the console script calls it, with an atexit handler and an object
#: that the interpreter's teardown would finalize
ENDS_ITSELF = """\
import atexit, sys
from pathlib import Path
marks = Path(sys.argv[1])
atexit.register(lambda: (marks / "atexit").write_text("ran"))
class Finalized:
    def __del__(self) -> None:
        (marks / "teardown").write_text("ran")
kept = Finalized()
sys.argv = ["skillpack", *sys.argv[2:]]
from skillpack.__main__ import main
sys.exit(main())
"""


@pytest.mark.parametrize(("args", "code"), [(["rule", "--all", "--format", "json"], 0),
                                           (["lint", "/nonexistent/x"], 2)])  # fmt: skip
def test_the_process_ends_after_its_atexit_handlers_without_the_teardown(
    tmp_path: Path, args: list[str], code: int
) -> None:
    """The entry point ends the process itself once the command is done: its exit code,
    every byte of its output through a pipe, the atexit handlers; not the teardown
    (freeing every module and object, tens of milliseconds after a large build)."""
    proc = subprocess.run([sys.executable, "-c", ENDS_ITSELF, str(tmp_path), *args],
                          env=cli_env(), capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == code, proc.stderr
    assert (tmp_path / "atexit").read_text() == "ran"
    assert not (tmp_path / "teardown").exists()
    if code == 0:
        from skillpack.lint.catalog import RULES

        # 67 KB, past a pipe's buffer: whole, flushed before the process ended
        assert [r["code"] for r in json.loads(proc.stdout)] == list(RULES)
        assert proc.stderr == ""
    else:
        assert "USE001" in proc.stderr


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
    # Ctrl-C at a terminal: SIGINT at its default in the command, as a shell gives it to a
    # foreground job (a background job of a script, as a CI runner may start this suite,
    # inherits it ignored, and Python then keeps ignoring it)
    terminal = (
        "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", terminal, "-m", "skillpack", "check", "--timeout", "120", "--",
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
