#!/usr/bin/env python3
"""Start a server, wait for its port, run a command, stop the server."""

import argparse
import socket
import subprocess
import sys
import time


def wait_for(port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"port {port} did not open")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    server = subprocess.Popen(args.server, shell=True)
    try:
        wait_for(args.port, 30)
        return subprocess.call(args.command[1:] if args.command[:1] == ["--"] else args.command)
    finally:
        server.terminate()


if __name__ == "__main__":
    sys.exit(main())
