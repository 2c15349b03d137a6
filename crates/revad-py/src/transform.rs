//! Stan's constraining transforms (`revad::transform`): for each transform `<t>`,
//! `<t>_constrain`, `<t>_jacobian` (the value and its log-Jacobian, a tuple) and
//! `<t>_unconstrain` (with Stan Math's `<t>_free` as an alias), and the `Transform` class that
//! describes any of them for generic code.
//!
//! A free or constrained argument is a float or a scalar Var where the transform takes a real,
//! else a NumPy array, a `revad.Data`, an array Var or a list; a bound, offset or multiplier a
//! float, a Var or an array of the value's shape. Data only gives data (floats, NumPy
//! arrays); a variable anywhere gives Vars, from one node per call. Bad input raises
//! `revad.DomainError` or `revad.SizeError` with Stan's message.
//!
//! Every function computing on Vars is declared for replay (`revad.jit`): the argument, the
//! bounds, offset and multiplier are operands (Vars and data inputs are followed, floats and
//! arrays are constants); a `_jacobian` function's value and log-Jacobian come from one core
//! call, recorded as two operations ([`record::apply_pair`]).

#![allow(non_snake_case)] // Stan's names of the sizes: K, M, N.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyList, PyTuple};
use revad::transform::{self as t, Limit, Shape, Transform, Value};
use revad::{Matrix, Var, Vector};

use crate::args::{Arg, Arr, Ax, Out, Res, X};
use crate::convert::{array_arg, matrix_arg, try_x, vector_arg, x_arg};
use crate::errors::{size_error, to_py};
use crate::gil::{call, pair_res_of, res_of, IntoData, IntoRes, Output};
use crate::record;

/// A scalar or array argument; a list or tuple is an array.
fn any_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    match try_x(obj, function)? {
        Some(x) => Ok(x),
        None if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() => {
            Ok(X::A(array_arg(obj, function, name)?))
        }
        None => x_arg(obj, function, name),
    }
}

/// A bound (offset, multiplier) operand as a [`Limit`].
fn limit_of(x: &X) -> Limit {
    match x.clone() {
        X::S(Arg::F(x)) => Limit::Real(x),
        X::S(Arg::V(v)) => Limit::Var(v),
        X::A(Ax::V(Arr::D(d))) => Limit::Vector(d),
        X::A(Ax::V(Arr::V(v))) => Limit::VarVector(v),
        X::A(Ax::M(Arr::D(d))) => Limit::Matrix(d),
        X::A(Ax::M(Arr::V(v))) => Limit::VarMatrix(v),
    }
}

/// A scalar bound, when the free or constrained value is a scalar.
fn scalar_bound(x: &X, function: &'static str, name: &str) -> PyResult<Arg> {
    match x {
        X::S(a) => Ok(*a),
        X::A(_) => Err(size_error(format!(
            "{function}: argument {name} must be a scalar when the value is a scalar"
        ))),
    }
}

/// A scalar argument as a variable (a constant becomes a variable of its own, whose adjoint
/// is not read).
fn var(a: Arg) -> Var {
    match a {
        Arg::F(v) => Var::new(v),
        Arg::V(v) => v,
    }
}

