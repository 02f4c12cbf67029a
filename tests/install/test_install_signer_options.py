"""The command line's signature options are the user's (issue 21, audit 2 and 6): an
``[[install]]`` table's signer never replaces ``--key``/``--require-signature``; a
pinned signer moves only when the command line names a new one, and the upgrade's review
shows the change; installing the same skills from another source string keeps it."""

from __future__ import annotations

import shutil
from pathlib import Path

from skillpack.install.lockfile import read_install_lock
from tests.install.conftest import LOCK, Bundles, Run, ok, refused, snapshot

Keys = tuple[Path, Path]


def _vendor(project: Path, bundle: Path, key: Keys | None, sp: Run) -> Path:
    source = project / "vendor" / "acme.skp"
    source.parent.mkdir(exist_ok=True)
    shutil.copy(bundle, source)
    Path(f"{source}.sigstore.json").unlink(missing_ok=True)
    if key is not None:
        ok(sp("sign", source, "--key", key[0]))
    return source


def _table(project: Path, key: Path | None) -> None:
    line = f'key = "{key}"\n' if key is not None else ""
    (project / "skillpack.toml").write_text(
        'name = "p"\nversion = "1.0.0"\n\n[[install]]\nsource = "vendor/acme.skp"\n'
        f'agents = ["codex"]\n{line}'
    )


def test_a_tables_signer_never_replaces_the_command_lines(
    sp: Run, project: Path, bundles: Bundles, keys: Keys, other_keys: Keys, tmp_path: Path
) -> None:
    """The audit's pull request: the vendor bundle replaced by one signed by key E, the
    table given ``key = "keys/e.pub"``, the lock made by ``install --upgrade``; CI runs
    ``install --frozen --require-signature --key A.pub``: it exited 0."""
    _vendor(project, bundles.v1, other_keys, sp)
    (project / "keys").mkdir()
    shutil.copy(other_keys[1], project / "keys" / "e.pub")
    _table(project, Path("keys/e.pub"))
    ok(sp("install"))  # the pull request's own run: the lock pins key E
    assert read_install_lock(project / LOCK).sources[0].signer is not None
    shutil.rmtree(project / ".agents")
    before = snapshot(tmp_path)
    for args in (("install", "--frozen", "--require-signature", "--key", keys[1]),
                 ("install", "--frozen", "--key", keys[1]),
                 ("install", "--key", keys[1])):  # fmt: skip
        proc = sp(*args)
        assert proc.returncode == 1 and "SIG0" in proc.stderr, (args, proc.stderr)
        assert "the signature options given replace the signer of its [[install]]" in (proc.stderr)
        assert snapshot(tmp_path) == before
    # the user's own key passes, the table's is not needed for it
    ok(sp("install", "--frozen", "--require-signature", "--key", other_keys[1]))


def test_a_tables_new_signer_does_not_move_the_pin(
    sp: Run, project: Path, bundles: Bundles, keys: Keys, other_keys: Keys, tmp_path: Path
) -> None:
    """Pinned with key A; a pull request replaces the bundle (signed by E) and the
    table's key: ``install --upgrade`` moved the pin to E with no word from the user."""
    _vendor(project, bundles.v1, keys, sp)
    _table(project, None)
    ok(sp("install", "--key", keys[1]))
    pinned = (project / LOCK).read_text()
    _vendor(project, bundles.v2, other_keys, sp)
    shutil.copy(other_keys[1], project / "e.pub")
    _table(project, Path("e.pub"))
    before = snapshot(tmp_path)
    err = refused(sp("install", "--upgrade"), "INS019", 1)
    assert "the lock pins its signer (key " in err
    assert (project / LOCK).read_text() == pinned and snapshot(tmp_path) == before
    # the user says so: the pin moves, and the review shows it
    moved = ok(sp("install", "--upgrade", "--key", other_keys[1]))
    assert "! review: signer key " in moved.stdout and " -> key " in moved.stdout


