"""Where skillpack's cache is: never in the working directory or under ``/`` because
HOME is empty or relative (``HOME=`` in a CI job, ``env -i``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillpack.errors import SkillpackError
from skillpack.registry import cache
from skillpack.registry.cache import cache_root


def test_the_precedence_and_absolute_paths_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    home = str(tmp_path / "home")
    assert cache_root({"SKILLPACK_CACHE_DIR": "/c", "HOME": home}) == Path("/c")
    assert cache_root({"SKILLPACK_CACHE_DIR": "rel"}) == tmp_path / "rel"  # as named
    assert cache_root({"XDG_CACHE_HOME": "/x", "HOME": home}) == Path("/x/skillpack")
    # a relative XDG_CACHE_HOME is ignored (the XDG specification says so)
    assert cache_root({"XDG_CACHE_HOME": "x", "HOME": home}) == Path(home, ".cache/skillpack")


@pytest.mark.parametrize("value", ["", ".", "relative/home"])
def test_an_empty_or_relative_home_is_the_accounts_home(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cache, "_account_home", lambda: str(tmp_path / "account"))
    assert cache_root({"HOME": value}) == tmp_path / "account" / ".cache" / "skillpack"
    monkeypatch.setattr(cache, "_account_home", lambda: "")
    with pytest.raises(SkillpackError) as refused:
        cache_root({"HOME": value})
    assert refused.value.code == "REG061" and "not an absolute path" in refused.value.message
    assert not list(tmp_path.iterdir())  # nothing made in the working directory