/// What a declared transform function gives: one result, or a value and its log-Jacobian.
trait Outcome: Sized {
    /// Runs `f` on `ops` as the declared function `function` (one operation, or a pair).
    fn apply(
        function: &'static str,
        ops: &[X],
        f: impl Fn(&[&X]) -> PyResult<Self> + Send + Sync + 'static,
    ) -> PyResult<Self>;
    /// The Python object: a float, Var or NumPy array, or a tuple of two.
    fn into_object(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Outcome for Res {
    fn apply(
        function: &'static str,
        ops: &[X],
        f: impl Fn(&[&X]) -> PyResult<Res> + Send + Sync + 'static,
    ) -> PyResult<Res> {
        record::apply(function, ops, f)
    }
    fn into_object(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_py(py)
    }
}

impl Outcome for (Res, Res) {
    fn apply(
        function: &'static str,
        ops: &[X],
        f: impl Fn(&[&X]) -> PyResult<(Res, Res)> + Send + Sync + 'static,
    ) -> PyResult<(Res, Res)> {
        record::apply_pair(function, ops, f)
    }
    fn into_object(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = [self.0.into_py(py)?, self.1.into_py(py)?];
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
}

/// The Python result of the declared function `function`, whose one definition `f` computes
/// it from its operands `ops`.
fn declare<T: Outcome>(
    py: Python<'_>,
    function: &'static str,
    ops: Vec<X>,
    f: impl Fn(&[&X]) -> PyResult<T> + Send + Sync + 'static,
) -> PyResult<Py<PyAny>> {
    T::apply(function, &ops, f)?.into_object(py)
}

/// A core transform's result (a value, or a value and its log-Jacobian) as an [`Outcome`].
trait CoreResult: Sized {
    type Outcome: Outcome;
    /// The outcome of the core call `f`: data when `data_only`, else recorded.
    fn outcome(data_only: bool, f: impl FnOnce() -> revad::Result<Self>)
        -> PyResult<Self::Outcome>;
}

macro_rules! core_result {
    (one: $($t:ty),+; pair: $($p:ty),+) => {
        $(impl CoreResult for $t {
            type Outcome = Res;
            fn outcome(data_only: bool, f: impl FnOnce() -> revad::Result<Self>) -> PyResult<Res> {
                res_of(data_only, f)
            }
        })+
        $(impl CoreResult for ($p, Var) {
            type Outcome = (Res, Res);
            fn outcome(
                data_only: bool,
                f: impl FnOnce() -> revad::Result<Self>,
            ) -> PyResult<(Res, Res)> {
                pair_res_of(data_only, f)
            }
        })+
    };
}

core_result!(one: Var<Vector>, Var<Matrix>, Value; pair: Var<Vector>, Var<Matrix>, Value);

/// The outcome of the core call `f` on the operands `ops`: data when all of them are data.
fn outcome_of<T: CoreResult>(
    ops: &[&X],
    f: impl FnOnce() -> revad::Result<T>,
) -> PyResult<T::Outcome> {
    T::outcome(ops.iter().all(|x| x.is_data()), f)
}

/// An elementwise transform (`lower_bound`, ...) of a scalar or an array with its bounds:
/// `elementwise!(py, Constrain | Jacobian | Unconstrain, x, [bounds], <the six core functions:
/// scalar constrain, jacobian, unconstrain, then the array ones>, "stan_name")`.
macro_rules! elementwise {
    ($py:expr, Constrain, $x:expr, [$($b:ident),+], $c:path, $j:path, $u:path,
     $ca:path, $ja:path, $ua:path, $name:expr) => {
        elementwise!(@one $py, $x, [$($b),+], $c, $ca, $name)
    };
    ($py:expr, Unconstrain, $x:expr, [$($b:ident),+], $c:path, $j:path, $u:path,
     $ca:path, $ja:path, $ua:path, $name:expr) => {
        elementwise!(@one $py, $x, [$($b),+], $u, $ua, $name)
    };
    ($py:expr, Jacobian, $x:expr, [$($b:ident),+], $c:path, $j:path, $u:path,
     $ca:path, $ja:path, $ua:path, $name:expr) => {{
        const F: &str = $name;
        let ops = elementwise!(@read $x, [$($b),+], F);
        declare($py, F, ops, move |o: &[&X]| -> PyResult<(Res, Res)> {
            let [x, $($b),+] = o else { unreachable!("the operands of {}", F) };
            match x {
                X::S(x) => {
                    $(let $b = scalar_bound($b, F, stringify!($b))?;)+
                    if matches!(x, Arg::F(_)) $(&& matches!($b, Arg::F(_)))+ {
                        let (v, lj) = $j(x.value(), $($b.value()),+).map_err(to_py)?;
                        Ok((Res::S(Out::F(v)), Res::S(Out::F(lj))))
                    } else {
                        let (v, lj) = $j(var(*x), $(var($b)),+).map_err(to_py)?;
                        Ok((Res::S(Out::V(v)), Res::S(Out::V(lj))))
                    }
                }
                X::A(Ax::V(a)) => outcome_of(o, || $ja(a, $(limit_of($b)),+)),
                X::A(Ax::M(a)) => outcome_of(o, || $ja(a, $(limit_of($b)),+)),
            }
        })
    }};
    (@read $x:expr, [$($b:ident),+], $f:expr) => {
        record::declared(|| -> PyResult<Vec<X>> {
            Ok(vec![any_arg($x, $f, "x")?, $(any_arg($b, $f, stringify!($b))?),+])
        })?
    };
    (@one $py:expr, $x:expr, [$($b:ident),+], $scalar:path, $array:path, $name:expr) => {{
        const F: &str = $name;
        let ops = elementwise!(@read $x, [$($b),+], F);
        declare($py, F, ops, move |o: &[&X]| -> PyResult<Res> {
            let [x, $($b),+] = o else { unreachable!("the operands of {}", F) };
            match x {
                X::S(x) => {
                    $(let $b = scalar_bound($b, F, stringify!($b))?;)+
                    if matches!(x, Arg::F(_)) $(&& matches!($b, Arg::F(_)))+ {
                        Ok(Res::S(Out::F($scalar(x.value(), $($b.value()),+).map_err(to_py)?)))
                    } else {
                        Ok(Res::S(Out::V($scalar(var(*x), $(var($b)),+).map_err(to_py)?)))
                    }
                }
                X::A(Ax::V(a)) => outcome_of(o, || $array(a, $(limit_of($b)),+)),
                X::A(Ax::M(a)) => outcome_of(o, || $array(a, $(limit_of($b)),+)),
            }
        })
    }};
}

// ---------------------------------------------------------------------------------------------
// Bounds and affine maps: scalars, and arrays elementwise.

/// `lower_bound_constrain(x, lb)`: ``lb + exp(x)``, the value greater than ``lb`` of the free
/// ``x`` (Stan Math's ``lb_constrain``); ``x`` itself when ``lb = -inf``. ``x`` a float, a Var
/// or an array (elementwise, one node); ``lb`` a float, a Var or an array of ``x``'s shape.
///
/// Partials: ``∂/∂x = exp(x)``, ``∂/∂lb = 1``.
///
/// Raises ``SizeError`` for an array ``lb`` of another shape.
///
/// >>> import revad
/// >>> revad.lower_bound_constrain(0.0, 1.0)
/// 2.0
#[pyfunction]
fn lower_bound_constrain(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Constrain, x, [lb],
        t::lower_bound_constrain, t::lower_bound_jacobian, t::lower_bound_unconstrain,
        t::lower_bound_constrain_array, t::lower_bound_jacobian_array,
        t::lower_bound_unconstrain_array, "lb_constrain")
}

/// `lower_bound_jacobian(x, lb)`: ``(lower_bound_constrain(x, lb), log_jacobian)`` with the
/// log-Jacobian ``x`` (summed over an array; 0 where ``lb = -inf``), from one node. Add it to
/// the log density of the constrained value to get the density of the free one.
///
/// >>> import revad
/// >>> revad.lower_bound_jacobian(0.5, 1.0)[1]
/// 0.5
#[pyfunction]
fn lower_bound_jacobian(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Jacobian, x, [lb],
        t::lower_bound_constrain, t::lower_bound_jacobian, t::lower_bound_unconstrain,
        t::lower_bound_constrain_array, t::lower_bound_jacobian_array,
        t::lower_bound_unconstrain_array, "lb_constrain")
}

/// `lower_bound_unconstrain(y, lb)`: ``log(y − lb)``, the free value of ``y ≥ lb`` (Stan Math's
/// ``lb_free``; also ``lower_bound_free`` and ``lb_free`` here).
///
/// Partials: ``1/(y − lb)``, ``−1/(y − lb)``.
///
/// Raises ``DomainError`` if ``y < lb`` or is NaN ("lb_free: Lower bounded variable is -1, but
/// must be greater than or equal to 0"; ``[i]`` after the name for an array element).
#[pyfunction]
fn lower_bound_unconstrain(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Unconstrain, y, [lb],
        t::lower_bound_constrain, t::lower_bound_jacobian, t::lower_bound_unconstrain,
        t::lower_bound_constrain_array, t::lower_bound_jacobian_array,
        t::lower_bound_unconstrain_array, "lb_free")
}

/// `upper_bound_constrain(x, ub)`: ``ub − exp(x)``, the value less than ``ub`` of the free
/// ``x`` (Stan Math's ``ub_constrain``); ``x`` itself when ``ub = inf``. Arguments as
/// ``lower_bound_constrain``.
///
/// Partials: ``∂/∂x = −exp(x)``, ``∂/∂ub = 1``.
///
/// >>> import revad
/// >>> revad.upper_bound_constrain(0.0, 1.0)
/// 0.0
#[pyfunction]
fn upper_bound_constrain(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Constrain, x, [ub],
        t::upper_bound_constrain, t::upper_bound_jacobian, t::upper_bound_unconstrain,
        t::upper_bound_constrain_array, t::upper_bound_jacobian_array,
        t::upper_bound_unconstrain_array, "ub_constrain")
}

/// `upper_bound_jacobian(x, ub)`: ``(upper_bound_constrain(x, ub), log_jacobian)`` with the
/// log-Jacobian ``x`` (summed over an array), from one node.
#[pyfunction]
fn upper_bound_jacobian(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Jacobian, x, [ub],
        t::upper_bound_constrain, t::upper_bound_jacobian, t::upper_bound_unconstrain,
        t::upper_bound_constrain_array, t::upper_bound_jacobian_array,
        t::upper_bound_unconstrain_array, "ub_constrain")
}

