"""NumPy's protocols for ``revad.Var``: which revad function computes each NumPy ufunc and
function called on a Var, as two tables.

``np.exp(v)``, ``np.sum(v, axis=0)``, ``a + v`` (a NumPy array ``a``), ``np.where(c, v, 0.0)``,
``np.stack([v, w])``, ``np.linalg.det(m)``, ... call ``Var.__array_ufunc__`` or
``Var.__array_function__``, which hand them to :func:`array_ufunc` and :func:`array_function`
here. Each row of :data:`UFUNCS` and :data:`FUNCTIONS` names the revad function that computes the
NumPy one on Vars (one node per whole-array operation); a ufunc or function of
:data:`VALUES_ONLY` (comparisons, predicates, ``argmax``, ...) has no derivative, so it runs on
the values and returns NumPy's result. Anything else raises ``TypeError`` naming revad's
alternative. Adding a function adds a row.

>>> import numpy as np, revad
>>> with revad.Tape():
...     v = revad.Var(np.array([1.0, 2.0, 3.0]))
...     y = np.sum(np.exp(v) * np.array([1.0, 0.0, 1.0]))
...     y.grad()
...     v.adj.round(6).tolist()
[2.718282, 0.0, 20.085537]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _revad as r
from . import linalg as _linalg

# ---------------------------------------------------------------------------------------------
# ufuncs: name -> the revad function of the same arguments


def _negative(x: Any) -> Any:
    return r.elt_multiply(x, -1.0)


def _positive(x: Any) -> Any:
    return x


def _matmul(a: Any, b: Any) -> Any:
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    return r.multiply(a, b)


UFUNCS: dict[str, Callable[..., Any]] = {
    # one argument
    "exp": r.exp,
    "exp2": r.exp2,
    "expm1": r.expm1,
    "log": r.log,
    "log2": r.log2,
    "log10": r.log10,
    "log1p": r.log1p,
    "sqrt": r.sqrt,
    "cbrt": r.cbrt,
    "square": r.square,
    "reciprocal": r.inv,
    "sin": r.sin,
    "cos": r.cos,
    "tan": r.tan,
    "arcsin": r.asin,
    "arccos": r.acos,
    "arctan": r.atan,
    "sinh": r.sinh,
    "cosh": r.cosh,
    "tanh": r.tanh,
    "arcsinh": r.asinh,
    "arccosh": r.acosh,
    "arctanh": r.atanh,
    "absolute": r.abs,
    "fabs": r.fabs,
    "negative": _negative,
    "positive": _positive,
    "floor": r.floor,
    "ceil": r.ceil,
    "trunc": r.trunc,
    "deg2rad": lambda x: r.elt_multiply(x, math.pi / 180.0),
    "radians": lambda x: r.elt_multiply(x, math.pi / 180.0),
    "rad2deg": lambda x: r.elt_multiply(x, 180.0 / math.pi),
    "degrees": lambda x: r.elt_multiply(x, 180.0 / math.pi),
    # scipy.special's ufuncs
    "expit": r.inv_logit,
    "logit": r.logit,
    "log_expit": r.log_inv_logit,
    "erf": r.erf,
    "erfc": r.erfc,
    "gammaln": r.lgamma,
    "gamma": r.tgamma,
    "psi": r.digamma,
    "ndtr": r.Phi,
    "ndtri": r.inv_Phi,
    # two arguments, with NumPy's broadcasting
    "add": r.add,
    "subtract": r.subtract,
    "multiply": r.elt_multiply,
    "divide": r.divide,
    "true_divide": r.divide,
    "power": r.pow,
    "float_power": r.pow,
    "maximum": r.maximum,
    "minimum": r.minimum,
    "fmax": r.fmax,
    "fmin": r.fmin,
    "hypot": r.hypot,
    "arctan2": r.atan2,
    "logaddexp": r.log_sum_exp,
    "fmod": r.fmod,
    "matmul": _matmul,
    "xlogy": r.multiply_log,
}

# Reductions and accumulations of the binary ufuncs (``np.add.reduce(v, axis=0)``).
REDUCTIONS: dict[str, Callable[..., Any]] = {
    "add": r.sum,
    "multiply": r.prod,
    "maximum": r.max,
    "minimum": r.min,
    "logaddexp": r.log_sum_exp,
}

# ufuncs and functions without a derivative (comparisons, predicates, indices): computed on the
# values, returning NumPy's result.
VALUES_ONLY: set[str] = {
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "equal",
    "not_equal",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "sign",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "argmax",
    "argmin",
    "argsort",
    "nonzero",
    "count_nonzero",
    "allclose",
    "isclose",
    "array_equal",
    "any",
    "all",
}

# What to use instead of a ufunc or function revad does not compute.
ALTERNATIVES: dict[str, str] = {
    "rint": "revad.round (halves away from zero)",
    "round": "revad.round (halves away from zero)",
    "around": "revad.round (halves away from zero)",
    "logaddexp2": "revad.log_sum_exp (natural logarithms)",
    "remainder": "revad.fmod (C's remainder, the sign of the dividend)",
    "mod": "revad.fmod (C's remainder, the sign of the dividend)",
    "cumprod": "revad.cumulative_sum of revad.log, then revad.exp",
    "outer": "a[:, None] * b[None, :]",
    "var": "revad.variance (divides by n - 1) or np.var(v, ddof=...)",
    "std": "revad.sd (divides by n - 1) or np.std(v, ddof=...)",
    "array": "np.stack([...]) of Vars, or .value for the values without gradient",
    "asarray": "np.stack([...]) of Vars, or .value for the values without gradient",
}


def _values(x: Any) -> Any:
    """``x`` with every Var (also inside lists and tuples) replaced by its value."""
    if isinstance(x, r.Var):
        return x.value
    if isinstance(x, (list, tuple)):
        return type(x)(_values(e) for e in x)
    if isinstance(x, dict):
        return {k: _values(v) for k, v in x.items()}
    return x


def _unsupported(kind: str, name: str) -> TypeError:
    hint = ALTERNATIVES.get(name)
    if hint is None and hasattr(r, name):
        hint = f"revad.{name}"
    if hint is None:
        hint = "revad's functions (revad.exp, revad.sum, ...; see revad.__all__)"
    return TypeError(
        f"numpy {kind} {name!r} is not supported for revad.Var (it would drop the gradient); "
        f"use {hint}, or .value for a NumPy array of the values without gradient"
    )


def _no_out(name: str, kwargs: dict[str, Any]) -> None:
    """Refuses ``out=``, ``where=`` and a dtype other than float64."""
    out = kwargs.pop("out", None)
    if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
        raise TypeError(f"{name}: out= is not supported for revad.Var (results are new Vars)")
    where = kwargs.pop("where", True)
    if where is not True:
        raise TypeError(f"{name}: where= is not supported for revad.Var; use revad.where")
    dtype = kwargs.pop("dtype", None)
    if dtype is not None and np.dtype(dtype) != np.float64:
        raise TypeError(f"{name}: revad.Var computes in float64, not {np.dtype(dtype)}")


def array_ufunc(ufunc: Any, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.method(*inputs, **kwargs)`` with a Var among the inputs (``Var.__array_ufunc__``)."""
    name = ufunc.__name__
    kwargs = dict(kwargs)
    if name in VALUES_ONLY:
        return getattr(ufunc, method)(*_values(inputs), **kwargs)
    _no_out(name, kwargs)
    if method == "__call__":
        f = UFUNCS.get(name)
        if f is None:
            raise _unsupported("ufunc", name)
        if kwargs:
            raise TypeError(f"{name}: revad.Var takes no arguments {sorted(kwargs)}")
        return f(*inputs)
    if method == "reduce" and name in REDUCTIONS:
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        if kwargs:
            raise TypeError(f"{name}.reduce: revad.Var takes no arguments {sorted(kwargs)}")
        return REDUCTIONS[name](inputs[0], axis=axis, keepdims=keepdims)
    if method == "accumulate" and name == "add" and np.ndim(inputs[0]) == 1:
        return r.cumulative_sum(inputs[0])
    raise _unsupported("ufunc method", f"{name}.{method}")


