"""``skillpack inspect BUNDLE [--format json]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skillpack.cli.base import CommandApp
from skillpack.cli.options import FormatOpt, JsonFlag, output_format

app = CommandApp()


@app.command("inspect")
def inspect_command(
    bundle: Annotated[Path, typer.Argument(metavar="BUNDLE", help="The .skp bundle.")],
    chosen: FormatOpt = "text",
    json_flag: JsonFlag = False,
) -> None:
    """List a bundle's skills and files with sizes, digests and totals (verified first)."""
    from skillpack.bundle.inspect import describe_bundle
    from skillpack.bundle.reader import open_bundle
    from skillpack.cli.output import echo_json, plural
    from skillpack.errors import display_path

    with open_bundle(bundle, mode="full") as opened:
        info = describe_bundle(opened)
    if output_format(chosen, json_flag) == "json":
        echo_json(info)
        return
    totals = info["totals"]
    print(f"bundle {display_path(bundle)}: {info['name']} {info['version']}")
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
