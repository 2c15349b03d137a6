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
from ._revad import Jit, ValueAndGrad

# `Model` and the parameter declarations (revad.real, revad.vector, revad.simplex, ...).
from .model import *  # noqa: F401,F403

if _TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__version__ = "0.1.0"


def value_and_grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> ValueAndGrad | Jit:
    """``f`` returning its value and its gradient with respect to positional arguments
    ``argnums``, as JAX's ``value_and_grad``: ``value_and_grad(f)(x) == gradient(f, x)``.

    Each differentiated argument becomes a variable (a float: a scalar Var; a list of floats:
    a list of scalar Vars; a 1-D/2-D NumPy array or ``revad.Data``: an array Var) and its
    gradient has its shape; the other arguments pass unchanged. With a tuple ``argnums`` the
    gradient is a tuple. Usable as a decorator (name and docstring are kept). Given a
    ``revad.jit`` of ``f``, the result is the jit of ``value_and_grad(f)`` (replayed too).

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
    if isinstance(f, Jit):
        return _rejit(f, "value_and_grad", argnums, allow_constant)
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
    if isinstance(f, Jit):
        return _rejit(f, "grad", argnums, allow_constant)
    vg = ValueAndGrad(f, argnums, allow_constant=allow_constant)

    @_functools.wraps(f)
    def gradient_of_f(*args: Any, **kwargs: Any) -> Any:
        return vg(*args, **kwargs)[1]

    gradient_of_f._revad_grad = vg  # type: ignore[attr-defined]  # what revad.jit reads
    return gradient_of_f


def _rejit(
    f: Jit, mode: str, argnums: int | Sequence[int], allow_constant: bool
) -> Jit:
    """A ``jit`` of ``f.fun`` in ``mode``: ``value_and_grad(jit(f))`` is
    ``jit(value_and_grad(f))``."""
    if f.mode != "value":
        raise TypeError(
            f"revad.{mode}: the function is already differentiated (a {f.mode} jit)"
        )
    j = Jit(f.fun, argnums, mode=mode, allow_constant=allow_constant,
            max_programs=f.max_programs)
    _functools.update_wrapper(j, f.fun)
    return j


def jit(
    f: Callable[..., Any] | None = None,
    *,
    argnums: int | Sequence[int] | None = None,
    max_programs: int = 8,
) -> Any:
    """``f`` recorded once and replayed in Rust, as JAX's ``jit`` but without a compile step.

    The first call runs ``f`` in Python and records each revad operation it makes into a
    program held in Rust; later calls whose arguments have the same kinds and shapes replay
    that program without running Python, calling the same core functions (so the results are
    bit for bit an eager call's). Wrap a differentiated function to replay its gradient too:
    ``jit(value_and_grad(f, argnums))`` (or ``value_and_grad(jit(f), argnums)``) and
    ``jit(grad(f))``; ``jit(f)`` alone returns ``f``'s value, with every float and array
    argument (or those in ``argnums``) traced.

    - **Guards.** A comparison of a Var that Python branches on (``if x > 0:``) is recorded
      with its outcome; a replay where it comes out differently is dropped and ``f`` is
      recorded again for that branch. Up to ``max_programs`` programs (signatures and branches)
      are kept, least recently used dropped first. ``revad.where`` / ``if_else`` on Vars
      compute both sides and select, as Stan does.
    - **Fallback.** A function that turns a Var into a number (``float(v)``, ``v.value``,
      ``math.exp(v)``) or calls a revad function that has no replay yet runs eagerly from then
      on, with one ``RevadWarning`` saying why; its results are the same.
    - **Arguments.** Float arrays that are not differentiated are data inputs: new values of
      the same shape replay (``f`` receives a ``revad.Data`` for them while recording). Other
      arguments (floats, ints, integer arrays, strings, objects), keyword arguments and values
      ``f`` reads from its closure are constants fixed at recording, as in ``jax.jit``; a call
      with a different constant records again. Python side effects (printing, appending to a
      list) happen only while recording.
    - **Batches and threads.** ``jit(value_and_grad(f)).value_and_grad_batch(xs)`` evaluates
      many points on the calling thread and helper threads, with the GIL released. A jitted
      function pickles (it is recorded again where it is unpickled), so it runs under
      ``multiprocessing`` and Dask.

    Usable as a decorator, with or without arguments.

    >>> import revad
    >>> @revad.jit
    ... @revad.value_and_grad
    ... def f(x):
    ...     return x * revad.log(x) if x > 1.0 else x * x
    >>> f(2.0)[1] == 1.0 + revad.log(2.0)
    True
    >>> f(0.5)
    (0.25, 1.0)
    """
    if f is None:
        return _functools.partial(jit, argnums=argnums, max_programs=max_programs)
    if isinstance(f, ValueAndGrad):
        mode, fun = "value_and_grad", f.fun
        argnums, allow_constant = f.argnums, f.allow_constant
    elif hasattr(f, "_revad_grad"):
        vg = f._revad_grad
        mode, fun, argnums, allow_constant = "grad", vg.fun, vg.argnums, vg.allow_constant
    elif isinstance(f, Jit):
        return f
    else:
        mode, fun, allow_constant = "value", f, False
    j = Jit(fun, argnums, mode=mode, allow_constant=allow_constant, max_programs=max_programs)
    _functools.update_wrapper(j, fun)
    return j


# Every name of the compiled module (PyO3 lists each function and class it adds in its
# `__all__`), the three defined here, and the model's.
__all__ = [*_revad.__all__, "value_and_grad", "grad", "jit", *model.__all__]
