//! Stan's multivariate densities (`revad::prob`): `multi_normal_lpdf(y, mu, Sigma, *,
//! propto=False)` and the others, each one node whatever the number of observations.
//!
//! The random variable and the location are each one vector or several ([`Vecs`]): a 1-D
//! array, list of floats or 1-D Var is one vector; a 2-D array or 2-D Var holds one vector per
//! row; a list of vectors is an array of them. One vector broadcasts against several. A matrix
//! argument is a 2-D NumPy array, `revad.Data` or Var. With data only, the result is a float.

#![allow(non_snake_case)] // Stan's names: Sigma, L, Omega.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use revad::prob::{self, Rows, Vectors};
use revad::{Matrix, Var, Vector};

use crate::args::{Arr, Ax, Out, X};
use crate::convert::{array_arg, matrix_arg, try_x, vector_arg};
use crate::errors::to_py;
use crate::family::family;
use crate::gil::on_data;

/// One vector or several, as read from Python.
enum Vecs {
    /// One vector.
    One(Arr<Vector>),
    /// One vector per row.
    Rows(Arr<Matrix>),
    /// A list of vectors, some of them variables (the data ones made constants).
    Vars(Vec<Var<Vector>>),
    /// A list of data vectors.
    Data(Vec<Vector>),
}

/// The values of a [`Vecs`] of data only, which a call may take across a GIL release.
enum VecsData {
    One(Vector),
    Rows(Matrix),
    List(Vec<Vector>),
}

impl Vecs {
    /// The values, if this is data.
    fn data(&self) -> Option<VecsData> {
        match self {
            Vecs::One(Arr::D(v)) => Some(VecsData::One(v.clone())),
            Vecs::Rows(Arr::D(m)) => Some(VecsData::Rows(m.clone())),
            Vecs::Data(l) => Some(VecsData::List(l.clone())),
            _ => None,
        }
    }

    /// The number of values (the size that decides whether a data call releases the GIL).
    fn len(&self) -> usize {
        match self {
            Vecs::One(a) => a.value().len(),
            Vecs::Rows(a) => a.value().len(),
            Vecs::Vars(l) => l.iter().map(|v| v.value().len()).sum(),
            Vecs::Data(l) => l.iter().map(|v| v.len()).sum(),
        }
    }
}

impl Vectors for Vecs {
    fn rows(&self, function: &'static str, what: &'static str) -> revad::Result<Rows<'_>> {
        match self {
            Vecs::One(Arr::V(v)) => v.rows(function, what),
            Vecs::One(Arr::D(v)) => v.rows(function, what),
            Vecs::Rows(Arr::V(m)) => m.rows(function, what),
            Vecs::Rows(Arr::D(m)) => m.rows(function, what),
            Vecs::Vars(l) => l.rows(function, what),
            Vecs::Data(l) => l.rows(function, what),
        }
    }
}

impl Vectors for VecsData {
    fn rows(&self, function: &'static str, what: &'static str) -> revad::Result<Rows<'_>> {
        match self {
            VecsData::One(v) => v.rows(function, what),
            VecsData::Rows(m) => m.rows(function, what),
            VecsData::List(l) => l.rows(function, what),
        }
    }
}

/// Argument `name` of `function` as one vector or several (see the module documentation).
fn vectors_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Vecs> {
    let is_list = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    let first_is_scalar = || -> PyResult<bool> {
        match obj.try_iter()?.next() {
            Some(item) => Ok(matches!(try_x(&item?, function)?, Some(X::S(_)))),
            None => Ok(true),
        }
    };
    if !is_list || first_is_scalar()? {
        return Ok(match array_arg(obj, function, name)? {
            Ax::V(v) => Vecs::One(v),
            Ax::M(m) => Vecs::Rows(m),
        });
    }
    let mut items = Vec::new();
    for (i, item) in obj.try_iter()?.enumerate() {
        items.push(vector_arg(&item?, function, &format!("{name}[{i}]"))?);
    }
    if items.iter().all(|a| matches!(a, Arr::D(_))) {
        let data = items
            .into_iter()
            .map(|a| a.value().clone())
            .collect::<Vec<_>>();
        return Ok(Vecs::Data(data));
    }
    let vars = items
        .into_iter()
        .map(|a| match a {
            Arr::V(v) => v,
            Arr::D(d) => Var::array(d),
        })
        .collect();
    Ok(Vecs::Vars(vars))
}

