"""Type stubs of the ``revad`` package: the compiled module's names, ``value_and_grad`` and
``grad``.

Every public name of the compiled module is re-exported as it is stubbed in ``_revad.pyi``, so a
new function needs its stub there only.
"""

from collections.abc import Callable, Sequence
from typing import Any

from . import _revad as _revad
from . import linalg as linalg
from ._revad import *  # noqa: F403  (every name in _revad.__all__)
from ._revad import ValueAndGrad, Var
from ._revad import __all__ as __all__

__version__: str
__all__ += ["value_and_grad", "grad"]

def value_and_grad(
    f: Callable[..., Var | float], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> ValueAndGrad: ...
def grad(
    f: Callable[..., Var | float], argnums: int | Sequence[int] = 0, *, allow_constant: bool = False
) -> Callable[..., Any]: ...
