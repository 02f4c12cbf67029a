"""SP6xx: the host plugin manifests at the project's root (:mod:`skillpack.plugins`).

:mod:`skillpack.plugins` is imported when the check runs (beside the per-skill checks,
in a build's pass), not with the rule catalog, and its readers only when a manifest is
there: a lint run's start-up does not pay for them, nor a tree without manifests."""

from __future__ import annotations

from collections.abc import Iterator

from skillpack.lint.checks.registry import tree_check
from skillpack.lint.context import RunContext
from skillpack.lint.finding import Finding

#: the rules of the manifest problems, in the order of their kinds (:func:`codes`)
RULE_CODES = ("SP601", "SP602", "SP603", "SP604", "SP605", "SP606", "SP607")


def codes() -> dict[str, str]:
    """Each kind of manifest problem (:mod:`skillpack.plugins.formats`) and its rule."""
    from skillpack.plugins import formats as f

    kinds = (f.NOT_JSON, f.BAD_FIELD, f.NOT_KEBAB, f.OUTSIDE, f.MISSING_PATH, f.MISMATCH,
             f.UNREACHED)  # fmt: skip
    return dict(zip(kinds, RULE_CODES, strict=True))


@tree_check(*RULE_CODES)
def host_manifests(run: RunContext) -> Iterator[Finding]:
    """The manifests of the project's root, when the run covers them (a run on some
    skills' files, such as a pre-commit hook's, reports them only when they are named)."""
    from skillpack.plugins.hosts import any_manifest

    config = run.tree.config
    root = config.project_dir
    if not any_manifest(root):
        return
    from skillpack.plugins.project import Declared, find_manifests, inspect_project

    manifests = find_manifests(root)
    if not manifests or not any(run.requested(m.path) for m in manifests):
        return
    meta = config.meta
    declared = Declared(
        config.name if meta.name_given else None, config.version if meta.version_given else None
    )
    skills = [skill.directory for skill in run.tree.skills]
    rules = codes()
    for problem in inspect_project(root, skills, declared, manifests):
        yield Finding(
            rules[problem.kind], problem.message, problem.path, problem.line, problem.column,
            problem.hint,
        )  # fmt: skip
