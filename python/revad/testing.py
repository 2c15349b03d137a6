"""Derivative checks: revad's gradient against finite differences.

The Python twin of ``crates/revad/src/testing.rs``. A function ``f`` is written once, the way
:func:`revad.gradient` calls it: with a ``Var`` for a scalar point, with a list of ``Var`` for a
list or tuple point, with one array ``Var`` for a 1-D or 2-D NumPy array point. Because every
revad function also accepts plain floats and NumPy arrays, the same ``f`` evaluated on floats
(or on a float64 array) gives the values that the finite differences need.

The finite differences use Ridders' method (Numerical Recipes, ``dfridr``): central differences
with steps ``h, h/1.4, h/1.4², …`` extrapolated to a zero step. The first step is
``0.01·max(|xⱼ|, 0.01)`` (or ``step``), halved until ``f`` is finite on both sides and then,
if it had to be halved, divided by 8 more (so that it stays well inside the domain), so that a
point near the edge of a function's domain needs no special care.

>>> import revad
>>> from revad.testing import check_gradient, finite_diff_gradient
>>> check_gradient(lambda x: x[0] * revad.log(x[1]), [[1.3, 2.4], [-3.0, 0.5]])
>>> g = finite_diff_gradient(lambda x: x * x * x, 2.0)
>>> abs(g - 12.0) < 1e-10
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Union

import numpy as np

import revad

_Point = Union[float, Sequence[float], "np.ndarray[Any, np.dtype[np.float64]]"]
# A point as the checks use it: a float, a list of floats, or a float64 array (1-D or 2-D).
_P = Union[float, list[float], "np.ndarray[Any, np.dtype[np.float64]]"]

__all__ = ["assert_close", "check_gradient", "finite_diff_gradient"]


# Ridders' extrapolation: step ratio and table size (Numerical Recipes' CON and NTAB).
_CON = 1.4
_CON2 = _CON * _CON
_NTAB = 12
# How much further the first step shrinks once it had to be halved to keep f finite.
_EDGE_MARGIN = 8.0


def _is_scalar(x: object) -> bool:
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool)


def _value_of(f: Callable[..., Any], x: _P) -> float:
    """``f(x)`` as a float, in a tape scope of its own (``f`` may make Vars; they are dropped)."""
    with revad.Tape():
        y = f(x)
        return float(y.value if isinstance(y, revad.Var) else y)


def _value_or_nan(f: Callable[..., Any], x: _P) -> float:
    """:func:`_value_of`, with a domain error (``ValueError``, ``ArithmeticError``) as NaN."""
    try:
        return _value_of(f, x)
    except (ValueError, ArithmeticError):
        return math.nan


def _at(x: _P, j: int, xj: float) -> _P:
    """``x`` with coordinate ``j`` (row-major for an array) set to ``xj`` (``x`` itself is a
    float for a scalar point)."""
    if isinstance(x, float):
        return xj
    if isinstance(x, np.ndarray):
        moved_array = x.copy()
        moved_array.flat[j] = xj
        return moved_array
    moved = list(x)
    moved[j] = xj
    return moved


def _coordinate(x: _P, j: int) -> float:
    """Coordinate ``j`` of ``x`` (row-major for an array)."""
    if isinstance(x, float):
        return x
    if isinstance(x, np.ndarray):
        return float(x.flat[j])
    return x[j]


def _size(x: _P) -> int:
    if isinstance(x, float):
        return 1
    if isinstance(x, np.ndarray):
        return int(x.size)
    return len(x)


def _first_step(
    f: Callable[..., Any], x: _P, j: int, step: float | None
) -> float:
    """The first step for coordinate ``j``: shrunk until ``f`` is finite at ``x ± h``."""
    xj = _coordinate(x, j)
    h = step if step is not None else 0.01 * max(abs(xj), 0.01)
    for halvings in range(60):
        up = _value_or_nan(f, _at(x, j, xj + h))
        down = _value_or_nan(f, _at(x, j, xj - h))
        if math.isfinite(up) and math.isfinite(down):
            # An edge of the domain lies within 2h: keep the step to an eighth of the
            # distance, or the extrapolation reaches into the edge's singularity.
            return h / _EDGE_MARGIN if halvings else h
        h /= 2.0
    return h


def _finite_diff_partial(
    f: Callable[..., Any], x: _P, j: int, h: float
) -> tuple[float, float]:
    """∂f/∂xⱼ by Ridders' method from first step ``h``: the estimate and its error estimate."""
    xj = _coordinate(x, j)

    def central(h: float) -> float:
        # Divided by the distance between the two points as floats, not by 2h: near a pole
        # the step is small against |xⱼ| and x ± h is not exactly representable.
        xu, xd = xj + h, xj - h
        return (_value_or_nan(f, _at(x, j, xu)) - _value_or_nan(f, _at(x, j, xd))) / (xu - xd)

    a = [[0.0] * _NTAB for _ in range(_NTAB)]
    hh = h
    a[0][0] = central(hh)
    ans, err = a[0][0], math.inf
    for i in range(1, _NTAB):
        hh /= _CON
        a[0][i] = central(hh)
        fac = _CON2
        for k in range(1, i + 1):
            a[k][i] = (a[k - 1][i] * fac - a[k - 1][i - 1]) / (fac - 1.0)
            fac *= _CON2
            errt = max(abs(a[k][i] - a[k - 1][i]), abs(a[k][i] - a[k - 1][i - 1]))
            if errt <= err:
                err, ans = errt, a[k][i]
        if abs(a[i][i] - a[i - 1][i - 1]) >= 2.0 * err:
            break
    return ans, err


