"""Item assignment into array Vars (Stan Math's varmat subset assignment), NumPy broadcasting
of the elementwise operators, ``**``/``pow`` on arrays, and the Stan-named A.7–A.9 functions
added alongside: values against NumPy, gradients against finite differences and against the same
computation on scalar Vars (the varmat/matvar agreement of ``agree``), node counts, and every
error path."""

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

X8 = np.array([0.3, -1.2, 2.5, 0.7, -0.4, 1.3, 0.9, -2.1])
M23 = np.array([[1.0, 0.5, -2.0], [0.25, 3.0, 1.0]])
M32 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]])


def agree(f_array: Callable[[Any], Any], f_scalar: Callable[[list[Var]], Any], x: Any) -> None:
    """The varmat computation (``f_array`` on one array Var) and the matvar one (``f_scalar`` on
    a list of scalar Vars, row-major) agree in value and gradient; the varmat one also matches
    finite differences."""
    x = np.asarray(x, dtype=np.float64)
    v1, g1 = revad.gradient(f_array, x)
    v2, g2 = revad.gradient(f_scalar, list(x.reshape(-1)))
    assert_close(v1, v2, 1e-13)
    assert np.shape(g1) == x.shape
    assert_close(np.ravel(g1), g2, 1e-12)
    check_gradient(f_array, [x])


def weights(n: int) -> np.ndarray:
    return 1.0 + 0.37 * np.arange(n)


def reduce(r: Any) -> Any:
    """Σₖ wₖ·rₖ·sin(rₖ) of an array Var, k row-major (nonlinear, distinct weights)."""
    flat = revad.to_vector(r.T) if r.ndim == 2 else r
    return revad.dot_product(flat * revad.sin(flat), weights(flat.size))


def reduce_scalars(xs: list[Any]) -> Any:
    return sum(w * x * revad.sin(x) for w, x in zip(weights(len(xs)), xs, strict=False))


def before(r: Any) -> Any:
    return 0.5 * revad.dot_self(r)


def before_scalars(xs: list[Any]) -> Any:
    return 0.5 * sum(x * x for x in xs)


def nodes() -> int:
    return int(revad.tape_stats()["continuations"])


# ---------------------------------------------------------------------------------------------
# assignment


def test_assign_one_element_and_read_the_adjoints() -> None:
    with revad.Tape():
        v = Var(np.array([1.0, 2.0, 3.0]))
        b = revad.sum(v * v)
        x = Var(10.0)
        v[1] = x
        v[-1] = 4.0
        assert np.array_equal(v.value, [1.0, 10.0, 4.0])
        y = b + revad.sum(v * v)
        y.grad()
        assert y.value == 14.0 + 1.0 + 100.0 + 16.0
        # The overwritten elements keep only what `b` (before the assignment) gave them.
        assert np.array_equal(v.adj, [4.0, 4.0, 6.0])
        assert x.adj == 20.0


def test_assign_a_vector_slice() -> None:
    def f(x: Any) -> Any:
        v = x[:5] * 1.0
        b = before(v)
        v[1:3] = x[5:7]
        v[::4] = x[7]  # a scalar Var into a strided slice
        return b + reduce(v)

    def g(xs: list[Any]) -> Any:
        b = before_scalars(xs[:5])
        v = list(xs[:5])
        v[1:3] = xs[5:7]
        v[0] = v[4] = xs[7]
        return b + reduce_scalars(v)

    agree(f, g, X8)


def test_assign_into_the_input_itself() -> None:
    """The Var that revad.gradient passes may be assigned into: the gradient is still with
    respect to the input values."""

    def f(x: Any) -> Any:
        if isinstance(x, np.ndarray):  # the finite differences pass NumPy arrays: keep them
            x = x.copy()
        b = before(x)
        x[2:4] = np.array([0.5, -0.25])
        x[0] = x[5]
        return b * reduce(x)

    def g(xs: list[Any]) -> Any:
        b = before_scalars(xs)
        v = list(xs)
        v[2], v[3] = 0.5, -0.25
        v[0] = xs[5]
        return b * reduce_scalars(v)

    agree(f, g, X8)


