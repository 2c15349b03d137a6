"""The layers hold: the Python binding's modules (crates/revad-py/src) use each other one way only
and its families never use each other.

A module's dependencies are read from its source: every ``crate::name`` path (in ``use`` lines,
in code and in macros, ``$crate::name`` included; comments left out), every ``super::name`` that
reaches the crate root, and in the crate root every ``name::`` path, names a module of the crate
that it uses. No compiled code is involved, so these tests run without building anything.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BINDING = ROOT / "crates" / "revad-py" / "src"

# `crate::name` or `crate::{a, b::c, ...}`; `super::…::name` or `super::…::{...}`.
CRATE_PATH = re.compile(r"\bcrate::(?:\{([^}]*)\}|(\w+))")
SUPER_PATH = re.compile(r"\b((?:super::)+)(?:\{([^}]*)\}|(\w+))")
ROOT_PATH = re.compile(r"(?<![\w:$])(\w+)::")
LINE_COMMENT = re.compile(r"//.*")


def modules(src: Path) -> set[str]:
    """The top-level modules of the crate rooted at ``src``: its files and folders."""
    names = {p.stem for p in src.glob("*.rs")} | {p.name for p in src.iterdir() if p.is_dir()}
    return names - {"main"}


def module_of(path: Path, src: Path) -> str:
    """The top-level module a source file belongs to (``lib`` for the crate root)."""
    first = path.relative_to(src).parts[0]
    return first.removesuffix(".rs")


def depth(path: Path, src: Path) -> int:
    """How many ``super::`` lead from the file's module to the crate root."""
    parts = path.relative_to(src).parts
    return len(parts) - (parts[-1] in ("mod.rs", "lib.rs"))


def names(group: str, single: str) -> set[str]:
    """The first component of a path's tail: ``name`` or each entry of ``{a, b::c}``."""
    if single:
        return {single}
    found = {entry.strip().split("::")[0].strip() for entry in group.split(",")}
    return found - {"", "self"}


def uses(text: str, depth: int = 1) -> set[str]:
    """The top-level modules that Rust source ``text``, in a file ``depth`` modules below the
    crate root, names by path."""
    text = LINE_COMMENT.sub("", text)
    found: set[str] = set()
    for group, single in CRATE_PATH.findall(text):
        found |= names(group, single)
    for supers, group, single in SUPER_PATH.findall(text):
        if supers.count("super") == depth:
            found |= names(group, single)
    if depth == 0:
        found |= set(ROOT_PATH.findall(text))
    return found


def graph(src: Path) -> dict[str, set[str]]:
    """module → the other modules of the crate it uses."""
    known = modules(src)
    edges: dict[str, set[str]] = {m: set() for m in known}
    for path in sorted(src.rglob("*.rs")):
        m = module_of(path, src)
        found = uses(path.read_text(encoding="utf-8"), depth(path, src))
        edges.setdefault(m, set())
        edges[m] |= {u for u in found if u in known and u != m}
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle ``[a, b, …, a]`` of the graph, or ``None`` if it has none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n) :] + [n]
            if n not in state and (cycle := visit(n)) is not None:
                return cycle
        path.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (cycle := visit(m)) is not None:
            return cycle
    return None


def families(lib: Path) -> list[str]:
    """The families that ``families! { ... }`` in the binding's lib.rs registers."""
    text = LINE_COMMENT.sub("", lib.read_text(encoding="utf-8"))
    block = re.search(r"^families!\s*\{(.*?)\}", text, re.MULTILINE | re.DOTALL)
    assert block is not None, f"{lib} has no families! {{ ... }} list"
    return [name.strip() for name in block.group(1).split(",") if name.strip()]


def describe(edges: dict[str, set[str]]) -> str:
    return "\n".join(f"  {m} -> {', '.join(sorted(d)) or '-'}" for m, d in sorted(edges.items()))


def test_the_checker_reads_paths_and_finds_cycles(tmp_path: Path) -> None:
    (tmp_path / "lib.rs").write_text("mod a;\nmod b;\nmod c;\nfn f() { a::x() }\n")
    (tmp_path / "a.rs").write_text("use crate::{b::f, c};\n// crate::lib is a comment\n")
    (tmp_path / "b.rs").write_text("fn g() { $crate::c::h() }\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "mod.rs").write_text("mod d;\nfn h() {}\n")
    (tmp_path / "c" / "d.rs").write_text("use super::h;\n")
    edges = graph(tmp_path)
    assert edges == {"lib": {"a"}, "a": {"b", "c"}, "b": {"c"}, "c": set()}
    assert find_cycle(edges) is None
    (tmp_path / "c" / "d.rs").write_text("use super::super::a::x;\n")
    assert find_cycle(graph(tmp_path)) == ["a", "b", "c", "a"]


def test_the_binding_has_no_cycle() -> None:
    edges = graph(BINDING)
    cycle = find_cycle(edges)
    assert cycle is None, (
        f"crates/revad-py/src has a cycle: {' -> '.join(cycle)}\n"
        f"modules and what they use:\n{describe(edges)}"
    )


def test_the_binding_families_do_not_use_each_other() -> None:
    edges = graph(BINDING)
    fams = families(BINDING / "lib.rs")
    assert fams, "no family is registered"
    for f in fams:
        assert f in edges, f"family {f} is registered but crates/revad-py/src/{f}.rs is missing"
        others = edges[f] & set(fams)
        assert not others, (
            f"family {f} uses the families {sorted(others)}; move what they share into a "
            "module below the families (args, handle, convert, ops, index)"
        )
