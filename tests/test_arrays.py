"""Array Vars (varmat) from Python: construction, NumPy-like shape, indexing, operators with
NumPy broadcasting, ``@``, the Stan-named matrix functions, and
``revad.gradient`` with a NumPy point. Every function is checked against finite differences and
against the same computation on scalar Vars (Stan Math's varmat/matvar agreement test)."""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import revad
from revad import Var
from revad.testing import assert_close, check_gradient

X3 = np.array([0.3, -1.2, 2.5])
W3 = np.array([0.7, -0.4, 1.3])
M32 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])
M23 = np.array([[1.0, 0.5, -2.0], [0.25, 3.0, 1.0]])


def agree(f_array: Callable[[Any], Any], f_scalar: Callable[[list[Var]], Any], x: Any) -> None:
    """The varmat computation (``f_array`` on one array Var) and the matvar one (``f_scalar`` on
    a list of scalar Vars, row-major) agree in value and gradient."""
    x = np.asarray(x, dtype=np.float64)
    v1, g1 = revad.gradient(f_array, x)
    v2, g2 = revad.gradient(f_scalar, list(x.reshape(-1)))
    assert_close(v1, v2, 1e-13)
    assert np.shape(g1) == x.shape
    assert_close(np.ravel(g1), g2, 1e-12)


# ---------------------------------------------------------------------------------------------
# construction


def test_vector_var_has_numpy_shape_and_value() -> None:
    x = Var(X3)
    assert (x.shape, x.ndim, len(x), x.size) == ((3,), 1, 3, 3)
    assert isinstance(x.value, np.ndarray) and x.value.dtype == np.float64
    assert np.array_equal(x.value, X3)
    assert np.array_equal(x.adj, np.zeros(3))
    assert repr(x) == "Var(array([ 0.3, -1.2,  2.5]))"


def test_matrix_var_has_numpy_shape_and_value() -> None:
    m = Var(M32)
    assert (m.shape, m.ndim, len(m), m.size) == ((3, 2), 2, 3, 6)
    assert np.array_equal(m.value, M32)
    assert m.adj.shape == (3, 2)
    assert m.T.shape == (2, 3) and np.array_equal(m.T.value, M32.T)


def test_scalar_var_shape() -> None:
    s = Var(1.5)
    assert (s.shape, s.ndim, s.size) == ((), 0, 1)
    assert s.T is s and s.sum() is s


def test_value_is_a_copy() -> None:
    x = Var(X3)
    v = x.value
    v[0] = 100.0
    assert x.value[0] == X3[0]
    data = X3.copy()
    y = Var(data)
    data[1] = 7.0
    assert y.value[1] == X3[1]


@pytest.mark.parametrize(
    "given",
    [np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([True, False]),
     np.arange(6.0).reshape(2, 3).T, np.arange(10.0)[::3]],
)
def test_other_real_dtypes_and_layouts_convert(given: np.ndarray) -> None:
    assert np.array_equal(Var(given).value, given.astype(np.float64))


def test_zero_dimensional_array_is_a_scalar() -> None:
    v = Var(np.array(2.5))
    assert v.shape == () and v.value == 2.5


def test_empty_arrays() -> None:
    x = Var(np.zeros(0))
    assert x.shape == (0,) and len(x) == 0 and list(x) == []
    assert x.sum().value == 0.0


@pytest.mark.parametrize(
    "bad, error",
    [(np.zeros((2, 2, 2)), revad.SizeError), (np.array(["a", "b"]), TypeError),
     (np.array([1 + 2j]), TypeError), (np.array([object()]), TypeError),
     (np.array([[1.0], [1.0, 2.0]], dtype=object), TypeError), ([[1.0], [1.0, 2.0]], TypeError),
     ([1.0, 2.0], TypeError), ("ab", TypeError)],
)
def test_bad_input_raises_no_panic(bad: Any, error: type) -> None:
    with pytest.raises(error):
        Var(bad)


def test_three_dimensional_arguments_are_refused() -> None:
    x = Var(X3)
    with pytest.raises(revad.SizeError, match="3 dimensions"):
        x + np.zeros((1, 1, 3))
    with pytest.raises(revad.SizeError):
        revad.exp(np.zeros((2, 2, 2)))
    with pytest.raises(revad.SizeError):
        revad.gradient(lambda v: v.sum(), np.zeros((2, 2, 2)))