# ---------------------------------------------------------------------------------------------
# functions: NumPy function -> the revad function (taking NumPy's arguments)


def _reduction(f: Callable[..., Any]) -> Callable[..., Any]:
    def reduce(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               keepdims: bool = False, **kwargs: Any) -> Any:
        _no_out(f.__name__, {"out": out, "dtype": dtype, **kwargs})
        return f(a, axis=axis, keepdims=keepdims)

    return reduce


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None or y is None:
        raise TypeError("np.where(cond) of a revad.Var: use np.nonzero(v.value)")
    return r.where(condition, x, y)


def _transpose(a: Any, axes: Any = None) -> Any:
    return a.transpose(axes) if isinstance(a, r.Var) else r.transpose(a)


def _dot(a: Any, b: Any, out: Any = None) -> Any:
    _no_out("dot", {"out": out})
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return r.elt_multiply(a, b)
    return r.multiply(a, b)


def _concatenate(arrays: Any, axis: Any = 0, out: Any = None, dtype: Any = None,
                 casting: Any = None) -> Any:
    _no_out("concatenate", {"out": out, "dtype": dtype})
    return r.concatenate(list(arrays), axis)


def _stack(arrays: Any, axis: int = 0, out: Any = None, dtype: Any = None,
           casting: Any = None) -> Any:
    _no_out("stack", {"out": out, "dtype": dtype})
    return r.stack(list(arrays), axis)


