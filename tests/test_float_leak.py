"""The float-leak warning: a Var converted to a plain number (``float``, ``math.*``, ``int``,
``.item()``) while a gradient is being recorded issues ``revad.RevadWarning`` once per line of
code, never from revad's own code, never outside a recording; ``revad.gradient`` and
``value_and_grad`` refuse a plain number returned by ``f`` unless told it is constant on purpose.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var


@pytest.fixture
def caught() -> Iterator[list[warnings.WarningMessage]]:
    """The RevadWarnings issued in the test, with every filter letting them through."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        yield w


def leaks(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, revad.RevadWarning)]


def test_the_warning_class() -> None:
    assert issubclass(revad.RevadWarning, UserWarning)
    assert not issubclass(revad.RevadWarning, revad.RevadError)
    assert revad.RevadWarning.__module__ == "revad"


def test_float_in_a_gradient_warns_once_per_line(caught: list[Any]) -> None:
    def f(x: Any) -> Any:
        for _ in range(3):
            c = float(x)  # one line, three conversions: one warning
        return x * c

    value, g = revad.gradient(f, 2.0)
    assert (value, g) == (4.0, 2.0)  # the cut derivative: 2, not 4
    found = leaks(caught)
    assert len(found) == 1
    w = found[0]
    assert "float() of a revad.Var while a gradient is being recorded" in str(w.message)
    assert "revad.exp" in str(w.message) and "v.value" in str(w.message)
    assert w.filename == __file__
    # The line of the conversion, not a line inside revad.
    assert "c = float(x)" in open(w.filename, encoding="utf-8").read().splitlines()[w.lineno - 1]
    # The same line again, in a later gradient: no second warning.
    revad.gradient(f, 3.0)
    assert len(leaks(caught)) == 1


def test_each_conversion_warns_at_its_own_line(caught: list[Any]) -> None:
    def f(v: Any) -> Any:
        a = math.exp(v[0])
        b = int(v[1])
        c = v[2].item()
        d = float(v[0])
        return v[0] * (a + b + c + d)

    revad.gradient(f, [0.5, 2.0, 3.0])
    messages = [str(w.message) for w in leaks(caught)]
    assert len(messages) == 4
    assert sum(m.startswith("int() of") for m in messages) == 1
    assert sum(m.startswith(".item() of") for m in messages) == 1
    assert sum(m.startswith("float() of") for m in messages) == 2  # math.exp calls __float__
    lines = sorted(w.lineno for w in leaks(caught))
    assert len(set(lines)) == 4


def test_item_of_an_array_var_warns(caught: list[Any]) -> None:
    def f(x: Any) -> Any:
        scale = x[1:2].item()
        return revad.sum(x) * scale

    revad.gradient(f, np.array([1.0, 2.0]))
    assert len(leaks(caught)) == 1


def test_value_and_grad_and_tape_blocks_record_too(caught: list[Any]) -> None:
    revad.value_and_grad(lambda x: x * float(x))(2.0)
    with revad.Tape():
        x = Var(2.0)
        y = x * math.sqrt(x)
        assert len(leaks(caught)) == 2
        y.grad()
        float(y)  # after the sweep: reading a result is no leak
        int(x)
    revad.jacobian(lambda v: [v[0] * float(v[1])], [1.0, 2.0])
    assert len(leaks(caught)) == 3


def test_no_warning_outside_a_recording(caught: list[Any]) -> None:
    x = Var(2.0)  # the default tape, interactively
    assert float(x * x) == 4.0 and int(x) == 2 and math.exp(0 * x) == 1.0
    with revad.Tape():
        y = Var(3.0)
        assert y.value == 3.0  # .value never warns
        assert Var(np.ones(2)).value.sum() == 2.0
    assert float(y) == 3.0  # stale: its scope ended
    assert leaks(caught) == []


def test_revads_own_code_never_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        from revad.testing import check_gradient

        check_gradient(lambda v: revad.sum(np.exp(v) * v), [np.array([0.5, 1.0, 1.5])])
        check_gradient(lambda x: x * revad.log(x), [2.0])
        m = np.array([[2.0, 0.5], [0.5, 1.0]])
        revad.gradient(lambda a: revad.linalg.det(a) + revad.linalg.slogdet(a)[1], m)
        revad.gradient(lambda a: np.sum(revad.linalg.solve(a, np.ones(2))), m)
        revad.gradient(lambda v: revad.normal_lpdf(v, 0.0, 1.0), [0.5, -0.5])
        revad.gradient(lambda v: np.sum(np.stack([v[0], v[1]]) ** 2), [1.0, 2.0])
        revad.jacobian(lambda v: v * 2.0, np.array([1.0, 2.0]))
        revad.value_and_grad(lambda x, y: np.sum(np.maximum(x, y)), argnums=(0, 1))(
            np.array([1.0, 3.0]), np.array([2.0, 2.0])
        )
        # Arrays of scalar Vars, comparisons and branching by value are no leaks.
        revad.gradient(lambda v: np.array(v).sum() if v[0] > 0 else v[1], [1.0, 2.0])


def test_warnings_can_be_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        with pytest.raises(revad.RevadWarning):
            revad.gradient(lambda x: x * float(x), 2.0)  # a line of its own


def test_a_constant_result_is_refused_unless_allowed() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", revad.RevadWarning)
        with pytest.raises(TypeError, match=r"f returned a plain number \(4\.0, a float\)"):
            revad.gradient(lambda x: float(x) * 2.0, 2.0)
        with pytest.raises(TypeError, match="allow_constant=True"):
            revad.gradient(lambda v: math.exp(v[0]), [1.0])
        with pytest.raises(TypeError, match="a float64"):
            revad.gradient(lambda v: np.float64(1.0), np.ones(2))
        with pytest.raises(TypeError, match="value_and_grad: f returned a plain number"):
            revad.value_and_grad(lambda x: 3.0)(1.0)
        with pytest.raises(TypeError, match="allow_constant"):
            revad.grad(lambda x, y: 2.0, argnums=1)(1.0, 2.0)
    assert revad.gradient(lambda x: 3.0, 1.0, allow_constant=True) == (3.0, 0.0)
    value, g = revad.value_and_grad(lambda x: 3.0, allow_constant=True)(np.ones(2))
    assert value == 3.0 and np.array_equal(g, [0.0, 0.0])
    assert revad.grad(lambda x: 3.0, allow_constant=True)(1.0) == 0.0
    vg = revad.value_and_grad(lambda x: x, allow_constant=True)
    assert vg.allow_constant and not revad.value_and_grad(lambda x: x).allow_constant
    # A Var returned that does not depend on x is still a Var: no error, a zero gradient.
    assert revad.gradient(lambda x: Var(2.0) * 3.0, 1.0) == (6.0, 0.0)