/// `upper_bound_unconstrain(y, ub)`: ``log(ub − y)``, the free value of ``y ≤ ub`` (Stan
/// Math's ``ub_free``).
///
/// Partials: ``−1/(ub − y)``, ``1/(ub − y)``.
///
/// Raises ``DomainError`` if ``y > ub`` or is NaN ("ub_free: Upper bounded variable is 2, but
/// must be less than or equal to 1").
#[pyfunction]
fn upper_bound_unconstrain(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Unconstrain, y, [ub],
        t::upper_bound_constrain, t::upper_bound_jacobian, t::upper_bound_unconstrain,
        t::upper_bound_constrain_array, t::upper_bound_jacobian_array,
        t::upper_bound_unconstrain_array, "ub_free")
}

/// `lower_upper_bound_constrain(x, lb, ub)`: ``lb + (ub − lb)·inv_logit(x)``, the value in
/// ``(lb, ub)`` of the free ``x`` (Stan Math's ``lub_constrain``); with one infinite bound the
/// one-sided transform of the other, with both the identity. Each bound a float, a Var or an
/// array of ``x``'s shape.
///
/// Partials: ``∂/∂x = (ub − lb)σ(x)σ(−x)``, ``∂/∂lb = σ(−x)``, ``∂/∂ub = σ(x)``.
///
/// Raises ``DomainError`` if ``lb ≥ ub`` with both finite ("lub_constrain: lb is 3, but must
/// be less than 2").
///
/// >>> import revad
/// >>> revad.lower_upper_bound_constrain(0.0, -1.0, 3.0)
/// 1.0
#[pyfunction]
fn lower_upper_bound_constrain(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Constrain, x, [lb, ub],
        t::lower_upper_bound_constrain, t::lower_upper_bound_jacobian,
        t::lower_upper_bound_unconstrain, t::lower_upper_bound_constrain_array,
        t::lower_upper_bound_jacobian_array, t::lower_upper_bound_unconstrain_array,
        "lub_constrain")
}

/// `lower_upper_bound_jacobian(x, lb, ub)`: the value and its log-Jacobian
/// ``log(ub − lb) + log σ(x) + log σ(−x)`` (computed as ``log(ub − lb) − |x| −
/// 2 log1p(exp(−|x|))``, finite for every finite ``x``; summed over an array), from one node.
///
/// Partials of the log-Jacobian: ``1 − 2σ(x)``, ``∓1/(ub − lb)``.
#[pyfunction]
fn lower_upper_bound_jacobian(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Jacobian, x, [lb, ub],
        t::lower_upper_bound_constrain, t::lower_upper_bound_jacobian,
        t::lower_upper_bound_unconstrain, t::lower_upper_bound_constrain_array,
        t::lower_upper_bound_jacobian_array, t::lower_upper_bound_unconstrain_array,
        "lub_constrain")
}

/// `lower_upper_bound_unconstrain(y, lb, ub)`: ``log(y − lb) − log(ub − y)`` (the logit of
/// ``(y − lb)/(ub − lb)``, accurate next to either bound), the free value of ``lb ≤ y ≤ ub``
/// (Stan Math's ``lub_free``).
///
/// Partials: ``1/(y − lb) + 1/(ub − y)``, ``−1/(y − lb)``, ``−1/(ub − y)``.
///
/// Raises ``DomainError`` if ``y`` is outside ``[lb, ub]`` or NaN ("lub_free: Bounded variable
/// is 2, but must be in the interval [0, 1]").
#[pyfunction]
fn lower_upper_bound_unconstrain(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    lb: &Bound<'_, PyAny>,
    ub: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Unconstrain, y, [lb, ub],
        t::lower_upper_bound_constrain, t::lower_upper_bound_jacobian,
        t::lower_upper_bound_unconstrain, t::lower_upper_bound_constrain_array,
        t::lower_upper_bound_jacobian_array, t::lower_upper_bound_unconstrain_array,
        "lub_free")
}

/// `offset_multiplier_constrain(x, offset, multiplier)`: ``offset + multiplier·x``. Each a
/// float, a Var or an array of ``x``'s shape.
///
/// Partials: ``multiplier``, ``1``, ``x``.
///
/// Raises ``DomainError`` if the offset is not finite ("offset_multiplier_constrain: offset is
/// inf, but must be finite") or the multiplier not positive finite.
///
/// >>> import revad
/// >>> revad.offset_multiplier_constrain(0.5, 1.0, 2.0)
/// 2.0
#[pyfunction]
fn offset_multiplier_constrain(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    multiplier: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Constrain, x, [offset, multiplier],
        t::offset_multiplier_constrain, t::offset_multiplier_jacobian,
        t::offset_multiplier_unconstrain, t::offset_multiplier_constrain_array,
        t::offset_multiplier_jacobian_array, t::offset_multiplier_unconstrain_array,
        "offset_multiplier_constrain")
}

/// `offset_multiplier_jacobian(x, offset, multiplier)`: the value and its log-Jacobian
/// ``log(multiplier)`` per element (``n·log(multiplier)`` for a scalar multiplier and an
/// array of n elements), from one node.
#[pyfunction]
fn offset_multiplier_jacobian(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    multiplier: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Jacobian, x, [offset, multiplier],
        t::offset_multiplier_constrain, t::offset_multiplier_jacobian,
        t::offset_multiplier_unconstrain, t::offset_multiplier_constrain_array,
        t::offset_multiplier_jacobian_array, t::offset_multiplier_unconstrain_array,
        "offset_multiplier_constrain")
}

/// `offset_multiplier_unconstrain(y, offset, multiplier)`: ``(y − offset)/multiplier`` (Stan
/// Math's ``offset_multiplier_free``).
///
/// Raises ``DomainError`` as ``offset_multiplier_constrain``, under the name
/// ``offset_multiplier_free``.
#[pyfunction]
fn offset_multiplier_unconstrain(
    py: Python<'_>,
    y: &Bound<'_, PyAny>,
    offset: &Bound<'_, PyAny>,
    multiplier: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    elementwise!(py, Unconstrain, y, [offset, multiplier],
        t::offset_multiplier_constrain, t::offset_multiplier_jacobian,
        t::offset_multiplier_unconstrain, t::offset_multiplier_constrain_array,
        t::offset_multiplier_jacobian_array, t::offset_multiplier_unconstrain_array,
        "offset_multiplier_free")
}

// ---------------------------------------------------------------------------------------------
// Vectors.

/// A function of one vector argument.
macro_rules! vector_fn {
    ($(#[$doc:meta])* $name:ident($arg:ident) => $core:expr) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, $arg: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let $arg = record::declared(|| vector_arg($arg, F, stringify!($arg)))?;
            declare(py, F, vec![X::from($arg)], |o: &[&X]| {
                outcome_of(o, || $core(o[0].vector_ref()))
            })
        }
    };
}