# ---------------------------------------------------------------------------------------------
# indexing and iteration


def test_indexing_a_vector_shares_the_adjoint_run() -> None:
    x = Var(X3)
    y = x[0] * x[-1] + 3.0 * x[1]
    y.grad()
    assert np.array_equal(x.adj, [X3[2], 3.0, X3[0]])


@pytest.mark.parametrize(
    "key", [slice(None), slice(1, None), slice(0, 2), slice(None, None, 2), slice(None, None, -1),
            slice(2, 0, -1), slice(5, 9)],
)
def test_slicing_a_vector(key: slice) -> None:
    x = Var(X3)
    s = x[key]
    assert np.array_equal(s.value, X3[key])
    w = np.arange(1.0, 1.0 + len(X3[key]))
    if len(w):
        (s @ w).grad()
    expected = np.zeros(3)
    expected[key] = w
    assert np.array_equal(x.adj, expected)


@pytest.mark.parametrize(
    "key", [0, -1, (1, 0), (2, -1), (slice(None), 1), (1, slice(None)), (slice(1, 3), slice(0, 1)),
            slice(0, 2), (slice(None, None, 2), slice(None, None, -1)), (0, slice(None, None, -1)),
            (slice(None, None, -2), 1)],
)
def test_indexing_a_matrix(key: Any) -> None:
    m = Var(M32)
    r = m[key]
    expected = M32[key]
    assert r.shape == np.shape(expected)
    assert_close(r.value, expected, 0.0)
    w = np.arange(1.0, 1.0 + np.size(expected)).reshape(np.shape(expected))
    if r.ndim:
        (r * w).sum().grad()
    else:
        (r * 2.0).grad()
    adj = np.zeros_like(M32)
    adj[key] = w if r.ndim else 2.0
    assert np.array_equal(m.adj, adj)


@pytest.mark.parametrize("key", [3, -4, (0, 2), (3, 0)])
def test_index_out_of_range(key: Any) -> None:
    with pytest.raises(IndexError):
        Var(M32)[key]


@pytest.mark.parametrize("key", ["a", 1.5, (0, 0, 0), [0.5, 1.0]])
def test_bad_index(key: Any) -> None:
    with pytest.raises((TypeError, IndexError)):
        Var(M32)[key]
    with pytest.raises((TypeError, IndexError)):
        Var(X3)[key if key != (0, 0, 0) else (0, 0)]


def test_scalar_var_is_not_subscriptable_nor_iterable() -> None:
    s = Var(1.0)
    with pytest.raises(TypeError):
        s[0]
    with pytest.raises(TypeError):
        iter(s)
    with pytest.raises(TypeError):
        len(s)


def test_iteration() -> None:
    x = Var(X3)
    items = list(x)
    assert [v.value for v in items] == list(X3)
    assert all(isinstance(v, Var) and v.shape == () for v in items)
    rows = list(Var(M32))
    assert [r.shape for r in rows] == [(2,)] * 3
    assert np.array_equal(np.array([r.value for r in rows]), M32)
    total = sum(items)
    total.grad()
    assert np.array_equal(x.adj, np.ones(3))


# ---------------------------------------------------------------------------------------------
# elementwise operators

OPS = [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
       ("truediv", operator.truediv), ("pow", operator.pow)]
POSITIVE = np.array([0.5, 1.25, 2.0])
OTHER = np.array([1.5, -0.5, 0.75])


@pytest.mark.parametrize("name, op", OPS)
@pytest.mark.parametrize("kind", ["var", "data", "float", "scalar_var"])
@pytest.mark.parametrize("reflected", [False, True])
def test_operator_values_match_numpy(name: str, op: Any, kind: str, reflected: bool) -> None:
    base = POSITIVE
    other_value: Any = {"var": OTHER, "data": OTHER, "float": 1.75, "scalar_var": 1.75}[kind]
    if name == "pow" and reflected:
        other_value = np.abs(other_value) + 0.5
    other: Any = {
        "var": Var(other_value) if kind == "var" else other_value,
        "data": other_value, "float": other_value,
        "scalar_var": Var(other_value),
    }[kind]
    x = Var(base)
    r = op(other, x) if reflected else op(x, other)
    expected = op(other_value, base) if reflected else op(base, other_value)
    assert isinstance(r, Var) and r.shape == (3,)
    assert_close(r.value, expected, 1e-15)


