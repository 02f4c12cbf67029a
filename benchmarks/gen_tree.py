"""Generate the synthetic benchmark tree: 1,000 skills of 5 files, about 7 MB.

Deterministic for a given seed, so every benchmark run measures the same bytes.
Each skill has a SKILL.md (~1-1.7 KB), two references (~0.5-1.3 KB each), a
script (~1-1.5 KB) and a binary asset (~1.5-4.5 KB of random bytes).

    python benchmarks/gen_tree.py OUT_DIR [--skills 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

WORDS = (  # noqa: SIM905
    "review build deploy check invoice refund customer policy template report query table "
    "schema migrate release branch commit tag test coverage lint format archive bundle "
    "verify sign digest manifest token budget context window file folder script data"
).split()


def _prose(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16)))
        line = sentence.capitalize() + ".\n"
        if rng.random() < 0.15:
            line = "\n## " + rng.choice(WORDS).capitalize() + "\n\n" + line
        out.append(line)
        length += len(line)
    return "".join(out)


def skill_name(index: int) -> str:
    return f"skill-{index:04d}"


def generate(out: Path, skills: int = 1000, seed: int = 1) -> int:
    """Write the tree under ``out``; return the number of bytes written."""
    rng = random.Random(seed)
    total = 0
    for index in range(skills):
        name = skill_name(index)
        # a few under a prefix directory, like a real repository's team folders
        directory = out / (f"team-{index % 7}" if index % 3 == 0 else "") / name
        (directory / "references").mkdir(parents=True, exist_ok=True)
        (directory / "scripts").mkdir(exist_ok=True)
        (directory / "assets").mkdir(exist_ok=True)
        body = _prose(rng, rng.randint(600, 1400))
        files = {
            "SKILL.md": (
                f"---\nname: {name}\n"
                f"description: {_prose(rng, 120).strip().splitlines()[-1][:300]}\n"
                f"license: Apache-2.0\nmetadata:\n  owner: team-{index % 7}\n"
                f'  version: "1.{index % 10}"\n---\n\n# {name}\n\n'
                "See `references/guide.md` and [the details](references/details.md).\n\n"
                f"{body}"
            ).encode(),
            "references/guide.md": _prose(rng, rng.randint(450, 1250)).encode(),
            "references/details.md": _prose(rng, rng.randint(450, 1250)).encode(),
            "scripts/run.py": (
                "#!/usr/bin/env python3\n"
                + "".join(
                    f"# {line}" for line in _prose(rng, rng.randint(900, 1400)).splitlines(True)
                )
                + "print('ok')\n"
            ).encode(),
            "assets/data.bin": rng.randbytes(rng.randint(1500, 4500)),
        }
        for rel, data in files.items():
            path = directory / rel
            path.write_bytes(data)
            total += len(data)
        (directory / "scripts" / "run.py").chmod(0o755)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    total = generate(args.out, args.skills, args.seed)
    print(f"{args.skills} skills, {args.skills * 5} files, {total / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
