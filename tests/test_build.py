"""skillpack build: vectors, reproducibility, the lock gate, atomic output, real trees."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests._bundles import build, make_project
from tests.conftest import (
    CORPUS,
    EXAMPLES,
    REPO,
    SAMPLE,
    cli_env,
    public_trees,
    run_cli,
    write_skill,
)

PYTHONS = {
    "3.12": Path("/root/.pyenv/versions/3.12.1/bin/python3.12"),
    "3.13": Path("/root/.pyenv/versions/3.13.0/bin/python3.13"),
}


def test_vectors_are_reproduced_in_the_bundle(vectors: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(vectors / "code-review", project / "skills" / "code-review")
    shutil.copytree(vectors / "refunds", project / "billing" / "refunds")
    (project / "skillpack.toml").write_text(
        'name = "vectors"\nversion = "1.0.0"\n'
        'roots = ["skills", {path = "billing", prefix = "acme/billing"}]\n'
    )
    bundle = build(project, tmp_path / "v.skp")
    proc = run_cli("inspect", bundle, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    skills = {s["uri"]: s for s in json.loads(proc.stdout)["skills"]}
    review = skills["skill://code-review/SKILL.md"]
    assert review["frontmatter"] == {
        "name": "code-review",
        "description": "Review code using the team's checklist.",
    }
    digests = {
        "skill://code-review/SKILL.md": (149, "d2489d6c182e8df9c178563ff9f2eac7998a0c1bb1278c52"),
        "skill://code-review/references/checklist.md": (65, "dbab2de7bf7db9cc95cb6ce681c3690b"),
    }
    assert len(review["resources"]) == 2
    for resource in review["resources"]:
        size, prefix = digests[resource["uri"]]
        assert resource["size"] == size and resource["digest"].startswith("sha256:" + prefix)
    refunds = skills["skill://acme/billing/refunds/SKILL.md"]["resources"]
    assert [(r["size"], r["digest"][7:15]) for r in refunds] == [
        (130, "08d7cd51"),
        (24, "303346af"),
    ]
    with zipfile.ZipFile(bundle) as zf:
        assert (
            zf.read("acme/billing/refunds/templates/refund-email.md")
            == (vectors / "refunds" / "templates" / "refund-email.md").read_bytes()
        )


def _copy_scrambled(src: Path, dst: Path, seed: int, umask: int) -> None:
    """Copy ``src`` creating files in a shuffled order under ``umask``, with random mtimes."""
    rng = random.Random(seed)
    files = sorted(p for p in src.rglob("*") if p.is_file())
    rng.shuffle(files)
    old = os.umask(umask)
    try:
        for f in files:
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f.read_bytes())
            os.chmod(target, (0o777 & ~umask) if os.access(f, os.X_OK) else (0o666 & ~umask))
            stamp = rng.randint(0, 2_000_000_000)
            os.utime(target, (stamp, stamp))
    finally:
        os.umask(old)


def test_build_is_reproducible_across_checkouts(tmp_path: Path) -> None:
    origin = make_project(tmp_path / "origin")
    write_skill(origin / "skills", "unicodé", files={"ünï/cödé.md": "hi\n", "a b.md": "sp\n"})
    _copy_scrambled(origin, tmp_path / "one", seed=1, umask=0o022)
    _copy_scrambled(origin, tmp_path / "two", seed=2, umask=0o077)
    a = build(tmp_path / "one", tmp_path / "a.skp")
    b = run_cli(
        "build",
        tmp_path / "two",
        "-o",
        tmp_path / "b.skp",
        "--no-lint",
        env={"LC_ALL": "C", "TZ": "Pacific/Kiritimati"},
    )
    assert b.returncode == 0, b.stderr
    assert a.read_bytes() == (tmp_path / "b.skp").read_bytes()
    assert (tmp_path / "one" / "skillpack.lock").read_bytes() == (
        tmp_path / "two" / "skillpack.lock"
    ).read_bytes()
    with zipfile.ZipFile(a) as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        assert names[:2] == [".skillpack/skillpack.lock", ".skillpack/index.json"]
        assert names[2:] == sorted(names[2:], key=lambda n: n.encode())
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in infos)
        assert all(i.create_system == 3 and i.extra == b"" for i in infos)
        modes = {i.filename: i.external_attr >> 16 for i in infos}
        assert modes["tools/scripts/run.sh"] == 0o100755
        assert modes["tools/SKILL.md"] == 0o100644
        unicode = zf.getinfo("unicodé/ünï/cödé.md")
        assert unicode.flag_bits & 0x800
        assert not zf.getinfo("tools/SKILL.md").flag_bits & 0x800
        assert zf.comment == b"skillpack-bundle/1"


def test_source_date_epoch_and_stored_compression(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    plain = build(project, tmp_path / "plain.skp")
    proc = run_cli(
        "build",
        project,
        "-o",
        tmp_path / "sde.skp",
        "--no-lint",
        env={"SOURCE_DATE_EPOCH": "1700000000"},
    )
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(tmp_path / "sde.skp") as zf:
        assert {i.date_time for i in zf.infolist()} == {(2023, 11, 14, 22, 13, 20)}
    assert (tmp_path / "sde.skp").read_bytes() != plain.read_bytes()
    early = run_cli(
        "build", project, "-o", tmp_path / "early.skp", "--no-lint", env={"SOURCE_DATE_EPOCH": "0"}
    )
    assert early.returncode == 0
    assert (tmp_path / "early.skp").read_bytes() == plain.read_bytes()  # clamped to 1980
    bad = run_cli("build", project, "-o", tmp_path / "x.skp", env={"SOURCE_DATE_EPOCH": "soon"})
    assert bad.returncode == 2 and "BLD007" in bad.stderr
    stored = build(project, tmp_path / "stored.skp", "--compression", "stored")
    with zipfile.ZipFile(stored) as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}
    assert run_cli("verify", stored).returncode == 0


def _venv_for(python: Path, cache: Path) -> Path | None:
    venv = cache / f"venv-{python.name}"
    exe = venv / "bin" / "python"
    if exe.exists():
        return exe
    try:
        subprocess.run([python, "-m", "venv", venv], check=True, capture_output=True, timeout=120)
        subprocess.run(
            [
                exe,
                "-m",
                "pip",
                "install",
                "-q",
                "typer>=0.29,<0.30",
                "tomli-w",
                "pathspec",
                "ruamel.yaml",
                "jsonschema",
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
    except (subprocess.SubprocessError, OSError):
        shutil.rmtree(venv, ignore_errors=True)
        return None
    return exe


@pytest.mark.slow
@pytest.mark.parametrize("version", sorted(PYTHONS))
def test_same_bytes_under_another_python(
    version: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    python = PYTHONS[version]
    if not python.exists():
        pytest.skip(f"python{version} is not installed")
    exe = _venv_for(python, Path(request.config.cache.mkdir("skillpack-pythons")))
    if exe is None:
        pytest.skip(f"cannot install the build dependencies for python{version}")
    project = make_project(tmp_path / "p")
    here = build(project, tmp_path / "here.skp")
    there = tmp_path / "there.skp"
    for flags in ((), ("--compression", "stored")):
        here = build(project, tmp_path / "here.skp", *flags)
        proc = subprocess.run(
            [exe, "-m", "skillpack", "build", project, "-o", there, "--no-lint", *flags],
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert there.read_bytes() == here.read_bytes(), f"python{version} {flags}"


def test_locked_build_fails_on_a_stale_lock_and_writes_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    out = tmp_path / "out.skp"
    missing = run_cli("build", project, "-o", out, "--locked", "--no-lint")
    assert missing.returncode == 1 and "LCK004 --locked: the lock does not exist" in missing.stderr
    build(project, out)
    before = out.read_bytes()
    (project / "skills" / "code-review" / "references" / "checklist.md").write_text("changed\n")
    stale = run_cli("build", project, "-o", out, "--locked", "--no-lint")
    assert stale.returncode == 1
    assert "~ file references/checklist.md" in stale.stderr
    assert out.read_bytes() == before
    fresh = run_cli("build", project, "-o", out, "--no-lint")
    assert fresh.returncode == 0 and "wrote " in fresh.stdout
    assert run_cli("build", project, "-o", out, "--locked", "--no-lint").returncode == 0


def test_failed_build_leaves_no_archive_or_temp_file(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    write_skill(project / "skills", "broken", frontmatter="name: broken\ndescription: [unclosed\n")
    out_dir = tmp_path / "dist"
    proc = run_cli("build", project, "-o", out_dir / "x.skp", "--no-lint")
    assert proc.returncode == 1
    assert "SP003" in proc.stderr and "broken/SKILL.md" in proc.stderr
    assert not out_dir.exists() or list(out_dir.iterdir()) == []


def test_forked_workers_build_the_same_bytes_and_report_the_same_errors(tmp_path: Path) -> None:
    """Lint and the manifest share each skill's work among forked workers (SKILLPACK_JOBS):
    lock and bundle bytes and the first refusal are the same for any number of workers."""
    project = make_project(tmp_path / "p")
    for i in range(7):
        write_skill(project / "skills", f"extra-{i}", files={"notes.md": f"note {i}\n"})
    outputs: dict[tuple[str, str], tuple[bytes, bytes]] = {}
    for jobs in ("1", "3"):
        for lint in ("--lint", "--no-lint"):
            out = tmp_path / f"{jobs}{lint}.skp"
            flags = [] if lint == "--lint" else [lint]
            proc = run_cli("build", project, "-o", out, *flags, env={"SKILLPACK_JOBS": jobs})
            assert proc.returncode == 0, proc.stderr
            lock = (project / "skillpack.lock").read_bytes()
            outputs[jobs, lint] = (out.read_bytes(), lock)
    assert len(set(outputs.values())) == 1
    write_skill(project / "skills", "extra-5", frontmatter="name: extra-5\ndescription: [x\n")
    for lint in ("--lint", "--no-lint"):
        flags = [] if lint == "--lint" else [lint]
        refusals = set()
        for jobs in ("1", "3"):
            proc = run_cli("build", project, "-o", tmp_path / "x.skp", *flags,
                           env={"SKILLPACK_JOBS": jobs})  # fmt: skip
            assert proc.returncode == 1
            assert "SP003" in proc.stderr and "extra-5/SKILL.md" in proc.stderr
            refusals.add(proc.stderr)
        assert len(refusals) == 1, refusals


def test_build_options_and_usage_errors(tmp_path: Path) -> None:
    """build's options, its usage errors, and the typer app run in process (skillpack.cli.run)."""
    proc = run_cli("build", "--help")
    assert proc.returncode == 0
    for option in ("--output", "--locked", "--no-lint", "--compression", "--config", "--sign",
                   "--key", "--identity-token", "--trust-config", "--staging"):  # fmt: skip
        assert option in proc.stdout
    project = make_project(tmp_path / "p")
    bad = run_cli("build", project, "--compression", "zip")
    assert bad.returncode == 2
    assert "invalid choice: 'zip'" in bad.stderr
    unsigned = run_cli("build", project, "-o", tmp_path / "k.skp", "--key", tmp_path / "k")
    assert unsigned.returncode == 2
    assert "SIG020" in unsigned.stderr and not (tmp_path / "k.skp").exists()
    forwarded = tmp_path / "typer.skp"
    code = "import sys; from skillpack.cli import run; sys.exit(run(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, "build", project, "-o", forwarded],
        env=cli_env(None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"built {forwarded}" in proc.stdout
    assert forwarded.read_bytes() == build(project, tmp_path / "direct.skp").read_bytes()


def test_build_output_and_lint_gate_summary(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    proc = run_cli("build", project)
    assert proc.returncode == 0, proc.stderr
    out = project / "dist" / "demo-1.0.0.skp"
    assert out.is_file()
    lines = proc.stdout.splitlines()
    assert lines[1] == "built " + str(out) or lines[1].endswith("dist/demo-1.0.0.skp")
    digest = lines[2].strip()
    import hashlib

    assert digest == "sha256:" + hashlib.sha256(out.read_bytes()).hexdigest()
    assert lines[3].strip().startswith("3 skills, 7 files, ")
    assert lines[3].strip().endswith("(lint: passed)")
    assert "\r" not in proc.stderr  # no progress bar without a terminal


def test_examples_build_verify_inspect(tmp_path: Path) -> None:
    project = tmp_path / "examples"
    shutil.copytree(EXAMPLES, project)
    bundle = build(project, tmp_path / "ex.skp")
    assert (project / "skillpack.lock").read_bytes() == (EXAMPLES / "skillpack.lock").read_bytes()
    verify = run_cli("verify", bundle)
    assert verify.returncode == 0, verify.stderr
    assert "acme-skills 1.0.0, 5 skills, 10 files verified" in verify.stdout
    inspect = run_cli("inspect", bundle)
    assert "skill acme/billing/refunds (2 files, 809 bytes)" in inspect.stdout
    assert "scripts/extract.py x" in inspect.stdout
    assert inspect.stdout.rstrip().endswith(
        "total: 5 skills, 10 files, 4708 bytes\nscan: 0 errors, 0 warnings"
    )


def _build_verify_inspect(tree: Path, tmp_path: Path) -> tuple[str, Path]:
    """Build a bundle of the skills in ``tree``, verify it and check that inspect counts
    every file and skill on disk; the verify output and the bundle."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "skillpack.toml").write_text(
        f'name = "{tree.name}"\nversion = "1.0.0"\nroots = ["{tree}"]\n'
    )
    bundle = build(project, tmp_path / f"{tree.name}.skp")
    verify = run_cli("verify", bundle)
    assert verify.returncode == 0, verify.stderr
    info = json.loads(run_cli("inspect", bundle, "--format", "json").stdout)
    on_disk = sorted(p for p in tree.rglob("*") if p.is_file() and not p.name.startswith("."))
    assert info["totals"]["files"] == len(on_disk)
    assert info["totals"]["bytes"] == sum(p.stat().st_size for p in on_disk)
    assert {s["frontmatter"]["name"] for s in info["skills"]} == {p.name for p in tree.iterdir()}
    return verify.stdout, bundle


def test_sample_build_verify_inspect(tmp_path: Path) -> None:
    verify, bundle = _build_verify_inspect(SAMPLE, tmp_path)
    assert "sample 1.0.0, 4 skills, 16 files verified" in verify
    inspect = run_cli("inspect", bundle).stdout
    assert "scripts/check_page.py x" in inspect and "scripts/serve.sh x" in inspect
    with zipfile.ZipFile(bundle) as zf:  # binary assets byte for byte
        for name in ("poster-design/assets/swatch.png", "theme-kit/assets/palettes.json.gz"):
            assert zf.read(name) == (SAMPLE / name).read_bytes()


@pytest.mark.parametrize("tree", public_trees(), ids=lambda p: p.name)
def test_public_trees_build_verify_inspect(tree: Path, tmp_path: Path) -> None:
    """A collection of skills with licenses, binary fonts and scripts (the look-alike,
    and the real one when it is beside the checkout) builds, verifies and inspects."""
    verify, _ = _build_verify_inspect(tree, tmp_path)
    assert ("12 skills" if tree == CORPUS else "5 skills") in verify


def test_a_tree_without_skills_is_not_built(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    (empty / "docs" / "README.md").write_text("no skills here\n")
    proc = run_cli("build", empty)
    assert proc.returncode == 2
    assert "BLD011 no skills found under" in proc.stderr and str(empty) in proc.stderr
    assert not (empty / "dist").exists() and not (empty / "skillpack.lock").exists()


@pytest.mark.parametrize(("compression", "budget"), [("deflate", None), ("stored", None),
                                                    ("deflate", 0)])  # fmt: skip
def test_entries_made_while_hashing_are_the_entries_the_writer_makes(
    tmp_path: Path, compression: str, budget: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build makes each file's archive entry from the bytes it hashed (in the
    workers); the bundle is byte for byte the one the writer makes reading every file
    again, large files (read again by the writer) and nested skills included."""
    from skillpack.build.builder import build as build_bundle
    from skillpack.bundle.writer import write_bundle
    from skillpack.content import TreeSource
    from skillpack.lockfile.lock import render_lock
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover, file_paths
    from skillpack.source.entries import WHOLE_READ_MAX, build_manifest

    if budget is not None:  # past the memory budget: the writer reads every file again
        monkeypatch.setattr("skillpack.build.pipeline.KEPT_BUDGET", budget)
    project = make_project(tmp_path / "p")
    big = random.Random(7).randbytes(WHOLE_READ_MAX + 1)
    write_skill(project / "skills", "large", files={"assets/big.bin": big, "ü.md": "ü\n"})
    config = resolve_config([project])
    built = build_bundle(config, output=tmp_path / "a.skp", compression=compression, epoch=0)
    manifest = build_manifest(discover(config))
    tree = discover(config)
    with open(tmp_path / "b.skp", "wb") as fh:
        write_bundle(
            fh,
            manifest,
            render_lock(manifest),
            TreeSource(manifest, file_paths(tree.skills)),
            compression=compression,  # type: ignore[arg-type]
            epoch=0,
        )
    assert built.output.read_bytes() == (tmp_path / "b.skp").read_bytes()
    with zipfile.ZipFile(built.output) as zf:
        assert zf.read("large/assets/big.bin") == big
        assert zf.testzip() is None


def test_metadata_entries_made_of_other_bytes_are_not_used(tmp_path: Path) -> None:
    """The lock and index entries a build compresses ahead (MetadataEntries) are placed
    only when made of the lock, index, compression and stamp being written; others are
    made again, and the archive is the one written without them. A build run as a
    library keeps none of its objects past its end (only the entry point, which ends
    the process without teardown, has them kept)."""
    from skillpack._internal import memory
    from skillpack.build.builder import build as build_bundle
    from skillpack.bundle.writer import MetadataEntries, write_bundle
    from skillpack.bundle.zipformat import dos_datetime
    from skillpack.content import TreeSource
    from skillpack.lockfile.lock import render_lock_and_index
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover, file_paths
    from skillpack.source.entries import build_manifest

    project = make_project(tmp_path / "p")
    config = resolve_config([project])
    tree = discover(config)
    manifest = build_manifest(tree)
    lock, index = render_lock_and_index(manifest)
    source = TreeSource(manifest, file_paths(tree.skills))
    written = []
    for metadata in (
        None,
        MetadataEntries(lock, index, "deflate", dos_datetime(0)),
        MetadataEntries(lock + b"# other\n", index, "deflate", dos_datetime(0)),
        MetadataEntries(lock, index, "stored", dos_datetime(0)),
        MetadataEntries(lock, index, "deflate", dos_datetime(86400 * 365 * 20)),
    ):
        out = io.BytesIO()
        write_bundle(out, manifest, lock, source, epoch=0, index=index, metadata=metadata)
        written.append(out.getvalue())
    assert all(w == written[0] for w in written)
    built = build_bundle(config, output=tmp_path / "a.skp", epoch=0)
    assert built.output.read_bytes() == written[0]
    assert memory._kept is None


def test_entries_made_ahead_are_placed_as_made(tmp_path: Path) -> None:
    """When every file's entry was made ahead (a build's workers make them), the writer
    only places them: the archive is the one it writes reading every file itself, and
    the progress counts each file once, in order. One entry made at another time
    stamp, and the files are read and compressed again, to the same archive."""
    from skillpack.bundle.writer import PreparedEntry, archive_files, prepare_entry, write_bundle
    from skillpack.bundle.zipformat import dos_datetime
    from skillpack.content import TreeSource
    from skillpack.lockfile.lock import render_lock
    from skillpack.manifest import FileEntry
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover, file_paths
    from skillpack.source.entries import build_manifest

    project = make_project(tmp_path / "p")
    tree = discover(resolve_config([project]))
    manifest = build_manifest(tree)
    lock = render_lock(manifest)
    paths = file_paths(tree.skills)
    source = TreeSource(manifest, paths)
    files = archive_files(manifest)

    def made(name: str, f: FileEntry, stamp: tuple[int, int]) -> PreparedEntry:
        data = Path(paths[f.uri]).read_bytes()
        return prepare_entry(name, data, f.executable, "deflate", stamp, f.digest)

    ahead = {name: made(name, f, dos_datetime(0)) for name, f in files}
    stale = {**ahead, files[0][0]: made(*files[0], (0, 33))}
    written = []
    for prepared in (None, ahead, stale):
        out, counted = io.BytesIO(), []
        progress = counted.append
        write_bundle(out, manifest, lock, source, epoch=0, prepared=prepared,
                     progress=lambda done, total, seen=progress: seen((done, total)))  # fmt: skip
        assert counted == [(i, len(files)) for i in range(1, len(files) + 1)]
        written.append(out.getvalue())
    assert written[1] == written[0] and written[2] == written[0]


def test_the_writer_judges_the_names_not_judged_before() -> None:
    """The writer refuses entry names that land on one file on macOS and Windows
    (BLD003) unless every name is among names already found safe together (a build's
    gate judged its tree's: SP207, SP210); names judged in part are judged again."""
    from skillpack.bundle.writer import BuildError, archive_files
    from skillpack.manifest import FileEntry, Manifest, SkillEntry

    def manifest(*paths: str) -> Manifest:
        files = tuple(FileEntry(p, f"skill://s/{p}", 1, "sha256:" + "0" * 64) for p in paths)
        return Manifest("n", "1.0.0", (SkillEntry("s", "skill://s/SKILL.md", {}, files),))

    safe = manifest("SKILL.md", "b.md", "a.md")
    expected = [("s/SKILL.md", safe.skills[0].files[0]), ("s/a.md", safe.skills[0].files[2]),
                ("s/b.md", safe.skills[0].files[1])]  # fmt: skip
    assert archive_files(safe) == expected
    assert archive_files(safe, {"s/SKILL.md", "s/a.md", "s/b.md", "s/c.md"}) == expected
    colliding = manifest("SKILL.md", "a.md", "A.md")
    for judged in (None, {"s/SKILL.md", "s/a.md"}, set()):
        with pytest.raises(BuildError) as caught:
            archive_files(colliding, judged)
        assert caught.value.code == "BLD003" and "s/A.md and s/a.md" in caught.value.message


def test_a_file_changed_after_it_was_hashed_is_not_archived(tmp_path: Path) -> None:
    """Files the writer reads again (over 1 MiB, or past the memory budget) are checked
    against the manifest: a change since hashing stops the build with BLD001, naming the
    file; entries made from other bytes than the manifest's are not used."""
    from skillpack.bundle.writer import BuildError, prepare_entry, write_bundle
    from skillpack.content import TreeSource
    from skillpack.lockfile.lock import render_lock
    from skillpack.manifest import sha256_digest
    from skillpack.source.config import resolve_config
    from skillpack.source.discovery import discover, file_paths
    from skillpack.source.entries import build_manifest

    project = make_project(tmp_path / "p")
    config = resolve_config([project])
    tree = discover(config)
    manifest = build_manifest(tree)
    checklist = project / "skills" / "code-review" / "references" / "checklist.md"
    other = b"other bytes\n"
    name = "code-review/references/checklist.md"
    stale = prepare_entry(name, other, False, "deflate", (0, 33), sha256_digest(other))
    checklist.write_text("- [ ] tests\n- [ ] docs\n")
    out = tmp_path / "out.skp"
    with open(out, "wb") as fh, pytest.raises(BuildError) as caught:
        write_bundle(
            fh,
            manifest,
            render_lock(manifest),
            TreeSource(manifest, file_paths(tree.skills)),
            epoch=0,
            prepared={name: stale},
        )
    assert caught.value.code == "BLD001"
    assert "skill://code-review/references/checklist.md changed" in caught.value.message


def test_build_says_when_every_uri_starts_with_one_directory(tmp_path: Path) -> None:
    """Without 'roots', skills under skills/ are served as skill://skills/NAME/...: build
    says so and names the setting that drops the prefix; not when roots is set, nor when
    the skills do not share one directory."""
    write_skill(tmp_path / "p" / "skills", "demo")
    proc = run_cli("build", cwd=tmp_path / "p")
    assert proc.returncode == 0, proc.stderr
    assert "note: no 'roots' is configured, so every URI starts with 'skills/' " in proc.stderr
    assert '(skill://skills/demo/SKILL.md); add roots = ["skills"]' in proc.stderr
    (tmp_path / "p" / "skillpack.toml").write_text('roots = ["skills"]\n')
    proc = run_cli("build", cwd=tmp_path / "p")
    assert proc.returncode == 0 and "note:" not in proc.stderr, proc.stderr
    write_skill(tmp_path / "q", "top")
    write_skill(tmp_path / "q" / "more", "other")
    proc = run_cli("build", cwd=tmp_path / "q")
    assert proc.returncode == 0 and "note:" not in proc.stderr, proc.stderr
