//! Stan's linear algebra (`revad::linalg`): decompositions, solves, inverses, determinants,
//! the matrix exponential and powers, traces of quadratic forms, each one node.
//!
//! A matrix argument is a 2-D NumPy array, a 2-D `revad.Data` or a 2-D array Var; a vector
//! argument may also be a list of floats and scalar Vars. A function of data only returns
//! data (NumPy arrays, floats) and, for matrices of size 64 and up, runs with the GIL
//! released (see `gil`). Bad input raises `revad.SizeError` (not square, sizes that do not
//! match) or `revad.DomainError` (not symmetric, not positive definite, NaN) with Stan's
//! message.

#![allow(non_snake_case)] // Stan's names: svd_U, qr_Q, ...; L for a Cholesky factor.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyAny;
use revad::{linalg, Matrix, RowVector};

use crate::args::{Arg, Arr, Ax, X};
use crate::convert::{arg, array_arg, matrix_arg, try_x, vector_arg};
use crate::family::family;
use crate::gil::{call, pair_res_of, res_of};
use crate::ops::as_row;
use crate::record;

/// The size that decides whether a call on data releases the GIL: the matrix's larger
/// dimension.
fn size(a: &Arr<Matrix>) -> usize {
    let (r, c) = a.value().dim();
    r.max(c)
}

/// A row-vector operand: a 1-D operand read back as a row vector (the same elements and
/// adjoint run).
fn row(x: &X) -> Arr<RowVector> {
    as_row(x.vector())
}

/// `replay!(py, F, n, [a: X::matrix, b: row, ...] => body)`: the Python result of `body`, a
/// core call giving one value, declared for replay. Each operand (an [`Arr`]) goes to the
/// program as an [`X`] and comes back in the closure as `&Arr<_>` through its reader
/// (`X::vector`, `X::matrix`, or [`row`]). A call on data only, when not recording, keeps
/// `call!`'s path (the GIL released from size `n` on).
macro_rules! replay {
    ($py:expr, $f:expr, $n:expr, [$($x:ident: $kind:path),+ $(,)?] => $body:expr) => {{
        let operands = [$(X::from($x)),+];
        if !record::recording() && operands.iter().all(|x| x.is_data()) {
            let [$($x),+] = &operands;
            $(let $x = $kind($x);)+
            call!($py, $n, [$($x),+] => $body)
        } else {
            record::apply($f, &operands, move |ops| {
                let [$($x),+] = ops else {
                    unreachable!("the operands of {}", $f)
                };
                let data_only = ops.iter().all(|x| x.is_data());
                $(let $x = &$kind($x);)+
                res_of(data_only, || $body)
            })?
            .into_py($py)
        }
    }};
}

/// A function of one matrix, by its Stan name, declared for replay.
macro_rules! unary {
    ($(#[$doc:meta])* $name:ident => $core:expr) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let a = record::declared(|| matrix_arg(a, F, "a"))?;
            let n = size(&a);
            replay!(py, F, n, [a: X::matrix] => $core(a))
        }
    };
}

/// A function of one matrix giving a pair of factors from one decomposition, declared for
/// replay as two operations (`record::apply_pair`: the decomposition still runs once).
macro_rules! unary_pair {
    ($(#[$doc:meta])* $name:ident => $core:expr) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let a = record::declared(|| matrix_arg(a, F, "a"))?;
            let n = size(&a);
            if !record::recording() && matches!(a, Arr::D(_)) {
                return call!(py, n, [a] => $core(a));
            }
            let (first, second) = record::apply_pair(F, &[X::from(a)], move |ops| {
                let data_only = ops.iter().all(|x| x.is_data());
                let a = &ops[0].matrix();
                pair_res_of(data_only, || $core(a))
            })?;
            let items = [first.into_py(py)?, second.into_py(py)?];
            Ok(pyo3::types::PyTuple::new(py, items)?.into_any().unbind())
        }
    };
}

/// A function of one matrix giving a tuple of three factors (not declared for replay: its
/// result is not one value or a pair).
macro_rules! unary_tuple {
    ($(#[$doc:meta])* $name:ident => $core:expr) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            let a = matrix_arg(a, stringify!($name), "a")?;
            let n = size(&a);
            call!(py, n, [a] => $core(a))
        }
    };
}