@pytest.mark.parametrize("name, op", OPS)
@pytest.mark.parametrize("kind", ["var", "data", "float", "scalar_var"])
@pytest.mark.parametrize("reflected", [False, True])
def test_operator_gradients(name: str, op: Any, kind: str, reflected: bool) -> None:
    """Finite differences, and agreement with the same operation on scalar Vars."""
    c: Any = {"var": None, "data": OTHER + 2.0, "float": 1.75, "scalar_var": 1.75}[kind]

    def f(x: Any) -> Any:
        if kind == "var":
            a, b = x[:3], x[3:]
            return revad.dot_product(op(b, a) if reflected else op(a, b), W3)
        cc = Var(c) if kind == "scalar_var" and isinstance(x, Var) else c
        return revad.dot_product(op(cc, x) if reflected else op(x, cc), W3)

    def f_scalar(xs: list[Var]) -> Any:
        if kind == "var":
            pairs = zip(xs[:3], xs[3:], strict=False)
        else:
            cs = list(c) if kind == "data" else [c] * 3
            pairs = zip(xs, cs, strict=False)
        return sum(w * (op(b, a) if reflected else op(a, b))
                   for (a, b), w in zip(pairs, W3, strict=False))

    point = np.concatenate([POSITIVE, OTHER + 2.0]) if kind == "var" else POSITIVE
    check_gradient(f, [point])
    agree(f, f_scalar, point)


def test_operators_on_matrices() -> None:
    def f(m: Any) -> Any:
        return revad.sum((m * M32 + 2.0) / (m - 5.0) ** 2 - m)

    check_gradient(f, [M32])


def test_unary_operators() -> None:
    x = Var(OTHER)
    assert np.array_equal((-x).value, -OTHER)
    assert np.array_equal(abs(x).value, np.abs(OTHER))
    assert +x is x
    check_gradient(lambda v: revad.dot_product(abs(-v), W3), [OTHER])


def test_numpy_array_on_the_left_defers_to_var() -> None:
    x = Var(POSITIVE)
    for r in (OTHER + x, OTHER * x, OTHER - x, OTHER / x, OTHER @ Var(M32)):
        assert isinstance(r, Var)
    s = Var(2.0)
    r = OTHER * s
    assert isinstance(r, Var) and r.shape == (3,)
    r.sum().grad()
    assert s.adj == pytest.approx(OTHER.sum())


def test_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(revad.SizeError) as info:
        Var(np.ones(2)) + Var(np.ones(3))
    assert "operands could not be broadcast together with shapes (2,) (3,)" in str(info.value)
    assert isinstance(info.value, ValueError)
    with pytest.raises(ValueError, match=r"shapes \(3, 2\) \(2, 3\)"):
        Var(M32) * M23
    # Shapes that broadcast by NumPy's rules work (tests/test_array_assign.py has the rest).
    assert_close((Var(M32) + np.ones(2)).value, M32 + 1.0, 1e-15)


def test_comparisons_are_elementwise_by_value() -> None:
    x = Var(OTHER)
    assert np.array_equal(x > 0.0, OTHER > 0.0)
    assert np.array_equal(x == Var(OTHER), np.ones(3, dtype=bool))
    assert np.array_equal(x <= OTHER, np.ones(3, dtype=bool))
    assert np.array_equal(Var(1.0) < x, 1.0 < OTHER)


def test_array_var_is_not_a_float_nor_a_bool() -> None:
    x = Var(X3)
    with pytest.raises(TypeError):
        float(x)
    with pytest.raises(ValueError):
        bool(x)
    with pytest.raises(TypeError, match="sum"):
        x.grad()
    with pytest.raises(TypeError):
        revad.exp(x) + "a"
    with pytest.raises(TypeError):
        revad.owens_t(x, 1.0)


# ---------------------------------------------------------------------------------------------
# @ and multiply


@pytest.mark.parametrize(
    "a, b",
    [(X3, W3), (M23, X3), (X3, M32), (M32, M23), (M23, M32)],
    ids=["vec@vec", "mat@vec", "vec@mat", "mat@mat", "mat@mat2"],
)
def test_matmul_values_and_gradients(a: np.ndarray, b: np.ndarray) -> None:
    expected = a @ b
    for left, right in ((Var(a), Var(b)), (Var(a), b), (a, Var(b))):
        r = left @ right
        assert isinstance(r, Var) and r.shape == np.shape(expected)
        assert_close(r.value, expected, 1e-14)
        assert_close(revad.multiply(left, right).value, expected, 1e-14)
    w = np.arange(1.0, 1.0 + np.size(expected)).reshape(np.shape(expected))
    check_gradient(lambda x: _total((x @ b) * w), [a])
    check_gradient(lambda x: _total((a @ x) * w), [b])


