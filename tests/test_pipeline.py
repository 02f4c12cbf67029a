"""The one pass over the skills (skillpack.build.pipeline): one typed function per skill,
one frozen result, the error as a value; results pickled by their dataclass fields."""

from __future__ import annotations

import dataclasses
import os
import pickle
from pathlib import Path

import pytest

from skillpack._internal.pickling import ByFields
from skillpack.build.pipeline import (
    Archive,
    PassState,
    Plan,
    Refusal,
    SkillResult,
    lock_tree,
    one_pass,
    process_skill,
    run_pass,
)
from skillpack.bundle.writer import PreparedEntry
from skillpack.errors import SkillpackError
from skillpack.lint.engine import LintRun
from skillpack.lint.finding import Finding
from skillpack.lockfile.lock import LockError, render_skill
from skillpack.manifest import FileEntry, ManifestError, SkillEntry, sha256_digest
from skillpack.source.config import config_from_table
from skillpack.source.discovery import SourceTree, discover
from tests.conftest import write_skill

STAMP = (0, 33)  # 1980-01-01 00:00:00
REFUSAL = Refusal("BLD010", "the bundle was not built", "fix them", unpublishable="BLD012")
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _tree(root: Path, broken: tuple[str, ...] = ()) -> SourceTree:
    """Five skills (one nested), each with a reference file; ``broken`` ones have a
    frontmatter the strict reader refuses."""
    for name in ("alpha", "beta", "gamma", "gamma/inner", "delta"):
        write_skill(root, name, files={"references/notes.md": f"notes of {name}\n"})
    for name in broken:
        write_skill(root, name, frontmatter=f"name: {name}\ndescription: [unclosed\n")
    return discover(config_from_table({}, root, None))


def _fields(value: object) -> tuple[object, ...]:
    return tuple(getattr(value, f.name) for f in dataclasses.fields(value))  # type: ignore[arg-type]


