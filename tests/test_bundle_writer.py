"""The bundle writer frames the zip structures itself (it writes entries compressed ahead
of time, in parallel); the bytes are the ones the standard library's ``zipfile`` writes
for the same entries."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path

import pytest

from tests._bundles import make_project
from tests.conftest import run_cli, write_skill


def _zipfile_copy(bundle: bytes) -> bytes:
    """``bundle``'s entries (name, bytes, mode, method, timestamp) and comment written
    again by ``zipfile``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(bundle)) as source, zipfile.ZipFile(out, "w") as copy:
        for item in source.infolist():
            info = zipfile.ZipInfo(item.filename, item.date_time)
            info.create_system = 3  # Unix: the mode is in the high bits of external_attr
            info.external_attr = item.external_attr
            info.compress_type = item.compress_type
            copy.writestr(info, source.read(item), compresslevel=6)
        copy.comment = source.comment
    return out.getvalue()


@pytest.mark.parametrize("compression", ["deflate", "stored"])
def test_the_writer_writes_what_zipfile_writes(tmp_path: Path, compression: str) -> None:
    project = make_project(tmp_path / "p")  # nested skill, executable, binary file
    rng = random.Random(11)
    noise = rng.randbytes(4096)  # deflate would not shrink it: stored
    words = " ".join(rng.choices(["alpha", "beta", "gamma", "delta\n"], k=240_000))
    write_skill(
        project / "skills",
        "mixed",
        files={
            "ünïcode/naïve.md": "UTF-8 flag on this name\n",
            "empty.txt": b"",
            "assets/noise.bin": noise,
            "assets/big.txt": words,  # over 1 MiB: the writer reads it again
        },
    )
    out = tmp_path / "out.skp"
    proc = run_cli(
        "build", project, "-o", out, "--compression", compression,
        env={"SKILLPACK_JOBS": "1", "SOURCE_DATE_EPOCH": "1700000000"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    bundle = out.read_bytes()
    with zipfile.ZipFile(out) as zf:
        methods = {i.filename: i.compress_type for i in zf.infolist()}
        assert zf.getinfo("tools/scripts/run.sh").external_attr >> 16 == 0o100755
        assert zf.getinfo("mixed/ünïcode/naïve.md").flag_bits & 0x800
        assert zf.getinfo("code-review/SKILL.md").date_time == (2023, 11, 14, 22, 13, 20)
    if compression == "deflate":  # both methods are exercised
        assert methods["mixed/assets/noise.bin"] == zipfile.ZIP_STORED
        assert methods["mixed/assets/big.txt"] == zipfile.ZIP_DEFLATED
    else:
        assert set(methods.values()) == {zipfile.ZIP_STORED}
    assert _zipfile_copy(bundle) == bundle