unary! {
    /// `cholesky_decompose(a)`: the lower-triangular Cholesky factor ``L`` of a symmetric
    /// positive-definite matrix, ``a = L Lᵀ`` (``numpy.linalg.cholesky``). Only the lower
    /// triangle of ``a`` is read, after a symmetry check (to 1e-8).
    ///
    /// Reverse pass (Murray 2016): ``ā += Φ(L⁻ᵀ S L⁻¹)`` with ``S`` symmetric from the lower
    /// triangle of ``Lᵀ L̄`` and ``Φ`` the lower triangle with the diagonal halved; only the
    /// lower triangle of ``ā`` gets adjoint (an off-diagonal ``āᵢⱼ`` is the derivative with
    /// respect to the pair ``aᵢⱼ = aⱼᵢ`` moved together).
    ///
    /// Raises ``SizeError`` if ``a`` is not square, ``DomainError`` if it is not symmetric,
    /// holds NaN or is not positive definite.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.cholesky_decompose(np.array([[4.0, 2.0], [2.0, 5.0]])).tolist()
    /// [[2.0, 0.0], [1.0, 2.0]]
    cholesky_decompose => linalg::cholesky_decompose
}

unary! {
    /// `eigenvalues_sym(a)`: the eigenvalues of a symmetric matrix in ascending order
    /// (``numpy.linalg.eigvalsh``).
    ///
    /// Reverse pass: ``ā += Q diag(λ̄) Qᵀ`` with ``Q`` the eigenvectors (repeated eigenvalues
    /// are fine: the result is a symmetric function of them).
    ///
    /// Raises ``SizeError`` if ``a`` is not square, ``DomainError`` if it is not symmetric (to
    /// 1e-8) or holds NaN or infinity.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.eigenvalues_sym(np.array([[2.0, 1.0], [1.0, 2.0]])).tolist()
    /// [1.0, 3.0]
    eigenvalues_sym => linalg::eigenvalues_sym
}

unary! {
    /// `eigenvectors_sym(a)`: the eigenvectors of a symmetric matrix as the columns of an
    /// orthogonal matrix, in the order of the ascending eigenvalues; each column's first
    /// component of largest magnitude is positive.
    ///
    /// Reverse pass: ``ā += Q (F ∘ (Qᵀ Q̄)) Qᵀ`` with ``Fᵢⱼ = 1/(λⱼ − λᵢ)`` off the diagonal (0 on
    /// it and between repeated eigenvalues, whose eigenvectors are not unique).
    ///
    /// Raises as ``eigenvalues_sym``.
    eigenvectors_sym => linalg::eigenvectors_sym
}

unary_pair! {
    /// `eigendecompose_sym(a)`: ``(Q, λ)``, the eigenvectors (columns) and the ascending
    /// eigenvalues of a symmetric matrix from one decomposition, ``a = Q diag(λ) Qᵀ``, as Stan
    /// orders them (``numpy.linalg.eigh`` returns ``(λ, Q)``).
    ///
    /// Reverse pass: ``ā += Q (diag(λ̄) + F ∘ (Qᵀ Q̄)) Qᵀ`` (as ``eigenvectors_sym``); one node.
    ///
    /// Raises as ``eigenvalues_sym``.
    ///
    /// >>> import numpy as np, revad
    /// >>> q, lam = revad.eigendecompose_sym(np.array([[2.0, 0.0], [0.0, 1.0]]))
    /// >>> lam.tolist(), q.tolist()
    /// ([1.0, 2.0], [[0.0, 1.0], [1.0, 0.0]])
    eigendecompose_sym => linalg::eigendecompose_sym
}

unary! {
    /// `singular_values(a)`: the ``k = min(m, n)`` singular values of an m×n matrix in
    /// descending order (``numpy.linalg.svd(a, compute_uv=False)``).
    ///
    /// Reverse pass: ``ā += U diag(σ̄) Vᵀ``.
    ///
    /// Raises ``DomainError`` if an element is NaN or infinite.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.singular_values(np.array([[3.0, 0.0, 0.0], [0.0, 0.0, -4.0]])).tolist()
    /// [4.0, 3.0]
    singular_values => linalg::singular_values
}

