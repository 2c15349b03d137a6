"""Type stubs of the ``revad`` package: the compiled module's names, ``value_and_grad``,
``grad`` and ``jit``.

Every public name of the compiled module is re-exported as it is stubbed in ``_revad.pyi``, so a
new function needs its stub there only.
"""

from collections.abc import Callable, Sequence
from typing import Any, overload

from . import _revad as _revad
from . import linalg as linalg
from . import model as model
from ._revad import *  # noqa: F403  (every name in _revad.__all__)
from ._revad import Jit, ValueAndGrad, Var
from ._revad import __all__ as __all__
from .model import *  # noqa: F403  (Model and the parameter declarations)

__version__: str
__all__ += ["value_and_grad", "grad", "jit"]
# The model module's names (written out: stubtest reads a literal list).
__all__ += [  # noqa: F405
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

@overload
def value_and_grad(
    f: Jit, argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> Jit: ...
@overload
def value_and_grad(
    f: Callable[..., Var | float], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> ValueAndGrad: ...
@overload
def grad(f: Jit, argnums: int | Sequence[int] = 0, *, allow_constant: bool = False) -> Jit: ...
@overload
def grad(
    f: Callable[..., Var | float], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> Callable[..., Any]: ...
@overload
def jit(
    f: Callable[..., Any], *, argnums: int | Sequence[int] | None = None, max_programs: int = 8
) -> Jit: ...
@overload
def jit(
    f: None = None, *, argnums: int | Sequence[int] | None = None, max_programs: int = 8
) -> Callable[[Callable[..., Any]], Jit]: ...
