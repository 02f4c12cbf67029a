"""SP6xx: the host plugin manifests at the project's root (:mod:`skillpack.plugins`)."""

from __future__ import annotations

from collections.abc import Iterator

from skillpack.lint.checks.registry import tree_check
from skillpack.lint.context import RunContext
from skillpack.lint.finding import Finding
from skillpack.plugins.formats import (
    BAD_FIELD,
    MISMATCH,
    MISSING_PATH,
    NOT_JSON,
    NOT_KEBAB,
    OUTSIDE,
    UNREACHED,
)
from skillpack.plugins.project import Declared, find_manifests, inspect_project

#: each kind of manifest problem and its rule
CODES = {
    NOT_JSON: "SP601",
    BAD_FIELD: "SP602",
    NOT_KEBAB: "SP603",
    OUTSIDE: "SP604",
    MISSING_PATH: "SP605",
    MISMATCH: "SP606",
    UNREACHED: "SP607",
}


@tree_check(*CODES.values())
def host_manifests(run: RunContext) -> Iterator[Finding]:
    """The manifests of the project's root, when the run covers them (a run on some
    skills' files, such as a pre-commit hook's, reports them only when they are named)."""
    config = run.tree.config
    root = config.project_dir
    manifests = find_manifests(root)
    if not manifests or not any(run.requested(m.path) for m in manifests):
        return
    meta = config.meta
    declared = Declared(
        config.name if meta.name_given else None, config.version if meta.version_given else None
    )
    skills = [skill.directory for skill in run.tree.skills]
    for problem in inspect_project(root, skills, declared, manifests):
        yield Finding(
            CODES[problem.kind], problem.message, problem.path, problem.line, problem.column,
            problem.hint,
        )  # fmt: skip