unary! {
    /// `svd_U(a)`: the left singular vectors ``U`` (m×k, ``k = min(m, n)``, orthonormal
    /// columns) of an m×n matrix, in the order of the descending singular values; each
    /// column's first component of largest magnitude is positive (the matching column of
    /// ``V`` has the same sign flipped).
    ///
    /// Reverse pass (Townsend 2016): ``ā += U (½(a + b) ∘ (J − Jᵀ)) Vᵀ + (I − UUᵀ) Ū Σ⁻¹ Vᵀ``
    /// with ``J = UᵀŪ``, ``aᵢⱼ = 1/(σⱼ − σᵢ)``, ``bᵢⱼ = 1/(σᵢ + σⱼ)`` off the diagonal.
    ///
    /// Raises as ``singular_values``.
    svd_U => linalg::svd_U
}

unary! {
    /// `svd_V(a)`: the right singular vectors ``V`` (n×k, ``k = min(m, n)``) of an m×n
    /// matrix, matching ``svd_U``: ``a = U diag(σ) Vᵀ``.
    ///
    /// Reverse pass: ``ā += U (½(a − b) ∘ (K − Kᵀ)) Vᵀ + U Σ⁻¹ V̄ᵀ (I − VVᵀ)`` with ``K = VᵀV̄``.
    ///
    /// Raises as ``singular_values``.
    svd_V => linalg::svd_V
}

unary_tuple! {
    /// `svd(a)`: the thin singular value decomposition ``(U, σ, V)`` from one decomposition,
    /// ``a = U diag(σ) Vᵀ``, as ``svd_U``, ``singular_values`` and ``svd_V`` give the factors
    /// (NumPy's ``svd`` returns ``Vᵀ`` instead of ``V``).
    ///
    /// Reverse pass: the sum of the three; one node.
    ///
    /// Raises as ``singular_values``.
    ///
    /// >>> import numpy as np, revad
    /// >>> a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    /// >>> u, s, v = revad.svd(a)
    /// >>> bool(np.allclose(u @ np.diag(s) @ v.T, a))
    /// True
    svd => linalg::svd
}

unary! {
    /// `qr_thin_Q(a)`: the orthogonal factor of the thin QR decomposition of an m×n matrix,
    /// m×k with ``k = min(m, n)``, signed so that ``R``'s diagonal is nonnegative.
    ///
    /// Reverse pass (m ≥ n): ``ā += (Q̄ + Q copyltu(M)) R₁⁻ᵀ``, ``M = R₁ R̄₁ᵀ − Q̄ᵀQ`` (Liao et
    /// al. 2019); a wide matrix through its leading square block.
    qr_thin_Q => linalg::qr_thin_Q
}

unary! {
    /// `qr_thin_R(a)`: the upper-trapezoidal factor of the thin QR decomposition, k×n with
    /// ``k = min(m, n)`` and a nonnegative diagonal.
    qr_thin_R => linalg::qr_thin_R
}

unary_pair! {
    /// `qr_thin(a)`: ``(Q, R)``, the thin QR decomposition from one decomposition, ``a = Q R``,
    /// the factors as ``qr_thin_Q`` and ``qr_thin_R`` give them (``numpy.linalg.qr(a)``, up to
    /// the signs that make ``R``'s diagonal nonnegative).
    ///
    /// >>> import numpy as np, revad
    /// >>> a = np.array([[3.0, 1.0], [4.0, 2.0]])
    /// >>> q, r = revad.qr_thin(a)
    /// >>> bool(np.allclose(q @ r, a)), round(float(r[0, 0]), 12)
    /// (True, 5.0)
    qr_thin => linalg::qr_thin
}

unary! {
    /// `qr_Q(a)`: the orthogonal factor of the full QR decomposition, m×m, its first
    /// ``min(m, n)`` columns those of ``qr_thin_Q``. For m > n the last m − n columns are a
    /// basis of the complement of ``a``'s column space, differentiated as the basis that moves
    /// least with ``a``: exact for functions that do not depend on the choice of that basis.
    qr_Q => linalg::qr_Q
}

unary! {
    /// `qr_R(a)`: the upper-trapezoidal factor of the full QR decomposition, m×n: ``qr_thin_R``
    /// with m − n zero rows below it when m > n.
    qr_R => linalg::qr_R
}