def _vstack(tup: Any, dtype: Any = None, casting: Any = None) -> Any:
    arrays = list(tup)
    if all(np.ndim(a) == 1 for a in arrays):
        return r.stack(arrays, 0)
    return r.concatenate([r.expand_dims(a, 0) if np.ndim(a) < 2 else a for a in arrays], 0)


def _hstack(tup: Any, dtype: Any = None, casting: Any = None) -> Any:
    arrays = list(tup)
    return r.concatenate(arrays, 0 if all(np.ndim(a) == 1 for a in arrays) else 1)


def _column_stack(tup: Any) -> Any:
    arrays = list(tup)
    if all(np.ndim(a) == 1 for a in arrays):
        return r.stack(arrays, 1)
    return r.concatenate([r.expand_dims(a, 1) if np.ndim(a) < 2 else a for a in arrays], 1)


def _cumsum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    _no_out("cumsum", {"out": out, "dtype": dtype})
    if np.ndim(a) == 1 and axis in (None, 0, -1):
        return r.cumulative_sum(a)
    if axis is None:
        return r.cumulative_sum(r.ravel(a))
    raise TypeError("np.cumsum of a 2-D revad.Var works with axis=None only")


def _diag(v: Any, k: int = 0) -> Any:
    if k != 0:
        raise TypeError("np.diag of a revad.Var takes the main diagonal only (k=0)")
    return r.diag_matrix(v) if np.ndim(v) == 1 else r.diagonal(v)


def _trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
           out: Any = None) -> Any:
    if (offset, axis1, axis2) != (0, 0, 1):
        raise TypeError("np.trace of a revad.Var takes the main diagonal only")
    _no_out("trace", {"out": out, "dtype": dtype})
    return r.trace(a)


def _sort(a: Any, axis: int = -1, kind: Any = None, order: Any = None, stable: Any = None) -> Any:
    if np.ndim(a) != 1:
        raise TypeError("np.sort of a revad.Var sorts 1-D arrays only (revad.sort_asc)")
    return r.sort_asc(a)


