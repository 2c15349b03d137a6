"""Type stubs of the ``revad`` package: the compiled module's names, ``value_and_grad`` and
``grad``.

Every public name of the compiled module is re-exported as it is stubbed in ``_revad.pyi``, so a
new function needs its stub there only.
"""

from collections.abc import Callable, Sequence
from typing import Any

from . import _revad as _revad
from . import linalg as linalg
from . import model as model
from ._revad import *  # noqa: F403  (every name in _revad.__all__)
from ._revad import ValueAndGrad, Var
from ._revad import __all__ as __all__

from .model import *  # noqa: F403  (Model and the parameter declarations)
from .model import __all__ as _model_all

__version__: str
__all__ += ["value_and_grad", "grad"]
__all__ += _model_all

def value_and_grad(
    f: Callable[..., Var | float], argnums: int | Sequence[int] = 0
) -> ValueAndGrad: ...
def grad(f: Callable[..., Var | float], argnums: int | Sequence[int] = 0) -> Callable[..., Any]: ...