unary_pair! {
    /// `qr(a)`: ``(Q, R)``, the full QR decomposition from one decomposition (as ``qr_Q`` and
    /// ``qr_R``; ``numpy.linalg.qr(a, mode="complete")`` up to signs).
    qr => linalg::qr
}

unary! {
    /// `inverse(a)`: ``a⁻¹`` of a square matrix (``numpy.linalg.inv``), from its LU
    /// factorisation with partial pivoting. A singular ``a`` gives infinite or NaN elements,
    /// as in Stan.
    ///
    /// Reverse pass: ``ā −= a⁻ᵀ Ḡ a⁻ᵀ``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.inverse(np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    /// [[0.5, 0.0], [0.0, 0.25]]
    inverse => linalg::inverse
}

unary! {
    /// `inverse_spd(a)`: ``a⁻¹`` of a symmetric positive-definite matrix through its Cholesky
    /// factor, exactly symmetric (the inverse of ``½(a + aᵀ)``).
    ///
    /// Reverse pass: ``ā −= S ½(S̄ + S̄ᵀ) S`` with ``S = a⁻¹``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square, ``DomainError`` if it is not symmetric,
    /// holds NaN or is not positive definite.
    inverse_spd => linalg::inverse_spd
}

/// `chol2inv(L)`: ``(L Lᵀ)⁻¹`` from a lower-triangular Cholesky factor ``L``, exactly
/// symmetric (R's ``chol2inv``).
///
/// Reverse pass: ``L̄ += tril(−X (X̄ + X̄ᵀ) L⁻ᵀ)`` with ``X = (L Lᵀ)⁻¹``.
///
/// Raises ``SizeError`` if ``L`` is not square, ``DomainError`` if it has a nonzero element
/// above its diagonal. A zero on the diagonal gives infinite or NaN elements.
///
/// >>> import numpy as np, revad
/// >>> revad.chol2inv(np.array([[2.0, 0.0], [1.0, 1.0]])).tolist()
/// [[0.5, -0.5], [-0.5, 1.0]]
#[pyfunction]
fn chol2inv(py: Python<'_>, L: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "chol2inv";
    let l = record::declared(|| matrix_arg(L, F, "L"))?;
    let n = size(&l);
    replay!(py, F, n, [l: X::matrix] => linalg::chol2inv(l))
}

unary! {
    /// `generalized_inverse(a)`: the Moore–Penrose inverse ``a⁺`` of an m×n matrix (n×m,
    /// ``numpy.linalg.pinv``): ``inverse(a)`` for a square matrix of full rank,
    /// ``aᵀ(a aᵀ)⁻¹`` (wide) or ``(aᵀa)⁻¹aᵀ`` (tall) for full rank, else from a complete
    /// orthogonal decomposition.
    ///
    /// Reverse pass (Golub & Pereyra 1973), valid where the rank is locally constant:
    /// ``ā += −a⁺ᵀ Ḡ a⁺ᵀ + (I − a a⁺) Ḡᵀ a⁺ a⁺ᵀ + a⁺ᵀ a⁺ Ḡᵀ (I − a⁺ a)``.
    generalized_inverse => |a| Ok::<_, revad::Error>(linalg::generalized_inverse(a))
}

unary! {
    /// `determinant(a)`: ``det a`` of a square matrix (``numpy.linalg.det``), 1 for a 0×0
    /// one. A singular ``a`` gives 0 (the gradient then holds NaN).
    ///
    /// Reverse pass (Jacobi's formula): ``ā += ḡ det(a) a⁻ᵀ``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.determinant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    /// -2.0
    determinant => linalg::determinant
}

unary! {
    /// `log_determinant(a)`: ``log |det a|`` of a square matrix (the second element of
    /// ``numpy.linalg.slogdet``), finite where ``det a`` itself would overflow or underflow;
    /// −∞ for a singular ``a``.
    ///
    /// Reverse pass: ``ā += ḡ a⁻ᵀ``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square.
    log_determinant => linalg::log_determinant
}

