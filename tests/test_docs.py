"""The examples in the documentation run: every ```python block of docs/python-quickstart.md,
of docs/linear-algebra.md, of docs/sampling.md, of docs/replay.md and of the README's Python
section (in order, sharing one namespace per document), and the doctests in the docstrings of
the pure-Python modules."""

from __future__ import annotations

import contextlib
import doctest
import io
import re
from pathlib import Path

import pytest

import revad
import revad.linalg
import revad.testing

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown text, with the line of each block's first line."""
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in FENCE.finditer(text)]


def python_section(text: str) -> str:
    """The part of a Markdown text under the first heading that mentions Python, up to the
    next heading of the same or a higher level ('' if there is none). Lines inside fenced
    code blocks (comments start with '#' too) are never headings."""
    lines = text.splitlines(keepends=True)
    in_fence = False
    start: int | None = None
    level = 0
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        heading = None if in_fence else re.match(r"^(#+)\s", line)
        if heading is None:
            continue
        if start is None:
            if re.search(r"\bPython\b", line):
                start, level = i + 1, len(heading.group(1))
        elif len(heading.group(1)) <= level:
            return "".join(lines[start:i])
    return "".join(lines[start:]) if start is not None else ""


def run_blocks(path: Path, blocks: list[tuple[int, str]]) -> None:
    namespace: dict = {"__name__": f"doc:{path.name}"}
    for line, code in blocks:
        # Padded so that a traceback gives the line number in the document.
        compiled = compile("\n" * (line - 1) + code, str(path), "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compiled, namespace)
            except Exception as e:
                raise AssertionError(f"the block at {path.name}:{line} failed: {e!r}") from e


def test_the_block_finder_finds_blocks() -> None:
    text = "# T\n\n```python\nx = 1\n```\n\ntext\n\n```python\ny = 2\n```\n```rust\nno\n```\n"
    assert python_blocks(text) == [(4, "x = 1\n"), (10, "y = 2\n")]
    readme_like = "# A\n## Rust\n```python\nno\n```\n## From Python\n```python\nyes\n```\n## B\n"
    assert [code for _, code in python_blocks(python_section(readme_like))] == ["yes\n"]


def test_python_quickstart_runs() -> None:
    path = ROOT / "docs" / "python-quickstart.md"
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    assert len(blocks) >= 5, "the quickstart lost its examples"
    run_blocks(path, blocks)
    revad.reset()


def test_linear_algebra_guide_runs() -> None:
    path = ROOT / "docs" / "linear-algebra.md"
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    assert blocks, "the linear-algebra guide lost its example"
    run_blocks(path, blocks)
    revad.reset()


def test_sampling_guide_runs() -> None:
    pytest.importorskip("nutpie", reason="the guide samples with nutpie (pip install nutpie)")
    path = ROOT / "docs" / "sampling.md"
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    assert len(blocks) >= 3, "the sampling guide lost its examples"
    run_blocks(path, blocks)
    revad.reset()


def test_replay_guide_runs() -> None:
    path = ROOT / "docs" / "replay.md"
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    assert len(blocks) >= 5, "the replay guide lost its examples"
    run_blocks(path, blocks)
    revad.reset()


def test_a_failing_block_fails_the_test(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    with pytest.raises(AssertionError, match="bad.md:4"):
        run_blocks(path, python_blocks("# Bad\n\n```python\nassert 1 == 2\n```\n"))


def test_readme_python_section_runs() -> None:
    path = ROOT / "README.md"
    blocks = python_blocks(python_section(path.read_text(encoding="utf-8")))
    if not blocks:
        pytest.skip("README.md has no Python section with ```python blocks")
    run_blocks(path, blocks)
    revad.reset()


@pytest.mark.parametrize(
    "module", [revad, revad._revad, revad.linalg, revad.testing, revad.model],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module: object) -> None:
    # Empty globals: revad's own names (round, sum, abs, ...) would shadow the built-ins.
    result = doctest.testmod(
        module, globs={}, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0
    assert result.failed == 0
    revad.reset()