@pytest.mark.parametrize(
    "key, source_shape",
    [((1, 2), ()), (0, (3,)), ((0, slice(None)), (3,)), ((slice(None), 1), (2,)),
     ((slice(0, 2), slice(1, 3)), (2, 2)), ((slice(None), slice(None, None, 2)), (2, 2)),
     ((-1, slice(0, 2)), (2,)), ((slice(None), slice(None)), (2, 3))],
)
def test_assign_into_a_matrix(key: Any, source_shape: tuple[int, ...]) -> None:
    """m[key] = s for a source Var of the selection's shape, against the same assignment in a
    list of scalar Vars (numbered row-major) and finite differences."""
    n_src = int(np.prod(source_shape))
    point = np.concatenate([M23.ravel(), X8[:n_src]])
    index = np.arange(6).reshape(2, 3)[key]

    def f(x: Any) -> Any:
        m = revad.to_matrix(revad.head(x, 6), 3, 2).T  # [[x0, x1, x2], [x3, x4, x5]]
        b = before(m)
        src = revad.segment(x, 6, n_src)
        if len(source_shape) == 2:
            src = revad.to_matrix(src, source_shape[1], source_shape[0]).T
        elif source_shape == ():
            src = x[6]
        m[key] = src
        return b + reduce(m)

    def g(xs: list[Any]) -> Any:
        b = before_scalars(xs[:6])
        m = list(xs[:6])
        for j, k in enumerate(np.ravel(index)):
            m[k] = xs[6 + j]
        return b + reduce_scalars(m)

    agree(f, g, point)


def test_assign_data_and_broadcast_sources() -> None:
    with revad.Tape():
        m = Var(np.zeros((3, 4)))
        m[0] = np.array([1.0, 2.0, 3.0, 4.0])  # a row
        m[1:3, :] = np.array([10.0, 20.0, 30.0, 40.0])  # a row broadcast into two rows
        m[:, 3] = 7.0  # a float into a column
        m[1:, 0:2] = np.array([[5.0], [6.0]])  # a column broadcast into a block
        m[2, 2] = [9.0]  # a one-element sequence into one element
        expected = np.array([[1.0, 2.0, 3.0, 7.0], [5.0, 5.0, 30.0, 7.0], [6.0, 6.0, 9.0, 7.0]])
        assert np.array_equal(m.value, expected)
        v = Var(np.zeros(4))
        v[:] = [1.0, Var(2.0), 3.0, 4.0]  # a sequence of floats and Vars
        v[1:3] = np.array([[8.0, 9.0]])  # a leading axis of length 1 goes, as in NumPy
        assert np.array_equal(v.value, [1.0, 8.0, 9.0, 4.0])


def test_row_var_broadcast_into_a_block_gets_the_summed_adjoint() -> None:
    def f(x: Any) -> Any:
        m = revad.to_matrix(revad.head(x, 6), 3, 2).T * 1.0
        m[:, 0:2] = revad.segment(x, 6, 2)
        return reduce(m)

    def g(xs: list[Any]) -> Any:
        return reduce_scalars([xs[6], xs[7], xs[2], xs[6], xs[7], xs[5]])

    agree(f, g, X8)


def test_a_slice_of_the_target_assigned_into_it() -> None:
    def f(x: Any) -> Any:
        v = x * 1.0
        v[0:4] = v[4:8]
        v[1:8] = v[0:7]  # overlapping windows of one Var
        v[::-1] = v  # the Var itself, reversed: copied first (one node), then assigned
        return reduce(v)

    def g(xs: list[Any]) -> Any:
        v = list(xs)
        v[0:4] = v[4:8]
        v[1:8] = v[0:7]
        v = v[::-1]
        return reduce_scalars(v)

    agree(f, g, X8)