unary! {
    /// `log_determinant_spd(a)`: ``log det a = 2 Σ log Lᵢᵢ`` of a symmetric positive-definite
    /// matrix from its Cholesky factor ``L``.
    ///
    /// Reverse pass: ``ā += ḡ a⁻¹``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square, ``DomainError`` if it is not symmetric,
    /// holds NaN or is not positive definite.
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.log_determinant_spd(np.array([[4.0, 2.0], [2.0, 5.0]])), 6)  # log 16
    /// 2.772589
    log_determinant_spd => linalg::log_determinant_spd
}

unary! {
    /// `matrix_exp(a)`: the matrix exponential ``exp(a) = Σₖ aᵏ/k!`` of a square matrix
    /// (``scipy.linalg.expm``), by scaling and squaring with a Padé approximant (Higham 2005).
    ///
    /// Reverse pass: ``ā += L(aᵀ, Ḡ)``, the Fréchet derivative of the exponential at ``aᵀ`` in
    /// the direction ``Ḡ`` (Al-Mohy & Higham 2009).
    ///
    /// Raises ``SizeError`` if ``a`` is not square; NaN or infinite elements give NaN.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.matrix_exp(np.array([[0.0, 1.0], [0.0, 0.0]])).tolist()
    /// [[1.0, 1.0], [0.0, 1.0]]
    matrix_exp => linalg::matrix_exp
}

/// `trace(a)`: ``Σᵢ aᵢᵢ`` of a square matrix; ``ā += ḡ I``.
///
/// Raises ``SizeError`` if ``a`` is not square.
#[pyfunction]
fn trace(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "trace";
    let a = record::declared(|| matrix_arg(a, F, "a"))?;
    replay!(py, F, 0, [a: X::matrix] => linalg::trace(a))
}

/// `symmetrize_from_lower_tri(a)`: the symmetric matrix whose lower triangle (diagonal
/// included) is that of the square ``a``; the upper triangle of ``a`` is not read.
///
/// Reverse pass: ``āᵢᵢ += Ḡᵢᵢ``, ``āᵢⱼ += Ḡᵢⱼ + Ḡⱼᵢ`` for ``i > j``.
///
/// Raises ``SizeError`` if ``a`` is not square.
#[pyfunction]
fn symmetrize_from_lower_tri(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "symmetrize_from_lower_tri";
    let a = record::declared(|| matrix_arg(a, F, "a"))?;
    replay!(py, F, 0, [a: X::matrix] => linalg::symmetrize_from_lower_tri(a))
}

/// `matrix_power(a, n)`: ``aⁿ`` of a square matrix with finite elements for an integer
/// ``n ≥ 0`` (``a⁰ = I``), by repeated squaring (``numpy.linalg.matrix_power`` for n ≥ 0;
/// ``revad.linalg.matrix_power`` also takes n < 0).
///
/// Reverse pass: ``ā += Σₖ₌₀ⁿ⁻¹ (aᵀ)ᵏ Ḡ (aᵀ)ⁿ⁻¹⁻ᵏ``, by running the squarings backwards.
///
/// Raises ``SizeError`` if ``a`` is not square, ``DomainError`` if ``n < 0`` or an element
/// is NaN or infinite.
///
/// >>> import numpy as np, revad
/// >>> revad.matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 5).tolist()
/// [[1.0, 5.0], [0.0, 1.0]]
#[pyfunction]
fn matrix_power(py: Python<'_>, a: &Bound<'_, PyAny>, n: i32) -> PyResult<Py<PyAny>> {
    const F: &str = "matrix_power";
    let a = record::declared(|| matrix_arg(a, F, "a"))?;
    let size = size(&a);
    replay!(py, F, size, [a: X::matrix] => linalg::matrix_power(a, n))
}

/// A solve from the left, `$core(a, b)`, for a 1-D `b` (a vector; the result is 1-D) or a 2-D
/// one.
macro_rules! left_solve {
    ($(#[$doc:meta])* $name:ident($a:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(
            py: Python<'_>,
            $a: &Bound<'_, PyAny>,
            b: &Bound<'_, PyAny>,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let (a, b) = record::declared(|| -> PyResult<_> {
                Ok((matrix_arg($a, F, stringify!($a))?, array_arg(b, F, "b")?))
            })?;
            let n = size(&a);
            match b {
                Ax::V(b) => replay!(py, F, n, [a: X::matrix, b: X::vector] => $core(a, b)),
                Ax::M(b) => replay!(py, F, n, [a: X::matrix, b: X::matrix] => $core(a, b)),
            }
        }
    };
}