def test_process_skill_makes_what_the_plan_asks(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    skill = tree.skills[0]
    run = LintRun.start(tree)
    checked = process_skill(Plan(lint=run, entry=False), skill, PassState(1 << 20))
    assert checked == SkillResult(checked.findings)  # findings only: lint makes no entry
    locked = process_skill(Plan(lock=True), skill, PassState(1 << 20))
    assert locked.entry is not None and locked.error is None
    assert locked.table == render_skill(locked.entry)
    assert locked.entries == {} and locked.kept == {}
    on_disk = {f"skill://{skill.skill_path}/{sf.rel}": sf.path.read_bytes() for sf in skill.files}
    kept = process_skill(
        Plan(archive=Archive("deflate", STAMP, compress=False)), skill, PassState(1 << 20)
    )
    assert kept.kept == on_disk and kept.entries == {}
    made = process_skill(
        Plan(archive=Archive("deflate", STAMP, compress=True)), skill, PassState(1 << 20)
    )
    assert made.kept == {}
    assert {name: e.digest for name, e in made.entries.items()} == {
        f"{skill.skill_path}/{sf.rel}": sha256_digest(sf.path.read_bytes()) for sf in skill.files
    }
    none_left = process_skill(
        Plan(archive=Archive("deflate", STAMP, compress=False)), skill, PassState(0)
    )
    assert none_left.entry == kept.entry and none_left.kept == {}  # past the budget


def test_an_error_is_a_value_and_nothing_is_done_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused frontmatter is the result's error; each SKILL.md is parsed once (the
    lint checks' parse makes the entry, or its error) and no file is read again."""
    import skillpack.lint.context
    import skillpack.source.entries

    tree = _tree(tmp_path, broken=("beta",))
    parsed: list[str] = []
    reads: list[Path] = []
    real_parse = skillpack.lint.context.parse_skill_md
    real_read = skillpack.source.entries.read_file

    def parse(data: bytes | str) -> object:
        parsed.append("x")
        return real_parse(data)

    def read(f: object) -> bytes:
        reads.append(f.path)  # type: ignore[attr-defined]
        return real_read(f)  # type: ignore[arg-type]

    for module in (skillpack.lint.context, skillpack.source.entries):
        monkeypatch.setattr(module, "parse_skill_md", parse)
        monkeypatch.setattr(module, "read_file", read)
    results, _ = run_pass(tree.skills, Plan(lint=LintRun.start(tree), lock=True), jobs=1)
    assert len(parsed) == len(tree.skills)
    assert reads and len(reads) == len(set(reads))
    beta = results[[s.skill_path for s in tree.skills].index("beta")]
    assert beta.entry is None and isinstance(beta.error, ManifestError)
    assert beta.error.location is not None and beta.error.location.path.endswith("beta/SKILL.md")
    assert beta.findings  # the lint checks reported it too
    with pytest.raises(ManifestError) as raised:
        beta.checked_entry()
    assert raised.value is beta.error


@needs_fork
def test_a_workers_error_is_raised_in_skill_order(tmp_path: Path) -> None:
    """The first failing skill's error, whichever process met it: the same for any
    number of workers, with and without the lint gate."""
    tree = _tree(tmp_path, broken=("delta", "gamma/inner"))
    seen: set[tuple[str, str]] = set()
    for jobs in (1, 2, 3):
        results, _ = run_pass(tree.skills, Plan(lock=True), jobs)
        assert [r.error is not None for r in results] == [
            s.skill_path in ("delta", "gamma/inner") for s in tree.skills
        ]
        with pytest.raises(SkillpackError) as raised:
            lock_tree(tree, jobs)  # a frontmatter no bundle can hold: the lock is refused
        seen.add((raised.value.code, str(raised.value)))
        for lint in (False, True):
            with pytest.raises(SkillpackError) as refused:
                one_pass(tree, lint=lint, refusal=REFUSAL, compression="deflate", stamp=STAMP,
                         jobs=jobs)  # fmt: skip
            seen.add((refused.value.code, str(refused.value)))
    # one refusal each: lock's, build's without lint (the structural rules) and with it
    assert sorted(code for code, _ in seen) == ["BLD010", "BLD012", "LCK006"]
    for _code, text in seen:  # the first problem listed is the first skill's
        assert text.index("delta/SKILL.md") < text.index("gamma/inner/SKILL.md")


def _result(tmp_path: Path) -> SkillResult:
    tree = _tree(tmp_path, broken=("beta",))
    plan = Plan(lint=LintRun.start(tree), lock=True, archive=Archive("deflate", STAMP, True))
    good = process_skill(plan, tree.skills[0], PassState(1 << 20))
    bad = process_skill(plan, tree.skills[1], PassState(1 << 20))
    assert good.entry is not None and good.entries and bad.error is not None
    return dataclasses.replace(good, findings=bad.findings, kept={"skill://x": b"x"},
                               error=bad.error)  # fmt: skip


def test_results_pickle_by_their_fields(tmp_path: Path) -> None:
    result = _result(tmp_path)
    entry = result.entry
    assert entry is not None
    values: list[object] = [
        result,
        entry,
        entry.files[0],
        next(iter(result.entries.values())),
        result.findings[0],
    ]
    assert {type(v) for v in values} == {SkillResult, SkillEntry, FileEntry, PreparedEntry,
                                         Finding}  # fmt: skip
    for value in values:
        assert value.__reduce__() == (type(value), _fields(value))
        back = pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        assert type(back) is type(value)
        if isinstance(value, SkillResult):
            assert dataclasses.replace(back, error=None) == dataclasses.replace(value, error=None)
        else:
            assert back == value
    error = pickle.loads(pickle.dumps(result)).error
    assert type(error) is ManifestError and error is not result.error
    assert (error.code, str(error), error.location) == (
        result.error.code,  # type: ignore[union-attr]
        str(result.error),
        result.error.location,  # type: ignore[union-attr]
    )


def test_errors_pickle_whatever_their_init_takes() -> None:
    """A worker's error comes back as itself: class, fields, message and extra state."""
    from skillpack.bundle import BundleError
    from skillpack.content import IntegrityError

    errors: list[SkillpackError] = [
        LockError("LCK002", "bad table", "skillpack.lock", "regenerate it", ["also this"]),
        IntegrityError("skill://a/SKILL.md", "size 3 differs from the locked 4"),
        BundleError("BND001", "not a zip", entry="x", path="b.skp", hint="rebuild it"),
    ]
    for error in errors:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert back.__dict__ == error.__dict__ and back.args == error.args
        assert str(back) == str(error)


def test_by_fields_follows_the_dataclass_fields() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Pair(ByFields):
        left: int
        right: tuple[str, ...] = ()

    @dataclasses.dataclass(frozen=True)
    class One(ByFields):
        only: str

    @dataclasses.dataclass
    class Late(ByFields):
        early: int
        late: int = dataclasses.field(init=False, default=0)

    assert Pair(1, ("a",)).__reduce__() == (Pair, (1, ("a",)))
    assert One("x").__reduce__() == (One, ("x",))
    with pytest.raises(TypeError, match="late"):
        Late(1).__reduce__()


@needs_fork
def test_the_tree_wide_findings_are_the_same_made_beside_the_workers(tmp_path: Path) -> None:
    """A forked pass makes the tree-wide checks' findings in one more worker meanwhile;
    the lint result is the same for any number of workers, those findings included."""
    from skillpack.build.pipeline import lint_tree

    _tree(tmp_path)
    write_skill(tmp_path, "group/alpha")  # a second skill named alpha
    tree = discover(config_from_table({}, tmp_path, None))
    results = [lint_tree(tree, jobs=jobs) for jobs in (1, 2, 3)]
    assert "SP205" in {f.code for f in results[0].findings}  # a tree-wide finding
    assert results[1:] == results[:1] * 2
    _, beside = run_pass(tree.skills, Plan(lint=LintRun.start(tree), entry=False), jobs=2)
    assert beside is not None and "SP205" in {f.code for f in beside}
    _, inline = run_pass(tree.skills, Plan(lint=LintRun.start(tree), entry=False), jobs=1)
    assert inline is None  # made by LintRun.result then


@needs_fork
def test_the_memory_budget_is_each_processs_over_all_its_ranges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process keeps at most KEPT_BUDGET bytes for the writer however many ranges of
    skills it claims; the files past it are left for the writer to read again."""
    for i in range(120):
        write_skill(tmp_path, f"s{i:03}", files={"references/data.md": "x" * 2000 + "\n"})
    tree = discover(config_from_table({}, tmp_path, None))
    monkeypatch.setattr("skillpack.build.pipeline.KEPT_BUDGET", 30_000)
    plan = Plan(archive=Archive("stored", STAMP, compress=False))
    results, _ = run_pass(tree.skills, plan, jobs=2)
    kept = sum(len(data) for result in results for data in result.kept.values())
    assert 0 < kept <= 2 * 30_000  # two processes, 30,000 bytes each
    assert len(results) == 120 and all(r.entry is not None for r in results)