vector_fn! {
    /// `ordered_constrain(y)`: the strictly increasing vector ``x₁ = y₁``,
    /// ``xᵢ = xᵢ₋₁ + exp(yᵢ)`` of the free 1-D ``y`` of the same size.
    ///
    /// >>> import revad
    /// >>> revad.ordered_constrain([1.0, 0.0, 0.0]).tolist()
    /// [1.0, 2.0, 3.0]
    ordered_constrain(y) => t::ordered_constrain
}

vector_fn! {
    /// `ordered_jacobian(y)`: ``(ordered_constrain(y), Σ_{i≥2} yᵢ)``, from one node.
    ordered_jacobian(y) => t::ordered_jacobian
}

vector_fn! {
    /// `ordered_unconstrain(x)`: ``y₁ = x₁``, ``yᵢ = log(xᵢ − xᵢ₋₁)`` (Stan Math's
    /// ``ordered_free``).
    ///
    /// Raises ``DomainError`` unless ``x`` is strictly increasing ("ordered_free: Ordered
    /// variable is not a valid ordered vector. The element at 2 is 1, but should be greater
    /// than the previous element, 3").
    ordered_unconstrain(x) => t::ordered_unconstrain
}

vector_fn! {
    /// `positive_ordered_constrain(y)`: ``x₁ = exp(y₁)``, ``xᵢ = xᵢ₋₁ + exp(yᵢ)``.
    positive_ordered_constrain(y) => t::positive_ordered_constrain
}

vector_fn! {
    /// `positive_ordered_jacobian(y)`: ``(positive_ordered_constrain(y), Σᵢ yᵢ)``, from one
    /// node.
    positive_ordered_jacobian(y) => t::positive_ordered_jacobian
}

vector_fn! {
    /// `positive_ordered_unconstrain(x)`: ``y₁ = log x₁``, ``yᵢ = log(xᵢ − xᵢ₋₁)``.
    ///
    /// Raises ``DomainError`` if ``x₁ < 0`` ("... is not a valid positive_ordered vector. The
    /// element at 1 is -1, but should be positive.") or ``x`` is not strictly increasing.
    positive_ordered_unconstrain(x) => t::positive_ordered_unconstrain
}

/// The simplex method argument.
fn stick_breaking(method: &str, function: &str) -> PyResult<bool> {
    match method {
        "ilr" => Ok(false),
        "stick_breaking" => Ok(true),
        m => Err(PyValueError::new_err(format!(
            "{function}: method must be \"ilr\" or \"stick_breaking\", not {m:?}"
        ))),
    }
}

/// `simplex_constrain(y, method="ilr")`: the simplex of size K (elements ≥ 0 that sum to 1)
/// of the free 1-D ``y`` of size K − 1. Stan 2.37's transform (``method="ilr"``):
/// ``softmax(V y)`` with ``V`` the isometric log ratio basis of ``sum_to_zero_constrain``;
/// ``method="stick_breaking"``: Stan's earlier centred stick-breaking transform.
///
/// Reverse pass (ILR): ``z̄ = x∘x̄ − x(xᵀx̄)``, ``ȳ += Vᵀz̄``.
///
/// >>> import revad
/// >>> revad.simplex_constrain([0.0, 0.0]).round(6).tolist()
/// [0.333333, 0.333333, 0.333333]
#[pyfunction]
#[pyo3(signature = (y, method = "ilr"))]
fn simplex_constrain(py: Python<'_>, y: &Bound<'_, PyAny>, method: &str) -> PyResult<Py<PyAny>> {
    const F: &str = "simplex_constrain";
    let stick = stick_breaking(method, F)?;
    let y = record::declared(|| vector_arg(y, F, "y"))?;
    if stick {
        declare(py, F, vec![X::from(y)], |o: &[&X]| {
            outcome_of(o, || t::stick_breaking_simplex_constrain(o[0].vector_ref()))
        })
    } else {
        declare(py, F, vec![X::from(y)], |o: &[&X]| {
            outcome_of(o, || t::simplex_constrain(o[0].vector_ref()))
        })
    }
}

/// `simplex_jacobian(y, method="ilr")`: ``(simplex_constrain(y), log_jacobian)`` from one
/// node; the log-Jacobian (of the map to the first K − 1 elements) is ``Σ log xₖ + ½ log K``
/// for the ILR transform, ``Σₖ [log sₖ + log zₖ + log(1 − zₖ)]`` (sticks ``sₖ``, breaks
/// ``zₖ``) for the stick-breaking one.
#[pyfunction]
#[pyo3(signature = (y, method = "ilr"))]
fn simplex_jacobian(py: Python<'_>, y: &Bound<'_, PyAny>, method: &str) -> PyResult<Py<PyAny>> {
    const F: &str = "simplex_jacobian";
    let stick = stick_breaking(method, F)?;
    let y = record::declared(|| vector_arg(y, F, "y"))?;
    if stick {
        declare(py, F, vec![X::from(y)], |o: &[&X]| {
            outcome_of(o, || t::stick_breaking_simplex_jacobian(o[0].vector_ref()))
        })
    } else {
        declare(py, F, vec![X::from(y)], |o: &[&X]| {
            outcome_of(o, || t::simplex_jacobian(o[0].vector_ref()))
        })
    }
}

/// `simplex_unconstrain(x, method="ilr")`: the free vector of the simplex ``x``: ``Vᵀ log x``
/// (ILR), or the stick-breaking transform's (Stan Math's ``simplex_free``).
///
/// Raises ``DomainError`` unless ``x`` is a simplex to 1e-8 ("simplex_free: Simplex variable is
/// not a valid simplex. sum(Simplex variable) = 0.9, but should be 1").
#[pyfunction]
#[pyo3(signature = (x, method = "ilr"))]
fn simplex_unconstrain(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    method: &str,
) -> PyResult<Py<PyAny>> {
    const F: &str = "simplex_unconstrain";
    let stick = stick_breaking(method, F)?;
    let x = record::declared(|| vector_arg(x, F, "x"))?;
    if stick {
        declare(py, F, vec![X::from(x)], |o: &[&X]| {
            outcome_of(o, || t::stick_breaking_simplex_unconstrain(o[0].vector_ref()))
        })
    } else {
        declare(py, F, vec![X::from(x)], |o: &[&X]| {
            outcome_of(o, || t::simplex_unconstrain(o[0].vector_ref()))
        })
    }
}

vector_fn! {
    /// `unit_vector_constrain(y)`: ``y/‖y‖`` of the free 1-D ``y`` of the same size.
    ///
    /// Raises ``DomainError`` for an empty ``y`` or a zero or infinite norm.
    ///
    /// >>> import revad
    /// >>> revad.unit_vector_constrain([3.0, 4.0]).tolist()
    /// [0.6, 0.8]
    unit_vector_constrain(y) => t::unit_vector_constrain
}