/// A solve from the right, `$core(b, a)`, for a 1-D `b` (a row vector; the result is 1-D) or
/// a 2-D one.
macro_rules! right_solve {
    ($(#[$doc:meta])* $name:ident($a:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(
            py: Python<'_>,
            b: &Bound<'_, PyAny>,
            $a: &Bound<'_, PyAny>,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let (a, b) = record::declared(|| -> PyResult<_> {
                Ok((matrix_arg($a, F, stringify!($a))?, array_arg(b, F, "b")?))
            })?;
            let n = size(&a);
            match b {
                Ax::V(b) => replay!(py, F, n, [b: row, a: X::matrix] => $core(b, a)),
                Ax::M(b) => replay!(py, F, n, [b: X::matrix, a: X::matrix] => $core(b, a)),
            }
        }
    };
}

left_solve! {
    /// `mdivide_left(a, b)`: ``a⁻¹ b``, the solution ``x`` of ``a x = b`` for a square ``a``
    /// (``numpy.linalg.solve``) by LU factorisation with partial pivoting; ``b`` 1-D (a
    /// vector) or 2-D. A singular ``a`` gives infinite or NaN elements, as in Stan.
    ///
    /// Reverse pass: with ``y = a⁻ᵀ x̄``, ``b̄ += y`` and ``ā −= y xᵀ``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square or ``b`` has not as many rows as ``a``.
    ///
    /// >>> import numpy as np, revad
    /// >>> revad.mdivide_left(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([1.0, 1.0])).tolist()
    /// [0.5, 0.25]
    mdivide_left(a) => linalg::mdivide_left
}

right_solve! {
    /// `mdivide_right(b, a)`: ``b a⁻¹``, the solution ``x`` of ``x a = b`` for a square ``a``;
    /// ``b`` 1-D (a row vector) or 2-D.
    ///
    /// Reverse pass: with ``z = x̄ a⁻ᵀ``, ``b̄ += z`` and ``ā −= xᵀ z``.
    ///
    /// Raises ``SizeError`` if ``a`` is not square or ``b`` has not as many columns as ``a``
    /// has rows.
    mdivide_right(a) => linalg::mdivide_right
}

left_solve! {
    /// `mdivide_left_tri_low(L, b)`: ``L⁻¹ b`` for the lower triangle ``L`` of a square matrix
    /// (its strict upper triangle is not read; ``scipy.linalg.solve_triangular(L, b,
    /// lower=True)``); ``b`` 1-D or 2-D. A zero on the diagonal gives infinite or NaN elements.
    ///
    /// Reverse pass: with ``y = L⁻ᵀ x̄``, ``b̄ += y`` and ``L̄ −= tril(y xᵀ)``.
    ///
    /// Raises ``SizeError`` if ``L`` is not square or ``b`` has not as many rows as ``L``.
    ///
    /// >>> import numpy as np, revad
    /// >>> L = np.array([[2.0, 9.0], [1.0, 4.0]])  # the 9.0 is not read
    /// >>> revad.mdivide_left_tri_low(L, np.array([2.0, 9.0])).tolist()
    /// [1.0, 2.0]
    mdivide_left_tri_low(L) => linalg::mdivide_left_tri_low
}

right_solve! {
    /// `mdivide_right_tri_low(b, L)`: ``b L⁻¹`` for the lower triangle ``L`` of a square
    /// matrix (its strict upper triangle is not read); ``b`` 1-D (a row vector) or 2-D.
    ///
    /// Reverse pass: with ``z = x̄ L⁻ᵀ``, ``b̄ += z`` and ``L̄ −= tril(xᵀ z)``.
    ///
    /// Raises ``SizeError`` if ``L`` is not square or ``b`` has not as many columns as ``L``
    /// has rows.
    mdivide_right_tri_low(L) => linalg::mdivide_right_tri_low
}

