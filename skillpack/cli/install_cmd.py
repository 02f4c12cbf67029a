"""``skillpack install [SOURCE...] [-a AGENT]... [-s SKILL]... [-g]``: verified, pinned
skills into the directories agents read; ``--frozen``, ``--upgrade``, ``--check``."""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import (
    AcceptOpt,
    AgentOpt,
    ConfigOpt,
    FormatOpt,
    GlobalOpt,
    PolicyOpt,
)
from skillpack.cli.registry_options import (
    DEFAULT_TIMEOUT,
    InsecureOpt,
    OfflineOpt,
    PasswordStdinOpt,
    TimeoutOpt,
    UsernameOpt,
    flags,
)
from skillpack.cli.signing_options import with_policy_options
from skillpack.signing.policy import SignaturePolicy

if TYPE_CHECKING:
    from skillpack.install.installer import InstallReport, Request
    from skillpack.install.targets import Scope
    from skillpack.policy.admission import Accept
    from skillpack.source.config import Config

app = CommandApp()


@app.command(
    "install",
    epilog="Exit status: 0 installed (or already current, or no drift); 1 a source does "
    "not verify or no longer serves its pin, a conflict or a directory in the way "
    "(nothing written), drift found by --check; 2 usage, configuration or registry error.",
)
@with_policy_options
def install_command(
    sources: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="SOURCE",
            help="A .skp bundle, a skills directory, oci://REGISTRY/REPOSITORY(:TAG|@sha256:"
            "DIGEST), git+URL[@REF][#path=DIR] or github:OWNER/REPO[@REF]; with "
            "--upgrade, skill names or sources to upgrade. Default: what the configuration "
            "declares ([[install]]) and the install lock pins.",
            show_default=False,
        ),
    ] = None,
    agent: AgentOpt = None,
    skill: Annotated[
        list[str] | None,
        typer.Option(
            "-s",
            "--skill",
            metavar="NAME",
            help="Install only this skill (its frontmatter name; repeatable).",
            show_default=False,
        ),
    ] = None,
    global_: GlobalOpt = False,
    path: Annotated[
        str | None,
        typer.Option(
            "--path",
            metavar="DIR",
            help="The subdirectory of the git SOURCEs to install from (the same as the "
            "source's #path=DIR fragment, which the lock records).",
            show_default=False,
        ),
    ] = None,
    plugin: Annotated[
        str | None,
        typer.Option(
            "--plugin",
            metavar="NAME",
            help="Install the skills of this plugin of the SOURCE's marketplace "
            "(.claude-plugin/marketplace.json or .agents/plugins/marketplace.json); the "
            "lock records the plugin's own source, pinned by commit.",
            show_default=False,
        ),
    ] = None,
    from_skills_lock: Annotated[
        Path | None,
        typer.Option(
            "--from-skills-lock",
            metavar="FILE",
            help="Read the skills CLI's skills-lock.json and append the equivalent "
            "[[install]] tables to skillpack.toml (then 'skillpack install' installs and "
            "pins them). Installs nothing itself.",
            show_default=False,
        ),
    ] = None,
    link: Annotated[
        bool,
        typer.Option(
            "--link",
            help="Keep one copy under .agents/skills/NAME and link each agent's directory "
            "to it (default: a plain copy in each).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace a skill directory that skillpack did not install."),
    ] = False,
    frozen: Annotated[
        bool,
        typer.Option(
            "--frozen",
            help="Install exactly what the install lock pins; fail if the configuration "
            "asks for more or a source no longer serves its pin. Never writes the lock.",
        ),
    ] = False,
    upgrade: Annotated[
        bool,
        typer.Option(
            "--upgrade",
            help="Resolve tags and files again (all, or the SOURCE names given), show what "
            "changes and install it.",
        ),
    ] = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Compare the installed skills with the install lock; exit 1 on drift. "
            "Writes nothing.",
        ),
    ] = False,
    output_format: FormatOpt = "text",
    require_signature: Annotated[
        bool,
        typer.Option(
            "--require-signature",
            help="Refuse every source whose signature does not verify under the signature "
            "options (which are then required).",
        ),
    ] = False,
    config: ConfigOpt = None,
    username: UsernameOpt = None,
    password_stdin: PasswordStdinOpt = False,
    insecure_registry: InsecureOpt = False,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    offline: OfflineOpt = False,
    accept: AcceptOpt = None,
    policy_file: PolicyOpt = None,
    *,
    policy: SignaturePolicy,
) -> int:
    """Install skills from verified bundles into the directories coding agents read.

    Every source is verified in full before a byte is written (every file against the
    bundle's lock; with signature options, its signature), each skill lands at
    AGENT_DIR/NAME with exactly the bundle's files, and what was installed is pinned in
    skillpack-install.lock beside the configuration: each source's digest, its signer,
    every file's size and sha256. A skill directory skillpack did not install is never
    replaced (unless --force); a re-run that changes nothing writes nothing.
    """
    from skillpack.errors import UsageError
    from skillpack.install.targets import install_scope

    scope, cfg, lock_path = install_scope(global_, config)
    if from_skills_lock is not None:
        if sources or check or frozen or upgrade or global_:
            raise UsageError(
                "USE000",
                "--from-skills-lock takes no SOURCE and no other install mode",
                hint="'skillpack install --from-skills-lock skills-lock.json', then "
                "'skillpack install'",
            )
        return _migrate(from_skills_lock, cfg, scope.project)
    if check:
        if sources or agent or skill or link or force or frozen or upgrade or path or plugin:
            raise UsageError(
                "USE000",
                "--check takes no SOURCE and no other install option",
                hint="'skillpack install --check [-g] [-f json]'",
            )
        return _check(scope, lock_path, output_format == "json")
    from skillpack.install.installer import Settings, install
    from skillpack.policy.file import load_policy

    accepts: tuple[Accept, ...] = ()
    if accept:  # the scanner is imported only when a run scans (a re-run does not)
        from skillpack.policy.admission import parse_accepts

        accepts = parse_accepts(accept)

    registry = functools.cache(
        flags(username, password_stdin, insecure_registry, timeout).client_options
    )
    # every skillpack-policy.toml from here (and the project's root) up to the repository's
    starts = (Path.cwd(),) if scope.global_ else (Path.cwd(), scope.project)
    policy_in_force = load_policy(policy_file, starts, os.environ)
    settings = Settings(
        scope=scope,
        lock_path=lock_path,
        force=force,
        frozen=frozen,
        upgrade=tuple(sources or ()) if upgrade else None,
        registry=registry,
        offline=offline,
        policy=policy,
        require_signature=require_signature,
        admission=policy_in_force.with_accepts(accepts),
    )
    if upgrade:
        requests = _declared(cfg)
    elif sources:
        if path is not None:
            sources = [_with_path(s, path) for s in sources]
        if plugin is not None:
            from skillpack.gitsource.plugin import plugin_source

            sources = [plugin_source(s, plugin, Path.cwd()) for s in sources]
        requests = _given(sources, agent or (), skill or (), link, policy, require_signature)
    else:
        if agent or skill or link or path or plugin:
            raise UsageError(
                "USE000",
                "-a/--agent, -s/--skill, --link, --path and --plugin apply to the SOURCE given",
                hint="name a SOURCE, or declare the install in [[install]] of skillpack.toml",
            )
        requests = _declared(cfg)
    report = install(requests, settings, _note)
    _print(report, scope, lock_path, frozen, output_format == "json")
    return 0