def _as_point(x: object) -> _P:
    """A point as :func:`revad.gradient` takes it: a float, a list of floats (1-D), or a
    float64 NumPy array (1-D or 2-D; ``f`` then gets one array Var)."""
    if _is_scalar(x):
        return float(x)  # type: ignore[arg-type]
    if isinstance(x, np.ndarray) and x.ndim in (1, 2):
        return np.array(x, dtype=np.float64)
    if isinstance(x, (str, bytes)):
        raise TypeError(f"a point must be a float or a sequence of floats, not {x!r}")
    try:
        values = [float(v) for v in x]  # type: ignore[attr-defined]
    except TypeError:
        raise TypeError(
            f"a point must be a float or a 1-D sequence of floats, not {x!r}"
        ) from None
    return values


def finite_diff_gradient(f: Callable[..., Any], x: _Point) -> Any:
    """The gradient of ``f`` at ``x`` by Ridders' extrapolation of central differences.

    ``f`` is called on plain floats: with a float if ``x`` is a float, with a list of floats if
    ``x`` is a sequence, with a float64 array if ``x`` is a 1-D or 2-D NumPy array (as
    :func:`revad.gradient` calls it with Vars). Returns a float for a float ``x``, else a
    float64 NumPy array shaped like ``x``.

    >>> import revad
    >>> from revad.testing import finite_diff_gradient
    >>> g = finite_diff_gradient(lambda v: v[0] * revad.exp(v[1]), [2.0, 0.0])
    >>> [round(float(gj), 10) for gj in g]
    [1.0, 2.0]
    >>> round(finite_diff_gradient(revad.sqrt, 1e-6), 3)  # the step shrinks near the edge
    500.0
    """
    point = _as_point(x)
    if isinstance(point, float):
        return _finite_diff_partial(f, point, 0, _first_step(f, point, 0, None))[0]
    g = np.array(
        [
            _finite_diff_partial(f, point, j, _first_step(f, point, j, None))[0]
            for j in range(_size(point))
        ],
        dtype=np.float64,
    )
    return g.reshape(point.shape) if isinstance(point, np.ndarray) else g


def _compare_gradient(
    f: Callable[..., Any], x: _P, rtol: float, atol: float,
    step: float | None,
) -> str | None:
    """What is wrong with revad's gradient of ``f`` at ``x``, or ``None`` if nothing is."""
    fx, g = revad.gradient(f, x)
    if not math.isfinite(fx):
        return f"f({x!r}) = {fx!r} is not finite"
    f_float = _value_of(f, x)
    if not abs(fx - f_float) <= atol + rtol * max(abs(fx), abs(f_float)):
        return (
            f"f({x!r}) is {fx!r} through revad.gradient but {f_float!r} on plain floats"
        )
    grads = [float(g)] if isinstance(g, float) else [float(gj) for gj in np.ravel(g)]
    for j, gj in enumerate(grads):
        h = _first_step(f, x, j, step)
        fd, est = _finite_diff_partial(f, x, j, h)
        tol = atol + rtol * max(abs(fd), abs(gj))
        diff = abs(gj - fd)
        if not diff <= tol:  # also catches NaN
            which = "∂f/∂x" if isinstance(x, float) else f"∂f/∂x[{j}]"
            return (
                f"{which} at x = {x!r}: revad {gj:e}, finite differences {fd:e} "
                f"(error estimate {est:e}, tolerance {tol:e})"
            )
    return None


