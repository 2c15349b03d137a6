"""Linear algebra under the names NumPy and SciPy users reach for first.

Each function here is a thin alias of a revad function with Stan's name (one tape node each,
with a hand-written reverse pass), given NumPy's or SciPy's argument conventions and results.
Arguments may be 2-D NumPy arrays, ``revad.Data`` or array Vars (a right-hand side may also be
1-D); a call on data only returns data (and on matrices of size 64 or more runs with the GIL
released), and a call with any Var returns Vars.

=====================================  ===================================================
this module                            revad (Stan name)
=====================================  ===================================================
``cholesky(a, upper=False)``           ``cholesky_decompose(a)`` (lower factor, as NumPy)
``cho_factor(a)``, ``cho_solve``       ``cholesky_decompose``, two triangular solves
``solve(a, b)``                        ``mdivide_left(a, b)``
``solve_triangular(a, b, trans,        ``mdivide_left_tri_low`` (the other cases by
lower, unit_diagonal)``                transposition, as ``mdivide_right_tri_low``)
``inv(a)``                             ``inverse(a)``
``pinv(a)``                            ``generalized_inverse(a)``
``det(a)``                             ``determinant(a)``
``slogdet(a)``                         ``(sign, log_determinant(a))``
``eigh(a, UPLO="L")``                  ``eigendecompose_sym`` of one triangle, as ``(w, v)``
``eigvalsh(a, UPLO="L")``              ``eigenvalues_sym`` of one triangle
``svd(a, full_matrices, compute_uv)``  ``svd(a)`` as ``(U, S, Vh)``, S descending
``qr(a, mode="reduced")``              ``qr_thin(a)``, ``qr(a)`` or ``qr_thin_R(a)``
``expm(a)``                            ``matrix_exp(a)``
``matrix_power(a, n)``                 ``matrix_power(a, n)`` (``inverse`` first if n < 0)
``trace(a)``                           ``trace(a)`` (the diagonal's sum if not square)
=====================================  ===================================================

As in NumPy 2, ``eigh``, ``svd``, ``qr`` and ``slogdet`` return named tuples.

>>> import numpy as np, revad
>>> a = np.array([[4.0, 2.0], [1.0, 3.0]])
>>> value, g = revad.gradient(lambda m: revad.linalg.slogdet(m).logabsdet, a)
>>> bool(np.isclose(value, np.log(10.0))), bool(np.allclose(g, np.linalg.inv(a).T))
(True, True)
"""

from __future__ import annotations

from typing import Any as _Any
from typing import NamedTuple as _NamedTuple

import numpy as _np

from . import _revad

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


class EighResult(_NamedTuple):
    """What :func:`eigh` returns: ascending eigenvalues and the eigenvectors as columns."""

    eigenvalues: _Any
    eigenvectors: _Any


class SVDResult(_NamedTuple):
    """What :func:`svd` returns: ``a = U @ diag(S) @ Vh``."""

    U: _Any
    S: _Any
    Vh: _Any


class QRResult(_NamedTuple):
    """What :func:`qr` returns (modes ``"reduced"`` and ``"complete"``): ``a = Q @ R``."""

    Q: _Any
    R: _Any


class SlogdetResult(_NamedTuple):
    """What :func:`slogdet` returns: ``det a = sign * exp(logabsdet)``."""

    sign: float
    logabsdet: _Any


def _value(a: _Any) -> _np.ndarray:
    """The values of an array Var, ``revad.Data`` or array-like, as a NumPy array."""
    if isinstance(a, (_revad.Var, _revad.Data)):
        return _np.asarray(a.value, dtype=float)
    return _np.asarray(a, dtype=float)


def _t(a: _Any) -> _Any:
    """The transpose of a 2-D argument (a node for a Var, a NumPy array for data)."""
    return _revad.transpose(a)


