"""revad: reverse-mode automatic differentiation with a Rust core, in the design of Stan Math.

Two ways to differentiate:

>>> import revad
>>> value, grad = revad.gradient(lambda v: v[0] * revad.log(v[1]), [2.0, 4.0])
>>> with revad.Tape():
...     x = revad.Var(3.0)
...     y = x * x
...     y.grad()
...     x.adj
6.0

Every scalar function of Stan Math is here under its Stan name; each accepts floats or Vars
and returns a float for float arguments, a Var otherwise. So are the probability functions
(``normal_lpdf(y, mu, sigma, *, propto=False)``, ``poisson_cdf(n, lambda_)``, ...), which also
take NumPy arrays and lists for any argument, and Stan's linear algebra (``cholesky_decompose``,
``mdivide_left``, ``eigendecompose_sym``, ``gp_exp_quad_cov``, ...), also under NumPy's and
SciPy's names in ``revad.linalg`` (``revad.linalg.cholesky``, ``.solve``, ``.eigh``, ...).
``revad.Model`` bundles declared parameters (``revad.real(lower=0)``, ``revad.simplex(K)``, ...)
and a log density into an object with BridgeStan's interface, for samplers and optimisers
(``revad.nutpie.compile`` hands one to nutpie).
"""

# The helpers this module imports for itself are private (`_functools`) or imported for type
# checkers only, so that `dir(revad)` and `from revad import *` show revad's names alone.
from __future__ import annotations as _annotations

import functools as _functools
from typing import TYPE_CHECKING as _TYPE_CHECKING

# `linalg`: linear algebra under NumPy's and SciPy's names (revad.linalg.cholesky, ...).
from . import _revad, linalg, model  # noqa: F401
from ._revad import *  # noqa: F401,F403  (the compiled functions, Var, Tape, exceptions)
from ._revad import ValueAndGrad

# `Model` and the parameter declarations (revad.real, revad.vector, revad.simplex, ...).
from .model import *  # noqa: F401,F403

if _TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__version__ = "0.1.0"


def value_and_grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> ValueAndGrad:
    """``f`` returning its value and its gradient with respect to positional arguments
    ``argnums``, as JAX's ``value_and_grad``: ``value_and_grad(f)(x) == gradient(f, x)``.

    Each differentiated argument becomes a variable (a float: a scalar Var; a list of floats:
    a list of scalar Vars; a 1-D/2-D NumPy array or ``revad.Data``: an array Var) and its
    gradient has its shape; the other arguments pass unchanged. With a tuple ``argnums`` the
    gradient is a tuple. Usable as a decorator (name and docstring are kept).

    ``f`` must return a Var: a plain number raises ``TypeError`` (it cannot depend on the
    arguments; a Var turned into a number inside ``f``, by ``float(v)`` or ``math.exp(v)``,
    drops out of the gradient), unless ``allow_constant=True`` (the gradient is then 0).

    >>> import revad
    >>> @revad.value_and_grad
    ... def f(x):
    ...     return x * x
    >>> f(3.0)
    (9.0, 6.0)
    >>> g = revad.value_and_grad(lambda m, s, y: revad.normal_lpdf(y, m, s), argnums=(0, 1))
    >>> value, (d_m, d_s) = g(0.0, 1.0, [1.0, -1.0])
    >>> d_m, d_s
    (0.0, 0.0)
    """
    vg = ValueAndGrad(f, argnums, allow_constant=allow_constant)
    _functools.update_wrapper(vg, f)
    return vg


def grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> Callable[..., Any]:
    """``f``'s gradient with respect to positional arguments ``argnums``, as JAX's ``grad``:
    ``grad(f, argnums)(*args) == value_and_grad(f, argnums)(*args)[1]`` (``allow_constant`` as
    there).

    >>> import revad
    >>> revad.grad(lambda x: revad.exp(2.0 * x))(0.0)
    2.0
    """
    vg = ValueAndGrad(f, argnums, allow_constant=allow_constant)

    @_functools.wraps(f)
    def gradient_of_f(*args: Any, **kwargs: Any) -> Any:
        return vg(*args, **kwargs)[1]

    return gradient_of_f


# Every name of the compiled module (PyO3 lists each function and class it adds in its
# `__all__`), the two defined here, and the model's.
__all__ = [*_revad.__all__, "value_and_grad", "grad", *model.__all__]
