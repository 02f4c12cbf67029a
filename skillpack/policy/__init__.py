"""What a consumer admits from elsewhere: the content scan over verified content
(:mod:`.admission`), with the findings the user accepted, under the consumer's policy
file (:mod:`.file`).

The exports are loaded on first use: ``serve`` reads the policy file's names without
paying for the content scan's import until a file is read."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillpack.policy.admission import (
        Accept,
        Admission,
        Flagged,
        admit,
        judge_file,
        parse_accepts,
    )

__all__ = ["Accept", "Admission", "Flagged", "admit", "judge_file", "parse_accepts"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from skillpack.policy import admission

        return getattr(admission, name)
    raise AttributeError(f"module 'skillpack.policy' has no attribute {name!r}")
