"""The manifest model reproduces the spec test vectors exactly."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillpack.source.config import config_from_table
from skillpack.source.discovery import discover
from skillpack.source.entries import build_manifest


def _manifest(root: Path, prefix: str = ""):
    config = config_from_table({"roots": [{"path": ".", "prefix": prefix}]}, root, None)
    return build_manifest(discover(config))


def test_code_review_vector(vectors: Path, tmp_path: Path) -> None:
    shutil.copytree(vectors / "code-review", tmp_path / "code-review")
    manifest = _manifest(tmp_path)
    (skill,) = manifest.skills
    assert skill.to_wire() == {
        "uri": "skill://code-review/SKILL.md",
        "frontmatter": {
            "name": "code-review",
            "description": "Review code using the team's checklist.",
        },
        "resources": [
            {
                "uri": "skill://code-review/SKILL.md",
                "digest": "sha256:d2489d6c182e8df9c178563ff9f2eac7998a0c1bb1278c52a7fd5306e4259160",
                "size": 149,
            },
            {
                "uri": "skill://code-review/references/checklist.md",
                "digest": "sha256:dbab2de7bf7db9cc95cb6ce681c3690b26184db39f75b958a0287ca6d9e24e20",
                "size": 65,
            },
        ],
    }


def test_refunds_vector_under_prefix(vectors: Path, tmp_path: Path) -> None:
    shutil.copytree(vectors / "refunds", tmp_path / "refunds")
    manifest = _manifest(tmp_path, prefix="acme/billing")
    (skill,) = manifest.skills
    assert skill.skill_path == "acme/billing/refunds"
    assert [(r["uri"], r["size"], r["digest"]) for r in skill.to_wire()["resources"]] == [
        (
            "skill://acme/billing/refunds/SKILL.md",
            130,
            "sha256:08d7cd5157610065814250e386b3fe428470487e87c31c23584d76c84ac45e1b",
        ),
        (
            "skill://acme/billing/refunds/templates/refund-email.md",
            24,
            "sha256:303346af8070259117fcd9cbeb442a149cae197e6606fc279d823d00870cec46",
        ),
    ]