/// A density of `(y, mu, matrix)`, one `#[pyfunction]` per line: the Python name, the name of
/// the matrix argument, the core function and the docstring.
macro_rules! vector_matrix_density {
    ($($(#[$doc:meta])* $name:ident($matrix:ident) => $core:path;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (y, mu, $matrix, *, propto = false))]
        fn $name(
            py: Python<'_>,
            y: &Bound<'_, PyAny>,
            mu: &Bound<'_, PyAny>,
            $matrix: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let y = vectors_arg(y, F, "y")?;
            let mu = vectors_arg(mu, F, "mu")?;
            let m = matrix_arg($matrix, F, stringify!($matrix))?;
            let n = y.len().max(mu.len()).max(m.value().nrows());
            match (y.data(), mu.data(), &m) {
                (Some(y), Some(mu), Arr::D(m)) => {
                    let m = m.clone();
                    let lp = on_data(py, n, move || {
                        $core(&y, &mu, &m, propto).map(|v| v.value())
                    });
                    Out::F(lp.map_err(to_py)?).into_py(py)
                }
                _ => Out::V($core(&y, &mu, &m, propto).map_err(to_py)?).into_py(py),
            }
        }
    )*};
}

vector_matrix_density! {
    /// `multi_normal_lpdf(y, mu, Sigma, *, propto=False)`: the log of the multivariate normal
    /// density with mean ``mu`` and covariance ``Sigma``, summed over the observations,
    ///
    /// ``−½nK log 2π − ½n log|Σ| − ½ Σᵢ (yᵢ − μᵢ)ᵀ Σ⁻¹ (yᵢ − μᵢ)``
    ///
    /// for n vectors of size K. ``y`` and ``mu`` are each one vector (a 1-D array, a list of
    /// floats, a 1-D Var) or several (a 2-D array or Var with one vector per row, or a list of
    /// vectors); one vector broadcasts against several. ``Sigma`` is factored once per call.
    /// With ``propto=True`` the terms constant in the variables are dropped.
    ///
    /// Gradient: ``ȳᵢ = −Σ⁻¹rᵢ``, ``μ̄ᵢ = Σ⁻¹rᵢ``, ``Σ̄ = ½ Σᵢ Σ⁻¹rᵢrᵢᵀΣ⁻¹ − ½nΣ⁻¹``
    /// (``rᵢ = yᵢ − μᵢ``).
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``mu`` is not finite,
    /// ``y`` is NaN, or ``Sigma`` is not symmetric or not positive definite.
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.multi_normal_lpdf([0.0, 0.0], [0.0, 0.0], np.eye(2)), 6)
    /// -1.837877
    multi_normal_lpdf(Sigma) => prob::multi_normal_lpdf;

    /// `multi_normal_cholesky_lpdf(y, mu, L, *, propto=False)`: the log of the multivariate
    /// normal density with mean ``mu`` and covariance ``L Lᵀ``, for the lower-triangular
    /// Cholesky factor ``L`` (only its lower triangle is read), summed over the observations,
    ///
    /// ``−½nK log 2π − n Σⱼ log Lⱼⱼ − ½ Σᵢ ‖L⁻¹(yᵢ − μᵢ)‖²``.
    ///
    /// ``y`` and ``mu`` as in ``multi_normal_lpdf``. One triangular solve of all the residuals
    /// per call; no check of ``L`` beyond its size (as Stan: a zero on its diagonal gives
    /// ``-inf``).
    ///
    /// Gradient, with ``zᵢ = L⁻¹rᵢ`` and ``wᵢ = L⁻ᵀzᵢ``: ``ȳᵢ = −wᵢ``, ``μ̄ᵢ = wᵢ``,
    /// ``L̄ = Σᵢ wᵢzᵢᵀ − n diag(1/Lⱼⱼ)`` on the lower triangle.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``mu`` is not finite
    /// or ``y`` is NaN.
    ///
    /// >>> import numpy as np, revad
    /// >>> L = np.array([[1.0, 0.0], [0.5, 2.0]])
    /// >>> round(revad.multi_normal_cholesky_lpdf([1.0, 2.0], [0.0, 0.0], L), 6)
    /// -3.312274
    multi_normal_cholesky_lpdf(L) => prob::multi_normal_cholesky_lpdf;

    /// `multi_normal_prec_lpdf(y, mu, Omega, *, propto=False)`: the log of the multivariate
    /// normal density with mean ``mu`` and precision ``Omega`` (the inverse covariance),
    /// summed over the observations,
    ///
    /// ``−½nK log 2π + ½n log|Ω| − ½ Σᵢ (yᵢ − μᵢ)ᵀ Ω (yᵢ − μᵢ)``.
    ///
    /// ``y`` and ``mu`` as in ``multi_normal_lpdf``.
    ///
    /// Gradient: ``ȳᵢ = −Ωrᵢ``, ``μ̄ᵢ = Ωrᵢ``, ``Ω̄ = ½nΩ⁻¹ − ½ Σᵢ rᵢrᵢᵀ``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``mu`` is not finite,
    /// ``y`` is NaN, or ``Omega`` is not symmetric or not positive definite.
    multi_normal_prec_lpdf(Omega) => prob::multi_normal_prec_lpdf;
}

family! {
    functions: [multi_normal_lpdf, multi_normal_cholesky_lpdf, multi_normal_prec_lpdf],
}
