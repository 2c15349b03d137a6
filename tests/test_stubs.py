"""The type stubs cannot drift: ``mypy.stubtest`` checks python/revad/*.pyi (and the typed
pure-Python modules) against the installed, compiled package, and, without mypy, every name the
compiled module exports (each family's ``family!`` table in crates/revad-py/src) must have a
stub and a place in the stub's ``__all__``."""

from __future__ import annotations

import ast
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
    names = ("_revad.pyi", "__init__.pyi", "testing.pyi", "__main__.pyi", "linalg.pyi", "py.typed")
    for name in names:
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


def stub_names(path: Path) -> tuple[set[str], set[str]]:
    """The names a stub defines at its top level, and the names its ``__all__`` lists."""
    defined: set[str] = set()
    listed: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if "__all__" in names and isinstance(node.value, (ast.List, ast.Tuple)):
                listed |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
            defined |= names - {"__all__"}
    return defined, listed


def test_every_compiled_name_has_a_stub() -> None:
    compiled = revad._revad
    exported = set(compiled.__all__)
    public = {name for name in dir(compiled) if not name.startswith("_")}
    assert public == exported, f"public names outside __all__: {sorted(public - exported)}"
    defined, listed = stub_names(PACKAGE / "_revad.pyi")
    missing = sorted(exported - defined)
    assert not missing, (
        f"no stub in python/revad/_revad.pyi for {missing}; write one (the prob family's are "
        "generated: python3 scripts/prob_stubs.py)"
    )
    assert not sorted(exported - listed), f"missing from __all__ in _revad.pyi: {exported - listed}"
    assert not sorted(listed - exported), f"in __all__ of _revad.pyi only: {listed - exported}"


def test_the_package_stub_re_exports_the_compiled_module() -> None:
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text(encoding="utf-8"))
    imports = [
        (alias.name, alias.asname)
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "_revad" and node.level == 1
        for alias in node.names
    ]
    assert ("*", None) in imports, "__init__.pyi must re-export the compiled module's names"
    assert ("__all__", "__all__") in imports, "__init__.pyi must take the compiled __all__"
    assert set(revad.__all__) == (set(revad._revad.__all__) | {"value_and_grad", "grad", "jit"}
                                  | set(revad.model.__all__))
