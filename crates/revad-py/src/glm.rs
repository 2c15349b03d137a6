//! Stan's generalised linear model densities (`revad::prob::*_glm_*`): `normal_id_glm_lpdf(y,
//! x, alpha, beta, sigma, *, propto=False)`, `bernoulli_logit_glm_lpmf(y, x, alpha, beta)`, ….
//!
//! The design matrix `x` is a 2-D NumPy array, a 2-D `revad.Data`, a matrix Var or a list of
//! rows; a 1-D one is Stan's `row_vector x`, one row shared by every observation. A real
//! argument (`y` of the normal model, `alpha`, `beta`, `sigma`, `phi`, `cuts`) is a float, a
//! 1-D array, a `revad.Data`, a scalar or vector Var, or a list of floats and Vars; an integer
//! argument an int, a 1-D integer array or a list of ints. The call is dispatched to the core
//! function instantiated for the constant/variable combination of its arguments, as for the
//! univariate densities.

#![allow(non_snake_case)] // Stan's argument N of binomial_logit_glm_lpmf.

use ndarray::Array2;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use revad::prob::{ConstArg, IntValues, VarArg};
use revad::{Matrix, RowVector, Var};

use crate::args::{Arg, Arr, Ax, Out, Res, X};
use crate::convert::{arg, array_arg, int_values_arg, type_name, x_arg};
use crate::errors::{size_error, to_py};
use crate::family::family;
use crate::ops::as_row;
use crate::record;

/// A real argument: constants or variables.
enum Real {
    /// A float or a vector of data.
    C(ConstArg<'static>),
    /// A scalar or vector variable.
    V(VarArg),
}

/// Reads real argument `name` (a scalar or 1-D) of `function`, as an operand.
fn read_real(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    let x = if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        X::A(array_arg(obj, function, name)?)
    } else {
        x_arg(obj, function, name)?
    };
    if let X::A(Ax::M(m)) = &x {
        let (r, c) = m.value().dim();
        return Err(size_error(format!(
            "{function}: argument {name} must be a scalar or 1-D, not of shape ({r}, {c})"
        )));
    }
    Ok(x)
}

/// The real argument of an operand read by [`read_real`].
fn operand_real(x: &X) -> Real {
    match x {
        X::S(Arg::F(v)) => Real::C(ConstArg::Scalar(*v)),
        X::S(Arg::V(v)) => Real::V(VarArg::Scalar(*v)),
        X::A(Ax::V(Arr::D(v))) => Real::C(ConstArg::Shared(v.clone())),
        X::A(Ax::V(Arr::V(v))) => Real::V(VarArg::Array(v.clone())),
        X::A(Ax::M(_)) => unreachable!("a scalar or 1-D operand"),
    }
}

/// A design matrix: N×K, or one row shared by every observation.
enum Design {
    /// A matrix.
    M(Arr<Matrix>),
    /// A row vector.
    R(Arr<RowVector>),
}