vector_fn! {
    /// `unit_vector_jacobian(y)`: ``(unit_vector_constrain(y), −½‖y‖²)``, from one node (Stan's
    /// term, the standard normal density of the radius, in place of a log-Jacobian).
    unit_vector_jacobian(y) => t::unit_vector_jacobian
}

vector_fn! {
    /// `unit_vector_unconstrain(x)`: ``x`` itself (the radius is fixed at 1).
    ///
    /// Raises ``DomainError`` unless ``‖x‖²`` is within 1e-8 of 1.
    unit_vector_unconstrain(x) => t::unit_vector_unconstrain
}

/// A zero-sum transform of a 1-D or 2-D argument.
macro_rules! sum_to_zero_fn {
    ($(#[$doc:meta])* $name:ident($arg:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, $arg: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let $arg = record::declared(|| array_arg($arg, F, stringify!($arg)))?;
            declare(py, F, vec![X::from($arg)], |o: &[&X]| match &o[0] {
                X::A(Ax::V(a)) => outcome_of(o, || $core(a)),
                X::A(Ax::M(a)) => outcome_of(o, || $core(a)),
                X::S(_) => unreachable!("an array operand"),
            })
        }
    };
}

sum_to_zero_fn! {
    /// `sum_to_zero_constrain(y)`: the zero-sum vector ``V y`` of size N + 1 of a free 1-D
    /// ``y`` of size N (``V`` the isometric log ratio basis: column n holds
    /// ``1/√(n(n+1))`` in rows 1…n and ``−n/√(n(n+1))`` in row n + 1), or the (N+1)×(M+1)
    /// matrix whose rows and columns all sum to zero of a free N×M matrix (Stan's basis
    /// ``P V`` on both sides, ``P`` moving the last element first).
    ///
    /// >>> import revad
    /// >>> revad.sum_to_zero_constrain([2.0 ** 0.5]).round(12).tolist()
    /// [1.0, -1.0]
    sum_to_zero_constrain(y) => t::sum_to_zero_constrain
}

sum_to_zero_fn! {
    /// `sum_to_zero_jacobian(y)`: ``(sum_to_zero_constrain(y), 0.0)`` (a linear isometry).
    sum_to_zero_jacobian(y) => t::sum_to_zero_jacobian
}

sum_to_zero_fn! {
    /// `sum_to_zero_unconstrain(x)`: ``Vᵀ x`` (the free matrix ``(PV)ᵀ x (PV)`` of a 2-D
    /// ``x``).
    ///
    /// Raises ``DomainError`` if ``x`` is empty or does not sum to zero within 1e-8 (for a
    /// matrix: in total, and each row and column) ("sum_to_zero_free: sum_to_zero variable
    /// does not sum to zero. sum(sum_to_zero variable) = 0.5, but should be 0").
    sum_to_zero_unconstrain(x) => t::sum_to_zero_unconstrain
}

// ---------------------------------------------------------------------------------------------
// Matrices.

/// A matrix transform of a free vector and its size(s).
macro_rules! matrix_fn {
    ($(#[$doc:meta])* $name:ident(y, $($k:ident),+) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, y: &Bound<'_, PyAny>, $($k: usize),+) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let y = record::declared(|| vector_arg(y, F, "y"))?;
            declare(py, F, vec![X::from(y)], move |o: &[&X]| {
                outcome_of(o, || $core(o[0].vector_ref(), $($k),+))
            })
        }
    };
    ($(#[$doc:meta])* $name:ident(x) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let x = record::declared(|| matrix_arg(x, F, "x"))?;
            if !record::recording() && matches!(x, Arr::D(_)) {
                // Data only: the GIL released for a large matrix.
                let n = x.value().nrows();
                return call!(py, n, [x] => $core(x));
            }
            declare(py, F, vec![X::from(x)], |o: &[&X]| {
                outcome_of(o, || $core(o[0].matrix_ref()))
            })
        }
    };
}

matrix_fn! {
    /// `cholesky_factor_corr_constrain(y, K)`: the K×K Cholesky factor of a correlation matrix
    /// (lower triangular, positive diagonal, unit rows) from K(K−1)/2 free values read row by
    /// row: ``Lᵢⱼ = tanh(yᵢⱼ)·√(1 − Σ_{j′<j} L²ᵢⱼ′)`` (Stan Math's ``cholesky_corr_constrain``).
    ///
    /// Raises ``SizeError`` unless ``y`` has K(K−1)/2 elements.
    cholesky_factor_corr_constrain(y, K) => t::cholesky_factor_corr_constrain
}

matrix_fn! {
    /// `cholesky_factor_corr_jacobian(y, K)`: the factor and its log-Jacobian
    /// ``Σᵢⱼ log(1 − tanh² yᵢⱼ)·(i − j + 2)/2`` (i, j from 1), from one node.
    cholesky_factor_corr_jacobian(y, K) => t::cholesky_factor_corr_jacobian
}

matrix_fn! {
    /// `cholesky_factor_corr_unconstrain(x)`: the K(K−1)/2 free values of a correlation
    /// matrix's Cholesky factor, ``yᵢⱼ = asinh(xᵢⱼ/√(Σ_{j′>j} x²ᵢⱼ′))`` (Stan Math's
    /// ``cholesky_corr_free``).
    ///
    /// Raises ``SizeError`` if ``x`` is not square, ``DomainError`` if it is not lower
    /// triangular, has a diagonal element ≤ 0 or a row not of unit length.
    cholesky_factor_corr_unconstrain(x) => t::cholesky_factor_corr_unconstrain
}

matrix_fn! {
    /// `cholesky_factor_cov_constrain(y, M, N)`: the M×N (M ≥ N) Cholesky factor of a
    /// covariance matrix from ``N(N+1)/2 + (M−N)N`` free values read row by row, the diagonal
    /// through ``exp`` (Stan Math's ``cholesky_factor_constrain``).
    ///
    /// Raises ``DomainError`` if M < N, ``SizeError`` for another number of free values.
    ///
    /// >>> import revad
    /// >>> revad.cholesky_factor_cov_constrain([0.0, 2.0, 0.0], 2, 2).tolist()
    /// [[1.0, 0.0], [2.0, 1.0]]
    cholesky_factor_cov_constrain(y, M, N) => t::cholesky_factor_cov_constrain
}

matrix_fn! {
    /// `cholesky_factor_cov_jacobian(y, M, N)`: the factor and its log-Jacobian (the sum of
    /// the diagonal's free values), from one node.
    cholesky_factor_cov_jacobian(y, M, N) => t::cholesky_factor_cov_jacobian
}

matrix_fn! {
    /// `cholesky_factor_cov_unconstrain(x)`: the free values of an M×N Cholesky factor, row by
    /// row, the logarithm of the diagonal (Stan Math's ``cholesky_factor_free``).
    ///
    /// Raises ``DomainError`` if ``x`` has more columns than rows, none, is not lower
    /// triangular or has a diagonal element ≤ 0.
    cholesky_factor_cov_unconstrain(x) => t::cholesky_factor_cov_unconstrain
}

