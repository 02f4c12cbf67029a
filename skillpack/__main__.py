"""``skillpack`` and ``python -m skillpack``.

``skillpack serve`` is dispatched before anything else is imported: the serve path
uses only the standard library (no typer, rich, jsonschema or YAML), so a host
spawning the server gets its first response fast. Every other command goes to the
typer app (:mod:`skillpack.cli`), which imports only the invoked command's module.

Run as the process's entry point (no ``argv`` given), :func:`main` ends the process
itself once the command is done (:func:`_end`): the ``atexit`` handlers run and the
standard streams are flushed as at any exit, but the interpreter's teardown (freeing
every module and object one by one, 20-30 ms after a large build) is skipped; so is
freeing a build's objects when the command returns
(:func:`skillpack._internal.memory.keep_until_exit`).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "serve":
        from skillpack.server.cli import main as serve_main

        code = serve_main(args[1:])
    else:
        from skillpack.cli import main as cli_main

        if argv is None:
            from skillpack._internal.memory import end_without_teardown

            end_without_teardown()
        code = cli_main(args)
    if argv is None:
        _end(code)
    return code


def _end(code: int) -> None:
    """End the process with ``code`` now, as an exit would but for the teardown; returns
    (and the interpreter exits as usual) while another thread still runs, which a
    normal exit would wait for."""
    import atexit
    import contextlib
    import os
    import threading

    if threading.active_count() > 1:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # a reader gone, a stream closed: nothing more to say, as at any exit
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