left_solve! {
    /// `mdivide_left_spd(a, b)`: ``a⁻¹ b`` for a symmetric positive-definite ``a`` through its
    /// Cholesky factor (``scipy.linalg.cho_solve(cho_factor(a), b)``); ``b`` 1-D or 2-D.
    ///
    /// Reverse pass: ``b̄ += a⁻¹ x̄``, ``ā −= (a⁻¹ x̄) xᵀ``.
    ///
    /// Raises ``SizeError`` for sizes that do not match, ``DomainError`` if ``a`` is not
    /// symmetric, holds NaN or is not positive definite.
    mdivide_left_spd(a) => linalg::mdivide_left_spd
}

right_solve! {
    /// `mdivide_right_spd(b, a)`: ``b a⁻¹`` for a symmetric positive-definite ``a``; ``b`` 1-D
    /// (a row vector) or 2-D.
    ///
    /// Reverse pass: ``b̄ += x̄ a⁻¹``, ``ā −= xᵀ (x̄ a⁻¹)``.
    ///
    /// Raises as ``mdivide_left_spd``.
    mdivide_right_spd(a) => linalg::mdivide_right_spd
}

/// `matrix_exp_multiply(a, b)`: ``exp(a) b`` for a square ``a`` and a 2-D ``b`` with as many
/// rows.
///
/// Reverse pass: with ``x = exp(a) b``, ``b̄ += exp(a)ᵀ x̄`` and ``ā += L(aᵀ, x̄ bᵀ)`` (the
/// Fréchet derivative, as ``matrix_exp``).
///
/// Raises ``SizeError`` if ``a`` is not square or the sizes do not match.
#[pyfunction]
fn matrix_exp_multiply(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "matrix_exp_multiply";
    let (a, b) = record::declared(|| -> PyResult<_> {
        Ok((matrix_arg(a, F, "a")?, matrix_arg(b, F, "b")?))
    })?;
    let n = size(&a);
    replay!(py, F, n, [a: X::matrix, b: X::matrix] => linalg::matrix_exp_multiply(a, b))
}

/// `scale_matrix_exp_multiply(t, a, b)`: ``exp(t a) b`` for a float ``t`` (data: there is no
/// derivative with respect to it), a square ``a`` and a 2-D ``b`` with as many rows.
///
/// Reverse pass: ``b̄ += exp(t a)ᵀ x̄``, ``ā += t L(t aᵀ, x̄ bᵀ)``.
///
/// Raises ``SizeError`` if ``a`` is not square or the sizes do not match, ``TypeError`` for a
/// Var ``t``.
#[pyfunction]
fn scale_matrix_exp_multiply(
    py: Python<'_>,
    t: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "scale_matrix_exp_multiply";
    let (t, a, b) = record::declared(|| -> PyResult<_> {
        let Arg::F(t) = arg(t, F, "t")? else {
            return Err(PyTypeError::new_err(
                "scale_matrix_exp_multiply: argument t must be a float (data), not a revad.Var: \
                 the function has no derivative with respect to t",
            ));
        };
        Ok((t, matrix_arg(a, F, "a")?, matrix_arg(b, F, "b")?))
    })?;
    let n = size(&a);
    replay!(py, F, n, [a: X::matrix, b: X::matrix] => linalg::scale_matrix_exp_multiply(t, a, b))
}

/// `trace_quad_form(a, b)`: ``tr(bᵀ a b)`` for a square ``a`` and a ``b`` with as many rows,
/// 2-D or 1-D (then ``bᵀ a b``).
///
/// Reverse pass: ``ā += ḡ b bᵀ``, ``b̄ += ḡ (a + aᵀ) b``.
///
/// Raises ``SizeError`` if ``a`` is not square or the sizes do not match.
///
/// >>> import numpy as np, revad
/// >>> revad.trace_quad_form(np.array([[2.0, 1.0], [0.0, 3.0]]), np.array([1.0, 2.0]))
/// 16.0
#[pyfunction]
fn trace_quad_form(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "trace_quad_form";
    let (a, b) = record::declared(|| -> PyResult<_> {
        Ok((matrix_arg(a, F, "a")?, array_arg(b, F, "b")?))
    })?;
    let n = size(&a);
    match b {
        Ax::V(b) => replay!(py, F, n, [a: X::matrix, b: X::vector] => linalg::trace_quad_form(a, b)),
        Ax::M(b) => replay!(py, F, n, [a: X::matrix, b: X::matrix] => linalg::trace_quad_form(a, b)),
    }
}