matrix_fn! {
    /// `corr_matrix_constrain(y, K)`: the K×K correlation matrix ``L Lᵀ`` from K(K−1)/2 free
    /// values, ``L`` the correlation factor built from them read column by column (Stan's
    /// ``read_corr_L``).
    ///
    /// Raises ``SizeError`` unless ``y`` has K(K−1)/2 elements.
    ///
    /// >>> import math, revad
    /// >>> round(float(revad.corr_matrix_constrain([math.atanh(0.5)], 2)[0, 1]), 12)
    /// 0.5
    corr_matrix_constrain(y, K) => t::corr_matrix_constrain
}

matrix_fn! {
    /// `corr_matrix_jacobian(y, K)`: the matrix and its log-Jacobian (of the map to its
    /// strictly lower triangle) ``Σᵢⱼ log(1 − tanh² yᵢⱼ)·(K − j + 1)/2``, from one node.
    corr_matrix_jacobian(y, K) => t::corr_matrix_jacobian
}

matrix_fn! {
    /// `corr_matrix_unconstrain(x)`: the K(K−1)/2 free values of a correlation matrix, read
    /// from its Cholesky factor (computed once). Only the lower triangle of ``x`` gets an
    /// adjoint.
    ///
    /// Raises ``SizeError`` if ``x`` is not square, ``DomainError`` if it is empty, has a
    /// diagonal element farther than 1e-8 from 1, is not symmetric or not positive definite.
    corr_matrix_unconstrain(x) => t::corr_matrix_unconstrain
}

matrix_fn! {
    /// `cov_matrix_constrain(y, K)`: the K×K covariance matrix ``L Lᵀ`` from K + K(K−1)/2 free
    /// values, ``L`` lower triangular read row by row with ``exp`` on the diagonal.
    ///
    /// Raises ``SizeError`` for another number of free values.
    cov_matrix_constrain(y, K) => t::cov_matrix_constrain
}

matrix_fn! {
    /// `cov_matrix_jacobian(y, K)`: the matrix and its log-Jacobian
    /// ``K log 2 + Σₘ (K − m + 2)·yₘₘ`` (m from 1), from one node.
    cov_matrix_jacobian(y, K) => t::cov_matrix_jacobian
}

matrix_fn! {
    /// `cov_matrix_unconstrain(x)`: the free values of a covariance matrix: its Cholesky
    /// factor row by row, the logarithm of the diagonal. Only the lower triangle of ``x`` gets
    /// an adjoint.
    ///
    /// Raises ``SizeError`` if ``x`` is not square, ``DomainError`` if it is empty, has a
    /// diagonal element ≤ 0, is not symmetric or not positive definite.
    cov_matrix_unconstrain(x) => t::cov_matrix_unconstrain
}

/// A stochastic matrix transform of one matrix argument.
macro_rules! stochastic_fn {
    ($(#[$doc:meta])* $name:ident($arg:ident) => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        fn $name(py: Python<'_>, $arg: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let $arg = record::declared(|| matrix_arg($arg, F, stringify!($arg)))?;
            declare(py, F, vec![X::from($arg)], |o: &[&X]| {
                outcome_of(o, || $core(o[0].matrix_ref()))
            })
        }
    };
}

stochastic_fn! {
    /// `stochastic_column_constrain(y)`: the K×M column stochastic matrix (each column a
    /// simplex) of the free (K−1)×M ``y``, column by column as ``simplex_constrain``.
    stochastic_column_constrain(y) => t::stochastic_column_constrain
}

stochastic_fn! {
    /// `stochastic_column_jacobian(y)`: the matrix and the sum of its columns' log-Jacobians.
    stochastic_column_jacobian(y) => t::stochastic_column_jacobian
}

stochastic_fn! {
    /// `stochastic_column_unconstrain(x)`: the free (K−1)×M matrix of a column stochastic
    /// K×M ``x``.
    ///
    /// Raises ``DomainError`` unless each column is a simplex to 1e-8.
    stochastic_column_unconstrain(x) => t::stochastic_column_unconstrain
}

stochastic_fn! {
    /// `stochastic_row_constrain(y)`: the N×K row stochastic matrix (each row a simplex) of the
    /// free N×(K−1) ``y``.
    stochastic_row_constrain(y) => t::stochastic_row_constrain
}

stochastic_fn! {
    /// `stochastic_row_jacobian(y)`: the matrix and the sum of its rows' log-Jacobians.
    stochastic_row_jacobian(y) => t::stochastic_row_jacobian
}

stochastic_fn! {
    /// `stochastic_row_unconstrain(x)`: the free N×(K−1) matrix of a row stochastic N×K
    /// ``x``.
    ///
    /// Raises ``DomainError`` unless each row is a simplex to 1e-8.
    stochastic_row_unconstrain(x) => t::stochastic_row_unconstrain
}

// ---------------------------------------------------------------------------------------------
// The generic description.

/// The transforms by name, with the number of bounds each takes.
const NAMES: [(&str, usize); 17] = [
    ("identity", 0),
    ("lower_bound", 1),
    ("upper_bound", 1),
    ("lower_upper_bound", 2),
    ("offset_multiplier", 2),
    ("ordered", 0),
    ("positive_ordered", 0),
    ("simplex", 0),
    ("stick_breaking_simplex", 0),
    ("unit_vector", 0),
    ("sum_to_zero", 0),
    ("cholesky_factor_corr", 0),
    ("cholesky_factor_cov", 0),
    ("corr_matrix", 0),
    ("cov_matrix", 0),
    ("stochastic_column", 0),
    ("stochastic_row", 0),
];

/// A shape tuple: `()`, `(n,)` or `(r, c)`.
fn shape_of(shape: &[usize]) -> PyResult<Shape> {
    match *shape {
        [] => Ok(Shape::Scalar),
        [n] => Ok(Shape::Vector(n)),
        [r, c] => Ok(Shape::Matrix(r, c)),
        _ => Err(PyValueError::new_err(format!(
            "Transform: a shape has 0, 1 or 2 dimensions, not {}",
            shape.len()
        ))),
    }
}

/// A constrained value taken out of a nested scope.
pub enum ValueData {
    S(f64),
    V(Vector),
    M(Matrix),
}

impl IntoData for ValueData {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            ValueData::S(x) => x.into_data(py),
            ValueData::V(x) => x.into_data(py),
            ValueData::M(x) => x.into_data(py),
        }
    }
}

impl Output for Value {
    type Data = ValueData;
    fn data(self) -> ValueData {
        match self {
            Value::Scalar(x) => ValueData::S(x.value()),
            Value::Vector(x) => ValueData::V(x.value().clone()),
            Value::Matrix(x) => ValueData::M(x.value().clone()),
        }
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.into_res().into_py(py)
    }
}

