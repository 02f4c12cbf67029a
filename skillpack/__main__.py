"""``skillpack`` and ``python -m skillpack``.

``skillpack serve`` is dispatched before anything else is imported: the serve path
uses only the standard library (no typer, rich, jsonschema or YAML), so a host
spawning the server gets its first response fast. Every other command goes to the
typer app (:mod:`skillpack.cli`), which imports only the invoked command's module.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "serve":
        from skillpack.server.cli import main as serve_main

        return serve_main(args[1:])
    from skillpack.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