/// A list of rows (lists of floats and scalar Vars) as a matrix: data when every element is a
/// float, else one matrix variable (a float among Vars becomes a constant Var).
fn read_rows(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Arr<Matrix>> {
    let mut values = Vec::new();
    let mut args = Vec::new();
    let mut cols = None;
    let mut rows = 0;
    for (i, row) in obj.try_iter()?.enumerate() {
        let row = row?;
        if !(row.is_instance_of::<PyList>() || row.is_instance_of::<PyTuple>()) {
            return Err(PyTypeError::new_err(format!(
                "{function}: argument {name} must be a list of rows, not a list holding {}",
                type_name(&row)
            )));
        }
        let mut n = 0;
        for (j, item) in row.try_iter()?.enumerate() {
            let a = arg(&item?, function, &format!("{name}[{i}][{j}]"))?;
            values.push(a.value());
            args.push(a);
            n += 1;
        }
        match cols {
            None => cols = Some(n),
            Some(c) if c != n => {
                return Err(size_error(format!(
                    "{function}: argument {name} has rows of {c} and of {n} elements"
                )))
            }
            _ => {}
        }
        rows += 1;
    }
    let like = Array2::from_shape_vec((rows, cols.unwrap_or(0)), values)
        .expect("rows of one length")
        .into_shared();
    if args.iter().all(|a| matches!(a, Arg::F(_))) {
        return Ok(Arr::D(like));
    }
    let vars: Vec<Var> = args
        .iter()
        .map(|a| match *a {
            Arg::V(v) => v,
            Arg::F(x) => Var::new(x),
        })
        .collect();
    Ok(Arr::V(Var::from_vars(&like, &vars).map_err(to_py)?))
}

/// Whether `obj` is a list or tuple whose first element is one too (a list of rows).
fn is_rows(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if !(obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>()) {
        return Ok(false);
    }
    Ok(match obj.try_iter()?.next() {
        Some(first) => {
            let first = first?;
            first.is_instance_of::<PyList>() || first.is_instance_of::<PyTuple>()
        }
        None => false,
    })
}

/// Reads the design matrix `name` of `function` as an operand: 2-D, or 1-D for a row vector.
fn read_design(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    if is_rows(obj)? {
        return Ok(X::A(Ax::M(read_rows(obj, function, name)?)));
    }
    Ok(X::A(array_arg(obj, function, name)?))
}

/// The design matrix of an operand read by [`read_design`].
fn operand_design(x: &X) -> Design {
    match x {
        X::A(Ax::M(m)) => Design::M(m.clone()),
        X::A(Ax::V(v)) => Design::R(as_row(v.clone())),
        X::S(_) => unreachable!("an array operand"),
    }
}

/// Reads the weight matrix `name` of `function` (2-D only).
fn read_matrix(
    obj: &Bound<'_, PyAny>,
    function: &'static str,
    name: &str,
) -> PyResult<Arr<Matrix>> {
    if is_rows(obj)? {
        return read_rows(obj, function, name);
    }
    match array_arg(obj, function, name)? {
        Ax::M(m) => Ok(m),
        Ax::V(v) => Err(size_error(format!(
            "{function}: argument {name} must be 2-D, not of shape ({},)",
            v.value().len()
        ))),
    }
}

/// Calls `$f` with the arguments in order: `I` an integer argument as it is, `R` a real
/// argument in a `match` on constant/variable, `D` a design matrix in a `match` on its four
/// kinds, `W` a weight matrix on its two; every combination is its own instantiation.
macro_rules! dispatch {
    ($f:path; [$($done:expr),*]; []; $propto:expr) => {
        Out::from($f($($done,)* $propto).map_err(to_py)?)
    };
    ($f:path; [$($done:expr),*]; [I $x:ident $($rest:tt)*]; $propto:expr) => {
        dispatch!($f; [$($done,)* $x]; [$($rest)*]; $propto)
    };
    ($f:path; [$($done:expr),*]; [R $x:ident $($rest:tt)*]; $propto:expr) => {
        match $x {
            Real::C($x) => dispatch!($f; [$($done,)* $x]; [$($rest)*]; $propto),
            Real::V($x) => dispatch!($f; [$($done,)* $x]; [$($rest)*]; $propto),
        }
    };
    ($f:path; [$($done:expr),*]; [D $x:ident $($rest:tt)*]; $propto:expr) => {
        match $x {
            Design::M(Arr::V($x)) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
            Design::M(Arr::D($x)) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
            Design::R(Arr::V($x)) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
            Design::R(Arr::D($x)) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
        }
    };
    ($f:path; [$($done:expr),*]; [W $x:ident $($rest:tt)*]; $propto:expr) => {
        match $x {
            Arr::V($x) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
            Arr::D($x) => dispatch!($f; [$($done,)* &$x]; [$($rest)*]; $propto),
        }
    };
}

/// Reads an argument of kind `I` into the integers `$ints` (constants of the operation), or of
/// kind `R`, `D` or `W` into the operands `$ops`.
macro_rules! read {
    (I, $x:ident, $f:expr, $ops:ident, $ints:ident) => {
        $ints.push(int_values_arg($x, $f, stringify!($x))?)
    };
    (R, $x:ident, $f:expr, $ops:ident, $ints:ident) => {
        $ops.push(read_real($x, $f, stringify!($x))?)
    };
    (D, $x:ident, $f:expr, $ops:ident, $ints:ident) => {
        $ops.push(read_design($x, $f, stringify!($x))?)
    };
    (W, $x:ident, $f:expr, $ops:ident, $ints:ident) => {
        $ops.push(X::A(Ax::M(read_matrix($x, $f, stringify!($x))?)))
    };
}

/// In the operation, an argument of kind `I` (the next kept integers) or of kind `R`, `D` or
/// `W` (the next operand) as [`dispatch!`] takes it.
macro_rules! unpack {
    (I, $x:ident, $ops:ident, $ints:ident) => {
        let $x = $ints.next().expect("kept integers").clone();
    };
    (R, $x:ident, $ops:ident, $ints:ident) => {
        let $x = operand_real($ops.next().expect("an operand"));
    };
    (D, $x:ident, $ops:ident, $ints:ident) => {
        let $x = operand_design($ops.next().expect("an operand"));
    };
    (W, $x:ident, $ops:ident, $ints:ident) => {
        let $x = $ops.next().expect("an operand").matrix_ref().clone();
    };
}

/// One Python function per line: `name(arg: kind, ...) "docstring"`, calling
/// `revad::prob::name` with the arguments in order and `propto`, declared for replay (the
/// integer arguments are constants of the operation).
macro_rules! glm_functions {
    ($($(#[doc = $doc:literal])* $name:ident($($x:ident: $k:ident),*);)*) => {
        $(
            $(#[doc = $doc])*
            #[pyfunction]
            #[pyo3(signature = ($($x),*, *, propto = false))]
            fn $name(
                py: Python<'_>,
                $($x: &Bound<'_, PyAny>,)*
                propto: bool,
            ) -> PyResult<Py<PyAny>> {
                const F: &str = stringify!($name);
                let mut ops: Vec<X> = Vec::new();
                #[allow(unused_mut)]
                let mut ints: Vec<IntValues> = Vec::new();
                record::declared(|| -> PyResult<()> {
                    $(read!($k, $x, F, ops, ints);)*
                    Ok(())
                })?;
                record::apply(F, &ops, move |x| {
                    let mut x = x.iter();
                    #[allow(unused_mut, unused_variables)]
                    let mut kept = ints.iter();
                    $(unpack!($k, $x, x, kept);)*
                    Ok(Res::S(dispatch!(revad::prob::$name; []; [$($k $x)*]; propto)))
                })?
                .into_py(py)
            }
        )*

        family! {
            functions: [$($name),*],
        }
    };
}

glm_functions! {
    /// Σᵢ log Normal(yᵢ | ηᵢ, σᵢ) with the linear predictor η = x·β + α (identity link):
    /// Stan's ``normal_id_glm_lpdf``, the value of ``normal_lpdf(y, alpha + x @ beta, sigma)``
    /// in one node (one pass over ``x``).
    ///
    /// ``x`` is N×K (a 1-D ``x`` is one row shared by every observation, N then being the size
    /// of ``y``); ``y``, ``alpha`` and ``sigma`` are scalars or N values, ``beta`` K values.
    /// Partials, with zᵢ = (yᵢ − ηᵢ)/σᵢ and dᵢ = zᵢ/σᵢ: ∂/∂β = xᵀd, ∂/∂x = d βᵀ, ∂/∂α = d,
    /// ∂/∂y = −d, ∂/∂σᵢ = (zᵢ² − 1)/σᵢ. ``propto=True`` drops N·½log 2π, and Σ log σ when
    /// ``sigma`` is constant.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for ``sigma``
    /// not positive finite, or (when the result is not finite) ``y``, ``beta``, ``alpha`` or
    /// ``x`` not finite, with Stan's messages.
    ///
    /// >>> import revad
    /// >>> round(revad.normal_id_glm_lpdf([0.0], [[1.0]], 0.0, [0.0], 1.0), 6)
    /// -0.918939
    normal_id_glm_lpdf(y: R, x: D, alpha: R, beta: R, sigma: R);
    /// Σᵢ log Bernoulli(yᵢ | inv_logit(ηᵢ)), η = x·β + α (logistic regression): Stan's
    /// ``bernoulli_logit_glm_lpmf``, the value of ``bernoulli_logit_lpmf(y, alpha + x @ beta)``
    /// in one node.
    ///
    /// ``y`` holds 0s and 1s (an int or N of them); ``x`` is N×K (1-D: one shared row);
    /// ``alpha`` a scalar or N values; ``beta`` K values. With sᵢ = 2yᵢ − 1, dᵢ =
    /// sᵢ·inv_logit(−sᵢηᵢ): ∂/∂β = xᵀd, ∂/∂x = d βᵀ, ∂/∂α = d. No constant term: with
    /// ``propto=True`` and only constants the result is 0.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for an outcome
    /// other than 0 or 1 or (when the result is not finite) a non-finite ``beta``, ``alpha``
    /// or linear predictor.
    bernoulli_logit_glm_lpmf(y: I, x: D, alpha: R, beta: R);
    /// Σᵢ log Poisson(yᵢ | exp(ηᵢ)), η = x·β + α (Poisson regression): Stan's
    /// ``poisson_log_glm_lpmf``, the value of ``poisson_log_lpmf(y, alpha + x @ beta)`` in one
    /// node.
    ///
    /// ``y`` holds counts (an int or N of them); ``x`` is N×K (1-D: one shared row);
    /// ``alpha`` a scalar or N values; ``beta`` K values. With dᵢ = yᵢ − exp(ηᵢ): ∂/∂β = xᵀd,
    /// ∂/∂x = d βᵀ, ∂/∂α = d. ``propto=True`` drops Σ log yᵢ!.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for a negative
    /// count or (when the result is not finite) a non-finite ``beta``, ``alpha`` or linear
    /// predictor.
    poisson_log_glm_lpmf(y: I, x: D, alpha: R, beta: R);
    /// Σᵢ log NegBinomial2(yᵢ | exp(ηᵢ), φᵢ), η = x·β + α (negative binomial regression):
    /// Stan's ``neg_binomial_2_log_glm_lpmf``, the value of
    /// ``neg_binomial_2_log_lpmf(y, alpha + x @ beta, phi)`` in one node.
    ///
    /// ``y`` holds counts; ``x`` is N×K (1-D: one shared row); ``alpha`` and ``phi`` scalars
    /// or N values; ``beta`` K values. With tᵢ = ηᵢ − log φᵢ, dᵢ = yᵢ·inv_logit(−tᵢ) −
    /// φᵢ·inv_logit(tᵢ): ∂/∂β = xᵀd, ∂/∂x = d βᵀ, ∂/∂α = d; ∂/∂φᵢ = ψ(yᵢ + φᵢ) − ψ(φᵢ) −
    /// log1p_exp(tᵢ) + inv_logit(tᵢ) − (yᵢ/φᵢ)·inv_logit(−tᵢ). ``propto=True`` drops log yᵢ!,
    /// φ log φ + log Γ(y + φ) − log Γ(φ) when ``phi`` is constant, and y·η when ``x``,
    /// ``alpha`` and ``beta`` are.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for a non-finite
    /// ``beta`` or ``alpha``, a negative count, ``phi`` not positive finite or a non-finite
    /// linear predictor.
    neg_binomial_2_log_glm_lpmf(y: I, x: D, alpha: R, beta: R, phi: R);
    /// Σᵢ log Binomial(nᵢ | Nᵢ, inv_logit(ηᵢ)), η = x·β + α (binomial regression): Stan's
    /// ``binomial_logit_glm_lpmf``, the value of ``binomial_logit_lpmf(n, N, alpha + x @ beta)``
    /// in one node.
    ///
    /// ``n`` (successes) and ``N`` (trials) are ints or one per observation; ``x`` is N×K (a
    /// 1-D ``x`` is one shared row, the number of observations then the largest size of ``n``,
    /// ``N`` and ``alpha``); ``alpha`` a scalar or one per observation; ``beta`` K values. With
    /// dᵢ = nᵢ − Nᵢ·inv_logit(ηᵢ): ∂/∂β = xᵀd, ∂/∂x = d βᵀ, ∂/∂α = d. ``propto=True`` drops
    /// Σ log C(Nᵢ, nᵢ). As in Stan, an empty argument gives 0 before any check.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for n outside
    /// [0, N], a negative N or (when the result is not finite) a non-finite ``beta``,
    /// ``alpha`` or ``x``.
    binomial_logit_glm_lpmf(n: I, N: I, x: D, alpha: R, beta: R);
    /// Σᵢ log OrderedLogistic(yᵢ | ηᵢ, c), η = x·β (ordinal regression; the cut-points take
    /// the intercept's place): Stan's ``ordered_logistic_glm_lpmf``, the value of
    /// ``ordered_logistic_lpmf(y, x @ beta, cuts)`` in one node.
    ///
    /// ``y`` holds outcomes in 1..K (1-based, as in Stan); ``x`` is N×M (1-D: one shared
    /// row); ``beta`` M values; ``cuts`` K − 1 strictly increasing cut-points. ∂/∂β = xᵀd,
    /// ∂/∂x = d βᵀ with dᵢ = ∂/∂ηᵢ, and each outcome's two neighbouring cut-points get the
    /// partials of ``ordered_logistic_lpmf``. No constant term.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size, ``DomainError`` for an outcome
    /// outside [1, K], cut-points not increasing or not finite at either end, or (when the
    /// locations are not finite) a non-finite ``beta`` or ``x``.
    ordered_logistic_glm_lpmf(y: I, x: D, beta: R, cuts: R);
    /// Σᵢ log softmax(xᵢ·β + α)[yᵢ] (multinomial logistic regression): Stan's
    /// ``categorical_logit_glm_lpmf`` with a K×C weight matrix ``beta`` and C intercepts
    /// ``alpha``, the value of Σᵢ ``categorical_logit_lpmf(yᵢ, (x @ beta)ᵢ + alpha)`` in one
    /// node.
    ///
    /// ``y`` holds classes in 1..C (1-based); ``x`` is N×K (1-D: one shared row). With
    /// D = onehot(y) − softmax(η) (N×C): ∂/∂β = xᵀD, ∂/∂x = D βᵀ, ∂/∂α = the column sums of
    /// D. No constant term; a single class gives 0.
    ///
    /// Raises ``SizeError`` for arguments of the wrong size (``alpha`` of C values, ``beta``
    /// of K rows), ``DomainError`` for a class outside [1, C] or (when the result is not
    /// finite) a non-finite ``beta``, ``alpha`` or ``x``.
    categorical_logit_glm_lpmf(y: I, x: D, alpha: R, beta: W);
}