def test_assignment_records_one_callback_and_old_handles_keep_old_values() -> None:
    with revad.Tape():
        m = Var(M23)
        old = Var(m)  # another handle of the same variable, taken before
        row = m[0]
        start = nodes()
        m[0:2, 0:2] = np.ones((2, 2))
        assert nodes() == start + 1
        m[1] = Var(np.array([4.0, 5.0, 6.0]))
        assert nodes() == start + 2
        assert np.array_equal(old.value, M23)
        assert np.array_equal(row.value, M23[0])
        assert np.array_equal(m.value, [[1.0, 1.0, -2.0], [4.0, 5.0, 6.0]])


@pytest.mark.parametrize(
    "target, key, value, match",
    [((3,), slice(0, 2), np.ones(3), r"could not broadcast input array from shape \(3,\) "
      r"into shape \(2,\)"),
     ((2, 3), 0, np.ones(2), r"from shape \(2,\) into shape \(3,\)"),
     ((2, 3), (slice(None), slice(0, 2)), np.ones((3, 2)), r"\(3, 2\) into shape \(2, 2\)"),
     ((2, 3), (0, 0), np.ones(2), r"from shape \(2,\) into shape \(\)"),
     ((3,), slice(None), np.ones((3, 1)), r"from shape \(3, 1\) into shape \(3,\)"),
     ((3,), slice(None), [1.0, 2.0], r"from shape \(2,\) into shape \(3,\)")],
)
def test_assignment_shape_mismatch_is_a_value_error(
    target: tuple[int, ...], key: Any, value: Any, match: str
) -> None:
    with revad.Tape():
        a = Var(np.zeros(target))
        with pytest.raises(ValueError, match=match) as info:
            a[key] = value
        assert isinstance(info.value, revad.SizeError)
        assert np.array_equal(a.value, np.zeros(target))  # nothing written
        with pytest.raises(ValueError):
            a[key] = Var(np.asarray(value, dtype=float))


def test_assignment_index_and_type_errors() -> None:
    with revad.Tape():
        v = Var(np.zeros(3))
        m = Var(np.zeros((2, 2)))
        with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
            v[3] = 1.0
        with pytest.raises(IndexError, match="out of bounds for axis 1 with size 2"):
            m[0, -3] = 1.0
        with pytest.raises(IndexError, match="too many indices"):
            v[0, 0] = 1.0
        with pytest.raises(IndexError, match="too many indices"):
            m[0, 0, 0] = 1.0
        with pytest.raises(IndexError, match="only integers, slices"):
            v["a"] = 1.0  # type: ignore[index]
        with pytest.raises(TypeError):
            v[0] = "x"  # type: ignore[assignment]
        with pytest.raises(TypeError):
            v[0:2] = object()  # type: ignore[assignment]
        with pytest.raises(TypeError, match="does not support item assignment"):
            Var(1.0)[0] = 2.0  # type: ignore[index]
        with pytest.raises(revad.SizeError, match="3 dimensions"):
            m[0] = np.zeros((1, 1, 2))
        assert np.array_equal(v.value, np.zeros(3))


def test_assignment_of_stale_or_foreign_vars() -> None:
    with revad.Tape():
        v = Var(np.zeros(3))
    with pytest.raises(revad.StaleVarError):
        v[0] = 1.0
    with revad.Tape():
        w = Var(np.zeros(2))
        with revad.Tape():
            inner = Var(1.0)
        with pytest.raises(revad.StaleVarError):
            w[0] = inner
        errors: list[BaseException] = []

        def other() -> None:
            try:
                w[0] = 1.0
            except BaseException as e:  # noqa: BLE001 - the test inspects it
                errors.append(e)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert len(errors) == 1 and isinstance(errors[0], revad.ThreadError)
        assert np.array_equal(w.value, np.zeros(2))


# ---------------------------------------------------------------------------------------------
# broadcasting

