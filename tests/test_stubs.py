"""The type stubs cannot drift: ``mypy.stubtest`` checks python/revad/*.pyi (and the typed
pure-Python modules) against the installed, compiled package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import revad

ROOT = Path(__file__).resolve().parent.parent
ALLOWLIST = ROOT / "tests" / "stubtest_allowlist.txt"
PACKAGE = Path(revad.__file__).resolve().parent


def test_stub_files_ship_with_the_package() -> None:
    for name in ("_revad.pyi", "__init__.pyi", "testing.pyi", "__main__.pyi", "py.typed"):
        assert (PACKAGE / name).is_file(), f"{name} is missing from {PACKAGE}"


def test_every_allowlist_entry_has_a_reason() -> None:
    for number, line in enumerate(ALLOWLIST.read_text(encoding="utf-8").splitlines(), 1):
        entry, _, reason = line.partition("#")
        if entry.strip():
            assert len(reason.strip()) >= 10, f"{ALLOWLIST.name}:{number}: give a reason"


def test_stubtest(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (pip install mypy)")
    env = dict(os.environ, MYPY_CACHE_DIR=str(tmp_path / "mypy_cache"))
    run = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "revad", "--allowlist", str(ALLOWLIST)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"stubtest found differences:\n{run.stdout}\n{run.stderr}"
    assert "Success" in run.stdout
