"""Models for samplers and optimisers: parameter declarations with Stan's constraints, and a
log density on the unconstrained space with BridgeStan's interface.

A model is its parameters, declared with shapes and constraints as in a Stan program's
``parameters`` block, and a log density written with revad that receives the constrained
values::

    import numpy as np, revad

    def eight_schools(p, data):
        theta = p["mu"] + p["tau"] * p["eta"]
        return (revad.normal_lpdf(p["mu"], 0.0, 5.0) + revad.cauchy_lpdf(p["tau"], 0.0, 5.0)
                + revad.std_normal_lpdf(p["eta"])
                + revad.normal_lpdf(data["y"], theta, data["sigma"]))

    model = revad.Model(
        {"mu": revad.real(), "tau": revad.real(lower=0), "eta": revad.vector(8)},
        eight_schools,
        data={"y": np.array([28.0, 8, -3, 7, -1, 1, 18, 12]),
              "sigma": np.array([15.0, 10, 16, 11, 9, 11, 10, 18])})
    lp, grad = model.log_density_gradient(np.zeros(model.param_unc_num()))

The model has the methods of BridgeStan's ``StanModel`` (Roualdes, Ward, Carpenter, Seyboldt and
Axen (2023), "BridgeStan: Efficient in-memory access to the methods of a Stan model"), with the
same names, arguments and meanings, so code written for BridgeStan runs on it: the
unconstrained parameters are the concatenation of each parameter's free coordinates in
declaration order (Stan's transforms: ``real(lower=0)`` is ``exp``, ``simplex(K)`` the
isometric log-ratio, ...), and the constrained ones each parameter's values in column-major
order, named ``a``, ``a.1``, ``a.2.3`` (indices from 1) as Stan names them.

``propto`` is handed to the log density when it takes a ``propto`` argument (pass it on to the
densities: ``revad.normal_lpdf(y, mu, sigma, propto=propto)``); dropping constants never changes
the gradient. ``jacobian=True`` (the default, as for sampling) adds the log absolute Jacobian
determinant of each constraining transform; ``jacobian=False`` gives the density of the
constrained values, for maximum-likelihood or MAP estimates.

Errors: a ``revad.DomainError`` (an argument out of its domain at an extreme point) has
``is_recoverable`` true, so a sampler rejects the point (a divergence) and goes on; the other
errors are bugs in the model and stop it.
"""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _revad as _core

__all__ = [
    "Model",
    "Param",
    "real",
    "vector",
    "row_vector",
    "matrix",
    "simplex",
    "ordered",
    "positive_ordered",
    "unit_vector",
    "sum_to_zero_vector",
    "sum_to_zero_matrix",
    "cholesky_factor_corr",
    "cholesky_factor_cov",
    "corr_matrix",
    "cov_matrix",
    "column_stochastic_matrix",
    "row_stochastic_matrix",
]

_Bound = float | np.ndarray | Sequence[float] | None


@dataclass(frozen=True)
class Param:
    """A parameter declaration: its Stan type, its constrained shape, and the constraining
    transform (a :class:`revad.Transform` name and its bounds, offset and multiplier). Made by
    :func:`real`, :func:`vector`, :func:`simplex`, ...

    >>> import revad
    >>> revad.cholesky_factor_corr(3).free_size
    3
    """

    kind: str
    shape: tuple[int, ...]
    transform: str = "identity"
    bounds: tuple[Any, ...] = ()

    def make(self) -> Any:
        """The :class:`revad.Transform` of this declaration."""
        return _core.Transform(self.transform, *self.bounds)

    @property
    def free_size(self) -> int:
        """The number of unconstrained coordinates it takes."""
        return int(self.make().free_size(self.shape))

    def names(self, name: str) -> list[str]:
        """The constrained coordinates' names, column-major: ``a``, ``a.1``, ``a.2.3``."""
        if not self.shape:
            return [name]
        index = np.indices(self.shape).reshape(len(self.shape), -1, order="F").T + 1
        return [name + "".join(f".{i}" for i in idx) for idx in index]

    def unc_names(self, name: str) -> list[str]:
        """The free coordinates' names: ``a`` for a real, else ``a.1``, ``a.2``, ..."""
        if not self.shape:
            return [name]
        return [f"{name}.{i + 1}" for i in range(self.free_size)]