def _migrate(path: Path, cfg: Config | None, project: Path) -> int:
    from skillpack._internal.words import plural
    from skillpack.errors import display_path
    from skillpack.install.migrate import migrate

    done = migrate(path, cfg, project)
    shown = display_path(done.config_path)
    for line in done.skipped:
        _note(f"skipped {line}")
    for source in done.kept:
        _note(f"{source}: already declared in {shown}")
    for source, names in sorted(done.sources.items()):
        print(f"[[install]] {source}: {', '.join(sorted(names))}")
    if done.written:
        tables = plural(len(done.sources), "[[install]] table")
        print(f"wrote {tables} to {shown}; run 'skillpack install' to install and pin them")
    else:
        print(f"nothing to add to {shown}")
    return 0


def _with_path(source: str, path: str) -> str:
    """``source`` with ``--path DIR`` as its ``#path=DIR`` fragment."""
    from skillpack.errors import UsageError
    from skillpack.gitsource.spec import is_git_source, redact

    if not is_git_source(source) or "#" in source:
        raise UsageError(
            "USE000",
            f"--path applies to git sources without a #path= fragment: {redact(source)}",
            hint="give git+URL[@REF] or github:OWNER/REPO[@REF] with --path DIR",
        )
    return f"{source}#path={path}"


def _note(message: str) -> None:
    print(message, file=sys.stderr)


def _given(
    sources: list[str],
    agents: list[str] | tuple[str, ...],
    skills: list[str] | tuple[str, ...],
    link: bool,
    policy: SignaturePolicy,
    require: bool,
) -> list[Request]:
    from skillpack.install.installer import Request

    return [
        Request(s, Path.cwd(), tuple(skills), tuple(agents), link, policy, require) for s in sources
    ]


def _declared(cfg: Config | None) -> list[Request]:
    from skillpack.install.installer import Request

    if cfg is None:
        return []
    requests = []
    for decl in cfg.installs:
        policy = SignaturePolicy(**decl.signer) if decl.signer else None
        requests.append(
            Request(
                decl.source,
                cfg.project_dir,
                decl.skills,
                decl.agents,
                decl.link,
                policy,
                decl.require_signature,
                declared=True,
                where=str(cfg.source),
            )
        )
    return requests


