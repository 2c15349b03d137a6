//! Stan's multivariate densities (`revad::prob`): `multi_normal_lpdf(y, mu, Sigma, *,
//! propto=False)` and the others, each one node whatever the number of observations.
//!
//! The random variable and the location are each one vector or several ([`Vecs`]): a 1-D
//! array, list of floats or 1-D Var is one vector; a 2-D array or 2-D Var holds one vector per
//! row; a list of vectors is an array of them. One vector broadcasts against several. A matrix
//! argument is a 2-D NumPy array, `revad.Data` or Var; counts are a list of ints or a 1-D
//! integer NumPy array. With data only, the result is a float.

#![allow(non_snake_case)] // Stan's names: Sigma, L, Omega, F, G, V, W, C0.

use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyTuple};
use revad::prob::{self, Rows, Vectors};
use revad::{Matrix, Var, Vector};

use crate::args::{shape_str, Arg, Arr, Ax, X};
use crate::convert::{arg, array_arg, matrix_arg, try_x, type_name, vector_arg};
use crate::family::family;
use crate::handle::PyVar;
use crate::record;

/// One vector or several, as a core function takes them.
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

/// How one vector or several are laid out as operands: one operand (a vector, or a matrix of
/// one vector per row), or a list of this many vector operands.
#[derive(Clone, Copy)]
enum Layout {
    One,
    List(usize),
}

/// Argument `name` of `function` as one vector or several (see the module documentation),
/// appended to `ops` as operands; how they are laid out.
fn vectors_arg(
    obj: &Bound<'_, PyAny>,
    function: &'static str,
    name: &str,
    ops: &mut Vec<X>,
) -> PyResult<Layout> {
    let is_list = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    let first_is_scalar = || -> PyResult<bool> {
        match obj.try_iter()?.next() {
            Some(item) => Ok(matches!(try_x(&item?, function)?, Some(X::S(_)))),
            None => Ok(true),
        }
    };
    if !is_list || first_is_scalar()? {
        ops.push(X::A(array_arg(obj, function, name)?));
        return Ok(Layout::One);
    }
    let mut n = 0;
    for (i, item) in obj.try_iter()?.enumerate() {
        let v = vector_arg(&item?, function, &format!("{name}[{i}]"))?;
        ops.push(X::A(Ax::V(v)));
        n += 1;
    }
    Ok(Layout::List(n))
}