def _elementwise(kind: str, shape: tuple[int, ...], lower: _Bound, upper: _Bound,
                 offset: _Bound, multiplier: _Bound) -> Param:
    """A real, vector or matrix with Stan's optional bounds or offset and multiplier."""
    if (lower is not None or upper is not None) and (offset is not None
                                                      or multiplier is not None):
        raise ValueError(f"{kind}: bounds and offset/multiplier cannot be combined (as in Stan)")
    if lower is not None and upper is not None:
        return Param(kind, shape, "lower_upper_bound", (lower, upper))
    if lower is not None:
        return Param(kind, shape, "lower_bound", (lower,))
    if upper is not None:
        return Param(kind, shape, "upper_bound", (upper,))
    if offset is not None or multiplier is not None:
        return Param(kind, shape, "offset_multiplier",
                     (0.0 if offset is None else offset, 1.0 if multiplier is None else multiplier))
    return Param(kind, shape)


def real(*, lower: float | None = None, upper: float | None = None,
         offset: float | None = None, multiplier: float | None = None) -> Param:
    """A real parameter, optionally with Stan's bounds (``real<lower=0>``: ``exp``) or offset
    and multiplier. One free coordinate."""
    return _elementwise("real", (), lower, upper, offset, multiplier)


def vector(n: int, *, lower: _Bound = None, upper: _Bound = None, offset: _Bound = None,
           multiplier: _Bound = None) -> Param:
    """A vector of ``n`` reals, with optional elementwise bounds (scalars or vectors) or offset
    and multiplier. ``n`` free coordinates."""
    return _elementwise("vector", (n,), lower, upper, offset, multiplier)


def row_vector(n: int, *, lower: _Bound = None, upper: _Bound = None, offset: _Bound = None,
               multiplier: _Bound = None) -> Param:
    """A row vector of ``n`` reals (the same as :func:`vector` here: a 1-D array)."""
    return _elementwise("row_vector", (n,), lower, upper, offset, multiplier)


def matrix(m: int, n: int, *, lower: _Bound = None, upper: _Bound = None,
           offset: _Bound = None, multiplier: _Bound = None) -> Param:
    """An m×n matrix of reals, free coordinates in column-major order as in Stan."""
    return _elementwise("matrix", (m, n), lower, upper, offset, multiplier)


def simplex(k: int) -> Param:
    """A simplex of ``k`` elements (non-negative, summing to 1): ``k − 1`` free coordinates
    (Stan 2.37's isometric log-ratio transform)."""
    return Param("simplex", (k,), "simplex")


def ordered(k: int) -> Param:
    """An increasing vector of ``k`` elements: ``k`` free coordinates."""
    return Param("ordered", (k,), "ordered")


def positive_ordered(k: int) -> Param:
    """A positive increasing vector of ``k`` elements: ``k`` free coordinates."""
    return Param("positive_ordered", (k,), "positive_ordered")


def unit_vector(k: int) -> Param:
    """A vector of ``k`` elements of Euclidean length 1: ``k`` free coordinates (the Jacobian
    term is Stan's −½‖x‖²)."""
    return Param("unit_vector", (k,), "unit_vector")


def sum_to_zero_vector(k: int) -> Param:
    """A vector of ``k`` elements summing to 0: ``k − 1`` free coordinates."""
    return Param("sum_to_zero_vector", (k,), "sum_to_zero")


def sum_to_zero_matrix(m: int, n: int) -> Param:
    """An m×n matrix whose rows and columns sum to 0: ``(m − 1)(n − 1)`` free coordinates."""
    return Param("sum_to_zero_matrix", (m, n), "sum_to_zero")


def cholesky_factor_corr(k: int) -> Param:
    """The Cholesky factor of a k×k correlation matrix: ``k(k − 1)/2`` free coordinates."""
    return Param("cholesky_factor_corr", (k, k), "cholesky_factor_corr")


def cholesky_factor_cov(m: int, n: int | None = None) -> Param:
    """The Cholesky factor of a covariance matrix, m×n with m ≥ n (n = m by default):
    ``n(n + 1)/2 + (m − n)n`` free coordinates."""
    n = m if n is None else n
    return Param("cholesky_factor_cov", (m, n), "cholesky_factor_cov")


def corr_matrix(k: int) -> Param:
    """A k×k correlation matrix: ``k(k − 1)/2`` free coordinates."""
    return Param("corr_matrix", (k, k), "corr_matrix")


def cov_matrix(k: int) -> Param:
    """A k×k covariance matrix: ``k + k(k − 1)/2`` free coordinates."""
    return Param("cov_matrix", (k, k), "cov_matrix")


def column_stochastic_matrix(m: int, n: int) -> Param:
    """An m×n matrix whose columns are simplexes: ``(m − 1)n`` free coordinates."""
    return Param("column_stochastic_matrix", (m, n), "stochastic_column")


