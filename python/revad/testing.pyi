"""Type stubs of revad.testing (derivative checks against finite differences)."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt

_Vector = Sequence[float] | npt.NDArray[np.floating[Any]] | npt.NDArray[np.integer[Any]]

__all__ = ["assert_close", "check_gradient", "finite_diff_gradient"]

@overload
def finite_diff_gradient(f: Callable[[float], Any], x: float) -> float: ...
@overload
def finite_diff_gradient(
    f: Callable[[list[float]], Any], x: _Vector
) -> npt.NDArray[np.float64]: ...
def check_gradient(
    f: Callable[[Any], Any],
    points: Iterable[float | _Vector],
    rtol: float = 1e-7,
    atol: float = 1e-8,
    step: float | None = None,
) -> None: ...
def assert_close(a: npt.ArrayLike, b: npt.ArrayLike, tol: float) -> None: ...