def _print(
    report: InstallReport, scope: Scope, lock_path: Path, frozen: bool, as_json: bool
) -> None:
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import display_path

    if as_json:
        echo_json(
            {
                "changes": [
                    {"skill": c.skill, "directory": c.directory, "action": c.action}
                    for c in report.changes
                ],
                "upgrades": [
                    {"source": source, **diff.to_json()} for source, diff in report.upgrades
                ],
                "signers": [
                    {"source": source, "old": _signer_json(old), "new": _signer_json(new)}
                    for source, (old, new) in sorted(report.signers.items())
                ],
                "lock": display_path(lock_path),
                "lock-written": report.lock_written,
                "notes": report.notes,
            }
        )
        return
    from skillpack.install.installer import describe_signer

    signers = dict(report.signers)
    for source, diff in report.upgrades:
        print(f"upgrade {source}: {diff.summary()}")
        for line in diff.lines():
            print(f"  {line}")
        for line in review_lines(diff):
            print(f"  {line}")
        if source in signers:
            old, new = signers.pop(source)
            print(f"  ! review: signer {describe_signer(old)} -> {describe_signer(new)}")
    for source, (old, new) in sorted(signers.items()):  # the same bundle, signed anew
        print(f"! review: {source}: signer {describe_signer(old)} -> {describe_signer(new)}")
    for note in report.notes:
        print(note)
    pins = {p.source: p for p in report.lock.sources}
    sources = {s.name: s.source for s in report.lock.skills}
    done: dict[tuple[str, str], list[str]] = {}  # (skill, action) -> directories
    for change in report.written:
        done.setdefault((change.skill, change.action), []).append(change.directory)
    for (name, action), places in done.items():
        pin = pins.get(sources.get(name, ""))
        origin = f" ({pin.name} {pin.version})" if pin else ""
        print(f"{action} {name}{origin}: {', '.join(places)}")
    changed = {c.skill for c in report.written}
    unchanged = len({c.skill for c in report.changes} - changed)
    if frozen:
        state = "lock unchanged (--frozen)"
    else:
        state = f"wrote {display_path(lock_path)}" if report.lock_written else "lock up to date"
    print(
        f"{plural(len(report.lock.skills), 'skill')} pinned, {len(changed)} written, "
        f"{unchanged} unchanged; {state}"
    )


def _signer_json(signer: object) -> dict[str, str | None] | None:
    from skillpack.install.lockfile import Signer

    if not isinstance(signer, Signer):
        return None
    return {"mode": signer.mode, "identity": signer.identity, "issuer": signer.issuer}


def review_lines(diff: object) -> list[str]:
    """The changes of an upgrade a reviewer must look at again: new or changed scripts
    (executable files, or under scripts/) and changed ``allowed-tools``."""
    from skillpack.changes import ManifestDiff

    assert isinstance(diff, ManifestDiff)
    out = []
    for skill in diff.skills:
        for change in skill.files:
            entry = change.new or change.old
            if (
                change.kind in ("added", "modified", "mode")
                and entry is not None
                and (entry.executable or change.path.startswith("scripts/"))
            ):
                out.append(f"! review: script {skill.skill_path}/{change.path} ({change.kind})")
        for fm in skill.frontmatter:
            if fm.pointer.startswith("/allowed-tools"):
                out.append(f"! review: {skill.skill_path} allowed-tools {fm.kind}")
    return out


def _check(scope: Scope, lock_path: Path, as_json: bool) -> int:
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import SkillpackError, display_path
    from skillpack.install.drift import check_installed
    from skillpack.install.lockfile import read_install_lock

    lock = read_install_lock(lock_path, scope)
    report = check_installed(lock, scope)
    if as_json:
        echo_json({"lock": display_path(lock_path), **report.to_json()})
    else:
        for drift in report.drift:
            print(drift.render())
        for shown in report.unmanaged:
            print(f"unmanaged: {shown} (not installed by skillpack; left alone)")
        for shown in report.leftovers:
            print(f"leftover: {shown} (from an interrupted install; 'skillpack install' "
                  "removes it)")  # fmt: skip
        verdict = "no drift" if report.clean else f"{plural(len(report.drift), 'difference')}"
        directories = plural(report.directories, "directory", "directories")
        print(
            f"{plural(report.skills, 'skill')}, {directories}, "
            f"{plural(report.files, 'file')} checked against {display_path(lock_path)}: "
            f"{verdict}"
        )
    if not report.clean:
        if not as_json:
            local = [d for d in report.drift if d.kind in ("modified", "extra")]
            hint = (
                f"'skillpack install --force' replaces the {plural(len(local), 'file')} "
                "marked modified or extra with the pinned files (a plain install refuses "
                "to, INS017); copy what you want to keep first"
                if local
                else "'skillpack install' restores what the lock pins (nothing of yours is "
                "replaced: no file is modified or extra)"
            )
            err = SkillpackError(
                "INS013", "the installed skills differ from the install lock", hint=hint
            )
            print(err.render(), file=sys.stderr)
        return 1
    return 0