def row_stochastic_matrix(m: int, n: int) -> Param:
    """An m×n matrix whose rows are simplexes: ``m(n − 1)`` free coordinates."""
    return Param("row_stochastic_matrix", (m, n), "stochastic_row")


def _out(out: np.ndarray | None, size: int, what: str) -> np.ndarray:
    """BridgeStan's `out=` argument: a fresh array, or `out` after a size check."""
    if out is None:
        return np.zeros(size)
    if out.size != size:
        raise ValueError(f"out size = {out.size} != {what} size = {size}")
    return out


class Model(_core.ModelBase):
    """A log density on the unconstrained space of declared parameters, with BridgeStan's
    ``StanModel`` interface (see the module documentation).

    ``params`` maps each parameter's name to its declaration (:func:`real`, :func:`vector`,
    :func:`simplex`, ...), in order; ``log_density(params, data)`` gets a dict of the
    constrained values (Vars while a gradient is taken, floats and NumPy arrays otherwise) and
    ``data`` as given, and returns the log density (a ``propto=`` argument, if it has one,
    gets the value of the call's ``propto``).

    With ``jit=True`` (the default) :meth:`log_density_gradient` records the log density of
    the unconstrained vector (the transforms and ``log_density``) once and replays it in
    Rust on later calls, on any thread (:func:`revad.jit`): the same results, bit for bit,
    without running Python. ``data`` and whatever ``log_density`` reads from its closure are
    constants of the recording, so arrays changed in place afterwards are not seen (make a new
    model); a branch on a parameter's value (``if p["x"] > 0:``) is recorded again when it goes
    the other way. A log density that cannot be replayed (it turns a Var into a float, or
    calls a function with no replay) runs as with ``jit=False``, after one ``RevadWarning``.

    Models pickle (for process-based parallelism) when ``log_density`` and ``data`` do, i.e.
    when the function is defined at a module's top level.
    """

    def __init__(
        self,
        params: Mapping[str, Param],
        log_density: Callable[..., Any],
        data: Any = None,
        *,
        name: str = "revad_model",
        jit: bool = True,
    ) -> None:
        for key, decl in params.items():
            if not isinstance(decl, Param):
                raise TypeError(
                    f"Model: parameter {key!r} must be declared with revad.real, revad.vector, "
                    f"..., not {type(decl).__name__}"
                )
        self._params = dict(params)
        self._log_density = log_density
        self._data = data
        self._name = name
        self._jit = bool(jit)
        # Each parameter's name, declaration, transform and place in the free vector.
        self._layout: list[tuple[str, Param, Any, int, int]] = []
        start = 0
        for key, decl in self._params.items():
            transform = decl.make()
            size = int(transform.free_size(decl.shape))
            self._layout.append((key, decl, transform, start, start + size))
            start += size
        self._unc_num = start
        self._set_unc_num(start)
        self._num = sum(math.prod(d.shape) for d in self._params.values())
        try:
            takes_propto = "propto" in inspect.signature(log_density).parameters
        except (TypeError, ValueError):
            takes_propto = False
        self._takes_propto = takes_propto

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._params, self._log_density, self._data, self._name, self._jit))

    def __repr__(self) -> str:
        decls = ", ".join(f"{k}: {d.kind}{list(d.shape) if d.shape else ''}"
                          f"{'<' + d.transform + '>' if d.bounds else ''}"
                          for k, d in self._params.items())
        return f"revad.Model({self._name!r}; {decls})"

    # --- BridgeStan's StanModel interface -------------------------------------------------

    def name(self) -> str:
        """The model's name."""
        return self._name

    def model_info(self) -> str:
        """A description of the model: its parameters and their constraints."""
        return repr(self)

    def param_num(self, *, include_tp: bool = False, include_gq: bool = False) -> int:
        """The number of constrained parameters (a revad model has no transformed parameters
        or generated quantities, so the flags change nothing)."""
        return self._num

    def param_unc_num(self) -> int:
        """The number of unconstrained parameters."""
        return self._unc_num

    def param_names(self, *, include_tp: bool = False, include_gq: bool = False) -> list[str]:
        """The constrained parameters' names, column-major: ``a``, ``a.1``, ``a.2.3``."""
        return [n for key, decl, *_ in self._layout for n in decl.names(key)]

    def param_unc_names(self) -> list[str]:
        """The unconstrained parameters' names: ``a`` for a real, else ``a.1``, ``a.2``..."""
        return [n for key, decl, *_ in self._layout for n in decl.unc_names(key)]

    def param_constrain(self, theta_unc: Any, *, include_tp: bool = False,
                        include_gq: bool = False, out: np.ndarray | None = None,
                        rng: Any = None) -> np.ndarray:
        """The constrained parameters of unconstrained ``theta_unc``, each parameter's values
        in column-major order."""
        out = _out(out, self._num, "constrained params")
        at = 0
        for value in self.param_dict(theta_unc).values():
            flat = np.asarray(value, dtype=np.float64).ravel(order="F")
            out[at:at + flat.size] = flat
            at += flat.size
        return out

    def param_unconstrain(self, theta: Any, *, out: np.ndarray | None = None) -> np.ndarray:
        """The unconstrained parameters of constrained ``theta``: a flat array (each
        parameter's values column-major, as :meth:`param_constrain` gives them) or a dict of
        each parameter's value. Raises ``DomainError`` with Stan's message for a value outside
        its parameter's constrained set."""
        out = _out(out, self._unc_num, "unconstrained params")
        if isinstance(theta, Mapping):
            values = {key: theta[key] for key in self._params}
        else:
            flat = np.asarray(theta, dtype=np.float64).ravel()
            if flat.size != self._num:
                raise _core.SizeError(
                    f"param_unconstrain: theta has size {flat.size}, but must have size "
                    f"{self._num}"
                )
            values, at = {}, 0
            for key, decl in self._params.items():
                n = math.prod(decl.shape)
                values[key] = flat[at:at + n].reshape(decl.shape, order="F")
                at += n
        for key, decl, transform, start, stop in self._layout:
            value = np.asarray(values[key], dtype=np.float64)
            if value.shape != decl.shape:
                raise _core.SizeError(
                    f"param_unconstrain: {key} has shape {value.shape}, but must have shape "
                    f"{decl.shape}"
                )
            out[start:stop] = transform.unconstrain(value, decl.shape)
        return out

    def param_unconstrain_json(self, theta_json: str, *,
                               out: np.ndarray | None = None) -> np.ndarray:
        """:meth:`param_unconstrain` of the constrained values in a JSON object (CmdStan's
        format: each parameter by name, arrays as nested lists, row by row)."""
        return self.param_unconstrain(json.loads(theta_json), out=out)

    def log_density(self, theta_unc: Any, *, propto: bool = True,
                    jacobian: bool = True) -> float:
        """The log density at unconstrained ``theta_unc``. With ``propto=False`` it is evaluated
        on floats (no tape); with ``propto=True`` on variables in a scope of its own that is
        recovered at once, since a density of data only drops all its terms."""
        x = self._checked(theta_unc)
        density = self._density(propto, jacobian)
        if not propto:
            return float(density(x))
        with _core.Tape():
            lp = density(_core.Var(x))
            return float(lp.value if isinstance(lp, _core.Var) else lp)

    # log_density_gradient(theta_unc, *, propto=True, jacobian=True, out=None), a sampler's
    # every call, is ModelBase's (in Rust): it checks theta_unc (through _checked unless it is
    # a float64 vector of the right size), makes the gradient function for (propto,
    # jacobian) once (_gradient), calls it, and writes into out (_into_out).

    def _gradient(self, propto: bool, jacobian: bool) -> Any:
        """The gradient function for (propto, jacobian), made once by ``log_density_gradient``
        and shared by every thread (a replayed program runs on any thread's tape)."""
        density = self._density(propto, jacobian)
        if self._jit:
            # revad.jit(revad.value_and_grad(density)): recorded on the first call, replayed
            # after (or eager, with one RevadWarning, if the density cannot be replayed).
            return _core.Jit(density, 0, mode="value_and_grad")
        return _core.ValueAndGrad(density, 0)

    def _into_out(self, result: tuple[float, np.ndarray], out: np.ndarray) -> tuple[float, Any]:
        """BridgeStan's ``out=``: the gradient written into ``out``, which is returned."""
        lp, grad = result
        _out(out, self._unc_num, "params")[:] = grad
        return lp, out

    def log_density_hessian(
        self, theta_unc: Any, *, propto: bool = True, jacobian: bool = True,
        out_grad: np.ndarray | None = None, out_hess: np.ndarray | None = None,
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """The log density, its gradient and its Hessian, the Hessian by central differences
        of exact gradients (symmetrised), as BridgeStan computes it by default."""
        x = self._checked(theta_unc)
        d = self._unc_num
        lp, grad = self.log_density_gradient(x, propto=propto, jacobian=jacobian, out=out_grad)
        hess = np.empty((d, d)) if out_hess is None else out_hess.reshape(d, d)
        for j in range(d):
            h = _step(x[j])
            up, down = x.copy(), x.copy()
            up[j] += h
            down[j] -= h
            g_up = self.log_density_gradient(up, propto=propto, jacobian=jacobian)[1]
            g_down = self.log_density_gradient(down, propto=propto, jacobian=jacobian)[1]
            hess[:, j] = (g_up - g_down) / (2.0 * h)
        hess[:] = 0.5 * (hess + hess.T)
        return lp, grad, hess

    def log_density_hessian_vector_product(
        self, theta_unc: Any, v: Any, *, propto: bool = True, jacobian: bool = True,
        out: np.ndarray | None = None,
    ) -> tuple[float, np.ndarray]:
        """The log density and the product of its Hessian with ``v``, by a central difference
        of exact gradients along ``v``."""
        x = self._checked(theta_unc)
        v = np.asarray(v, dtype=np.float64)
        lp = self.log_density(x, propto=propto, jacobian=jacobian)
        norm = float(np.linalg.norm(v))
        result = _out(out, self._unc_num, "params")
        if norm == 0.0:
            result[:] = 0.0
            return lp, result
        h = _step(float(np.linalg.norm(x))) / norm
        g_up = self.log_density_gradient(x + h * v, propto=propto, jacobian=jacobian)[1]
        g_down = self.log_density_gradient(x - h * v, propto=propto, jacobian=jacobian)[1]
        result[:] = (g_up - g_down) / (2.0 * h)
        return lp, result

    # --- beyond BridgeStan ----------------------------------------------------------------

    def param_dict(self, theta_unc: Any) -> dict[str, Any]:
        """The constrained value of each parameter (floats and NumPy arrays of the declared
        shapes), as the log density receives them: for ArviZ and for reading draws."""
        x = self._checked(theta_unc)
        return {key: _plain(transform.constrain(x, decl.shape, start))
                for key, decl, transform, start, _ in self._layout}

    def param_shapes(self) -> dict[str, tuple[int, ...]]:
        """Each parameter's constrained shape."""
        return {key: decl.shape for key, decl in self._params.items()}

    # --- internals ------------------------------------------------------------------------

    def _checked(self, theta_unc: Any) -> np.ndarray:
        x = np.ascontiguousarray(theta_unc, dtype=np.float64)
        if x.shape != (self._unc_num,):
            raise _core.SizeError(
                f"log_density: theta_unc has shape {x.shape}, but must have shape "
                f"({self._unc_num},)"
            )
        return x

    def _density(self, propto: bool, jacobian: bool) -> Callable[[Any], Any]:
        """The log density of the unconstrained coordinates, as one function of a 1-D array
        (an array Var while a gradient is taken)."""
        user, data = self._log_density, self._data
        kwargs = {"propto": propto} if self._takes_propto else {}
        # Unconstrained reals and arrays are read by indexing and slicing, as one would write
        # them by hand; the others through their transform, with the log-Jacobian if asked.
        plain: list[tuple[str, Any]] = []
        constrained: list[tuple[str, tuple[int, ...], Any, int]] = []
        for key, decl, transform, start, stop in self._layout:
            if decl.transform != "identity" or decl.kind == "matrix":
                constrained.append((key, decl.shape, transform, start))
            elif decl.shape:
                plain.append((key, slice(start, stop)))
            else:
                plain.append((key, start))

        def density(x: Any) -> Any:
            values = {key: x[index] for key, index in plain}
            total: Any = None
            for key, shape, transform, start in constrained:
                if jacobian:
                    values[key], log_jacobian = transform.constrain_jacobian(x, shape, start)
                    total = log_jacobian if total is None else total + log_jacobian
                else:
                    values[key] = transform.constrain(x, shape, start)
            if constrained and jacobian:
                return total + user(values, data, **kwargs)
            return user(values, data, **kwargs)

        # The name a RevadWarning gives when the density cannot be replayed.
        density.__qualname__ = getattr(user, "__qualname__", "log_density")
        return density


def _rebuild(params: Mapping[str, Param], log_density: Callable[..., Any], data: Any,
             name: str, jit: bool = True) -> Model:
    return Model(params, log_density, data, name=name, jit=jit)


def _step(x: float) -> float:
    """A central-difference step for a coordinate of size ``x``: ε^⅓ max(1, |x|)."""
    return 6.0554544523933395e-06 * max(1.0, abs(x))


def _plain(value: Any) -> Any:
    """A float or NumPy array of a constrained value computed on data."""
    if isinstance(value, np.ndarray | float):
        return value
    return np.asarray(value, dtype=np.float64) if np.ndim(value) else float(value)