def cholesky(a: _Any, upper: bool = False) -> _Any:
    """The Cholesky factor of a symmetric positive-definite matrix (``numpy.linalg.cholesky``;
    revad's ``cholesky_decompose``): the lower-triangular ``L`` with ``a = L Lᵀ``, or with
    ``upper=True`` the upper-triangular ``Lᵀ``.

    Unlike NumPy, ``a`` must be symmetric (to 1e-8): revad raises ``DomainError`` rather than
    read the lower triangle of a matrix that is not.

    >>> import numpy as np, revad
    >>> revad.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    factor = _revad.cholesky_decompose(a)
    return _t(factor) if upper else factor


def cho_factor(a: _Any, lower: bool = False) -> tuple[_Any, bool]:
    """``(c, lower)`` for :func:`cho_solve` (``scipy.linalg.cho_factor``): ``c`` is the
    Cholesky factor of ``a``, upper triangular unless ``lower`` (zero in the other triangle,
    where SciPy leaves what was there)."""
    return cholesky(a, upper=not lower), lower


def cho_solve(c_and_lower: tuple[_Any, bool], b: _Any) -> _Any:
    """``x`` with ``A x = b`` given ``(c, lower)``, the Cholesky factor of ``A`` as
    :func:`cho_factor` or ``scipy.linalg.cho_factor`` return it (``A = c cᵀ`` if ``lower``,
    else ``A = cᵀ c``; only that triangle of ``c`` is read): two triangular solves.

    >>> import numpy as np, revad
    >>> a = np.array([[4.0, 2.0], [2.0, 5.0]])
    >>> revad.linalg.cho_solve(revad.linalg.cho_factor(a), np.array([2.0, 1.0])).tolist()
    [0.5, 0.0]
    """
    c, lower = c_and_lower
    z = solve_triangular(c, b, trans=0 if lower else 1, lower=lower)
    return solve_triangular(c, z, trans=1 if lower else 0, lower=lower)


def solve(a: _Any, b: _Any) -> _Any:
    """``x`` with ``a x = b`` for a square ``a`` and a 1-D or 2-D ``b`` (``numpy.linalg.solve``;
    revad's ``mdivide_left``, by LU factorisation with partial pivoting). A singular ``a``
    gives infinite or NaN elements, where NumPy raises ``LinAlgError``."""
    return _revad.mdivide_left(a, b)


def solve_triangular(
    a: _Any,
    b: _Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
) -> _Any:
    """``x`` with ``op(a) x = b`` for a triangular ``a`` (``scipy.linalg.solve_triangular``;
    as there ``lower=False`` by default): ``op(a)`` is ``a`` for ``trans`` 0 or ``"N"``, ``aᵀ``
    for 1, ``"T"``, 2 or ``"C"``. Only the named triangle of ``a`` is read (with
    ``unit_diagonal`` not its diagonal either, taken as ones); ``b`` is 1-D or 2-D.

    A lower ``op(a)`` is revad's ``mdivide_left_tri_low``; an upper one solves
    ``xᵀ op(a)ᵀ = bᵀ`` with ``mdivide_right_tri_low`` (``op(a)ᵀ`` is lower triangular).

    >>> import numpy as np, revad
    >>> u = np.array([[2.0, 1.0], [0.0, 4.0]])
    >>> revad.linalg.solve_triangular(u, np.array([4.0, 8.0])).tolist()
    [1.0, 2.0]
    """
    transposed = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}.get(trans)
    if transposed is None:
        raise ValueError(
            f"solve_triangular: trans is {trans!r}, but must be 0, 1, 2, 'N', 'T' or 'C'"
        )
    # tri: the matrix whose lower triangle holds the triangle of a that is read.
    tri = a if lower else _t(a)
    if unit_diagonal:
        diag = _revad.diagonal(tri)
        tri = _revad.add_diag(tri, 1.0 - diag)
    if lower != transposed:
        # op(a) is lower triangular: op(a) = tri.
        return _revad.mdivide_left_tri_low(tri, b)
    # op(a) is upper triangular, op(a)ᵀ = tri: x = (bᵀ tri⁻¹)ᵀ (a 1-D b is its own transpose).
    if _value(b).ndim == 1:
        return _revad.mdivide_right_tri_low(b, tri)
    return _t(_revad.mdivide_right_tri_low(_t(b), tri))


def inv(a: _Any) -> _Any:
    """The inverse of a square matrix (``numpy.linalg.inv``; revad's ``inverse``)."""
    return _revad.inverse(a)


def pinv(a: _Any) -> _Any:
    """The Moore–Penrose inverse of a matrix (``numpy.linalg.pinv``; revad's
    ``generalized_inverse``)."""
    return _revad.generalized_inverse(a)


def det(a: _Any) -> _Any:
    """The determinant of a square matrix (``numpy.linalg.det``; revad's ``determinant``)."""
    return _revad.determinant(a)


def slogdet(a: _Any) -> SlogdetResult:
    """``(sign, logabsdet)`` of a square matrix, ``det a = sign * exp(logabsdet)``
    (``numpy.linalg.slogdet``): ``sign`` is a float, 1, −1 or 0 for a singular ``a`` (it has no
    derivative), ``logabsdet`` revad's ``log_determinant`` (−∞ for a singular ``a``).

    >>> import numpy as np, revad
    >>> sign, logabsdet = revad.linalg.slogdet(np.array([[0.0, 2.0], [3.0, 0.0]]))
    >>> sign, round(logabsdet, 12) == round(float(np.log(6.0)), 12)
    (-1.0, True)
    """
    sign = float(_np.linalg.slogdet(_value(a))[0])
    return SlogdetResult(sign, _revad.log_determinant(a))


def _triangle(a: _Any, uplo: str) -> _Any:
    """The symmetric matrix made from the lower (``"L"``) or upper (``"U"``) triangle of ``a``."""
    if uplo == "L":
        return _revad.symmetrize_from_lower_tri(a)
    if uplo == "U":
        return _revad.symmetrize_from_lower_tri(_t(a))
    raise ValueError(f"UPLO is {uplo!r}, but must be 'L' or 'U'")


def eigh(a: _Any, UPLO: str = "L") -> EighResult:
    """``(w, v)``: the eigenvalues of a symmetric matrix in ascending order and its
    eigenvectors as the columns of ``v`` (``numpy.linalg.eigh``), from one decomposition
    (revad's ``eigendecompose_sym``, which returns them the other way round). As in NumPy only
    the lower (``UPLO="L"``) or upper (``"U"``) triangle of ``a`` is read. Each eigenvector's
    first component of largest magnitude is positive.

    >>> import numpy as np, revad
    >>> w, v = revad.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> w.tolist()
    [1.0, 3.0]
    """
    vectors, values = _revad.eigendecompose_sym(_triangle(a, UPLO))
    return EighResult(values, vectors)


def eigvalsh(a: _Any, UPLO: str = "L") -> _Any:
    """The eigenvalues of a symmetric matrix in ascending order (``numpy.linalg.eigvalsh``;
    revad's ``eigenvalues_sym``), from its lower (``UPLO="L"``) or upper triangle."""
    return _revad.eigenvalues_sym(_triangle(a, UPLO))


def svd(a: _Any, full_matrices: bool = True, compute_uv: bool = True) -> _Any:
    """The singular value decomposition ``a = U @ diag(S) @ Vh`` (``numpy.linalg.svd``):
    ``(U, S, Vh)`` with S descending, or S alone with ``compute_uv=False``.

    revad differentiates the thin decomposition (U m×k, Vh k×n, ``k = min(m, n)``; revad's
    ``svd``), which is all of it for a square matrix and what ``full_matrices=False`` gives.
    With ``full_matrices=True`` (NumPy's default) a non-square matrix's U (tall) or Vh (wide)
    is completed to a square orthogonal matrix by the full QR decomposition of the thin factor
    (revad's ``qr_Q``): the extra columns (rows of Vh) are a basis of the complement, defined
    only up to a rotation, and differentiated as the basis that moves least, exactly for
    functions that do not depend on the choice of that basis.

    >>> import numpy as np, revad
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> u, s, vh = revad.linalg.svd(a)
    >>> u.shape, s.shape, vh.shape
    ((3, 3), (2,), (2, 2))
    >>> bool(np.allclose(u[:, :2] @ np.diag(s) @ vh, a))
    True
    """
    if not compute_uv:
        return _revad.singular_values(a)
    u, s, v = _revad.svd(a)
    if full_matrices:
        m, n = _value(a).shape
        if m > n:
            u = _revad.qr_Q(u)
        elif n > m:
            v = _revad.qr_Q(v)
    return SVDResult(u, s, _t(v))


def qr(a: _Any, mode: str = "reduced") -> _Any:
    """The QR decomposition ``a = Q @ R`` (``numpy.linalg.qr``): ``mode="reduced"`` (the
    default: Q m×k, R k×n, ``k = min(m, n)``; revad's ``qr_thin``), ``"complete"`` (Q m×m,
    R m×n; revad's ``qr``) or ``"r"`` (R of the reduced one alone; ``qr_thin_R``). R's diagonal
    is nonnegative, as Stan makes it (LAPACK leaves its signs free, so NumPy's Q and R may
    differ from revad's in the signs of matching columns and rows).

    >>> import numpy as np, revad
    >>> q, r = revad.linalg.qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> round(float(r[0, 0]), 12)
    5.0
    """
    if mode == "reduced":
        return QRResult(*_revad.qr_thin(a))
    if mode == "complete":
        return QRResult(*_revad.qr(a))
    if mode == "r":
        return _revad.qr_thin_R(a)
    raise ValueError(f"qr: mode is {mode!r}, but must be 'reduced', 'complete' or 'r'")


def expm(a: _Any) -> _Any:
    """The matrix exponential of a square matrix (``scipy.linalg.expm``; revad's
    ``matrix_exp``)."""
    return _revad.matrix_exp(a)


def matrix_power(a: _Any, n: int) -> _Any:
    """``a`` to the integer power ``n`` (``numpy.linalg.matrix_power``): for ``n < 0`` the
    inverse to the power ``-n`` (a singular ``a`` then gives infinite or NaN elements, where
    NumPy raises ``LinAlgError``).

    >>> import numpy as np, revad
    >>> revad.linalg.matrix_power(np.array([[2.0, 0.0], [0.0, 4.0]]), -1).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    n = int(n)
    if n < 0:
        return _revad.matrix_power(_revad.inverse(a), -n)
    return _revad.matrix_power(a, n)


def trace(a: _Any) -> _Any:
    """The sum of the diagonal of a matrix (``numpy.trace`` with its defaults; revad's
    ``trace`` for a square matrix; a non-square one sums its ``min(m, n)`` diagonal
    elements)."""
    shape = _value(a).shape
    if len(shape) == 2 and shape[0] != shape[1]:
        return _revad.sum(_revad.diagonal(a))
    return _revad.trace(a)