def check_gradient(
    f: Callable[..., Any],
    points: Iterable[_Point],
    rtol: float = 1e-7,
    atol: float = 1e-8,
    step: float | None = None,
) -> None:
    """Asserts that ``revad.gradient(f, x)`` matches finite differences at every point ``x``.

    ``points`` is a list of points; each is a float (``f`` gets a Var), a sequence of floats
    (``f`` gets a list of Vars) or a 1-D or 2-D NumPy array (``f`` gets one array Var; the
    finite differences call ``f`` with a float64 array). So ``[1.0, 2.0]`` is two scalar
    points and ``[[1.0, 2.0]]`` one point in two dimensions. At each point the value of
    ``revad.gradient`` must be finite and
    agree with ``f`` on plain floats, and each partial ``gⱼ`` must satisfy
    ``|gⱼ − fdⱼ| ≤ atol + rtol·max(|gⱼ|, |fdⱼ|)``. ``step`` overrides the first step of the
    finite differences (it is still halved until ``f`` is finite on both sides).

    Raises ``AssertionError`` describing the first mismatch.

    >>> import revad
    >>> from revad.testing import check_gradient
    >>> check_gradient(revad.log1p, [0.5, 3.0, 1e-8])
    >>> check_gradient(lambda v: v[0] * v[1] + revad.sum(v), [[1.0, 2.0], [-3.0, 0.5]])
    >>> check_gradient(lambda x: x * 2.0 if x > 0 else x, [-1.0, 1.0])
    >>> check_gradient(lambda x: float(x) * x, [3.0])   # wrong: float() cuts the derivative
    Traceback (most recent call last):
        ...
    AssertionError: gradient check failed: ∂f/∂x at x = 3.0: revad 3.000000e+00, finite ...
    """
    if _is_scalar(points) or isinstance(points, (str, bytes)):
        raise TypeError(
            f"points must be a list of points (e.g. [{points!r}]), not {points!r}"
        )
    checked = 0
    for x in points:
        point = _as_point(x)
        problem = _compare_gradient(f, point, rtol, atol, step)
        if problem is not None:
            raise AssertionError(f"gradient check failed: {problem}")
        checked += 1
    if checked == 0:
        raise ValueError("check_gradient: no points given")


def assert_close(a: Any, b: Any, tol: float) -> None:
    """Asserts ``|a − b| ≤ tol·max(1, |b|)``: relative away from zero, absolute near it.

    Equal infinities and two NaNs also pass; an infinity passes only against itself. ``a`` and
    ``b`` may be floats or arrays of equal shape (compared element by element).

    >>> from revad.testing import assert_close
    >>> assert_close(1.0 + 1e-13, 1.0, 1e-12)
    >>> assert_close(float("nan"), float("nan"), 1e-12)
    >>> assert_close([1.0, 2e6], [1.0, 2e6 + 1e-7], 1e-12)
    >>> assert_close(1.1, 1.0, 1e-12)
    Traceback (most recent call last):
        ...
    AssertionError: 1.100000e+00 differs from 1.000000e+00 by more than 1.000000e-12 (relative)
    """
    av = np.asarray(a, dtype=np.float64)
    bv = np.asarray(b, dtype=np.float64)
    if av.shape != bv.shape:
        raise AssertionError(f"shapes differ: {av.shape} and {bv.shape}")
    with np.errstate(invalid="ignore", over="ignore"):
        near = np.abs(av - bv) <= tol * np.maximum(np.abs(bv), 1.0)
        ok = (av == bv) | (np.isnan(av) & np.isnan(bv)) | (np.isfinite(av - bv) & near)
    if not np.all(ok):
        bad = np.flatnonzero(~ok.reshape(-1))[0]
        x, y = av.reshape(-1)[bad], bv.reshape(-1)[bad]
        where = "" if av.ndim == 0 else f" at index {np.unravel_index(bad, av.shape)}"
        raise AssertionError(
            f"{x:e} differs from {y:e} by more than {tol:e} (relative){where}"
        )