/// The vectors laid out as `layout` at the front of the operands `x`, and the operands after
/// them.
fn take_vecs<'a>(x: &'a [&'a X], layout: Layout) -> (Vecs, &'a [&'a X]) {
    match layout {
        Layout::One => {
            let v = match &x[0] {
                X::A(Ax::V(v)) => Vecs::One(v.clone()),
                X::A(Ax::M(m)) => Vecs::Rows(m.clone()),
                X::S(_) => unreachable!("an array operand"),
            };
            (v, &x[1..])
        }
        Layout::List(n) => {
            let items = &x[..n];
            let v = if items.iter().all(|x| x.is_data()) {
                Vecs::Data(items.iter().map(|a| a.vector_ref().value().clone()).collect())
            } else {
                Vecs::Vars(
                    items
                        .iter()
                        .map(|a| match a.vector_ref() {
                            Arr::V(v) => v.clone(),
                            Arr::D(d) => Var::array(d.clone()),
                        })
                        .collect(),
                )
            };
            (v, &x[n..])
        }
    }
}

/// The size that decides whether a call on data releases the GIL: the number of values of the
/// vector operands, or a matrix operand's number of rows if larger.
fn size(ops: &[X]) -> usize {
    let values: usize = ops
        .iter()
        .map(|x| match x {
            X::A(Ax::V(v)) => v.value().len(),
            _ => 0,
        })
        .sum();
    ops.iter()
        .map(|x| match x {
            X::A(Ax::M(m)) => m.value().nrows(),
            _ => 0,
        })
        .fold(values, usize::max)
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
            let mut ops = Vec::new();
            let (ly, lmu) = record::declared(|| -> PyResult<_> {
                let ly = vectors_arg(y, F, "y", &mut ops)?;
                let lmu = vectors_arg(mu, F, "mu", &mut ops)?;
                ops.push(X::A(Ax::M(matrix_arg($matrix, F, stringify!($matrix))?)));
                Ok((ly, lmu))
            })?;
            let n = size(&ops);
            record::apply_scalar(py, F, ops, n, move |x| {
                let (y, rest) = take_vecs(x, ly);
                let (mu, rest) = take_vecs(rest, lmu);
                let m = rest[0].matrix_ref();
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || $core(&y, &mu, m, propto))
            })
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

/// Argument `name` of `function` as counts: a list or tuple of ints, or a 1-D integer NumPy
/// array (never bools or floats).
fn counts_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Vec<i64>> {
    let error = |what: String| {
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a list of ints or a 1-D integer NumPy array, \
             not {what}"
        ))
    };
    if let Ok(u) = obj.cast::<PyUntypedArray>() {
        if u.ndim() != 1 || !matches!(u.dtype().kind(), b'i' | b'u') {
            return Err(error(format!(
                "a NumPy array of dtype {} and shape {}",
                u.dtype(),
                shape_str(u.shape())
            )));
        }
        let converted = obj.call_method1("astype", ("int64",))?;
        let a = converted.cast::<PyArray1<i64>>()?.readonly();
        return Ok(a.as_array().iter().copied().collect());
    }
    if !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return Err(error(type_name(obj)));
    }
    let mut out = Vec::new();
    for item in obj.try_iter()? {
        let item = item?;
        if item.is_instance_of::<PyBool>()
            || item.is_instance_of::<PyFloat>()
            || item.is_instance_of::<PyVar>()
        {
            return Err(error(format!("a list holding {}", type_name(&item))));
        }
        match item.extract::<i64>() {
            Ok(n) => out.push(n),
            // An int out of range: Python's own OverflowError says so.
            Err(e) if item.is_instance_of::<PyInt>() => return Err(e),
            Err(_) => return Err(error(format!("a list holding {}", type_name(&item)))),
        }
    }
    Ok(out)
}

/// A multivariate Student-t density of `(y, nu, mu, matrix)`, one `#[pyfunction]` per line.
macro_rules! student_t_density {
    ($($(#[$doc:meta])* $name:ident($matrix:ident) => $core:path;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (y, nu, mu, $matrix, *, propto = false))]
        fn $name(
            py: Python<'_>,
            y: &Bound<'_, PyAny>,
            nu: &Bound<'_, PyAny>,
            mu: &Bound<'_, PyAny>,
            $matrix: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let mut ops = Vec::new();
            let (ly, lmu) = record::declared(|| -> PyResult<_> {
                let ly = vectors_arg(y, F, "y", &mut ops)?;
                ops.push(X::S(arg(nu, F, "nu")?));
                let lmu = vectors_arg(mu, F, "mu", &mut ops)?;
                ops.push(X::A(Ax::M(matrix_arg($matrix, F, stringify!($matrix))?)));
                Ok((ly, lmu))
            })?;
            let n = size(&ops);
            record::apply_scalar(py, F, ops, n, move |x| {
                let (y, rest) = take_vecs(x, ly);
                let nu = rest[0].scalar();
                let (mu, rest) = take_vecs(&rest[1..], lmu);
                let m = rest[0].matrix_ref();
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || match nu {
                    Arg::F(nu) => $core(&y, nu, &mu, m, propto),
                    Arg::V(nu) => $core(&y, nu, &mu, m, propto),
                })
            })
        }
    )*};
}

