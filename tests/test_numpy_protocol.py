"""NumPy's protocols on array Vars, table-driven: every row runs one NumPy expression on NumPy
arrays and on array Vars, and checks that the Var result has the value (exactly, or to a few
ulps for transcendental functions, whose NumPy implementations round differently), that the
expression records the expected number of tape nodes (one per whole-array operation), and that
its gradient matches finite differences (the expression on float64 arrays, Ridders'
extrapolation).

The table covers every supported ufunc (one and two arguments, over NumPy's broadcasting pairs),
every reduction along every axis with and without ``keepdims``, the indexing forms (integers,
slices with negative steps, ``None``, ``...``, integer arrays, boolean masks), the shape
functions (reshape, ravel, squeeze, expand_dims, concatenate, stack, ...), ``where``, and the
NumPy functions that dispatch to revad; then item and slice assignment, the values-only
functions, and the errors.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import scipy.special as sc

import revad
from revad import Var
from revad.testing import check_gradient

Shape = tuple[int, ...]
Domain = tuple[float, float]


@dataclass(frozen=True)
class Case:
    """One row: ``expr`` applied to inputs of ``shapes`` (NumPy arrays, or Vars of them)."""

    id: str
    expr: Callable[..., Any]
    shapes: tuple[Shape, ...]
    # The NumPy reference when it is spelt differently (else ``expr`` on NumPy arrays).
    ref: Callable[..., Any] | None = None
    # Values to the last bit (else to a few ulps).
    exact: bool = True
    # Nodes the expression records on Vars (``None``: not checked).
    nodes: int | None = 1
    # The interval each input is drawn from (one for all, or one per input).
    domain: Domain | Sequence[Domain] = (-2.0, 2.0)
    # Which inputs are Vars (the others stay NumPy arrays).
    var: tuple[bool, ...] | None = None
    fd: bool = True
    tags: tuple[str, ...] = field(default_factory=tuple)


def inputs(case: Case) -> list[Any]:
    """The inputs of a row: distinct values (no ties) from its domain, fixed by its id."""
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    domains = case.domain if isinstance(case.domain[0], tuple) else [case.domain] * len(case.shapes)
    # Evenly spread in a random order over all the inputs, jittered: no two values (of one
    # input or of two with one domain) within a finite-difference step of each other, since
    # max, min, maximum, sort and fmod have kinks where two values meet.
    sizes = [int(np.prod(shape)) for shape in case.shapes]
    total = sum(sizes)
    u = (rng.permutation(total) + 0.5 + rng.uniform(-0.2, 0.2, size=total)) / total
    out: list[Any] = []
    start = 0
    for shape, n, (lo, hi) in zip(case.shapes, sizes, domains, strict=True):  # type: ignore[misc]
        x = (lo + (hi - lo) * u[start : start + n]).reshape(shape)
        start += n
        out.append(float(x) if shape == () else x)
    return out


def as_var(x: Any, is_var: bool) -> Any:
    return Var(x) if is_var else x


def nodes() -> int:
    return int(revad.tape_stats()["continuations"])


def close(got: Any, want: Any, exact: bool) -> None:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"shape {got.shape}, NumPy's {want.shape}"
    if exact:
        assert np.array_equal(got, want, equal_nan=True), f"{got} != {want}"
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def run(case: Case) -> None:
    xs = inputs(case)
    want = (case.ref or case.expr)(*xs)
    is_var = case.var or (True,) * len(xs)
    with revad.Tape():
        vs = [as_var(x, v) for x, v in zip(xs, is_var, strict=True)]
        before = nodes()
        out = case.expr(*vs)
        recorded = nodes() - before
        assert isinstance(out, Var), f"{case.id} gave {type(out).__name__}, not a Var"
        close(out.value, want, case.exact)
        if case.nodes is not None:
            assert recorded == case.nodes, f"{case.id} recorded {recorded} nodes"
    if not case.fd:
        return
    sizes = [int(np.size(x)) for x in xs]
    ends = np.cumsum(sizes)
    w_shape = np.shape(want)
    weights = 1.0 + 0.37 * np.arange(int(np.prod(w_shape))).reshape(w_shape)

    def f(v: Any) -> Any:
        parts = []
        for k, (shape, end) in enumerate(zip(case.shapes, ends, strict=True)):
            start = int(end) - sizes[k]
            part = v[start] if shape == () else v[start : int(end)].reshape(shape)
            if not is_var[k]:
                part = xs[k]  # data stays data
            parts.append(part)
        return np.sum(case.expr(*parts) * weights)

    flat = np.concatenate([np.ravel(x) for x in xs])
    check_gradient(f, [flat])


# ---------------------------------------------------------------------------------------------
# the table

UNIT, POS, WIDE = (-0.9, 0.9), (0.2, 2.0), (-2.0, 2.0)

UNARY: list[tuple[str, Callable[..., Any], Domain, bool]] = [
    ("exp", np.exp, WIDE, False),
    ("exp2", np.exp2, WIDE, False),
    ("expm1", np.expm1, WIDE, False),
    ("log", np.log, POS, False),
    ("log2", np.log2, POS, False),
    ("log10", np.log10, POS, False),
    ("log1p", np.log1p, UNIT, False),
    ("sqrt", np.sqrt, POS, True),
    ("cbrt", np.cbrt, POS, False),
    ("square", np.square, WIDE, True),
    ("reciprocal", np.reciprocal, POS, True),
    ("sin", np.sin, WIDE, False),
    ("cos", np.cos, WIDE, False),
    ("tan", np.tan, UNIT, False),
    ("arcsin", np.arcsin, UNIT, False),
    ("arccos", np.arccos, UNIT, False),
    ("arctan", np.arctan, WIDE, False),
    ("sinh", np.sinh, WIDE, False),
    ("cosh", np.cosh, WIDE, False),
    ("tanh", np.tanh, WIDE, False),
    ("arcsinh", np.arcsinh, WIDE, False),
    ("arccosh", np.arccosh, (1.2, 3.0), False),
    ("arctanh", np.arctanh, UNIT, False),
    ("absolute", np.absolute, WIDE, True),
    ("abs", abs, WIDE, True),
    ("fabs", np.fabs, WIDE, True),
    ("negative", np.negative, WIDE, True),
    ("neg", lambda x: -x, WIDE, True),
    ("floor", np.floor, (0.1, 0.9), True),
    ("ceil", np.ceil, (0.1, 0.9), True),
    ("trunc", np.trunc, (-0.9, -0.1), True),
    ("deg2rad", np.deg2rad, WIDE, True),
    ("rad2deg", np.rad2deg, WIDE, True),
    ("expit", sc.expit, WIDE, False),
    ("logit", sc.logit, (0.1, 0.9), False),
    ("log_expit", sc.log_expit, WIDE, False),
    ("erf", sc.erf, WIDE, False),
    ("erfc", sc.erfc, WIDE, False),
    ("gammaln", sc.gammaln, POS, False),
    ("gamma", sc.gamma, POS, False),
    ("psi", sc.psi, POS, False),
    ("ndtr", sc.ndtr, WIDE, False),
    ("ndtri", sc.ndtri, (0.05, 0.95), False),
]

CASES: list[Case] = []
for name, f, dom, exact in UNARY:
    for shape in [(2, 3), (4,)]:
        CASES.append(Case(f"{name}{shape}", f, (shape,), exact=exact, domain=dom))
CASES.append(Case("positive is the Var itself", np.positive, ((3,),), nodes=0))

# Broadcasting pairs of shapes (NumPy's rules: aligned from the right, 1 stretches).
PAIRS: list[tuple[Shape, Shape]] = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((3,), (2, 3)),
    ((2, 1), (1, 3)),
    ((2, 1), (3,)),
    ((1, 3), (2, 1)),
    ((2, 3), (2, 1)),
    ((3,), (3,)),
    ((3,), (1,)),
    ((2, 3), ()),
    ((), (3,)),
]

BINARY: list[tuple[str, Callable[..., Any], Sequence[Domain], bool]] = [
    ("add", np.add, (WIDE, WIDE), True),
    ("+", lambda a, b: a + b, (WIDE, WIDE), True),
    ("subtract", np.subtract, (WIDE, WIDE), True),
    ("-", lambda a, b: a - b, (WIDE, WIDE), True),
    ("multiply", np.multiply, (WIDE, WIDE), True),
    ("*", lambda a, b: a * b, (WIDE, WIDE), True),
    ("divide", np.divide, (WIDE, POS), True),
    ("/", lambda a, b: a / b, (WIDE, POS), True),
    ("power", np.power, (POS, WIDE), False),
    ("**", lambda a, b: a**b, (POS, WIDE), False),
    ("maximum", np.maximum, (WIDE, WIDE), True),
    ("minimum", np.minimum, (WIDE, WIDE), True),
    ("fmax", np.fmax, (WIDE, WIDE), True),
    ("fmin", np.fmin, (WIDE, WIDE), True),
    ("hypot", np.hypot, (WIDE, WIDE), True),
    ("arctan2", np.arctan2, (WIDE, WIDE), False),
    ("logaddexp", np.logaddexp, (WIDE, WIDE), False),
    ("fmod", np.fmod, ((2.7, 2.8), (1.25, 1.3)), True),
    ("xlogy", sc.xlogy, (POS, POS), False),
]

for name, f, doms, exact in BINARY:
    for sa, sb in PAIRS:
        CASES.append(Case(f"{name}{sa}{sb}", f, (sa, sb), exact=exact, domain=doms))
# A Var with a NumPy array on either side (NumPy's operators hand these to the Var).
for name, f, doms, exact in BINARY[:8]:
    CASES.append(
        Case(f"{name} ndarray-Var", f, ((2, 3), (3,)), exact=exact, domain=doms, var=(False, True))
    )
    CASES.append(
        Case(f"{name} Var-ndarray", f, ((2, 1), (3,)), exact=exact, domain=doms, var=(True, False))
    )

# Products.
for sa, sb in [((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 2)), ((3,), (3,))]:
    CASES.append(Case(f"matmul{sa}{sb}", np.matmul, (sa, sb), exact=False))
    CASES.append(Case(f"@{sa}{sb}", lambda a, b: a @ b, (sa, sb), exact=False))
    CASES.append(Case(f"dot{sa}{sb}", np.dot, (sa, sb), exact=False))

# Reductions along every axis, with and without keepdims.
REDUCE: list[tuple[str, Callable[..., Any], Domain]] = [
    ("sum", np.sum, WIDE),
    ("mean", np.mean, WIDE),
    ("prod", np.prod, (0.5, 1.5)),
    ("max", np.max, WIDE),
    ("min", np.min, WIDE),
    ("amax", np.amax, WIDE),
    ("amin", np.amin, WIDE),
]
AXES: list[Any] = [None, 0, 1, -1, -2, (0, 1), (1,)]
for name, f, dom in REDUCE:
    for axis in AXES:
        for keepdims in (False, True):
            CASES.append(
                Case(
                    f"{name}(axis={axis}, keepdims={keepdims})",
                    lambda a, f=f, axis=axis, keepdims=keepdims: f(a, axis=axis, keepdims=keepdims),
                    ((3, 4),),
                    exact=name not in ("sum", "mean", "prod"),
                    domain=dom,
                )
            )
    for axis in [None, 0, -1]:
        CASES.append(
            Case(
                f"{name}1d(axis={axis})",
                lambda a, f=f, axis=axis: f(a, axis=axis),
                ((5,),),
                exact=name not in ("sum", "mean", "prod"),
                domain=dom,
            )
        )
    method = name if name in ("sum", "mean", "prod", "max", "min") else None
    if method:
        CASES.append(
            Case(
                f"v.{method}(axis=1, keepdims=True)",
                lambda a, m=method: getattr(a, m)(axis=1, keepdims=True),
                ((3, 4),),
                exact=name not in ("sum", "mean", "prod"),
                domain=dom,
            )
        )
for axis in [None, 0, 1, -1, (0, 1)]:
    for keepdims in (False, True):
        CASES.append(
            Case(
                f"log_sum_exp(axis={axis}, keepdims={keepdims})",
                lambda a, axis=axis, keepdims=keepdims: revad.log_sum_exp(
                    a, axis=axis, keepdims=keepdims
                ),
                ((3, 4),),
                ref=lambda a, axis=axis, keepdims=keepdims: sc.logsumexp(
                    a, axis=axis, keepdims=keepdims
                ),
                exact=False,
            )
        )
for ufunc, dom in [(np.add, WIDE), (np.multiply, (0.5, 1.5)), (np.maximum, WIDE),
                   (np.minimum, WIDE), (np.logaddexp, WIDE)]:
    for axis in (0, 1):
        CASES.append(
            Case(
                f"{ufunc.__name__}.reduce(axis={axis})",
                lambda a, u=ufunc, axis=axis: u.reduce(a, axis=axis),
                ((3, 4),),
                exact=False,
                domain=dom,
            )
        )
CASES.append(Case("add.accumulate", np.add.accumulate, ((5,),), exact=False))
CASES.append(Case("cumsum", np.cumsum, ((5,),), exact=False))

# Indexing: one gathering node (a single element: a scalar Var sharing the slot, no node).
MASK5 = np.array([True, False, True, True, False])
MASK34 = np.arange(12).reshape(3, 4) % 3 == 0
INDEX_1D: list[tuple[str, Any, int]] = [
    ("v[2]", 2, 0),
    ("v[-1]", -1, 0),
    ("v[1:4]", slice(1, 4), 1),
    ("v[::-1]", slice(None, None, -1), 1),
    ("v[4:0:-2]", slice(4, 0, -2), 1),
    ("v[[0, 2, 2]]", [0, 2, 2], 1),
    ("v[[-1, 0]]", np.array([-1, 0]), 1),
    ("v[2-D ints]", np.array([[0, 1, 4], [2, 3, 3]]), 1),
    ("v[mask]", MASK5, 1),
    ("v[:, None]", (slice(None), None), 1),
    ("v[None, :]", (None, slice(None)), 1),
    ("v[None]", None, 1),
    ("v[..., 1]", (Ellipsis, 1), 0),
    ("v[...]", Ellipsis, 1),
    ("v[[]]", [], 1),
]
for name, key, n in INDEX_1D:
    CASES.append(Case(name, lambda a, key=key: a[key], ((5,),), nodes=n))
INDEX_2D: list[tuple[str, Any, int]] = [
    ("m[1]", 1, 1),
    ("m[-1, ::-1]", (-1, slice(None, None, -1)), 1),
    ("m[:, 1]", (slice(None), 1), 1),
    ("m[1, 2]", (1, 2), 0),
    ("m[::-1, ::2]", (slice(None, None, -1), slice(None, None, 2)), 1),
    ("m[1:, 1:3]", (slice(1, None), slice(1, 3)), 1),
    ("m[[0, 2], [3, 0]]", ([0, 2], [3, 0]), 1),
    ("m[[2, 0]]", [2, 0], 1),
    ("m[:, [3, 0, 0]]", (slice(None), [3, 0, 0]), 1),
    ("m[[2, 0], 1:]", ([2, 0], slice(1, None)), 1),
    ("m[0, [3, 1]]", (0, [3, 1]), 1),
    ("m[[1, 2], -1]", ([1, 2], -1), 1),
    ("m[col ints, row ints] broadcast", (np.array([[0], [2]]), np.array([1, 3, 0])), 1),
    ("m[mask2d]", MASK34, 1),
    ("m[row mask]", np.array([True, False, True]), 1),
    ("m[:, col mask]", (slice(None), np.array([False, True, True, False])), 1),
    ("m[row mask, 1]", (np.array([True, False, True]), 1), 1),
    ("m[..., 0]", (Ellipsis, 0), 1),
    ("m[None, 0]", (None, 0), 1),
    ("m[1, None]", (1, None), 1),
    ("m[:, 2, None]", (slice(None), 2, None), 1),
    ("m[np.int64(1)]", np.int64(1), 1),
]
for name, key, n in INDEX_2D:
    CASES.append(Case(name, lambda a, key=key: a[key], ((3, 4),), nodes=n))

# Shapes: one copying node each.
CASES += [
    Case("v.reshape(2, 3)", lambda a: a.reshape(2, 3), ((6,),)),
    Case("v.reshape((3, -1))", lambda a: a.reshape((3, -1)), ((6,),)),
    Case("m.reshape(-1)", lambda a: a.reshape(-1), ((2, 3),)),
    Case("m.reshape(3, 2)", lambda a: a.reshape(3, 2), ((2, 3),)),
    Case("np.reshape(m, (1, 6))", lambda a: np.reshape(a, (1, 6)), ((2, 3),)),
    Case("np.reshape(m, 6)", lambda a: np.reshape(a, 6), ((2, 3),)),
    Case("m.ravel()", lambda a: a.ravel(), ((2, 3),)),
    Case("np.ravel(m)", np.ravel, ((2, 3),)),
    Case("m.flatten()", lambda a: a.flatten(), ((2, 3),)),
    Case("m13.squeeze()", lambda a: a.squeeze(), ((1, 3),)),
    Case("np.squeeze(m31, axis=1)", lambda a: np.squeeze(a, axis=1), ((3, 1),)),
    Case("np.expand_dims(v, 0)", lambda a: np.expand_dims(a, 0), ((3,),)),
    Case("np.expand_dims(v, -1)", lambda a: np.expand_dims(a, -1), ((3,),)),
    Case("m.T", lambda a: a.T, ((2, 3),)),
    Case("np.transpose(m)", np.transpose, ((2, 3),)),
    Case("m.transpose(1, 0)", lambda a: a.transpose(1, 0), ((2, 3),)),
    Case("concatenate 1-D", lambda a, b: np.concatenate([a, b, a]), ((3,), (2,))),
    Case("concatenate axis 0", lambda a, b: np.concatenate([a, b], axis=0), ((2, 3), (1, 3))),
    Case("concatenate axis 1", lambda a, b: np.concatenate((a, b), axis=1), ((2, 3), (2, 1))),
    Case("concatenate axis -1", lambda a, b: np.concatenate([a, b], axis=-1), ((2, 1), (2, 2))),
    Case("concatenate axis None", lambda a, b: np.concatenate([a, b], axis=None),
         ((2, 2), (3,)), nodes=2),
    Case("concatenate with data", lambda a, b: np.concatenate([a, b]), ((3,), (2,)),
         var=(True, False)),
    Case("stack axis 0", lambda a, b: np.stack([a, b]), ((3,), (3,))),
    Case("stack axis 1", lambda a, b: np.stack([a, b], axis=1), ((3,), (3,))),
    Case("stack axis -1", lambda a, b: np.stack([a, b, a], axis=-1), ((3,), (3,))),
    Case("stack scalars", lambda a, b: np.stack([a, b, a]), ((), ())),
    Case("vstack", lambda a, b: np.vstack([a, b]), ((3,), (3,))),
    Case("hstack", lambda a, b: np.hstack([a, b]), ((3,), (2,))),
    Case("hstack 2-D", lambda a, b: np.hstack([a, b]), ((2, 3), (2, 1))),
    Case("column_stack", lambda a, b: np.column_stack([a, b]), ((3,), (3,))),
]

# where, with broadcasting; the condition is data.
COND = np.array([[True, False, True], [False, False, True]])
CASES += [
    Case("where(c, m, n)", lambda a, b: np.where(COND, a, b), ((2, 3), (2, 3))),
    Case("where(c, row, col)", lambda a, b: np.where(COND, a, b), ((3,), (2, 1))),
    Case("where(c, m, 0.0)", lambda a: np.where(COND, a, 0.0), ((2, 3),)),
    Case("where(c, s, m)", lambda a, b: np.where(COND, a, b), ((), (2, 3))),
    Case("where(c1d, v, w)", lambda a, b: np.where(COND[0], a, b), ((3,), (3,))),
    Case("where(v > 0, v, 0)", lambda a: np.where(np.asarray(getattr(a, "value", a)) > 0, a, 0.0),
         ((2, 3),)),
    Case("revad.where", lambda a, b: revad.where(COND, a, b), ((2, 3), (1, 3))),
]

# Other NumPy functions that dispatch to revad.
SPD = np.array([[2.0, 0.5, 0.1], [0.5, 1.5, 0.2], [0.1, 0.2, 1.0]])
CASES += [
    Case("clip", lambda a: np.clip(a, -0.5, 0.5), ((2, 3),), nodes=2),
    Case("diag of a vector", np.diag, ((3,),)),
    Case("diag of a matrix", np.diag, ((3, 3),)),
    Case("trace", np.trace, ((3, 3),)),
    Case("sort", np.sort, ((5,),)),
    Case("var", np.var, ((2, 3),), exact=False, nodes=2),
    Case("var ddof=1", lambda a: np.var(a, ddof=1), ((2, 3),), exact=False, nodes=2),
    Case("std", np.std, ((4,),), exact=False, nodes=3),
    Case("linalg.norm", np.linalg.norm, ((4,),), exact=False, nodes=2),
    Case("linalg.det", lambda a: np.linalg.det(a + SPD), ((3, 3),), exact=False, nodes=2,
         domain=(-0.1, 0.1)),
    Case("linalg.inv", lambda a: np.linalg.inv(a + SPD), ((3, 3),), exact=False, nodes=2,
         domain=(-0.1, 0.1)),
    Case("linalg.solve", lambda a, b: np.linalg.solve(a + SPD, b), ((3, 3), (3,)), exact=False,
         nodes=2, domain=((-0.1, 0.1), WIDE)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_numpy_expression_on_vars(case: Case) -> None:
    run(case)


def test_the_table_covers_every_ufunc_revad_computes() -> None:
    from revad import _numpy

    tested = {name for name, *_ in UNARY} | {name for name, *_ in BINARY} | {"matmul",
                                                                              "true_divide",
                                                                              "float_power",
                                                                              "radians",
                                                                              "degrees",
                                                                              "positive"}
    assert set(_numpy.UFUNCS) <= tested, sorted(set(_numpy.UFUNCS) - tested)


# ---------------------------------------------------------------------------------------------
# item and slice assignment: NumPy's semantics, the gradient through the assigned values

ASSIGN: list[tuple[str, Any, Shape]] = [
    ("m[0] = row", 0, (4,)),
    ("m[:, 1] = col", (slice(None), 1), (3,)),
    ("m[1, 2] = s", (1, 2), ()),
    ("m[1:, ::2] = block", (slice(1, None), slice(None, None, 2)), (2, 2)),
    ("m[::-1, 0] = col", (slice(None, None, -1), 0), (3,)),
    ("m[[0, 2], [3, 0]] = pair", ([0, 2], [3, 0]), (2,)),
    ("m[mask] = s", MASK34, ()),
    ("m[mask] = values", MASK34, (4,)),
    ("m[[2, 0]] = rows", [2, 0], (2, 4)),
    ("m[:, [1, 3]] = broadcast col", (slice(None), [1, 3]), (3, 1)),
    ("m[...] = row broadcast", Ellipsis, (4,)),
    ("m[:, None, 1]... as m[:, 1] via None", (slice(None), 1, None), (3, 1)),
]


@pytest.mark.parametrize("name,key,value_shape", ASSIGN, ids=[a[0] for a in ASSIGN])
def test_assignment_follows_numpy(name: str, key: Any, value_shape: Shape) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    m0 = rng.uniform(-2, 2, size=(3, 4))
    x0 = rng.uniform(-2, 2, size=value_shape)
    want = m0.copy()
    want[key] = x0
    weights = 1.0 + 0.37 * np.arange(12).reshape(3, 4)

    def f(v: Any) -> Any:
        m = v[:12].reshape(3, 4) + 0.0  # a copy, for NumPy too
        x = v[12] if value_shape == () else v[12:].reshape(value_shape)
        m[key] = x
        # The old m (before the assignment) is used too: its overwritten elements get only this.
        return np.sum(m * weights) + np.sum(v[:12] * v[:12])

    with revad.Tape():
        m = Var(m0)
        m[key] = Var(x0) if value_shape else Var(float(x0))
        assert np.array_equal(m.value, want)
    check_gradient(f, [np.concatenate([m0.ravel(), np.ravel(x0)])])


def test_assignment_is_one_callback() -> None:
    with revad.Tape():
        m = Var(np.zeros((3, 4)))
        x = Var(np.ones(4))
        before = nodes()
        m[MASK34] = x
        assert nodes() - before == 1


# ---------------------------------------------------------------------------------------------
# values only, results of data, and protocol details


def test_comparisons_and_predicates_give_numpy_arrays_of_the_values() -> None:
    x = np.array([[1.0, -2.0, np.nan], [0.5, np.inf, 3.0]])
    with revad.Tape():
        v = Var(x)
        for f in (np.isnan, np.isinf, np.isfinite, np.signbit, np.sign):
            assert np.array_equal(f(v), f(x), equal_nan=True)
        assert np.array_equal(np.less(v, 1.0), np.less(x, 1.0))
        assert np.array_equal(np.greater_equal(x, v), np.ones_like(x, dtype=bool) & (x >= x))
        assert np.array_equal(np.argmax(v, axis=1), np.argmax(x, axis=1))
        assert np.argsort(Var(np.array([3.0, 1.0, 2.0]))).tolist() == [1, 2, 0]
        assert np.shape(v) == (2, 3) and np.ndim(v) == 2 and np.size(v) == 6
        assert np.allclose(Var(np.ones(2)), np.ones(2))


def test_data_only_gives_data() -> None:
    a = np.arange(6.0).reshape(2, 3)
    assert isinstance(revad.sum(a, axis=0), np.ndarray)
    assert np.array_equal(revad.sum(a, axis=1, keepdims=True), a.sum(axis=1, keepdims=True))
    assert np.array_equal(revad.reshape(a, (3, 2)), a.reshape(3, 2))
    assert np.array_equal(revad.concatenate([a, a], axis=1), np.concatenate([a, a], axis=1))
    assert np.array_equal(revad.stack([a[0], a[1]], axis=1), np.stack([a[0], a[1]], axis=1))
    assert np.array_equal(revad.where(a > 2, a, -a), np.where(a > 2, a, -a))
    assert np.array_equal(revad.maximum(a, 2.5), np.maximum(a, 2.5))
    assert np.array_equal(revad.hypot(a, 1.0), np.hypot(a, 1.0))
    assert np.array_equal(revad.expand_dims(a[0], 1), a[0][:, None])
    assert revad.prod([1.0, 2.0, 3.0]) == 6.0
    assert np.array_equal(revad.sum([[1.0, 2.0], [3.0, 4.0]], axis=0), [4.0, 6.0])
    assert np.allclose(revad.log_sum_exp([[0.0, 0.0]], axis=1, keepdims=True), [[np.log(2.0)]])
    assert revad.tape_stats()["continuations"] == 0


def test_scalar_vars_broadcast_like_zero_d_arrays() -> None:
    with revad.Tape():
        s, t = Var(2.0), Var(3.0)
        r = np.maximum(s, t)
        assert isinstance(r, Var) and r.shape == () and r.value == 3.0
        r.grad()
        assert (s.adj, t.adj) == (0.0, 1.0)
    with revad.Tape():
        s = Var(2.0)
        y = revad.sum(np.stack([s, s * 3.0]))
        y.grad()
        assert s.adj == 4.0


def test_numpy_arrays_of_scalar_vars_stay_object_arrays() -> None:
    with revad.Tape():
        xs = [Var(1.0), Var(2.0)]
        a = np.array(xs)
        assert a.dtype == object and a[1] is xs[1]
        y = a.sum()
        y.grad()
        assert xs[0].adj == 1.0


def test_asarray_of_an_array_var_refuses_and_names_the_alternatives() -> None:
    with revad.Tape():
        v = Var(np.ones(3))
        with pytest.raises(TypeError, match=r"would drop its gradient; use \.value"):
            np.asarray(v)
        with pytest.raises(TypeError, match=r"np\.stack"):
            np.array([v, v])
        assert np.array_equal(v.value, np.ones(3))


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda v: np.cumprod(v), r"numpy function 'cumprod' is not supported .* revad\."
                                  r"cumulative_sum"),
        (lambda v: np.rint(v), r"numpy ufunc 'rint' is not supported .* revad\.round"),
        (lambda v: np.remainder(v, 2.0), r"revad\.fmod"),
        (lambda v: np.outer(v, v), r"a\[:, None\] \* b\[None, :\]"),
        (lambda v: np.fft.fft(v), r"numpy function 'fft' is not supported .* \.value"),
        (lambda v: np.exp(v, out=np.zeros(3)), r"out= is not supported"),
        (lambda v: np.sum(v, where=np.ones(3, dtype=bool)), r"where= is not supported"),
        (lambda v: np.sum(v, dtype=np.float32), r"float64"),
        (lambda v: np.add.outer(v, v), r"'add\.outer' is not supported"),
    ],
)
def test_unsupported_numpy_calls_name_the_alternative(call: Any, match: str) -> None:
    with revad.Tape():
        v = Var(np.array([1.0, 2.0, 3.0]))
        with pytest.raises(TypeError, match=match):
            call(v)


def test_shape_errors_are_numpys() -> None:
    with revad.Tape():
        v = Var(np.arange(6.0))
        m = Var(np.arange(6.0).reshape(2, 3))
        with pytest.raises(ValueError, match=r"cannot reshape array of size 6 into shape \(4,\)"):
            v.reshape(4)
        with pytest.raises(ValueError, match="can only specify one unknown dimension"):
            v.reshape(-1, -1)
        with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
            np.sum(m, axis=2)
        with pytest.raises(revad.SizeError, match=r"at most 2 dimensions.*\(1, 2, 3\)"):
            np.expand_dims(m, 0)
        with pytest.raises(revad.SizeError, match=r"at most 2 dimensions.*\(1, 2, 3\)"):
            m[None]
        with pytest.raises(revad.SizeError, match=r"at most 2 dimensions"):
            np.stack([m, m])
        with pytest.raises(ValueError, match="must have the same shape"):
            np.stack([v, v[:3]])
        with pytest.raises(ValueError, match="number of dimensions|dimension"):
            np.concatenate([v, m])
        with pytest.raises(ValueError, match="broadcast"):
            v + Var(np.ones(4))
        with pytest.raises(ValueError, match="squeeze out"):
            m.squeeze(axis=0)
        with pytest.raises(ValueError, match="C .row-major. order"):
            m.reshape(3, 2, order="F")


@pytest.mark.parametrize(
    "key,error,match",
    [
        ((0, 0), IndexError, "too many indices for array: array is 1-dimensional, but 2"),
        (6, IndexError, "index 6 is out of bounds for axis 0 with size 6"),
        ([0, 7], IndexError, "index 7 is out of bounds"),
        ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
        (np.array([True, False]), IndexError, "boolean index did not match"),
        (np.array([0.5]), IndexError, "integer .or boolean. type"),
        ("a", IndexError, "only integers, slices"),
    ],
)
def test_index_errors_are_numpys(key: Any, error: type[Exception], match: str) -> None:
    with revad.Tape():
        v = Var(np.arange(6.0))
        with pytest.raises(error, match=match):
            v[key]
    with pytest.raises(error):
        np.arange(6.0)[key]


def test_index_broadcast_error_and_boolean_scalars() -> None:
    with revad.Tape():
        m = Var(np.zeros((3, 4)))
        with pytest.raises(IndexError, match="boolean scalar"):
            m[True]
        with pytest.raises(IndexError, match=r"could not be broadcast together with shapes "
                                             r"\(2,\) \(3,\)"):
            m[[0, 1], [0, 1, 2]]


def test_a_reshape_has_its_own_adjoints_so_assignment_leaves_the_source() -> None:
    with revad.Tape():
        v = Var(np.arange(4.0))
        m = v.reshape(2, 2)
        m[0, 0] = 10.0
        assert v.value[0] == 0.0
        y = np.sum(m * m) + np.sum(v)
        y.grad()
        assert v.adj.tolist() == [1.0, 3.0, 5.0, 7.0]


def test_if_else_takes_integer_and_boolean_conditions() -> None:
    with revad.Tape():
        a, b = Var(1.0), Var(2.0)
        for cond, want in [(1, 1.0), (0, 2.0), (-3, 1.0), (True, 1.0), (np.True_, 1.0),
                           (np.False_, 2.0), (np.int64(2), 1.0), (np.uint8(0), 2.0)]:
            assert revad.if_else(cond, a, b).value == want
        for bad in (1.5, Var(1.0), np.array([1, 0]), "yes"):
            with pytest.raises(TypeError, match="integer or a bool.*revad.where"):
                revad.if_else(bad, a, b)


def test_elt_divide_of_a_scalar_by_an_array_is_one_node() -> None:
    with revad.Tape():
        v = Var(np.array([1.0, 2.0, 4.0]))
        c = Var(8.0)
        before = nodes()
        r = revad.elt_divide(c, v)
        assert nodes() - before == 1
        assert r.value.tolist() == [8.0, 4.0, 2.0]
        revad.sum(r).grad()
        assert c.adj == 1.0 + 0.5 + 0.25
        assert v.adj.tolist() == [-8.0, -2.0, -0.5]
    assert np.array_equal(revad.elt_divide(2.0, np.array([1.0, 4.0])), [2.0, 0.5])
    check_gradient(lambda x: revad.sum(revad.elt_divide(x[0], x[1:])), [[3.0, 0.5, -2.0, 1.5]])


def test_data_value_is_one_read_only_array() -> None:
    # Made on first access, then the same array every time: no copy per access.
    x = np.arange(6.0).reshape(2, 3)
    d = revad.Data(x)
    a, b = d.value, d.value
    assert a is b and not np.shares_memory(a, x)
    assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0] = 1.0
    assert np.array_equal(a, x) and a.dtype == np.float64
    with revad.Tape():
        v = Var(d)
        v[0, 0] = 5.0  # copied on write: the Data's values stay
        assert a[0, 0] == 0.0 and d.value[0, 0] == 0.0


def test_free_memory_gives_the_tape_back() -> None:
    y = revad.Var(np.ones(10_000))
    _ = np.sum(y * y)
    assert revad.tape_stats()["bytes_reserved"] > 0
    revad.free_memory()
    stats = revad.tape_stats()
    assert (stats["bytes_reserved"], stats["variables"], stats["continuations"]) == (0, 0, 0)
    with pytest.raises(revad.StaleVarError):
        y + 1.0
    with revad.Tape(), pytest.raises(revad.TapeError, match="Tape block is still open"):
        revad.free_memory()


def test_the_numpy_guide_runs() -> None:
    from pathlib import Path

    from test_docs import python_blocks, run_blocks

    path = Path(__file__).resolve().parent.parent / "docs" / "numpy.md"
    blocks = python_blocks(path.read_text(encoding="utf-8"))
    assert len(blocks) >= 6, "the NumPy guide lost its examples"
    run_blocks(path, blocks)
    revad.reset()