def _clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> Any:
    _no_out("clip", {"out": out})
    lo = kwargs.pop("min", a_min)
    hi = kwargs.pop("max", a_max)
    if kwargs:
        raise TypeError(f"clip: revad.Var takes no arguments {sorted(kwargs)}")
    if lo is not None:
        a = r.maximum(a, lo)
    if hi is not None:
        a = r.minimum(a, hi)
    return a


def _spread(f: Callable[..., Any]) -> Callable[..., Any]:
    """``np.var``/``np.std`` with NumPy's ``ddof`` over every element (revad's variance divides
    by n - 1)."""

    def spread(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0,
               keepdims: bool = False, **kwargs: Any) -> Any:
        _no_out(f.__name__, {"out": out, "dtype": dtype, **kwargs})
        if axis is not None or keepdims:
            raise TypeError(f"np.{f.__name__} of a revad.Var works over every element only")
        n = int(np.size(a))
        variance = r.elt_multiply(r.variance(a), (n - 1) / (n - ddof))
        return r.sqrt(variance) if f is np.std else variance

    spread.__name__ = f.__name__
    return spread


def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    if ord not in (None, 2, "fro") or axis is not None or keepdims:
        raise TypeError("np.linalg.norm of a revad.Var: the 2-norm or Frobenius norm only")
    return r.sqrt(r.dot_self(x))


def _ndim(a: Any) -> int:
    return a.ndim if isinstance(a, r.Var) else int(np.ndim(_values(a)))


def _shape(a: Any) -> tuple[int, ...]:
    return a.shape if isinstance(a, r.Var) else tuple(np.shape(_values(a)))


def _size(a: Any, axis: int | None = None) -> int:
    if axis is None:
        return a.size if isinstance(a, r.Var) else int(np.size(_values(a)))
    return _shape(a)[axis]


FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    # The shape alone: no value is read (so that a recording of revad.jit goes on).
    np.ndim: _ndim,
    np.shape: _shape,
    np.size: _size,
    np.sum: _reduction(r.sum),
    np.mean: _reduction(r.mean),
    np.prod: _reduction(r.prod),
    np.max: _reduction(r.max),
    np.min: _reduction(r.min),
    np.amax: _reduction(r.max),
    np.amin: _reduction(r.min),
    np.where: _where,
    np.reshape: lambda a, shape=None, order="C", **kw: r.reshape(a, kw.get("newshape", shape),
                                                                 order),
    np.ravel: lambda a, order="C": r.ravel(a, order),
    np.squeeze: lambda a, axis=None: r.squeeze(a, axis),
    np.expand_dims: lambda a, axis: r.expand_dims(a, axis),
    np.concatenate: _concatenate,
    np.stack: _stack,
    np.vstack: _vstack,
    np.hstack: _hstack,
    np.column_stack: _column_stack,
    np.transpose: _transpose,
    np.dot: _dot,
    np.cumsum: _cumsum,
    np.diag: _diag,
    np.diagonal: lambda a, offset=0, axis1=0, axis2=1: _diag(a, offset),
    np.trace: _trace,
    np.sort: _sort,
    np.clip: _clip,
    np.var: _spread(np.var),
    np.std: _spread(np.std),
    np.linalg.norm: _norm,
}

# numpy.linalg under the same names in revad.linalg.
for _name in _linalg.__all__:
    _f = getattr(np.linalg, _name, None)
    if callable(_f) and not isinstance(_f, type):
        FUNCTIONS[_f] = getattr(_linalg, _name)


def array_function(func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``func(*args, **kwargs)`` with a Var among the arguments (``Var.__array_function__``)."""
    f = FUNCTIONS.get(func)
    if f is not None:
        return f(*args, **kwargs)
    name = func.__name__
    if name in VALUES_ONLY:
        return func(*_values(args), **_values(kwargs))
    raise _unsupported("function", name)
