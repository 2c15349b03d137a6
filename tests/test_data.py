"""``revad.Data``: a constant array revad holds itself, made once and shared by every call.

Everything a NumPy data array does, a ``Data`` does with the same values and gradients; it is
immutable (later changes to the source array do not reach it), and bad input gets a clear error.
"""

from __future__ import annotations

import numpy as np
import pytest

import revad
from revad.testing import check_gradient

RNG = np.random.default_rng(7)
X = RNG.standard_normal((9, 3))
Y = RNG.standard_normal(9)


def test_made_from_numpy_lists_and_data_with_shape_and_values() -> None:
    d = revad.Data(X)
    assert d.shape == (9, 3) and d.ndim == 2 and d.size == 27 and len(d) == 9
    np.testing.assert_array_equal(d.value, X)
    np.testing.assert_array_equal(np.asarray(d), X)
    v = revad.Data([1, 2.5, -3])
    assert v.shape == (3,) and v.ndim == 1
    np.testing.assert_array_equal(v.value, [1.0, 2.5, -3.0])
    np.testing.assert_array_equal(revad.Data(v).value, v.value)
    # Non-contiguous and integer arrays are converted once.
    np.testing.assert_array_equal(revad.Data(X.T).value, X.T)
    np.testing.assert_array_equal(revad.Data(np.arange(4)).value, [0.0, 1.0, 2.0, 3.0])
    assert np.asarray(d, dtype=np.float32).dtype == np.float32
    assert "Data(" in repr(v)


def test_is_immutable_and_independent_of_its_source() -> None:
    src = Y.copy()
    d = revad.Data(src)
    src[0] = 1e6
    assert d.value[0] == Y[0]
    out = d.value
    with pytest.raises(ValueError, match="read-only"):
        out[1] = -1e6
    copy = np.array(d.value)
    copy[1] = -1e6
    assert d.value[1] == Y[1]
    with pytest.raises(AttributeError):
        d.shape = (3, 3)  # type: ignore[misc]


def test_matmul_with_a_var_vector_agrees_with_numpy_data() -> None:
    d = revad.Data(X)
    beta = np.array([0.3, -1.1, 0.8])

    def f_data(b: revad.Var) -> revad.Var:
        return revad.normal_lpdf(Y, d @ b, 1.4)

    def f_numpy(b: revad.Var) -> revad.Var:
        return revad.normal_lpdf(Y, X @ b, 1.4)

    dy = revad.Data(Y)

    def f_all_data(b: revad.Var) -> revad.Var:
        return revad.normal_lpdf(dy, d @ b, 1.4)

    v1, g1 = revad.value_and_grad(f_data)(beta)
    v2, g2 = revad.value_and_grad(f_numpy)(beta)
    v3, g3 = revad.value_and_grad(f_all_data)(beta)
    assert v1 == pytest.approx(v2, rel=1e-15) and v3 == pytest.approx(v2, rel=1e-15)
    np.testing.assert_allclose(g1, g2, rtol=1e-14)
    np.testing.assert_allclose(g3, g2, rtol=1e-14)
    check_gradient(f_data, [beta])
    check_gradient(f_all_data, [beta])


def test_elementwise_operators_and_var_from_data() -> None:
    dy = revad.Data(Y)
    with revad.Tape():
        v = revad.Var(dy)
        np.testing.assert_array_equal(v.value, Y)
        s = revad.Var(0.7)
        r = (v * s + dy - s * dy / 2.0).sum()
        r.grad()
        want = np.sum(Y * 0.7 + Y - 0.7 * Y / 2.0)
        assert r.value == pytest.approx(want, rel=1e-14)
        np.testing.assert_allclose(v.adj, np.full(9, 0.7), rtol=1e-15)
        assert s.adj == pytest.approx(np.sum(Y) - np.sum(Y) / 2.0, rel=1e-13)
    check_gradient(lambda t: (revad.Data(X) @ t).sum() * t[0], [np.array([0.5, -0.2, 1.5])])


def test_probability_functions_read_data_like_numpy() -> None:
    dy = revad.Data(Y)
    assert revad.normal_lpdf(dy, 0.2, 1.3) == pytest.approx(
        revad.normal_lpdf(Y, 0.2, 1.3), rel=1e-15
    )
    with revad.Tape():
        mu = revad.Var(0.2)
        lp = revad.student_t_lpdf(dy, 4.0, mu, 1.3)
        lp.grad()
        a = (lp.value, mu.adj)
    with revad.Tape():
        mu = revad.Var(0.2)
        lp = revad.student_t_lpdf(Y, 4.0, mu, 1.3)
        lp.grad()
        b = (lp.value, mu.adj)
    assert a == pytest.approx(b, rel=1e-15)


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(TypeError, match="Data: needs a 1-D or 2-D array of real numbers, not a"):
        revad.Data(1.5)
    with pytest.raises(TypeError, match="Data: arrays must hold real numbers"):
        revad.Data("abc")
    with pytest.raises(revad.SizeError, match="Data: arrays of 3 dimensions are not supported"):
        revad.Data(np.zeros((2, 2, 2)))
    with pytest.raises(TypeError, match="Data: arrays must hold real numbers"):
        revad.Data(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="a revad.Data of shape \\(9, 3\\)"):
        revad.normal_lpdf(revad.Data(X), 0.0, 1.0)
    with pytest.raises(ValueError, match="Data: a copy is needed"):
        np.asarray(revad.Data(Y), copy=False)
    with pytest.raises(ValueError, match="could not broadcast|operands could not be broadcast"):
        with revad.Tape():
            revad.Var(np.ones(4)) + revad.Data(Y)
