"""revad's public namespace: ``dir(revad)`` shows revad's own names and nothing the package
imports for itself (``Any``, ``Callable``, ``functools``, ...), and every name in ``__all__``
exists and has a docstring."""

from __future__ import annotations

import types

import revad

# What a helper import would leak if it were not private: typing names, modules, the future
# import's feature name.
LEAKS = {
    "Any", "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "Optional", "Union",
    "TYPE_CHECKING", "annotations", "functools", "typing", "collections", "np", "numpy",
    "math", "os", "sys",
}


def test_no_helper_imports_in_the_namespace() -> None:
    assert not LEAKS & set(dir(revad))


def test_every_public_name_is_in_all() -> None:
    public = {name for name in dir(revad) if not name.startswith("_")}
    # Submodules (revad.testing) appear once imported; they are revad's own.
    submodules = {
        name for name in public
        if isinstance(getattr(revad, name), types.ModuleType)
        and getattr(revad, name).__name__ == f"revad.{name}"
    }
    assert public - submodules == set(revad.__all__)


def test_all_names_exist_once_and_are_documented() -> None:
    assert len(revad.__all__) == len(set(revad.__all__)), "a name is listed twice"
    assert {"Var", "Tape", "gradient", "value_and_grad", "grad", "normal_lpdf"} <= set(
        revad.__all__
    )
    undocumented = [
        name for name in revad.__all__
        if not (getattr(revad, name).__doc__ or "").strip()
    ]
    assert not undocumented, f"no docstring: {undocumented}"


def test_star_import_gives_all() -> None:
    namespace: dict[str, object] = {}
    exec("from revad import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(revad.__all__)
