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
take NumPy arrays and lists for any argument.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from . import _revad
from ._revad import *  # noqa: F401,F403  (the compiled functions, Var, Tape, exceptions)
from ._revad import gradient

__version__ = "0.1.0"


def value_and_grad(f: Callable[..., Any]) -> Callable[[Any], tuple[float, Any]]:
    """Decorator: ``value_and_grad(f)(x) == gradient(f, x)``.

    >>> import revad
    >>> @revad.value_and_grad
    ... def f(x):
    ...     return x * x
    >>> f(3.0)
    (9.0, 6.0)
    """

    @functools.wraps(f)
    def wrapper(x: Any) -> tuple[float, Any]:
        return gradient(f, x)

    return wrapper


__all__ = [name for name in dir(_revad) if not name.startswith("_")] + ["value_and_grad"]