student_t_density! {
    /// `multi_student_t_lpdf(y, nu, mu, Sigma, *, propto=False)`: the log of the multivariate
    /// Student-t density with ``nu`` degrees of freedom, location ``mu`` and scale matrix
    /// ``Sigma``, summed over the observations,
    ///
    /// ``n[log Γ((ν+K)/2) − log Γ(ν/2) − ½K log(νπ) − ½ log|Σ|] − ½(ν+K) Σᵢ log(1 + qᵢ/ν)``
    ///
    /// with ``qᵢ = rᵢᵀΣ⁻¹rᵢ``, ``rᵢ = yᵢ − μᵢ``, for n vectors of size K. ``y`` and ``mu`` as in
    /// ``multi_normal_lpdf``; ``nu`` a float or scalar Var. ``Sigma`` is factored once per call.
    ///
    /// Gradient, with ``sᵢ = (ν+K)/(ν+qᵢ)`` and ``wᵢ = Σ⁻¹rᵢ``: ``ȳᵢ = −sᵢwᵢ``, ``μ̄ᵢ = sᵢwᵢ``,
    /// ``Σ̄ = ½ Σᵢ sᵢwᵢwᵢᵀ − ½nΣ⁻¹``, ``ν̄ = n[½ψ((ν+K)/2) − ½ψ(ν/2) − K/(2ν)] −
    /// ½ Σᵢ log(1 + qᵢ/ν) + Σᵢ (ν+K)qᵢ/(2ν(ν+qᵢ))``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``nu`` is not positive
    /// and finite, ``mu`` not finite, ``y`` NaN, or ``Sigma`` not symmetric or not positive
    /// definite (Stan's messages, which name the function ``multi_student_t``).
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.multi_student_t_lpdf([0.0, 0.0], 3.0, [0.0, 0.0], np.eye(2)), 6)
    /// -1.837877
    multi_student_t_lpdf(Sigma) => prob::multi_student_t_lpdf;

    /// `multi_student_t_cholesky_lpdf(y, nu, mu, L, *, propto=False)`: the log of the
    /// multivariate Student-t density with scale matrix ``L Lᵀ``, for its lower-triangular
    /// Cholesky factor ``L``, summed over the observations (the formula of
    /// ``multi_student_t_lpdf`` with ``½ log|Σ| = Σⱼ log Lⱼⱼ``, ``qᵢ = ‖L⁻¹rᵢ‖²``). One
    /// triangular solve of all the residuals per call.
    ///
    /// Gradient as ``multi_student_t_lpdf``, with ``L̄ = Σᵢ sᵢwᵢzᵢᵀ − n diag(1/Lⱼⱼ)`` on the
    /// lower triangle (``zᵢ = L⁻¹rᵢ``).
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``nu`` is not positive
    /// and finite, ``mu`` not finite, ``y`` NaN, or ``L`` not lower triangular with a positive
    /// diagonal.
    multi_student_t_cholesky_lpdf(L) => prob::multi_student_t_cholesky_lpdf;
}

/// A multi-output Gaussian process density of `(y, matrix, w)`, one `#[pyfunction]` per line.
macro_rules! gp_density {
    ($($(#[$doc:meta])* $name:ident($matrix:ident) => $core:path;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (y, $matrix, w, *, propto = false))]
        fn $name(
            py: Python<'_>,
            y: &Bound<'_, PyAny>,
            $matrix: &Bound<'_, PyAny>,
            w: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let ops = record::declared(|| -> PyResult<_> {
                Ok(vec![
                    X::A(Ax::M(matrix_arg(y, F, "y")?)),
                    X::A(Ax::M(matrix_arg($matrix, F, stringify!($matrix))?)),
                    X::A(Ax::V(vector_arg(w, F, "w")?)),
                ])
            })?;
            let n = ops[0].matrix_ref().value().len().max(ops[1].matrix_ref().value().len());
            record::apply_scalar(py, F, ops, n, move |x| {
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || {
                    $core(x[0].matrix_ref(), x[1].matrix_ref(), x[2].vector_ref(), propto)
                })
            })
        }
    )*};
}