impl IntoRes for Value {
    fn into_res(self) -> Res {
        match self {
            Value::Scalar(x) => Res::S(Out::V(x)),
            Value::Vector(x) => Res::V(Arr::V(x)),
            Value::Matrix(x) => Res::M(Arr::V(x)),
        }
    }
    fn data_res(data: ValueData) -> Res {
        match data {
            ValueData::S(x) => Res::S(Out::F(x)),
            ValueData::V(x) => Res::V(Arr::D(x)),
            ValueData::M(x) => Res::M(Arr::D(x)),
        }
    }
}

/// `Transform(name, *bounds)`: one of Stan's constraining transforms, described for generic
/// code (a model's parameters): ``name`` is ``"identity"``, ``"lower_bound"`` (one bound),
/// ``"upper_bound"`` (one), ``"lower_upper_bound"`` (two), ``"offset_multiplier"`` (two),
/// ``"ordered"``, ``"positive_ordered"``, ``"simplex"``, ``"stick_breaking_simplex"``,
/// ``"unit_vector"``, ``"sum_to_zero"`` (a vector or a matrix), ``"cholesky_factor_corr"``,
/// ``"cholesky_factor_cov"``, ``"corr_matrix"``, ``"cov_matrix"``, ``"stochastic_column"`` or
/// ``"stochastic_row"``; each bound (offset, multiplier) a float, a Var or an array of the
/// value's shape.
///
/// A shape is the constrained value's: ``()``, ``(n,)`` or ``(rows, cols)``; sizes such as a
/// simplex's K come from it. ``free_size(shape)`` is the number of free values (a simplex of
/// K: K − 1; a correlation matrix K×K: K(K − 1)/2; a covariance matrix: K + K(K − 1)/2; ...).
/// Free values follow Stan's order: the ``_unconstrain`` functions' order for vector-valued
/// free forms, column-major for matrix-valued ones (an elementwise transform of a matrix,
/// stochastic matrices, a zero-sum matrix), as BridgeStan's unconstrained vector.
///
/// >>> import revad
/// >>> t = revad.Transform("simplex")
/// >>> t.free_size((4,))
/// 3
/// >>> free = t.unconstrain([0.1, 0.2, 0.3, 0.4])
/// >>> t.constrain(free, (4,)).round(12).tolist()
/// [0.1, 0.2, 0.3, 0.4]
#[pyclass(frozen, name = "Transform", module = "revad")]
struct PyTransform {
    name: &'static str,
    bounds: Vec<Py<PyAny>>,
}

/// The core description of transform `name` with its bounds.
fn transform(name: &str, limits: impl IntoIterator<Item = Limit>) -> Transform {
    let mut it = limits.into_iter();
    let mut next = || it.next().expect("counted bounds");
    match name {
        "identity" => Transform::Identity,
        "lower_bound" => Transform::LowerBound(next()),
        "upper_bound" => Transform::UpperBound(next()),
        "lower_upper_bound" => {
            let l = next();
            Transform::LowerUpperBound(l, next())
        }
        "offset_multiplier" => {
            let m = next();
            Transform::OffsetMultiplier(m, next())
        }
        "ordered" => Transform::Ordered,
        "positive_ordered" => Transform::PositiveOrdered,
        "simplex" => Transform::Simplex,
        "stick_breaking_simplex" => Transform::StickBreakingSimplex,
        "unit_vector" => Transform::UnitVector,
        "sum_to_zero" => Transform::SumToZero,
        "cholesky_factor_corr" => Transform::CholeskyFactorCorr,
        "cholesky_factor_cov" => Transform::CholeskyFactorCov,
        "corr_matrix" => Transform::CorrMatrix,
        "cov_matrix" => Transform::CovMatrix,
        "stochastic_column" => Transform::StochasticColumn,
        _ => Transform::StochasticRow,
    }
}

impl PyTransform {
    /// The bounds (offset, multiplier) as operands, read now.
    fn bounds(&self, py: Python<'_>) -> PyResult<Vec<X>> {
        self.bounds
            .iter()
            .zip(["first bound", "second bound"])
            .map(|(b, name)| any_arg(b.bind(py), "Transform", name))
            .collect()
    }

    /// The core description, with the bounds read now.
    fn core(&self, py: Python<'_>) -> PyResult<Transform> {
        Ok(transform(self.name, self.bounds(py)?.iter().map(limit_of)))
    }

    /// `constrain` (`jacobian` false) or `constrain_jacobian`, declared for replay: the free
    /// vector and the bounds are operands.
    fn run(
        &self,
        py: Python<'_>,
        free: &Bound<'_, PyAny>,
        shape: Vec<usize>,
        offset: usize,
        jacobian: bool,
    ) -> PyResult<Py<PyAny>> {
        let name = self.name;
        let mut ops = record::declared(|| self.bounds(py))?;
        let shape = shape_of(&shape)?;
        let free = record::declared(|| vector_arg(free, "Transform", "free"))?;
        ops.insert(0, X::from(free));
        if jacobian {
            declare(py, "Transform.constrain_jacobian", ops, move |o: &[&X]| {
                let t = transform(name, o[1..].iter().map(|x| limit_of(x)));
                outcome_of(o, || t.constrain_jacobian(o[0].vector_ref(), offset, shape))
            })
        } else {
            declare(py, "Transform.constrain", ops, move |o: &[&X]| {
                let t = transform(name, o[1..].iter().map(|x| limit_of(x)));
                outcome_of(o, || t.constrain(o[0].vector_ref(), offset, shape))
            })
        }
    }
}

#[pymethods]
impl PyTransform {
    #[new]
    #[pyo3(signature = (name, *bounds))]
    fn new(name: &str, bounds: Vec<Py<PyAny>>) -> PyResult<PyTransform> {
        let Some(&(name, count)) = NAMES.iter().find(|(n, _)| *n == name) else {
            let known: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
            return Err(PyValueError::new_err(format!(
                "Transform: unknown transform {name:?}; one of {}",
                known.join(", ")
            )));
        };
        if bounds.len() != count {
            return Err(PyTypeError::new_err(format!(
                "Transform: {name} takes {count} bound(s), not {}",
                bounds.len()
            )));
        }
        Ok(PyTransform { name, bounds })
    }