/// `trace_gen_quad_form(d, a, b)`: ``tr(d bᵀ a b)`` for square ``d`` (m×m) and ``a`` (n×n)
/// and an n×m ``b``.
///
/// Reverse pass: ``d̄ += ḡ (a b)ᵀ b``, ``ā += ḡ (b dᵀ) bᵀ``, ``b̄ += ḡ (a b d + aᵀ b dᵀ)``.
///
/// Raises ``SizeError`` if ``a`` or ``d`` is not square or the sizes do not match.
#[pyfunction]
fn trace_gen_quad_form(
    py: Python<'_>,
    d: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "trace_gen_quad_form";
    let (d, a, b) = record::declared(|| -> PyResult<_> {
        Ok((
            matrix_arg(d, F, "d")?,
            matrix_arg(a, F, "a")?,
            matrix_arg(b, F, "b")?,
        ))
    })?;
    let n = size(&a).max(size(&b));
    replay!(py, F, n, [d: X::matrix, a: X::matrix, b: X::matrix] => linalg::trace_gen_quad_form(d, a, b))
}

/// `add_diag(a, d)`: ``a`` with ``d`` added along its main diagonal: ``aᵢᵢ + d`` for a
/// scalar ``d`` (a float or a Var), ``aᵢᵢ + dᵢ`` for a 1-D ``d`` with ``min(rows, columns)``
/// elements; ``a`` need not be square.
///
/// Reverse pass: ``ā += Ḡ``; ``d̄ += Σᵢ Ḡᵢᵢ`` (scalar) or ``d̄ᵢ += Ḡᵢᵢ``.
///
/// Raises ``SizeError`` if a 1-D ``d`` has the wrong length.
///
/// >>> import numpy as np, revad
/// >>> revad.add_diag(np.zeros((2, 3)), 1.5).tolist()
/// [[1.5, 0.0, 0.0], [0.0, 1.5, 0.0]]
#[pyfunction]
fn add_diag(py: Python<'_>, a: &Bound<'_, PyAny>, d: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "add_diag";
    let (a, d) = record::declared(|| -> PyResult<_> {
        let a = matrix_arg(a, F, "a")?;
        let d = match try_x(d, F)? {
            Some(X::S(s)) => X::S(s),
            _ => X::from(vector_arg(d, F, "d")?),
        };
        Ok((a, d))
    })?;
    if !record::recording() {
        // Not recording: the data-only calls as before (no tape growth for data).
        match &d {
            X::S(Arg::F(c)) if matches!(a, Arr::D(_)) => {
                let c = *c;
                return call!(py, 0, [a] => linalg::add_diag(a, c));
            }
            X::A(Ax::V(v @ Arr::D(_))) if matches!(a, Arr::D(_)) => {
                let v = v.clone();
                return call!(py, 0, [a, v] => linalg::add_diag(a, v));
            }
            _ => {}
        }
    }
    record::apply(F, &[X::from(a), d], |ops| {
        let data_only = ops.iter().all(|x| x.is_data());
        let a = &ops[0].matrix();
        match &ops[1] {
            X::S(Arg::F(c)) => res_of(data_only, || linalg::add_diag(a, *c)),
            X::S(Arg::V(v)) => res_of(false, || linalg::add_diag(a, *v)),
            d => res_of(data_only, || linalg::add_diag(a, &d.vector())),
        }
    })?
    .into_py(py)
}

family! {
    functions: [
        cholesky_decompose,
        eigenvalues_sym,
        eigenvectors_sym,
        eigendecompose_sym,
        singular_values,
        svd_U,
        svd_V,
        svd,
        qr_thin_Q,
        qr_thin_R,
        qr_Q,
        qr_R,
        qr_thin,
        qr,
        mdivide_left,
        mdivide_right,
        mdivide_left_tri_low,
        mdivide_right_tri_low,
        mdivide_left_spd,
        mdivide_right_spd,
        inverse,
        inverse_spd,
        chol2inv,
        generalized_inverse,
        determinant,
        log_determinant,
        log_determinant_spd,
        matrix_exp,
        matrix_exp_multiply,
        scale_matrix_exp_multiply,
        matrix_power,
        trace,
        trace_quad_form,
        trace_gen_quad_form,
        add_diag,
        symmetrize_from_lower_tri,
    ],
}
