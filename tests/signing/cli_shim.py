"""``python -m tests.signing.cli_shim ARGS``: the real skillpack CLI, with the test
bundle reader installed when the real one is not in this checkout yet."""

from __future__ import annotations

import sys

from tests.signing import bundle_stub

if __name__ == "__main__":
    bundle_stub.install()
    from skillpack.__main__ import main

    sys.exit(main())