def _total(r: Any) -> Any:
    """The sum of a result (a scalar is its own sum), for Vars and data alike."""
    return r.sum() if isinstance(r, Var) else np.sum(r)


def test_matmul_of_both_variables_is_one_point() -> None:
    """∇ of sum(A @ B) with both A and B variables, through the one gradient call."""
    a, b = Var(M32), Var(M23)
    (a @ b).sum().grad()
    assert_close(a.adj, np.ones((3, 3)) @ M23.T, 1e-15)
    assert_close(b.adj, M32.T @ np.ones((3, 3)), 1e-15)


def test_matmul_errors() -> None:
    with pytest.raises(revad.SizeError):
        Var(M32) @ Var(X3)
    with pytest.raises(ValueError):
        Var(X3) @ np.ones(2)
    with pytest.raises(revad.SizeError, match="scalar"):
        Var(X3) @ 2.0
    with pytest.raises(TypeError):
        Var(X3) @ "ab"


def test_multiply_by_a_scalar() -> None:
    r = revad.multiply(2.0, Var(X3))
    assert np.array_equal(r.value, 2.0 * X3)
    assert revad.multiply(2.0, 3.0) == 6.0


# ---------------------------------------------------------------------------------------------
# elementwise functions

UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "square", "inv",
         "inv_sqrt", "inv_square", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
         "tanh", "asinh", "acosh", "atanh", "fabs", "abs", "floor", "ceil", "round", "trunc", "erf",
         "erfc", "Phi_approx", "lgamma", "digamma", "trigamma", "log1p_exp", "log1m_exp", "logit",
         "inv_logit", "log_inv_logit", "log1m_inv_logit", "inv_cloglog", "step", "Phi", "inv_Phi",
         "tgamma", "log1m"]
DOMAIN = {"acosh": [1.5, 2.0, 3.25], "log1m_exp": [-0.3, -1.0, -2.5]}
UNIT = [0.2, 0.55, 0.85]


@pytest.mark.parametrize("name", UNARY)
def test_elementwise_function(name: str) -> None:
    f = getattr(revad, name)
    point = np.array(DOMAIN.get(name, UNIT))
    # On data: data, equal to the scalar function elementwise.
    r = f(point)
    assert isinstance(r, np.ndarray) and r.shape == (3,)
    assert_close(r, [f(float(x)) for x in point], 0.0)
    m = f(np.array([point, point[::-1]]))
    assert isinstance(m, np.ndarray) and m.shape == (2, 3)
    # On a Var: one array Var, with the scalar function's values and derivatives.
    check_gradient(lambda x: revad.dot_product(f(x), W3), [point])
    agree(lambda x: revad.dot_product(f(x), W3),
          lambda xs: sum(w * f(x) for x, w in zip(xs, W3, strict=False)), point)
    check_gradient(lambda x: revad.sum(f(x) * np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])),
                   [np.array([point, point[::-1]])])


def test_elementwise_domain_error() -> None:
    with pytest.raises(revad.DomainError):
        revad.log1m(Var(np.array([0.5, 2.0])))
    with pytest.raises(revad.DomainError):
        revad.inv_Phi(np.array([0.5, 2.0]))


# ---------------------------------------------------------------------------------------------
# reductions and vector functions


