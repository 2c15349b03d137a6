"""Type stubs of revad.linalg (linear algebra under NumPy's and SciPy's names).

Arguments are 2-D NumPy arrays, ``revad.Data`` or array Vars (a right-hand side may be 1-D);
data only gives NumPy arrays and floats, any Var gives Vars.
"""

from typing import Any, Literal, NamedTuple, overload

import numpy as np
import numpy.typing as npt

from ._revad import Data, Var

_Array = npt.NDArray[np.float64]
_Data = npt.NDArray[Any] | Data
_Arg = Var | _Data

__all__ = [
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "expm",
    "inv",
    "matrix_power",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
    "trace",
]

class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any

class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any

class QRResult(NamedTuple):
    Q: Any
    R: Any

class SlogdetResult(NamedTuple):
    sign: float
    logabsdet: Any

@overload
def cholesky(a: _Data, upper: bool = False) -> _Array: ...
@overload
def cholesky(a: Var, upper: bool = False) -> Var: ...
def cho_factor(a: _Arg, lower: bool = False) -> tuple[Any, bool]: ...
def cho_solve(c_and_lower: tuple[_Arg, bool], b: _Arg) -> Any: ...
def solve(a: _Arg, b: _Arg) -> Any: ...
def solve_triangular(
    a: _Arg,
    b: _Arg,
    trans: Literal[0, 1, 2, "N", "T", "C"] = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
) -> Any: ...
@overload
def inv(a: _Data) -> _Array: ...
@overload
def inv(a: Var) -> Var: ...
@overload
def pinv(a: _Data) -> _Array: ...
@overload
def pinv(a: Var) -> Var: ...
@overload
def det(a: _Data) -> float: ...
@overload
def det(a: Var) -> Var: ...
def slogdet(a: _Arg) -> SlogdetResult: ...
def eigh(a: _Arg, UPLO: Literal["L", "U"] = "L") -> EighResult: ...
@overload
def eigvalsh(a: _Data, UPLO: Literal["L", "U"] = "L") -> _Array: ...
@overload
def eigvalsh(a: Var, UPLO: Literal["L", "U"] = "L") -> Var: ...
@overload
def svd(a: _Arg, full_matrices: bool = True, compute_uv: Literal[True] = True) -> SVDResult: ...
@overload
def svd(a: _Data, full_matrices: bool = True, *, compute_uv: Literal[False]) -> _Array: ...
@overload
def svd(a: Var, full_matrices: bool = True, *, compute_uv: Literal[False]) -> Var: ...
@overload
def qr(a: _Arg, mode: Literal["reduced", "complete"] = "reduced") -> QRResult: ...
@overload
def qr(a: _Data, mode: Literal["r"]) -> _Array: ...
@overload
def qr(a: Var, mode: Literal["r"]) -> Var: ...
@overload
def expm(a: _Data) -> _Array: ...
@overload
def expm(a: Var) -> Var: ...
@overload
def matrix_power(a: _Data, n: int) -> _Array: ...
@overload
def matrix_power(a: Var, n: int) -> Var: ...
@overload
def trace(a: _Data) -> float: ...
@overload
def trace(a: Var) -> Var: ...