gp_density! {
    /// `multi_gp_lpdf(y, Sigma, w, *, propto=False)`: the log density of a multi-output
    /// Gaussian process: the K rows ``yᵢ`` of the K×N matrix ``y`` are independent
    /// ``N(0, Σ/wᵢ)``, for an N×N kernel matrix ``Sigma`` and K positive inverse scales ``w``,
    ///
    /// ``−½KN log 2π − ½K log|Σ| + ½N Σᵢ log wᵢ − ½ Σᵢ wᵢ yᵢᵀΣ⁻¹yᵢ``.
    ///
    /// ``Sigma`` is factored once and all rows solved at once.
    ///
    /// Gradient, with ``vᵢ = Σ⁻¹yᵢ``: ``ȳᵢ = −wᵢvᵢ``, ``w̄ᵢ = N/(2wᵢ) − ½yᵢᵀvᵢ``,
    /// ``Σ̄ = ½ Σᵢ wᵢvᵢvᵢᵀ − ½KΣ⁻¹``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``y`` or ``Sigma`` is
    /// not finite, ``w`` not positive finite, or ``Sigma`` not symmetric or not positive
    /// definite.
    ///
    /// >>> import numpy as np, revad
    /// >>> round(revad.multi_gp_lpdf(np.zeros((1, 2)), np.eye(2), [1.0]), 6)
    /// -1.837877
    multi_gp_lpdf(Sigma) => prob::multi_gp_lpdf;

    /// `multi_gp_cholesky_lpdf(y, L, w, *, propto=False)`: ``multi_gp_lpdf`` with the kernel
    /// matrix given by its lower-triangular Cholesky factor ``L`` (``Σ = L Lᵀ``),
    ///
    /// ``−½KN log 2π − K Σⱼ log Lⱼⱼ + ½N Σᵢ log wᵢ − ½ Σᵢ wᵢ‖L⁻¹yᵢ‖²``.
    ///
    /// Gradient as ``multi_gp_lpdf``, with ``L̄ = Σᵢ wᵢvᵢzᵢᵀ − K diag(1/Lⱼⱼ)`` on the lower
    /// triangle (``zᵢ = L⁻¹yᵢ``).
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``y`` is not finite,
    /// ``w`` not positive finite, or ``L`` not lower triangular with a positive diagonal.
    multi_gp_cholesky_lpdf(L) => prob::multi_gp_cholesky_lpdf;
}

/// `dirichlet_lpdf(theta, alpha, *, propto=False)`: the log of the Dirichlet density of the
/// simplex ``theta`` with prior sample sizes ``alpha``, summed over the terms,
///
/// ``Σₜ [log Γ(Σₖ αₖ) − Σₖ log Γ(αₖ) + Σₖ (αₖ − 1) log θₖ]``.
///
/// ``theta`` and ``alpha`` are each one vector or several (a 2-D array with one per row, or a
/// list of vectors); one vector broadcasts against several.
///
/// Gradient: ``θ̄ₖ = (αₖ − 1)/θₖ``, ``ᾱₖ = ψ(Σⱼ αⱼ) − ψ(αₖ) + log θₖ``.
///
/// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if ``alpha`` is not
/// positive or ``theta`` not a simplex (sum within 1e-8 of 1, no negative element).
///
/// >>> import revad
/// >>> round(revad.dirichlet_lpdf([0.2, 0.3, 0.5], [2.0, 1.0, 3.0]), 6)
/// 1.098612
#[pyfunction]
#[pyo3(signature = (theta, alpha, *, propto = false))]
fn dirichlet_lpdf(
    py: Python<'_>,
    theta: &Bound<'_, PyAny>,
    alpha: &Bound<'_, PyAny>,
    propto: bool,
) -> PyResult<Py<PyAny>> {
    const F: &str = "dirichlet_lpdf";
    let mut ops = Vec::new();
    let (lt, la) = record::declared(|| -> PyResult<_> {
        let lt = vectors_arg(theta, F, "theta", &mut ops)?;
        let la = vectors_arg(alpha, F, "alpha", &mut ops)?;
        Ok((lt, la))
    })?;
    let n = size(&ops);
    record::apply_scalar(py, F, ops, n, move |x| {
        let (theta, rest) = take_vecs(x, lt);
        let (alpha, _) = take_vecs(rest, la);
        crate::gil::res_of(x.iter().all(|a| a.is_data()), || prob::dirichlet_lpdf(&theta, &alpha, propto))
    })
}

