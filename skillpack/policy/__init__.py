"""What a consumer admits from elsewhere: the content scan over verified content
(:mod:`.admission`), with the findings the user accepted."""

from skillpack.policy.admission import (
    Accept,
    Admission,
    Flagged,
    admit,
    judge_file,
    parse_accepts,
)

__all__ = ["Accept", "Admission", "Flagged", "admit", "judge_file", "parse_accepts"]