    /// The transform's name (``"simplex"``, ...).
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The number of free values of a constrained value of ``shape`` (``()``, ``(n,)`` or
    /// ``(rows, cols)``).
    ///
    /// Raises ``DomainError`` for a shape the transform does not take ("simplex: the
    /// constrained value must be a vector of size 1 or more, not a 2×3 matrix").
    fn free_size(&self, py: Python<'_>, shape: Vec<usize>) -> PyResult<usize> {
        // The size depends on the bounds' shapes, not on their values.
        let t = record::declared(|| self.core(py))?;
        t.free_size(shape_of(&shape)?).map_err(to_py)
    }

    /// The constrained value of ``shape`` whose free values are ``free[offset:offset + n]``
    /// (``n = free_size(shape)``; ``free`` 1-D: a NumPy array, a list, a ``revad.Data`` or an
    /// array Var, whose other elements get no adjoint), without the log-Jacobian. One node.
    ///
    /// Raises ``SizeError`` if ``free`` is too short, and the transform's errors.
    #[pyo3(signature = (free, shape, offset = 0))]
    fn constrain(
        &self,
        py: Python<'_>,
        free: &Bound<'_, PyAny>,
        shape: Vec<usize>,
        offset: usize,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, free, shape, offset, false)
    }

    /// ``(constrain(free, shape, offset), log_jacobian)``, from one node.
    #[pyo3(signature = (free, shape, offset = 0))]
    fn constrain_jacobian(
        &self,
        py: Python<'_>,
        free: &Bound<'_, PyAny>,
        shape: Vec<usize>,
        offset: usize,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, free, shape, offset, true)
    }

    /// The free values (a 1-D NumPy array, Stan's order) of the constrained ``value`` (a
    /// float or an array of the constrained shape; a Var's value is read, nothing is
    /// recorded). With ``shape`` given, a 1-D ``value`` may also hold a matrix's elements in
    /// Stan's column-major order.
    ///
    /// Raises ``DomainError`` with the ``_unconstrain`` function's message if ``value`` is
    /// not in the constrained set.
    #[pyo3(signature = (value, shape = None))]
    fn unconstrain(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        shape: Option<Vec<usize>>,
    ) -> PyResult<Py<PyAny>> {
        const F: &str = "Transform.unconstrain";
        let t = self.core(py)?;
        let value = any_arg(value, F, "value")?;
        // The free values are data computed from `value`'s values: a recording cannot follow
        // them (a Var read here has already ended it; so does a data input).
        record::on_data_leak(&value);
        let (values, own) = match value {
            X::S(a) => (vec![a.value()], Shape::Scalar),
            X::A(Ax::V(v)) => {
                let v = v.value().to_vec();
                let n = v.len();
                (v, Shape::Vector(n))
            }
            X::A(Ax::M(m)) => {
                let m = m.value();
                let (r, c) = m.dim();
                (m.t().iter().copied().collect(), Shape::Matrix(r, c))
            }
        };
        let shape = match shape {
            None => own,
            Some(s) => {
                let s = shape_of(&s)?;
                let one_d = matches!(own, Shape::Vector(_));
                if s != own && !(one_d && s.len() == values.len()) {
                    return Err(size_error(format!(
                        "{F}: value of shape {own:?} does not fit shape {s:?}"
                    )));
                }
                s
            }
        };
        let free = t.unconstrain(&values, shape).map_err(to_py)?;
        Vector::from(free).into_data(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = vec![format!("{:?}", self.name)];
        for b in &self.bounds {
            parts.push(b.bind(py).repr()?.to_string());
        }
        Ok(format!("revad.Transform({})", parts.join(", ")))
    }
}

/// The functions, in order, then Stan Math's names as aliases.
const ALIASES: [(&str, &str); 25] = [
    ("lb_constrain", "lower_bound_constrain"),
    ("lb_free", "lower_bound_unconstrain"),
    ("lower_bound_free", "lower_bound_unconstrain"),
    ("ub_constrain", "upper_bound_constrain"),
    ("ub_free", "upper_bound_unconstrain"),
    ("upper_bound_free", "upper_bound_unconstrain"),
    ("lub_constrain", "lower_upper_bound_constrain"),
    ("lub_free", "lower_upper_bound_unconstrain"),
    ("lower_upper_bound_free", "lower_upper_bound_unconstrain"),
    ("offset_multiplier_free", "offset_multiplier_unconstrain"),
    ("ordered_free", "ordered_unconstrain"),
    ("positive_ordered_free", "positive_ordered_unconstrain"),
    ("simplex_free", "simplex_unconstrain"),
    ("unit_vector_free", "unit_vector_unconstrain"),
    ("sum_to_zero_free", "sum_to_zero_unconstrain"),
    ("cholesky_corr_constrain", "cholesky_factor_corr_constrain"),
    ("cholesky_corr_free", "cholesky_factor_corr_unconstrain"),
    ("cholesky_factor_corr_free", "cholesky_factor_corr_unconstrain"),
    ("cholesky_factor_constrain", "cholesky_factor_cov_constrain"),
    ("cholesky_factor_free", "cholesky_factor_cov_unconstrain"),
    ("cholesky_factor_cov_free", "cholesky_factor_cov_unconstrain"),
    ("corr_matrix_free", "corr_matrix_unconstrain"),
    ("cov_matrix_free", "cov_matrix_unconstrain"),
    ("stochastic_column_free", "stochastic_column_unconstrain"),
    ("stochastic_row_free", "stochastic_row_unconstrain"),
];

mod table {
    use super::*;
    use crate::family::family;

    family! {
        functions: [
            lower_bound_constrain,
            lower_bound_jacobian,
            lower_bound_unconstrain,
            upper_bound_constrain,
            upper_bound_jacobian,
            upper_bound_unconstrain,
            lower_upper_bound_constrain,
            lower_upper_bound_jacobian,
            lower_upper_bound_unconstrain,
            offset_multiplier_constrain,
            offset_multiplier_jacobian,
            offset_multiplier_unconstrain,
            ordered_constrain,
            ordered_jacobian,
            ordered_unconstrain,
            positive_ordered_constrain,
            positive_ordered_jacobian,
            positive_ordered_unconstrain,
            simplex_constrain,
            simplex_jacobian,
            simplex_unconstrain,
            unit_vector_constrain,
            unit_vector_jacobian,
            unit_vector_unconstrain,
            sum_to_zero_constrain,
            sum_to_zero_jacobian,
            sum_to_zero_unconstrain,
            cholesky_factor_corr_constrain,
            cholesky_factor_corr_jacobian,
            cholesky_factor_corr_unconstrain,
            cholesky_factor_cov_constrain,
            cholesky_factor_cov_jacobian,
            cholesky_factor_cov_unconstrain,
            corr_matrix_constrain,
            corr_matrix_jacobian,
            corr_matrix_unconstrain,
            cov_matrix_constrain,
            cov_matrix_jacobian,
            cov_matrix_unconstrain,
            stochastic_column_constrain,
            stochastic_column_jacobian,
            stochastic_column_unconstrain,
            stochastic_row_constrain,
            stochastic_row_jacobian,
            stochastic_row_unconstrain,
        ],
        classes: [PyTransform],
    }
}

/// Adds this family's functions, the `Transform` class and the aliases to the module.
pub fn register(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    table::register(m)?;
    for (alias, name) in ALIASES {
        m.add(alias, m.getattr(name)?)?;
    }
    Ok(())
}
