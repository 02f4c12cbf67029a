"""Time signing and verification of a 1,000-skill bundle (about 5,000 files).

The bundle is made by ``skillpack.build.builder``; signing and verification go through the
library and the real bundle reader (full mode), in key mode and keyless (against the
local sigstore instance from the tests, on loopback). Run by hand; prints a table:

    python benchmarks/bench_signing.py [--skills 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._timing import best_of
from benchmarks.gen_tree import generate
from skillpack.build.builder import build
from skillpack.bundle.verify import verify_bundle
from skillpack.signing.keys import generate_keypair
from skillpack.signing.policy import SignaturePolicy, SigningOptions
from skillpack.signing.sign import sign_bundle, statement_for
from skillpack.signing.verify import verify_signed_bundle
from skillpack.source.config import config_from_table
from tests.sigstore_local import DEFAULT_ISSUER, LocalSigstore


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        os.environ.update(XDG_CACHE_HOME=str(tmp / "cache"), XDG_DATA_HOME=str(tmp / "data"))
        os.environ["NO_PROXY"] = "127.0.0.1"
        generate(tmp / "tree", args.skills)
        table = {"name": "bench", "version": "1.0.0", "roots": ["."]}
        config = config_from_table(table, tmp / "tree", None)
        result = build(config, output=tmp / "bench.skp", lint=False)
        archive, files = result.output, result.files
        key, pub = generate_keypair(tmp / "keys")
        rows: list[tuple[str, float]] = []
        rows.append(
            (
                "verify without a signature (full open)",
                best_of(args.repeat, lambda: verify_bundle(archive)),
            )
        )
        rows.append(
            (
                "statement (full open + archive sha256)",
                best_of(args.repeat, lambda: statement_for(archive)),
            )
        )
        rows.append(
            (
                "sign, key mode",
                best_of(
                    args.repeat,
                    lambda: sign_bundle(archive, SigningOptions(key=key)),
                ),
            )
        )
        rows.append(
            (
                "verify, key mode (full pipeline)",
                best_of(
                    args.repeat,
                    lambda: verify_signed_bundle(archive, SignaturePolicy(key=pub)),
                ),
            )
        )
        with LocalSigstore("bench") as instance:
            trust = instance.write_trust_config(tmp / "tc.json")
            rows.append(
                (
                    "sign, keyless (local Fulcio + Rekor)",
                    best_of(
                        args.repeat,
                        lambda: sign_bundle(
                            archive,
                            SigningOptions(identity_token=instance.token(), trust_config=trust),
                        ),
                    ),
                )
            )
            policy = SignaturePolicy(
                cert_identity="dev@skillpack.test",
                cert_oidc_issuer=DEFAULT_ISSUER,
                trust_config=trust,
            )
            rows.append(
                (
                    "verify, keyless (full pipeline, offline)",
                    best_of(
                        args.repeat,
                        lambda: verify_signed_bundle(archive, policy),
                    ),
                )
            )
        size = archive.stat().st_size
        print(
            f"bundle: {args.skills} skills, {files} files, archive {size / 1e6:.1f} MB; "
            f"best of {args.repeat}"
        )
        print(f"| {'step':<42} | {'seconds':>8} |")
        print(f"|{'-' * 44}|{'-' * 10}|")
        for name, seconds in rows:
            print(f"| {name:<42} | {seconds:>8.3f} |")


if __name__ == "__main__":
    main()
