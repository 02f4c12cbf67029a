"""``skillpack inspect BUNDLE [--format json]``; BUNDLE may be an ``oci://`` reference
(fetched into the cache, digests checked)."""

from __future__ import annotations

from pathlib import Path

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt, JsonFlag, output_format
from skillpack.cli.registry_options import (
    DEFAULT_TIMEOUT,
    InsecureOpt,
    OfflineOpt,
    PasswordStdinOpt,
    SourceArg,
    TimeoutOpt,
    UsernameOpt,
    flags,
)

app = CommandApp()


@app.command("inspect")
def inspect_command(
    source: SourceArg,
    chosen: FormatOpt = "text",
    json_flag: JsonFlag = False,
    username: UsernameOpt = None,
    password_stdin: PasswordStdinOpt = False,
    insecure_registry: InsecureOpt = False,
    timeout: TimeoutOpt = DEFAULT_TIMEOUT,
    offline: OfflineOpt = False,
) -> None:
    """List a bundle's skills and files with sizes and digests (verified first).

    Totals follow the list, then the content scan's findings (SP5xx).
    An oci:// BUNDLE is fetched into the cache first (manifest and archive digests
    checked; registry options as for pull)."""
    from skillpack.bundle.inspect import describe_bundle
    from skillpack.cli.output import echo_json, plural
    from skillpack.fetch import is_reference

    shown: str
    if is_reference(source):
        from skillpack.fetch import fetch_verified

        options = flags(username, password_stdin, insecure_registry, timeout).client_options()
        with fetch_verified(source, options=options, offline=offline) as fetched:
            shown = fetched.reference
            info = describe_bundle(fetched.bundle)
        info["reference"] = shown
    else:
        from skillpack.bundle.reader import open_bundle
        from skillpack.errors import display_path

        bundle = Path(source)
        shown = display_path(bundle)
        with open_bundle(bundle, mode="full") as opened:
            info = describe_bundle(opened)
    if output_format(chosen, json_flag) == "json":
        echo_json(info)
        return
    totals = info["totals"]
    print(f"bundle {shown}: {info['name']} {info['version']}")
    print(f"  format {info['format']}, {plural(info['size'], 'byte')}, {info['sha256']}")
    print(f"  lock {info['lock-digest']}")
    for skill in info["skills"]:
        files = skill["resources"]
        size = sum(f["size"] for f in files)
        print(f"skill {skill['path']} ({plural(len(files), 'file')}, {plural(size, 'byte')})")
        for f in skill["files"]:
            mark = " x" if f["executable"] else ""
            print(f"  {f['size']:>9}  {f['digest']}  {f['path']}{mark}")
    print(
        f"total: {plural(totals['skills'], 'skill')}, {plural(totals['files'], 'file')}, "
        f"{plural(totals['bytes'], 'byte')}"
    )
    scan = info["scan"]
    print(
        f"scan: {plural(scan['errors'], 'error')}, {plural(scan['warnings'], 'warning')}"
        + (" (skillpack lint BUNDLE explains each)" if scan["findings"] else "")
    )
    for f in scan["findings"]:
        print(
            f"  {f['entry']}:{f['line']}:{f['column']}: {f['code']} {f['severity']} {f['message']}"
        )
