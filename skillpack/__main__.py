"""``skillpack`` and ``python -m skillpack``.

``skillpack serve`` is dispatched before anything else is imported: the serve path
uses only the standard library (no typer, rich, jsonschema or YAML), so a host
spawning the server gets its first response fast. ``lint`` and ``fmt`` (pre-commit
hooks) and ``build`` skip typer too; see :mod:`skillpack.commands`.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "serve":
        from skillpack.server.cli import main as serve_main

        return serve_main(args[1:])
    if args and args[0] in ("lint", "fmt", "build"):  # start fast, without typer
        from skillpack.commands import run_command

        return run_command(args[0], args[1:])
    from skillpack.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
