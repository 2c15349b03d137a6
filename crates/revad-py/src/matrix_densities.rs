//! The densities of correlation and covariance matrices (`revad::prob`): `lkj_corr_lpdf`,
//! `lkj_corr_cholesky_lpdf`, `lkj_cov_lpdf`, `wishart_lpdf`, `wishart_cholesky_lpdf`,
//! `inv_wishart_lpdf`, `inv_wishart_cholesky_lpdf`, `matrix_normal_prec_lpdf`, each one node,
//! under Stan's names and argument order with `propto` as a keyword.
//!
//! A matrix argument is a 2-D NumPy array, a 2-D `revad.Data` or a 2-D array Var; a scalar a
//! float or a scalar Var; `lkj_cov_lpdf`'s `mu` and `sigma` either (a 1-D array, list or array
//! Var, or a scalar). With data only the result is a float (from size 64 on computed with the
//! GIL released), else a Var. Bad input raises `revad.DomainError` or `revad.SizeError` with
//! Stan's message.

#![allow(non_snake_case)] // Stan's names: W, Sigma, L_W, Mu, D.

use pyo3::prelude::*;
use pyo3::types::PyAny;
use revad::prob;

use crate::args::{Arg, Ax, X};
use crate::convert::{arg, matrix_arg, try_arg, vector_arg};
use crate::family::family;
use crate::handle::PyVar;
use crate::record;

/// `$body` with `$x` the scalar argument `$a` as the core takes it: an `f64` or a `Var`.
macro_rules! real {
    ($a:expr, |$x:ident| $body:expr) => {
        match $a {
            Arg::F($x) => $body,
            Arg::V($x) => $body,
        }
    };
}