/// A distribution of counts `(ns, vector)`, one `#[pyfunction]` per line.
macro_rules! counts_density {
    ($($(#[$doc:meta])* $name:ident($vector:ident) => $core:path;)*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (ns, $vector, *, propto = false))]
        fn $name(
            py: Python<'_>,
            ns: &Bound<'_, PyAny>,
            $vector: &Bound<'_, PyAny>,
            propto: bool,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let ns = counts_arg(ns, F, "ns")?;
            let v = record::declared(|| vector_arg($vector, F, stringify!($vector)))?;
            let n = ns.len();
            record::apply_scalar(py, F, vec![X::A(Ax::V(v))], n, move |x| {
                crate::gil::res_of(x.iter().all(|a| a.is_data()), || $core(&ns, x[0].vector_ref(), propto))
            })
        }
    )*};
}

counts_density! {
    /// `multinomial_lpmf(ns, theta, *, propto=False)`: the log of the multinomial probability
    /// of the counts ``ns`` with the simplex of probabilities ``theta``,
    ///
    /// ``log N! − Σₖ log nₖ! + Σₖ nₖ log θₖ`` (``N = Σₖ nₖ``).
    ///
    /// Gradient: ``θ̄ₖ = nₖ/θₖ``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if a count is negative or
    /// ``theta`` is not a simplex.
    ///
    /// >>> import revad
    /// >>> round(revad.multinomial_lpmf([2, 1, 0], [0.5, 0.25, 0.25]), 6)
    /// -1.673976
    multinomial_lpmf(theta) => prob::multinomial_lpmf;

    /// `multinomial_logit_lpmf(ns, gamma, *, propto=False)`: ``multinomial_lpmf`` with the
    /// probabilities ``softmax(gamma)``,
    ///
    /// ``log N! − Σₖ log nₖ! + Σₖ nₖ γₖ − N log Σⱼ exp(γⱼ)``.
    ///
    /// Gradient: ``γ̄ₖ = nₖ − N softmax(γ)ₖ``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if a count is negative or
    /// ``gamma`` is not finite.
    multinomial_logit_lpmf(gamma) => prob::multinomial_logit_lpmf;

    /// `dirichlet_multinomial_lpmf(ns, alpha, *, propto=False)`: the log of the
    /// Dirichlet-multinomial probability of the counts ``ns`` with prior sample sizes
    /// ``alpha``,
    ///
    /// ``log N + log B(α₀, N) − Σ_{nₖ>0} [log nₖ + log B(αₖ, nₖ)]`` (``α₀ = Σₖ αₖ``; 0 for
    /// ``N = 0``).
    ///
    /// Gradient: ``ᾱₖ = [nₖ > 0](ψ(αₖ + nₖ) − ψ(αₖ)) + ψ(α₀) − ψ(α₀ + N)``.
    ///
    /// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if a count is negative or
    /// ``alpha`` is not positive finite.
    dirichlet_multinomial_lpmf(alpha) => prob::dirichlet_multinomial_lpmf;
}

/// `gaussian_dlm_obs_lpdf(y, F, G, V, W, m0, C0, *, propto=False)`: the log density of the
/// observations ``y`` (r×T, one column per time) of the Gaussian dynamic linear model
///
/// ``yₜ ~ N(Fᵀθₜ, V), θₜ ~ N(Gθₜ₋₁, W), θ₀ ~ N(m0, C0)``,
///
/// by the Kalman filter (n states: ``F`` n×r, ``G``, ``W``, ``C0`` n×n, ``m0`` of size n).
/// ``V`` is the r×r observation covariance, or a 1-D array of r variances for uncorrelated
/// observations (then filtered one component at a time). One node; the reverse pass runs the
/// filter backwards.
///
/// Raises ``SizeError`` if the sizes do not match, ``DomainError`` if an argument is not
/// finite, ``V``, ``W`` or ``C0`` not symmetric positive semi-definite, or the filter's
/// prediction covariance not positive definite.
///
/// >>> import numpy as np, revad
/// >>> one = np.ones((1, 1))
/// >>> y = np.array([[0.5, 1.0]])
/// >>> round(revad.gaussian_dlm_obs_lpdf(y, one, one, one, one, [0.0], one), 6)
/// -3.002598
#[pyfunction]
#[pyo3(signature = (y, F, G, V, W, m0, C0, *, propto = false))]
#[allow(clippy::too_many_arguments)]
fn gaussian_dlm_obs_lpdf(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    F: &Bound<'_, PyAny>,
    G: &Bound<'_, PyAny>,
    V: &Bound<'_, PyAny>,
    W: &Bound<'_, PyAny>,
    m0: &Bound<'_, PyAny>,
    C0: &Bound<'_, PyAny>,
    propto: bool,
) -> PyResult<Py<PyAny>> {
    const FN: &str = "gaussian_dlm_obs_lpdf";
    let ops = record::declared(|| -> PyResult<_> {
        Ok(vec![
            X::A(Ax::M(matrix_arg(y, FN, "y")?)),
            X::A(Ax::M(matrix_arg(F, FN, "F")?)),
            X::A(Ax::M(matrix_arg(G, FN, "G")?)),
            X::A(array_arg(V, FN, "V")?),
            X::A(Ax::M(matrix_arg(W, FN, "W")?)),
            X::A(Ax::V(vector_arg(m0, FN, "m0")?)),
            X::A(Ax::M(matrix_arg(C0, FN, "C0")?)),
        ])
    })?;
    let n = ops[0].matrix_ref().value().len() * ops[2].matrix_ref().value().nrows().max(1);
    record::apply_scalar(py, FN, ops, n, move |x| {
        let (y, f, g, w, m0, c0) = (
            x[0].matrix_ref(),
            x[1].matrix_ref(),
            x[2].matrix_ref(),
            x[4].matrix_ref(),
            x[5].vector_ref(),
            x[6].matrix_ref(),
        );
        crate::gil::res_of(x.iter().all(|a| a.is_data()), || match &x[3] {
            X::A(Ax::M(v)) => prob::gaussian_dlm_obs_lpdf(y, f, g, v, w, m0, c0, propto),
            X::A(Ax::V(Arr::V(v))) => prob::gaussian_dlm_obs_lpdf(y, f, g, v, w, m0, c0, propto),
            X::A(Ax::V(Arr::D(v))) => prob::gaussian_dlm_obs_lpdf(y, f, g, v, w, m0, c0, propto),
            X::S(_) => unreachable!("an array operand"),
        })
    })
}

family! {
    functions: [
        multi_normal_lpdf,
        multi_normal_cholesky_lpdf,
        multi_normal_prec_lpdf,
        multi_student_t_lpdf,
        multi_student_t_cholesky_lpdf,
        multi_gp_lpdf,
        multi_gp_cholesky_lpdf,
        dirichlet_lpdf,
        multinomial_lpmf,
        multinomial_logit_lpmf,
        dirichlet_multinomial_lpmf,
        gaussian_dlm_obs_lpdf,
    ],
}