def test_the_upgrade_review_shows_a_signer_change(
    sp: Run, project: Path, bundles: Bundles, keys: Keys, other_keys: Keys
) -> None:
    source = _vendor(project, bundles.v1, keys, sp)
    ok(sp("install", source, "-a", "codex", "--key", keys[1]))
    old = read_install_lock(project / LOCK).sources[0].signer
    _vendor(project, bundles.v2, other_keys, sp)
    proc = ok(sp("install", "--upgrade", "--key", other_keys[1]))
    new = read_install_lock(project / LOCK).sources[0].signer
    assert old is not None and new is not None and old != new
    lines = proc.stdout.splitlines()
    assert f"  ! review: signer key {old.identity} -> key {new.identity}" in lines, proc.stdout
    # the same bundle signed anew (its digest unchanged): the change is shown as well
    _vendor(project, bundles.v2, keys, sp)
    proc = ok(sp("install", "--upgrade", "--key", keys[1]))
    assert (f"! review: vendor/acme.skp: signer key {new.identity} -> key {old.identity}"
            in proc.stdout.splitlines()), proc.stdout  # fmt: skip
    _vendor(project, bundles.v2, other_keys, sp)
    report = ok(sp("install", "--upgrade", "--key", other_keys[1], "-f", "json")).stdout
    assert '"signers": [' in report and f'"identity": "{new.identity}"' in report


def test_another_source_string_keeps_the_pinned_signer(
    sp: Run, project: Path, bundles: Bundles, keys: Keys, tmp_path: Path
) -> None:
    """Installed from b.skp with --key; the same skills from c.skp (unsigned), without
    signature options: 'now from c.skp', a 'not checked' note, exit 0, and the lock lost
    its signer."""
    b = tmp_path / "b.skp"
    shutil.copy(bundles.v1, b)
    ok(sp("sign", b, "--key", keys[0]))
    ok(sp("install", b, "-a", "codex", "--key", keys[1]))
    pinned = (project / LOCK).read_text()
    c = tmp_path / "c.skp"
    shutil.copy(bundles.v1, c)  # the same bytes, no signature beside it
    before = snapshot(tmp_path)
    err = refused(sp("install", c, "-a", "codex"), "INS019", 1)
    assert "was installed from ../b.skp, whose pinned signer is key " in err, err
    assert (project / LOCK).read_text() == pinned and snapshot(tmp_path) == before
    refused(sp("install", c, "-a", "codex", "--key", keys[1]), "SIG001", 1)  # unsigned
    ok(sp("sign", c, "--key", keys[0]))
    refused(sp("install", c, "-a", "codex"), "INS019", 1)  # a key's signature needs --key
    moved = ok(sp("install", c, "-a", "codex", "--key", keys[1]))
    assert "now from ../c.skp (was ../b.skp)" in moved.stdout
    assert read_install_lock(project / LOCK).sources[0].signer is not None


def test_cli_trust_options_replace_a_tables(tmp_path: Path) -> None:
    """How a table's signer and the command line's options combine (docs/install.md):
    a signer on the command line replaces the table's; trust options alone replace the
    table's trust options and keep its signer."""
    from skillpack.install.installer import Request, Settings, _policy_for
    from skillpack.install.targets import Scope
    from skillpack.signing.policy import SignaturePolicy

    table = SignaturePolicy(cert_identity="a@x", cert_oidc_issuer="https://i",
                            trust_config=Path("repo-trust.json"))  # fmt: skip
    request = Request("x.skp", tmp_path, policy=table, declared=True)
    scope = Scope.project_scope(tmp_path, {"HOME": str(tmp_path)})

    def settings(cli: SignaturePolicy | None) -> Settings:
        return Settings(scope, tmp_path / LOCK, policy=cli)

    assert _policy_for(request, settings(None)) == table
    trust = SignaturePolicy(trust_config=Path("mine.json"))
    got = _policy_for(request, settings(trust))
    assert got is not None and got.trust_config == Path("mine.json")
    assert got.cert_identity == "a@x"
    key = SignaturePolicy(key=Path("a.pub"))
    assert _policy_for(request, settings(key)) == key