/// The size that decides whether a call on data releases the GIL: the matrix operands' larger
/// dimension.
fn size(ops: &[X]) -> usize {
    ops.iter()
        .map(|x| match x {
            X::A(Ax::M(m)) => {
                let (r, c) = m.value().dim();
                r.max(c)
            }
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// A density of (matrix, scalar) with `propto`.
macro_rules! matrix_scalar {
    ($(#[$doc:meta])* $name:ident($m:ident, $s:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = ($m, $s, *, propto = false))]
        fn $name(
            py: Python<'_>,
            $m: &Bound<'_, PyAny>,
            $s: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let ops = record::declared(|| -> PyResult<_> {
                Ok(vec![
                    X::A(Ax::M(matrix_arg($m, F, stringify!($m))?)),
                    X::S(arg($s, F, stringify!($s))?),
                ])
            })?;
            let n = size(&ops);
            record::apply_scalar(py, F, ops, n, move |x| {
                let m = x[0].matrix_ref();
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || real!(x[1].scalar(), |s| $core(m, s, propto)))
            })
        }
    };
}

matrix_scalar! {
    /// `lkj_corr_lpdf(y, eta, *, propto=False)`: the LKJ log density of the K×K correlation
    /// matrix ``y`` with shape ``eta > 0`` (Lewandowski, Kurowicka and Joe 2009):
    /// ``c(η, K) + (η − 1) log det y``, with the normalising constant
    /// ``c = (K − 1) lgamma(η + (K − 1)/2) − Σₖ₌₁ᴷ⁻¹ [(k/2) log π + lgamma(η + (K − 1 − k)/2)]``
    /// (Stan's ``do_lkj_constant``). ``eta = 1`` is uniform over correlation matrices.
    ///
    /// Gradient: ``ȳ = (η − 1) y⁻¹``, ``η̄ = c′(η, K) + log det y``. With ``propto``, ``c`` is
    /// dropped for a constant ``eta``.
    ///
    /// Raises ``DomainError`` unless ``eta > 0`` and ``y`` is a correlation matrix (unit
    /// diagonal to 1e-8, symmetric, positive definite), ``SizeError`` if it is not square.
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.lkj_corr_lpdf(np.array([[1.0, 0.5], [0.5, 1.0]]), 2.0), 12)
    /// -0.575364144904
    lkj_corr_lpdf(y, eta) => prob::lkj_corr_lpdf
}

matrix_scalar! {
    /// `lkj_corr_cholesky_lpdf(L, eta, *, propto=False)`: the LKJ log density of a correlation
    /// matrix given by its K×K lower-triangular Cholesky factor ``L``:
    /// ``c(η, K) + Σᵢ₌₂ᴷ (K − i + 2η − 2) log Lᵢᵢ``, the density of ``L Lᵀ`` times the Jacobian
    /// of ``L ↦ L Lᵀ`` (``c`` as in ``lkj_corr_lpdf``).
    ///
    /// Gradient: ``L̄ᵢᵢ = (K − i + 2η − 2)/Lᵢᵢ`` (the rest of ``L̄`` is 0),
    /// ``η̄ = c′(η, K) + 2 Σᵢ₌₂ᴷ log Lᵢᵢ``.
    ///
    /// Raises ``DomainError`` unless ``eta > 0`` and ``L`` is a Cholesky factor (lower
    /// triangular, positive diagonal, at least one column), ``SizeError`` if it is not square.
    lkj_corr_cholesky_lpdf(L, eta) => prob::lkj_corr_cholesky_lpdf
}

/// A density of (matrix, scalar, matrix) with `propto`.
macro_rules! wishart_like {
    ($(#[$doc:meta])* $name:ident($w:ident, $nu:ident, $s:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = ($w, $nu, $s, *, propto = false))]
        fn $name(
            py: Python<'_>,
            $w: &Bound<'_, PyAny>,
            $nu: &Bound<'_, PyAny>,
            $s: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let ops = record::declared(|| -> PyResult<_> {
                Ok(vec![
                    X::A(Ax::M(matrix_arg($w, F, stringify!($w))?)),
                    X::S(arg($nu, F, stringify!($nu))?),
                    X::A(Ax::M(matrix_arg($s, F, stringify!($s))?)),
                ])
            })?;
            let n = size(&ops);
            record::apply_scalar(py, F, ops, n, move |x| {
                let (w, s) = (x[0].matrix_ref(), x[2].matrix_ref());
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || real!(x[1].scalar(), |nu| $core(w, nu, s, propto)))
            })
        }
    };
}

wishart_like! {
    /// `wishart_lpdf(W, nu, Sigma, *, propto=False)`: the Wishart log density of the K×K
    /// symmetric positive-definite ``W`` with ``nu > K − 1`` degrees of freedom and scale
    /// ``Sigma`` (``scipy.stats.wishart(df=nu, scale=Sigma).logpdf(W)``):
    /// ``−(νK/2) log 2 − log Γ_K(ν/2) − (ν/2) log|Σ| + ((ν − K − 1)/2) log|W| − ½ tr(Σ⁻¹W)``.
    ///
    /// Gradient: ``W̄ = ((ν − K − 1)/2) W⁻¹ − ½ Σ⁻¹``, ``Σ̄ = −(ν/2) Σ⁻¹ + ½ Σ⁻¹WΣ⁻¹``,
    /// ``ν̄ = −(K/2) log 2 − ½ ψ_K(ν/2) − ½ log|Σ| + ½ log|W|``. Each matrix is factored once.
    ///
    /// Raises ``SizeError`` for matrices that are not square or not of one size,
    /// ``DomainError`` for ``nu ≤ K − 1`` or a matrix that is not symmetric or not positive
    /// definite.
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.wishart_lpdf(np.array([[3.0]]), 4.0, np.array([[2.0]])), 12)
    /// -2.423976433572
    wishart_lpdf(W, nu, Sigma) => prob::wishart_lpdf
}

wishart_like! {
    /// `inv_wishart_lpdf(W, nu, Sigma, *, propto=False)`: the inverse Wishart log density of
    /// the K×K symmetric positive-definite ``W`` with ``nu > K − 1`` degrees of freedom and
    /// scale ``Sigma`` (``scipy.stats.invwishart(df=nu, scale=Sigma).logpdf(W)``):
    /// ``−(νK/2) log 2 − log Γ_K(ν/2) + (ν/2) log|Σ| − ((ν + K + 1)/2) log|W| − ½ tr(ΣW⁻¹)``.
    ///
    /// Gradient: ``W̄ = −((ν + K + 1)/2) W⁻¹ + ½ W⁻¹ΣW⁻¹``, ``Σ̄ = (ν/2) Σ⁻¹ − ½ W⁻¹``,
    /// ``ν̄ = −(K/2) log 2 − ½ ψ_K(ν/2) + ½ log|Σ| − ½ log|W|``.
    ///
    /// Raises as ``wishart_lpdf``.
    inv_wishart_lpdf(W, nu, Sigma) => prob::inv_wishart_lpdf
}

wishart_like! {
    /// `wishart_cholesky_lpdf(L_W, nu, L_S, *, propto=False)`: the Wishart log density on
    /// lower-triangular Cholesky factors, the density of ``L_W`` when ``L_W L_Wᵀ`` is Wishart
    /// with scale ``L_S L_Sᵀ``: ``K(1 − ν/2) log 2 − log Γ_K(ν/2) − ν Σᵢ log L_S,ᵢᵢ
    /// + Σᵢ (ν − i) log L_W,ᵢᵢ − ½‖L_S⁻¹L_W‖²`` (indices from 1).
    ///
    /// Gradient, with ``X = L_S⁻¹L_W``: ``L̄_W = tril(−L_S⁻ᵀX) + diag((ν − i)/L_W,ᵢᵢ)``,
    /// ``L̄_S = tril(L_S⁻ᵀXXᵀ) − diag(ν/L_S,ᵢᵢ)``.
    ///
    /// Raises ``DomainError`` for ``nu ≤ K − 1`` or a factor that is not lower triangular with a
    /// positive diagonal, ``SizeError`` for factors that are not square or not of one size.
    wishart_cholesky_lpdf(L_W, nu, L_S) => prob::wishart_cholesky_lpdf
}

wishart_like! {
    /// `inv_wishart_cholesky_lpdf(L_W, nu, L_S, *, propto=False)`: the inverse Wishart log
    /// density on lower-triangular Cholesky factors: ``K(1 − ν/2) log 2 − log Γ_K(ν/2)
    /// + ν Σᵢ log L_S,ᵢᵢ − Σᵢ (ν + i) log L_W,ᵢᵢ − ½‖L_W⁻¹L_S‖²`` (indices from 1).
    ///
    /// Gradient, with ``X = L_W⁻¹L_S``: ``L̄_W = tril(L_W⁻ᵀXXᵀ) − diag((ν + i)/L_W,ᵢᵢ)``,
    /// ``L̄_S = tril(−L_W⁻ᵀX) + diag(ν/L_S,ᵢᵢ)``.
    ///
    /// Raises as ``wishart_cholesky_lpdf``.
    inv_wishart_cholesky_lpdf(L_W, nu, L_S) => prob::inv_wishart_cholesky_lpdf
}

/// `mu` or `sigma` of `lkj_cov_lpdf` as an operand: a scalar (float or scalar Var), else a
/// vector.
fn read_param(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    // An array Var is a vector (the scalar reader would refuse it).
    if !obj.cast::<PyVar>().is_ok_and(|v| v.get().is_array()) {
        if let Some(s) = try_arg(obj, function)? {
            return Ok(X::S(s));
        }
    }
    Ok(X::A(Ax::V(vector_arg(obj, function, name)?)))
}

/// `$body` with `$x` the operand `$p` of `lkj_cov_lpdf`'s `mu` or `sigma` as the core takes
/// it: `f64`, `Var` or `&Arr<Vector>`.
macro_rules! param {
    ($p:expr, |$x:ident| $body:expr) => {
        match $p {
            X::S(Arg::F(v)) => {
                let $x = *v;
                $body
            }
            X::S(Arg::V(v)) => {
                let $x = *v;
                $body
            }
            X::A(Ax::V($x)) => $body,
            X::A(Ax::M(_)) => unreachable!("a scalar or 1-D operand"),
        }
    };
}

/// `lkj_cov_lpdf(y, mu, sigma, eta, *, propto=False)`: Stan's (deprecated) LKJ prior on a K×K
/// covariance matrix ``y``: lognormal densities of its standard deviations ``sₖ = √yₖₖ``
/// (location ``mu``, scale ``sigma``: each a number for every k or a vector of K) plus the LKJ
/// density (``lkj_corr_lpdf``) of its correlation matrix ``Ω = D y D``, ``D = diag(1/sₖ)``:
/// ``Σₖ lognormal(sₖ | μₖ, σₖ) + c(η, K) + (η − 1) log det Ω`` (no Jacobian, as in Stan).
///
/// Gradient: ``ȳ = (η − 1) y⁻¹`` plus ``(−1 − zₖ/σₖ − 2(η − 1))/(2yₖₖ)`` on the diagonal,
/// ``μ̄ₖ = zₖ/σₖ``, ``σ̄ₖ = (zₖ² − 1)/σₖ``, ``η̄ = c′(η, K) + log det Ω``,
/// ``zₖ = (log sₖ − μₖ)/σₖ``.
///
/// Raises ``SizeError`` for a ``y`` that is not square or vectors not of length K,
/// ``DomainError`` for ``eta ≤ 0``, non-finite values, ``sigma ≤ 0``, a negative variance
/// (``lognormal_lpdf: ...``) or a ``y`` whose correlation matrix is not symmetric or not
/// positive definite (``lkj_corr_lpdf: ...``).
///
/// >>> import numpy as np, revad
/// >>> y = np.array([[4.0, 1.2], [1.2, 1.0]])
/// >>> round(revad.lkj_cov_lpdf(y, 0.5, [1.5, 1.5], 2.0), 12)
/// -4.139769379012
#[pyfunction]
#[pyo3(signature = (y, mu, sigma, eta, *, propto = false))]
fn lkj_cov_lpdf(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    mu: &Bound<'_, PyAny>,
    sigma: &Bound<'_, PyAny>,
    eta: &Bound<'_, PyAny>,
    propto: bool,
) -> PyResult<Py<PyAny>> {
    const F: &str = "lkj_cov_lpdf";
    let ops = record::declared(|| -> PyResult<_> {
        Ok(vec![
            X::A(Ax::M(matrix_arg(y, F, "y")?)),
            read_param(mu, F, "mu")?,
            read_param(sigma, F, "sigma")?,
            X::S(arg(eta, F, "eta")?),
        ])
    })?;
    let n = size(&ops);
    record::apply_scalar(py, F, ops, n, move |x| {
        let y = x[0].matrix_ref();
        crate::gil::res_of(x.iter().all(|a| a.is_data()), || {
            param!(&x[1], |m| param!(&x[2], |s| real!(x[3].scalar(), |e| {
                prob::lkj_cov_lpdf(y, m, s, e, propto)
            })))
        })
    })
}

/// `matrix_normal_prec_lpdf(y, Mu, Sigma, D, *, propto=False)`: the matrix normal log density
/// of the m×n ``y`` with mean ``Mu``, row precision ``Sigma`` (m×m) and column precision ``D``
/// (n×n), ``vec(y) ~ N(vec Mu, D⁻¹ ⊗ Sigma⁻¹)``
/// (``scipy.stats.matrix_normal(Mu, rowcov=inv(Sigma), colcov=inv(D)).logpdf(y)``):
/// ``−(mn/2) log 2π + (n/2) log|Σ| + (m/2) log|D| − ½ tr(D Eᵀ Σ E)``, ``E = y − Mu``. (Stan
/// Math weights the log-determinants by m/2 and n/2, which agrees only for m = n.)
///
/// Gradient, with ``P = Σ E D``: ``ȳ = −P``, ``M̄u = P``, ``Σ̄ = (n/2) Σ⁻¹ − ½ E D Eᵀ``,
/// ``D̄ = (m/2) D⁻¹ − ½ Eᵀ Σ E``. Each precision matrix is factored once.
///
/// Raises ``DomainError`` for a precision matrix that has no rows, is not finite, symmetric or
/// positive definite, or ``y``, ``Mu`` not finite; ``SizeError`` for sizes that do not match.
///
/// >>> import numpy as np, revad
/// >>> y, mu = np.array([[1.0, 2.0]]), np.array([[0.0, 0.0]])
/// >>> round(revad.matrix_normal_prec_lpdf(y, mu, np.eye(1), np.eye(2)), 12)
/// -4.337877066409
#[pyfunction]
#[pyo3(signature = (y, Mu, Sigma, D, *, propto = false))]
fn matrix_normal_prec_lpdf(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    Mu: &Bound<'_, PyAny>,
    Sigma: &Bound<'_, PyAny>,
    D: &Bound<'_, PyAny>,
    propto: bool,
) -> PyResult<Py<PyAny>> {
    const F: &str = "matrix_normal_prec_lpdf";
    let ops = record::declared(|| -> PyResult<_> {
        Ok(vec![
            X::A(Ax::M(matrix_arg(y, F, "y")?)),
            X::A(Ax::M(matrix_arg(Mu, F, "Mu")?)),
            X::A(Ax::M(matrix_arg(Sigma, F, "Sigma")?)),
            X::A(Ax::M(matrix_arg(D, F, "D")?)),
        ])
    })?;
    let n = size(&ops);
    record::apply_scalar(py, F, ops, n, move |x| {
        crate::gil::res_of(x.iter().all(|a| a.is_data()), || {
            prob::matrix_normal_prec_lpdf(
                x[0].matrix_ref(),
                x[1].matrix_ref(),
                x[2].matrix_ref(),
                x[3].matrix_ref(),
                propto,
            )
        })
    })
}

family! {
    functions: [
        lkj_corr_lpdf,
        lkj_corr_cholesky_lpdf,
        lkj_cov_lpdf,
        wishart_lpdf,
        wishart_cholesky_lpdf,
        inv_wishart_lpdf,
        inv_wishart_cholesky_lpdf,
        matrix_normal_prec_lpdf,
    ],
}