SHAPE_PAIRS = [((3,), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((2, 1), (3,)), ((3,), (2, 1)),
               ((1,), (3,)), ((1, 1), (2, 3)), ((2, 3), (1, 3)), ((1, 3), (2, 1))]
OPS = [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
       ("truediv", operator.truediv), ("pow", operator.pow)]


def operand(shape: tuple[int, ...], seed: int) -> np.ndarray:
    n = int(np.prod(shape))
    return (0.5 + ((np.arange(n) * 0.61 + seed * 0.37) % 1.7)).reshape(shape)


@pytest.mark.parametrize("sa, sb", SHAPE_PAIRS)
@pytest.mark.parametrize("name, op", OPS)
@pytest.mark.parametrize("kinds", ["vv", "vd", "dv"])
def test_broadcasting_values_gradients_and_matvar(
    sa: tuple[int, ...], sb: tuple[int, ...], name: str, op: Any, kinds: str
) -> None:
    a, b = operand(sa, 1), operand(sb, 2)
    expected = op(a, b)
    out_n = expected.size
    w = weights(out_n)

    with revad.Tape():
        x = Var(a) if kinds[0] == "v" else a
        y = Var(b) if kinds[1] == "v" else b
        r = op(x, y)
        assert isinstance(r, Var) and r.shape == expected.shape
        assert_close(r.value, expected, 1e-15)

    na = a.size if kinds[0] == "v" else 0
    weight = w.reshape(expected.shape)

    def shaped(seg: Any, s: tuple[int, ...]) -> Any:
        return revad.to_matrix(seg, s[1], s[0]).T if len(s) == 2 else seg

    def f(p: Any) -> Any:
        x = shaped(revad.segment(p, 0, a.size), sa) if kinds[0] == "v" else a
        y = shaped(revad.segment(p, na, b.size), sb) if kinds[1] == "v" else b
        return revad.sum(op(x, y) * weight)

    def g(ps: list[Any]) -> Any:
        xs = ps[:na] if kinds[0] == "v" else list(a.ravel())
        ys = ps[na:] if kinds[1] == "v" else list(b.ravel())
        ax = np.array(xs, dtype=object).reshape(sa)
        by = np.array(ys, dtype=object).reshape(sb)
        pa, pb = np.broadcast_arrays(ax, by)
        return sum(wk * op(p, q) for wk, p, q in zip(w, pa.ravel(), pb.ravel(), strict=False))

    point = np.concatenate([a.ravel() if kinds[0] == "v" else [],
                            b.ravel() if kinds[1] == "v" else []])
    agree(f, g, point)


@pytest.mark.parametrize("sa, sb", SHAPE_PAIRS)
def test_broadcasting_records_no_per_element_nodes(
    sa: tuple[int, ...], sb: tuple[int, ...]
) -> None:
    with revad.Tape():
        x, y = Var(operand(sa, 1)), Var(operand(sb, 2))
        start = nodes()
        x * y
        assert nodes() == start + 1
        x**y
        x - y.value
        y.value / x
        assert nodes() == start + 4


def test_broadcasting_of_data_only_gives_data_and_scalars_work() -> None:
    assert isinstance(revad.add(np.ones(3), np.ones((2, 1))), np.ndarray)
    assert revad.add(1.0, 2.0) == 3.0
    with revad.Tape():
        s = Var(2.0)
        m = Var(M23)
        r = s * m + np.ones(3) - 1.0
        assert_close(r.value, 2.0 * M23, 1e-15)
        revad.sum(r).grad()
        assert s.adj == pytest.approx(M23.sum())
        assert np.array_equal(m.adj, np.full((2, 3), 2.0))


@pytest.mark.parametrize(
    "sa, sb", [((2,), (3,)), ((2, 3), (2,)), ((3, 2), (2, 3)), ((2, 1), (3, 2)), ((3,), (3, 2))]
)
def test_incompatible_shapes(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    def shape(s: tuple[int, ...]) -> str:
        return "(" + ", ".join(map(str, s)) + ("," if len(s) == 1 else "") + ")"

    message = f"operands could not be broadcast together with shapes {shape(sa)} {shape(sb)}"
    with revad.Tape():
        pairs: list[tuple[Any, Any]] = [(Var(np.ones(sa)), Var(np.ones(sb))),
                                         (Var(np.ones(sa)), np.ones(sb)),
                                         (np.ones(sa), Var(np.ones(sb)))]
        ops: tuple[Callable[[Any, Any], Any], ...] = (
            operator.add, operator.mul, operator.pow, revad.subtract, revad.pow)
        for x, y in pairs:
            for op in ops:
                with pytest.raises(ValueError) as info:
                    op(x, y)
                assert message in str(info.value)
                assert isinstance(info.value, revad.SizeError)


def test_pow_with_array_exponents_is_one_node() -> None:
    base, expo = np.array([0.5, 1.5, 2.0]), np.array([2.5, -1.0, 0.0])
    with revad.Tape():
        x, e = Var(base), Var(expo)
        start = nodes()
        r = x**e
        assert nodes() == start + 1
        assert_close(r.value, base**expo, 1e-15)
        r2 = revad.pow(x, Var(1.5))  # a scalar Var exponent: a rep node and a pow node
        assert nodes() <= start + 3
        assert_close(r2.value, base**1.5, 1e-15)
        assert_close((2.0**x).value, 2.0**base, 1e-15)
    assert_close(revad.pow(base, expo), base**expo, 1e-15)
    assert revad.pow(2.0, 3.0) == 8.0

    def f(p: Any) -> Any:
        return revad.sum(revad.pow(p[:3], p[3:]) * weights(3))

    def g(ps: list[Any]) -> Any:
        return sum(w * revad.pow(a, b) for w, a, b in zip(weights(3), ps[:3], ps[3:], strict=False))

    agree(f, g, np.concatenate([base, expo]))
    # 0 ** y: ∂/∂y is 0, ∂/∂x = y·0^(y−1).
    _, grad = revad.gradient(lambda p: revad.sum(p[:1] ** p[1:]), np.array([0.0, 1.0]))
    assert np.array_equal(grad, [1.0, 0.0])


# ---------------------------------------------------------------------------------------------
# Stan-named functions added to Python


def test_max_and_min() -> None:
    x = np.array([0.3, 2.5, -1.2, 2.5])
    assert revad.max(x) == 2.5 and revad.min(x) == -1.2
    assert revad.max([]) == -np.inf and revad.min(np.zeros((0, 2))) == np.inf
    assert revad.max(M23) == 3.0
    _, g = revad.gradient(revad.max, x)
    assert np.array_equal(g, [0.0, 0.5, 0.0, 0.5])  # ties share, as in Stan
    agree(lambda v: revad.min(v * v), lambda xs: min(x * x for x in xs), X8)
    agree(lambda v: revad.max(v), lambda xs: max(xs), M32)
    with pytest.raises(TypeError):
        revad.max(3.0)  # type: ignore[call-overload]


def test_append_col_and_append_row() -> None:
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert np.array_equal(revad.append_col(a, b), np.column_stack([a, b]))
    assert np.array_equal(revad.append_col(M32, a[:1].repeat(3)), np.column_stack([M32, [1, 1, 1]]))
    assert np.array_equal(revad.append_col(np.ones(3), M32), np.column_stack([np.ones(3), M32]))
    assert np.array_equal(revad.append_col(M23, M23), np.hstack([M23, M23]))
    assert np.array_equal(revad.append_row(a, b), np.concatenate([a, b]))
    assert np.array_equal(revad.append_row(M23, np.ones(3)), np.vstack([M23, np.ones(3)]))
    assert np.array_equal(revad.append_row(np.ones(3), M23), np.vstack([np.ones(3), M23]))
    assert np.array_equal(revad.append_row(M23, M23), np.vstack([M23, M23]))
    assert np.array_equal(revad.append_row(5.0, a), [5.0, 1.0, 2.0])
    assert np.array_equal(revad.append_row(a, 5.0), [1.0, 2.0, 5.0])

    def f(p: Any) -> Any:
        m = revad.append_col(revad.head(p, 3), revad.to_matrix(revad.tail(p, 3), 3, 1))
        r = revad.append_row(m, revad.segment(p, 1, 2))
        c = revad.append_row(p[0], revad.head(p, 2))
        return reduce(r) + reduce(c)

    def g(ps: list[Any]) -> Any:
        r = [ps[0], ps[3], ps[1], ps[4], ps[2], ps[5], ps[1], ps[2]]  # row-major 4×2
        return reduce_scalars(r) + reduce_scalars([ps[0], ps[0], ps[1]])

    agree(f, g, X8[:6])
    with pytest.raises(revad.SizeError):
        revad.append_col(np.ones(2), np.ones(3))
    with pytest.raises(revad.SizeError):
        revad.append_row(M23, np.ones(2))
    with pytest.raises(TypeError):
        revad.append_col(1.0, np.ones(2))  # type: ignore[call-overload]


def test_to_matrix_to_row_vector_to_array_1d() -> None:
    v = np.arange(6.0)
    assert np.array_equal(revad.to_matrix(v, 2, 3), v.reshape(3, 2).T)  # column-major fill
    assert np.array_equal(revad.to_matrix(v), v.reshape(6, 1))
    assert np.array_equal(revad.to_matrix(M23), M23)
    assert np.array_equal(revad.to_matrix(M23, 3, 2), M23.T.ravel().reshape(2, 3).T)
    assert np.array_equal(revad.to_row_vector(M23), M23.T.ravel())
    assert revad.to_array_1d(M23) == list(M23.T.ravel())
    with revad.Tape():
        m = Var(M23)
        parts = revad.to_array_1d(m)
        assert [p.value for p in parts] == list(M23.T.ravel())
        (parts[1] * 2.0).grad()  # element (1, 0): shares m's run
        assert np.array_equal(m.adj, [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    agree(lambda p: reduce(revad.to_matrix(p, 4, 2)),
          lambda xs: reduce_scalars([xs[i] for i in (0, 4, 1, 5, 2, 6, 3, 7)]), X8)
    agree(lambda p: reduce(revad.to_row_vector(p)),
          lambda xs: reduce_scalars([xs[0], xs[2], xs[4], xs[1], xs[3], xs[5]]), M32)
    with pytest.raises(revad.SizeError):
        revad.to_matrix(v, 4, 2)
    with pytest.raises(TypeError, match="both m and n"):
        revad.to_matrix(v, 2)


def test_rep_row_vector_sub_col_sub_row() -> None:
    assert np.array_equal(revad.rep_row_vector(1.5, 3), [1.5, 1.5, 1.5])
    v = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(revad.rep_matrix(v, 2), np.column_stack([v, v]))
    agree(lambda p: reduce(revad.rep_matrix(p, 2)),
          lambda xs: reduce_scalars([xs[0], xs[0], xs[1], xs[1], xs[2], xs[2]]), v)
    with pytest.raises(TypeError, match="rep_matrix"):
        revad.rep_matrix(v, 2, 2)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="both sizes"):
        revad.rep_matrix(1.0, 2)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="1-D array"):
        revad.rep_matrix(M23, 2)
    m = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(revad.sub_col(m, 1, 2, 2), m[1:3, 2])
    assert np.array_equal(revad.sub_row(m, 2, 1, 3), m[2, 1:4])
    agree(lambda p: reduce(revad.sub_col(p, 0, 1, 3)) * reduce(revad.sub_row(p, 1, 0, 2)),
          lambda xs: reduce_scalars([xs[1], xs[3], xs[5]]) * reduce_scalars(xs[2:4]), M32)
    with revad.Tape():
        s = Var(0.5)
        revad.sum(revad.rep_row_vector(s, 4)).grad()
        assert s.adj == 4.0
    with pytest.raises(revad.DomainError, match="sub_col"):
        revad.sub_col(m, 2, 0, 2)
    with pytest.raises(revad.DomainError, match="sub_row"):
        revad.sub_row(m, 0, 2, 3)


def test_columns_and_rows_dot_product_and_lower_tri() -> None:
    assert_close(revad.columns_dot_product(M23, 2 * M23), (M23 * 2 * M23).sum(axis=0), 1e-15)
    assert_close(revad.rows_dot_product(M23, 2 * M23), (M23 * 2 * M23).sum(axis=1), 1e-15)
    a = np.array([1.0, 2.0, 3.0])
    assert_close(revad.columns_dot_product(a, a), [14.0], 1e-15)
    assert_close(revad.rows_dot_product(a, a), a * a, 1e-15)
    sq = np.array([[2.0, 7.0], [0.5, -1.0]])
    lower = np.tril(sq)
    assert_close(revad.multiply_lower_tri_self_transpose(sq), lower @ lower.T, 1e-15)

    def f(p: Any) -> Any:
        m = revad.to_matrix(p[:4], 2, 2)
        n = revad.to_matrix(p[4:], 2, 2)
        return (revad.sum(revad.columns_dot_product(m, n) * np.array([1.0, 2.0]))
                + revad.sum(revad.rows_dot_product(m, n) * np.array([0.5, -1.0]))
                + reduce(revad.multiply_lower_tri_self_transpose(m)))

    def g(ps: list[Any]) -> Any:
        m = [[ps[0], ps[2]], [ps[1], ps[3]]]
        n = [[ps[4], ps[6]], [ps[5], ps[7]]]
        cols = sum(w * (m[0][j] * n[0][j] + m[1][j] * n[1][j]) for j, w in enumerate([1.0, 2.0]))
        rows = sum(w * (m[i][0] * n[i][0] + m[i][1] * n[i][1]) for i, w in enumerate([0.5, -1]))
        ll = [m[0][0] * m[0][0], m[0][0] * m[1][0], m[1][0] * m[0][0],
              m[1][0] * m[1][0] + m[1][1] * m[1][1]]
        return cols + rows + reduce_scalars(ll)

    agree(f, g, X8)
    with pytest.raises(revad.SizeError, match="must both be 1-D or both 2-D"):
        revad.columns_dot_product(M23, np.ones(3))
    with pytest.raises(revad.SizeError):
        revad.rows_dot_product(M23, M32)
    with pytest.raises(revad.SizeError, match="must be 2-D"):
        revad.multiply_lower_tri_self_transpose(np.ones(3))


def test_integer_valued_functions() -> None:
    v = np.array([0.3, -1.2, 2.5, -1.2])
    assert revad.sort_indices_asc(v) == list(np.argsort(v, kind="stable"))
    assert revad.sort_indices_desc(v) == [2, 0, 1, 3]
    assert revad.rank(v, 0) == 2 and revad.rank(v, 1) == 0
    with revad.Tape():
        x = Var(v)
        assert revad.sort_indices_asc(x) == [1, 3, 0, 2]
        assert revad.rank(x, 2) == 3
        m = Var(M23)
        assert (revad.dims(x), revad.dims(m), revad.dims(Var(1.0)), revad.dims(2.0)) == (
            [4], [2, 3], [], [])
        assert (revad.num_elements(m), revad.rows(m), revad.cols(m)) == (6, 2, 3)
        assert (revad.rows(x), revad.cols(x), revad.num_elements(x)) == (4, 1, 4)
    assert revad.dims([1.0, 2.0]) == [2]
    with pytest.raises(revad.DomainError, match="rank"):
        revad.rank(v, 4)
    with pytest.raises(revad.SizeError, match="1-D"):
        revad.sort_indices_asc(M23)
    with pytest.raises(TypeError):
        revad.rows(1.0)  # type: ignore[arg-type]


def test_add_subtract_divide_are_the_operators() -> None:
    with revad.Tape():
        x, y = Var(M23), Var(np.array([1.0, 2.0, 4.0]))
        for f, op in ((revad.add, operator.add), (revad.subtract, operator.sub),
                      (revad.divide, operator.truediv)):
            assert_close(f(x, y).value, op(M23, y.value), 1e-15)
            assert_close(f(x, 2.0).value, op(M23, 2.0), 1e-15)
    agree(lambda p: reduce(revad.divide(revad.subtract(p, 1.0), revad.add(p, 3.0))),
          lambda xs: reduce_scalars([(x - 1.0) / (x + 3.0) for x in xs]), X8)
    with pytest.raises(TypeError, match="argument b"):
        revad.add(np.ones(2), "x")  # type: ignore[call-overload]