REDUCTIONS: list[tuple[str, Callable[[list[Any]], Any]]] = [
    ("sum", lambda xs: sum(xs)),
    ("mean", lambda xs: sum(xs) / len(xs)),
    ("dot_self", lambda xs: sum(x * x for x in xs)),
    ("variance", lambda xs: sum((x - sum(xs) / len(xs)) ** 2 for x in xs) / (len(xs) - 1)),
    ("sd", lambda xs: (sum((x - sum(xs) / len(xs)) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5),
    ("prod", lambda xs: xs[0] * xs[1] * xs[2] * xs[3]),
    ("log_sum_exp", lambda xs: revad.log_sum_exp(xs)),
]
X4 = np.array([0.3, -1.2, 2.5, 0.8])


@pytest.mark.parametrize("name, scalar", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction(name: str, scalar: Callable[[list[Any]], Any]) -> None:
    f = getattr(revad, name)
    value = f(X4)
    assert isinstance(value, float)
    assert_close(value, scalar(list(X4)), 1e-14)
    check_gradient(f, [X4, X4.reshape(2, 2)])
    agree(f, scalar, X4)
    # A list of scalar Vars gives the same.
    assert_close(revad.gradient(f, list(X4))[1], revad.gradient(f, X4)[1], 1e-14)


def test_var_sum_method() -> None:
    m = Var(M32)
    s = m.sum()
    s.grad()
    assert s.value == pytest.approx(M32.sum())
    assert np.array_equal(m.adj, np.ones((3, 2)))


def _softmax(xs: list[Any]) -> list[Any]:
    e = [revad.exp(x) for x in xs]
    total = sum(e)
    return [ei / total for ei in e]


VECTOR_FUNCTIONS: list[tuple[str, Callable[[list[Any]], list[Any]]]] = [
    ("softmax", _softmax),
    ("log_softmax", lambda xs: [revad.log(s) for s in _softmax(xs)]),
    ("cumulative_sum", lambda xs: [sum(xs[: i + 1]) for i in range(len(xs))]),
]


@pytest.mark.parametrize("name, scalar", VECTOR_FUNCTIONS, ids=[r[0] for r in VECTOR_FUNCTIONS])
def test_vector_function(name: str, scalar: Callable[[list[Any]], list[Any]]) -> None:
    f = getattr(revad, name)
    assert isinstance(f(X3), np.ndarray)
    assert_close(f(X3), scalar(list(X3)), 1e-14)
    check_gradient(lambda x: revad.dot_product(f(x), W3), [X3])
    agree(lambda x: revad.dot_product(f(x), W3),
          lambda xs: sum(w * y for w, y in zip(W3, scalar(xs), strict=False)), X3)
    with pytest.raises(revad.SizeError, match="1-D"):
        f(Var(M32))


BINARY_VECTOR: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("dot_product", lambda a, b: sum(x * y for x, y in zip(a, b, strict=False))),
    ("squared_distance", lambda a, b: sum((x - y) ** 2 for x, y in zip(a, b, strict=False))),
    ("distance", lambda a, b: sum((x - y) ** 2 for x, y in zip(a, b, strict=False)) ** 0.5),
]


@pytest.mark.parametrize("name, scalar", BINARY_VECTOR, ids=[r[0] for r in BINARY_VECTOR])
def test_binary_vector_function(name: str, scalar: Callable[[Any, Any], Any]) -> None:
    f = getattr(revad, name)
    assert_close(f(X3, W3), scalar(list(X3), list(W3)), 1e-14)
    check_gradient(lambda x: f(x[:3], x[3:]), [np.concatenate([X3, W3])])
    check_gradient(lambda x: f(x, W3), [X3])
    check_gradient(lambda x: f(W3, x), [X3])
    agree(lambda x: f(x[:3], x[3:]), lambda xs: scalar(xs[:3], xs[3:]), np.concatenate([X3, W3]))
    with pytest.raises(revad.SizeError):
        f(Var(X3), np.ones(2))


MATRIX_FUNCTIONS: list[tuple[str, Callable[[np.ndarray], np.ndarray]]] = [
    ("transpose", lambda m: m.T),
    ("crossprod", lambda m: m.T @ m),
    ("tcrossprod", lambda m: m @ m.T),
    ("diagonal", np.diag),
]


@pytest.mark.parametrize("name, numpy_f", MATRIX_FUNCTIONS, ids=[r[0] for r in MATRIX_FUNCTIONS])
def test_matrix_function(name: str, numpy_f: Callable[[np.ndarray], np.ndarray]) -> None:
    f = getattr(revad, name)
    expected = numpy_f(M32)
    assert_close(f(M32), expected, 1e-15)
    assert_close(f(Var(M32)).value, expected, 1e-15)
    w = np.arange(1.0, 1.0 + expected.size).reshape(expected.shape)
    check_gradient(lambda m: revad.sum(f(m) * w), [M32])


def test_diag_matrix_and_elementwise_products() -> None:
    assert_close(revad.diag_matrix(X3), np.diag(X3), 0.0)
    check_gradient(lambda v: revad.sum(revad.diag_matrix(v) @ M32), [X3])
    assert_close(revad.elt_multiply(X3, W3), X3 * W3, 0.0)
    assert_close(revad.elt_divide(Var(X3), W3).value, X3 / W3, 1e-15)
    check_gradient(lambda v: revad.sum(revad.elt_divide(revad.elt_multiply(v, W3), v + 4.0)),
                   [X3])


def test_transpose_of_a_vector_is_itself() -> None:
    x = Var(X3)
    assert revad.transpose(x) is not None and revad.transpose(x).shape == (3,)
    assert x.T is x


# ---------------------------------------------------------------------------------------------
# gradient, jacobian, tape scope and threads


def test_gradient_passes_one_vector_var_for_a_numpy_point() -> None:
    seen: list[Any] = []

    def f(v: Any) -> Any:
        seen.append(v)
        return v[0] * v[1] + v @ v

    value, g = revad.gradient(f, np.array([2.0, 3.0]))
    assert isinstance(seen[0], Var) and seen[0].shape == (2,)
    assert value == 19.0 and np.array_equal(g, [7.0, 8.0])
    revad.gradient(lambda v: seen.append(v) or v[0] * v[1], [2.0, 3.0])
    assert isinstance(seen[1], list)


def test_gradient_with_a_matrix_point() -> None:
    value, g = revad.gradient(lambda m: (m @ m).sum(), np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert value == 54.0
    assert g.shape == (2, 2) and np.array_equal(g, [[7.0, 11.0], [9.0, 13.0]])


def test_gradient_of_a_constant_function_of_an_array() -> None:
    value, g = revad.gradient(lambda v: 2.0, np.array([1.0, 2.0]), allow_constant=True)
    assert value == 2.0 and np.array_equal(g, [0.0, 0.0])


def test_jacobian_with_a_numpy_point() -> None:
    values, jac = revad.jacobian(lambda v: [v[0] * v[1], v.sum()], np.array([2.0, 3.0]))
    assert np.array_equal(values, [6.0, 5.0])
    assert np.array_equal(jac, [[3.0, 2.0], [1.0, 1.0]])


def test_array_vars_become_stale_with_their_scope() -> None:
    with revad.Tape():
        x = Var(X3)
        m = Var(M32)
    for use in (lambda: x.adj, lambda: x + 1.0, lambda: x[0], lambda: x.sum(), lambda: m.T,
                lambda: revad.exp(x), lambda: m @ x[:2], lambda: list(x), lambda: x == 1.0,
                lambda: revad.sum(m), lambda: revad.softmax(x)):
        with pytest.raises(revad.StaleVarError):
            use()
    assert x.shape == (3,)  # plain data stays readable


def test_array_vars_belong_to_their_thread() -> None:
    x = Var(X3)
    errors: list[BaseException] = []

    def other() -> None:
        for use in (lambda: x.adj, lambda: x * 2.0, lambda: x[1], lambda: revad.sum(x),
                    lambda: x @ W3):
            try:
                use()
            except revad.ThreadError as e:
                errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 5


def test_data_never_becomes_a_var() -> None:
    before = revad.tape_stats()["variables"]
    r = revad.exp(X3) + 1.0
    assert isinstance(r, np.ndarray)
    assert isinstance(revad.sum(X3), float) and isinstance(revad.mean(X3), float)
    assert revad.tape_stats()["variables"] == before
    x = Var(X3)
    y = revad.dot_product(x, W3)
    y.grad()
    assert np.array_equal(x.adj, W3)


# ---------------------------------------------------------------------------------------------
# slicing, reshaping, repetition, sorting and the other products

X5 = np.array([0.3, -1.2, 2.5, 0.8, -0.1])
M33 = np.array([[2.0, 0.5, -1.0], [0.5, 3.0, 0.25], [-1.0, 0.25, 1.5]])

SLICES: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray], np.ndarray], np.ndarray]] = [
    ("head", lambda v: revad.head(v, 3), lambda v: v[:3], X5),
    ("tail", lambda v: revad.tail(v, 2), lambda v: v[-2:], X5),
    ("segment", lambda v: revad.segment(v, 1, 3), lambda v: v[1:4], X5),
    ("sort_asc", revad.sort_asc, np.sort, X5),
    ("sort_desc", revad.sort_desc, lambda v: np.sort(v)[::-1], X5),
    ("block", lambda m: revad.block(m, 1, 0, 2, 2), lambda m: m[1:3, 0:2], M33),
    ("row", lambda m: revad.row(m, 1), lambda m: m[1], M32),
    ("col", lambda m: revad.col(m, 1), lambda m: m[:, 1], M32),
    ("to_vector", revad.to_vector, lambda m: m.T.reshape(-1), M32),
    ("rows_dot_self", revad.rows_dot_self, lambda m: (m * m).sum(axis=1), M32),
    ("columns_dot_self", revad.columns_dot_self, lambda m: (m * m).sum(axis=0), M32),
    ("quad_form", lambda m: revad.quad_form(M33, m), lambda m: m.T @ M33 @ m, np.ones((3, 2))),
    ("quad_form_vector", lambda v: revad.quad_form(M33, v), lambda v: v @ M33 @ v, X3),
    ("quad_form_sym", lambda m: revad.quad_form_sym(m @ m.T if isinstance(m, np.ndarray)
                                                    else revad.tcrossprod(m), X3),
     lambda m: X3 @ (m @ m.T) @ X3, M32.reshape(3, 2)),
    ("quad_form_diag", lambda v: revad.quad_form_diag(M33, v),
     lambda v: np.diag(v) @ M33 @ np.diag(v), X3),
    ("diag_pre_multiply", lambda v: revad.diag_pre_multiply(v, M32), lambda v: np.diag(v) @ M32,
     X3),
    ("diag_post_multiply", lambda v: revad.diag_post_multiply(M23, v),
     lambda v: M23 @ np.diag(v), X3),
]


