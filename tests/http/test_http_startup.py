"""What ``serve --http`` imports before its first answer: uvicorn's server, not its
command line (click, the reload and multiprocess supervisors, watchfiles), and none of
what the stdio path leaves out either; uvicorn's package still works for anyone who
imports it whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env
from tests.http.conftest import start_server
from tests.test_serve_bundle import FIRST_READ, FORBIDDEN

#: uvicorn's command line, which ``uvicorn/__init__.py`` imports.
UVICORN_CLI = ("uvicorn.main", "uvicorn.supervisors", "click", "watchfiles")


def test_the_http_path_leaves_uvicorns_command_line_out(examples_skp: Path) -> None:
    running = start_server(examples_skp, env={"PYTHONPROFILEIMPORTTIME": "1"})
    try:
        answered = running.modern("resources/read", {"uri": "skill://pdf-processing/SKILL.md"})
        assert answered.status == 200
    finally:
        assert running.stop() == 0
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in running.lines
        if line.startswith("import time:") and "|" in line
    }
    assert {"uvicorn.server", "uvicorn.protocols.http.auto", "asyncio"} <= imported
    heavy = sorted(
        name
        for name in imported
        for bad in (*FORBIDDEN, *UVICORN_CLI)
        if bad not in FIRST_READ  # a file was read: the scan judged it
        and (name == bad or name.startswith(bad + "."))
    )
    assert heavy == []


def test_the_uvicorn_package_still_has_its_attributes() -> None:
    """After :func:`load`, ``import uvicorn`` and ``from uvicorn import ...`` work as
    ever (the first use of the package's own attributes runs its ``__init__``)."""
    code = (
        "import sys\n"
        "from skillpack.server.transports import uvicorn_core\n"
        "uvicorn_core.load()\n"
        "assert 'uvicorn.main' not in sys.modules and 'click' not in sys.modules\n"
        "import uvicorn\n"
        "from uvicorn import Config, Server\n"
        "from uvicorn.config import Config as C\n"
        "from uvicorn.server import Server as S\n"
        "assert (Config, Server) == (C, S)\n"
        "assert 'uvicorn.main' not in sys.modules\n"
        "assert callable(uvicorn.run) and uvicorn.__version__\n"
        "assert 'uvicorn.main' in sys.modules\n"
        "try:\n"
        "    uvicorn.no_such_thing\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('an unknown attribute was found')\n"
        "print('ok')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), timeout=60
    )
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr
