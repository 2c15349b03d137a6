"""Layout functions (slicing, to_matrix, transpose, block, ...): values against NumPy, gradients
against finite differences, NumPy inputs of every layout, and values that never change under the
caller's feet."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import revad
from revad.testing import check_gradient

RNG = np.random.default_rng(18)


def weighted(y: Any, seed: int = 0) -> Any:
    """Σ w·y with fixed weights, so every element of y has its own derivative."""
    shape = y.shape
    w = np.random.default_rng(seed).standard_normal(shape) if shape else 1.7
    return revad.sum(y * w)


VECTOR_KEYS = [
    np.s_[2:7],
    np.s_[::2],
    np.s_[::-1],
    np.s_[7:1:-3],
    np.s_[-3:],
    np.s_[5:5],
    np.s_[9:100],
    np.s_[3:4],
    np.s_[:],
]

MATRIX_KEYS = [
    np.s_[1:3, 2:5],
    np.s_[::-1, ::2],
    np.s_[:, 3],
    np.s_[2, :],
    np.s_[2],
    np.s_[1:2],
    np.s_[:, -1],
    np.s_[::2, 1:2],
    np.s_[3:1:-1, 4:0:-2],
    np.s_[0:0, :],
    np.s_[:, 2:2],
    np.s_[4, 1:6:2],
    np.s_[..., 1],
    np.s_[:, [0, 2]],
]


@pytest.mark.parametrize("key", VECTOR_KEYS, ids=str)
def test_vector_slices_against_numpy(key: Any) -> None:
    x = RNG.standard_normal(10)
    w = RNG.standard_normal(x[key].shape)
    value, grad = revad.gradient(lambda v: revad.sum(v[key] * w) + 0.0 * revad.sum(v), x)
    expected = np.zeros_like(x)
    expected[key] += w
    np.testing.assert_allclose(grad, expected, rtol=0, atol=0)
    assert value == pytest.approx(float(np.sum(x[key] * w)), abs=1e-12)
    with revad.Tape():
        np.testing.assert_array_equal(revad.Var(x)[key].value, x[key])


@pytest.mark.parametrize("key", MATRIX_KEYS, ids=str)
def test_matrix_slices_against_numpy(key: Any) -> None:
    x = RNG.standard_normal((5, 6))
    w = RNG.standard_normal(x[key].shape)
    value, grad = revad.gradient(lambda v: revad.sum(v[key] * w) + 0.0 * revad.sum(v), x)
    expected = np.zeros_like(x)
    np.add.at(expected, key, w)
    np.testing.assert_allclose(grad, expected, rtol=0, atol=0)
    assert value == pytest.approx(float(np.sum(x[key] * w)), abs=1e-12)
    with revad.Tape():
        got = revad.Var(x)[key]
        assert got.shape == x[key].shape
        np.testing.assert_array_equal(got.value, x[key])


def test_slice_errors_are_numpy_s() -> None:
    with revad.Tape():
        m = revad.Var(np.zeros((3, 4)))
        with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
            m[3, 1:2]
        with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
            m[0:2, -5]
        with pytest.raises(IndexError, match="too many indices"):
            m[0:1, 0:1, 0:1]
        with pytest.raises(ValueError, match="slice step cannot be zero"):
            m[::0]


def test_one_element_and_empty_slices() -> None:
    x = np.array([4.0])
    _, g = revad.gradient(lambda v: weighted(v[0:1]) + revad.sum(v[1:]), x)
    assert g.shape == (1,) and g[0] != 0.0
    _, g = revad.gradient(lambda v: revad.sum(v[2:2]) + revad.sum(v), np.arange(3.0))
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])
    _, g = revad.gradient(lambda v: revad.sum(v[0:0, :]) + revad.sum(v), np.ones((2, 2)))
    np.testing.assert_array_equal(g, np.ones((2, 2)))


LAYOUT_FUNCTIONS = {
    "to_matrix vector": (lambda v: weighted(revad.to_matrix(v, 3, 4)), (12,)),
    "to_matrix matrix same shape": (lambda v: weighted(revad.to_matrix(v, 3, 4)), (3, 4)),
    "to_matrix matrix reshaped": (lambda v: weighted(revad.to_matrix(v, 2, 6)), (3, 4)),
    "to_matrix 1x1": (lambda v: weighted(revad.to_matrix(v, 1, 1)), (1,)),
    "to_matrix row": (lambda v: weighted(revad.to_matrix(v, 1, 5)), (5,)),
    "to_matrix tall": (lambda v: weighted(revad.to_matrix(v, 17, 9)), (9, 17)),
    "transpose": (lambda v: weighted(revad.transpose(v)), (11, 9)),
    "to_vector": (lambda v: weighted(revad.to_vector(v)), (4, 3)),
    "to_row_vector": (lambda v: weighted(revad.to_row_vector(v)), (3, 5)),
    "reshape": (lambda v: weighted(revad.reshape(v, (6, 2))), (3, 4)),
    "block": (lambda v: weighted(revad.block(v, 1, 1, 2, 3)), (4, 5)),
    "col": (lambda v: weighted(revad.col(v, 2)), (4, 5)),
    "row": (lambda v: weighted(revad.row(v, 3)), (4, 5)),
    "segment": (lambda v: weighted(revad.segment(v, 2, 4)), (9,)),
    "head": (lambda v: weighted(revad.head(v, 3)), (9,)),
    "tail": (lambda v: weighted(revad.tail(v, 3)), (9,)),
    "2-D slice": (lambda v: weighted(v[1:, ::-2]), (4, 5)),
    "strided vector slice": (lambda v: weighted(v[8:0:-3]), (9,)),
}


@pytest.mark.parametrize("name", list(LAYOUT_FUNCTIONS))
def test_layout_gradients_against_finite_differences(name: str) -> None:
    f, shape = LAYOUT_FUNCTIONS[name]
    check_gradient(f, [RNG.standard_normal(shape)])


def test_to_matrix_values_column_major() -> None:
    x = np.arange(24.0)
    with revad.Tape():
        v = revad.Var(x)
        np.testing.assert_array_equal(revad.to_matrix(v, 4, 6).value, x.reshape(4, 6, order="F"))
        m = revad.Var(x.reshape(6, 4))
        # A matrix is read column-major, then filled column-major.
        want = x.reshape(6, 4).flatten(order="F").reshape(3, 8, order="F")
        np.testing.assert_array_equal(revad.to_matrix(m, 3, 8).value, want)
        np.testing.assert_array_equal(revad.to_matrix(m, 6, 4).value, x.reshape(6, 4))
        np.testing.assert_array_equal(revad.transpose(m).value, x.reshape(6, 4).T)


@pytest.mark.parametrize("order", ["C", "F", "strided", "reversed"])
def test_numpy_inputs_of_every_layout(order: str) -> None:
    base = RNG.standard_normal((6, 8))
    x = {
        "C": np.ascontiguousarray(base),
        "F": np.asfortranarray(base),
        "strided": base[::2, 1::2],
        "reversed": base[::-1, ::-1],
    }[order]
    w = RNG.standard_normal(x.shape)

    def f(v: Any) -> Any:
        return revad.sum(revad.transpose(v) * w.T) + revad.sum(v[1:, :2])

    value, grad = revad.gradient(f, x)
    expected = w.copy()
    expected[1:, :2] += 1.0
    np.testing.assert_allclose(grad, expected, rtol=1e-15, atol=0)
    assert value == pytest.approx(float(np.sum(x * w) + np.sum(x[1:, :2])), rel=1e-13)
    check_gradient(f, [np.ascontiguousarray(x)])


def test_numpy_input_mutated_after_the_call_changes_no_recorded_value() -> None:
    x = np.arange(1.0, 7.0)
    kept: list[Any] = []

    def f(v: Any) -> Any:
        kept.append(v)
        kept.append(v[1:4])
        return revad.sum(v)

    revad.gradient(f, x)
    x[:] = -1.0
    np.testing.assert_array_equal(kept[0].value, np.arange(1.0, 7.0))
    np.testing.assert_array_equal(kept[1].value, [2.0, 3.0, 4.0])
    # A second call at another point must not reuse the memory of the values kept.
    revad.gradient(f, np.full(6, 5.0))
    np.testing.assert_array_equal(kept[0].value, np.arange(1.0, 7.0))
    big = np.arange(50000.0)
    revad.gradient(f, big)
    for _ in range(2):
        _, g = revad.gradient(lambda v: revad.sum(v * v), np.ones(50000))
        np.testing.assert_array_equal(g, np.full(50000, 2.0))
    np.testing.assert_array_equal(kept[-2].value, big)
    with revad.Tape():
        y = np.arange(4.0)
        v = revad.Var(y)
        s = v[::2]
        y[:] = 9.0
        np.testing.assert_array_equal(v.value, np.arange(4.0))
        np.testing.assert_array_equal(s.value, [0.0, 2.0])
        total = revad.sum(s)
        total.grad()
        np.testing.assert_array_equal(v.adj, [1.0, 0.0, 1.0, 0.0])


def test_value_and_grad_keeps_kept_values() -> None:
    kept: list[Any] = []

    def f(v: Any, scale: float) -> Any:
        kept.append(v)
        return revad.sum(v) * scale

    vg = revad.value_and_grad(f)
    x = np.arange(20000.0)
    value, g = vg(x, 2.0)
    assert value == 2.0 * float(np.sum(x))
    np.testing.assert_array_equal(g, np.full(20000, 2.0))
    # The next calls read other points of the same size: the kept Var's values stay.
    vg(np.ones(20000), 1.0)
    vg(-np.ones(20000), 1.0)
    np.testing.assert_array_equal(kept[0].value, np.arange(20000.0))
    np.testing.assert_array_equal(kept[1].value, np.ones(20000))


def test_gradient_arrays_are_the_caller_s() -> None:
    x = RNG.standard_normal(2000)
    _, g1 = revad.gradient(lambda v: revad.sum(v * 2.0), x)
    _, g2 = revad.gradient(lambda v: revad.sum(v * 3.0), x)
    np.testing.assert_array_equal(g1, np.full(2000, 2.0))
    np.testing.assert_array_equal(g2, np.full(2000, 3.0))
    g1[:] = 0.0
    np.testing.assert_array_equal(g2, np.full(2000, 3.0))


def test_matmul_of_to_matrix_gradient() -> None:
    k = 5
    x = RNG.standard_normal(2 * k * k)

    def f(v: Any) -> Any:
        return revad.sum(revad.to_matrix(v[: k * k], k, k) @ revad.to_matrix(v[k * k :], k, k))

    value, grad = revad.gradient(f, x)
    a = x[: k * k].reshape(k, k, order="F")
    b = x[k * k :].reshape(k, k, order="F")
    assert value == pytest.approx(float(np.sum(a @ b)), rel=1e-13)
    ga = np.ones((k, k)) @ b.T
    gb = a.T @ np.ones((k, k))
    np.testing.assert_allclose(grad, np.concatenate([ga.ravel(order="F"), gb.ravel(order="F")]),
                               rtol=1e-13)
    check_gradient(f, [x])


def test_jit_replays_slices() -> None:
    def f(v: Any) -> Any:
        return revad.sum(v[1:4] * v[::-2][:3]) + revad.sum(revad.to_matrix(v, 2, 3))

    j = revad.jit(revad.value_and_grad(f))
    for x in (np.arange(6.0), RNG.standard_normal(6), np.ones(6)):
        got = j(x)
        want = revad.gradient(f, x)
        assert got[0] == pytest.approx(want[0], rel=1e-14)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-14)