@pytest.mark.parametrize("name, f, numpy_f, point", SLICES, ids=[s[0] for s in SLICES])
def test_more_matrix_functions(name: str, f: Callable[[Any], Any],
                               numpy_f: Callable[[np.ndarray], np.ndarray],
                               point: np.ndarray) -> None:
    expected = numpy_f(point)
    assert_close(f(point), expected, 1e-14)
    r = f(Var(point))
    assert isinstance(r, Var) and r.shape == np.shape(expected)
    assert_close(r.value, expected, 1e-14)
    w = np.arange(1.0, 1.0 + np.size(expected)).reshape(np.shape(expected))
    check_gradient(lambda x: _total(f(x) * w), [point])


def test_repetition() -> None:
    assert_close(revad.rep_vector(2.0, 3), np.full(3, 2.0), 0.0)
    assert_close(revad.rep_matrix(2.0, 2, 3), np.full((2, 3), 2.0), 0.0)
    check_gradient(lambda x: revad.dot_product(revad.rep_vector(x, 3), W3), [1.5])
    check_gradient(lambda x: revad.sum(revad.rep_matrix(x, 2, 3) * M23), [1.5])


def test_slice_function_errors() -> None:
    with pytest.raises(ValueError):
        revad.head(Var(X3), 4)
    with pytest.raises(ValueError):
        revad.block(Var(M32), 2, 0, 2, 2)
    with pytest.raises(ValueError):
        revad.row(M32, 3)
    with pytest.raises((ValueError, OverflowError)):
        revad.segment(X3, -1, 1)
    with pytest.raises(ValueError):
        revad.sort_asc(np.array([1.0, np.nan]))
    with pytest.raises(revad.SizeError):
        revad.block(Var(X3), 0, 0, 1, 1)


def test_jacobian_of_an_array_valued_function() -> None:
    x = np.array([0.1, 0.5, -0.2])
    values, jac = revad.jacobian(revad.softmax, x)
    s = np.exp(x) / np.exp(x).sum()
    assert_close(values, s, 1e-15)
    assert_close(jac, np.diag(s) - np.outer(s, s), 1e-14)
    _, jac2 = revad.jacobian(lambda m: m @ np.array([1.0, 2.0]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert np.array_equal(jac2, [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]])


def test_matvar_and_varmat_conversions() -> None:
    """Scalar Vars gather into one array Var (one node) and an array Var splits into scalar
    Vars sharing its run; adjoints flow both ways."""
    with revad.Tape():
        a, b = Var(1.5), Var(-2.0)
        v = revad.to_vector([a, b, 3.0])
        assert isinstance(v, Var) and v.shape == (3,)
        y = revad.dot_product(v, W3)
        y.grad()
        assert (a.adj, b.adj) == (W3[0], W3[1])
    with revad.Tape():
        x = Var(X3)
        parts = list(x)
        (parts[0] * parts[2]).grad()
        assert np.array_equal(x.adj, [X3[2], 0.0, X3[0]])
