//! Every scalar function of the core under its Stan name. Each accepts floats or Vars and
//! returns a float when all its real arguments are floats, a Var otherwise.

#![allow(non_snake_case)]

use pyo3::prelude::*;
use pyo3::types::{PyAny, PyFloat};
use revad::matrix::Reduction;
use revad::Var;

use crate::args::{arr1, binop, finish, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{arg, try_array, type_name, x_arg};
use crate::errors::to_py;
use crate::family::family;
use crate::handle::PyVar;
use crate::ops::{broadcast_binary, elementwise, shape_of, Op};
use crate::record::{self, Form, Sc};
use revad::program::scalar::{ArrayInstr, ArrayMap, Elementary, Instr};
use crate::shape::{read_axes, reduce, shape_arg};

/// The argument of a unary function: a float, a Var (checked once, scalar or array) or a NumPy
/// array; otherwise the `TypeError` of [`arg`].
fn unary_arg(x: &Bound<'_, PyAny>, function: &'static str) -> PyResult<X> {
    if let Ok(v) = x.cast::<PyFloat>() {
        return Ok(X::S(Arg::F(v.value())));
    }
    if let Ok(v) = x.cast::<PyVar>() {
        return v.get().x(function);
    }
    if let Some(a) = try_array(x, function)? {
        return Ok(X::A(a));
    }
    Ok(X::S(arg(x, function, "x")?))
}

/// `f(x)` for a float or a Var; elementwise (one node) for an array Var or a NumPy array.
macro_rules! unary {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[doc = ""]
        #[doc = "For an array Var or a NumPy array: elementwise, as one node."]
        #[pyfunction]
        fn $name(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            let a = record::declared(|| unary_arg(x, stringify!($name)))?;
            record::apply_form(stringify!($name), &[a], |x| Ok(match &x[0] {
                X::S(Arg::F(x)) => Res::S(Out::F(revad::$name(*x))),
                X::S(Arg::V(v)) => Res::S(Out::V(revad::$name(*v))),
                X::A(Ax::V(Arr::V(v))) => Res::V(Arr::V(revad::matrix::$name(v))),
                X::A(Ax::M(Arr::V(v))) => Res::M(Arr::V(revad::matrix::$name(v))),
                X::A(Ax::V(Arr::D(d))) => {
                    Res::V(Arr::D(d.mapv(revad::$name::<f64>).into_shared()))
                }
                X::A(Ax::M(Arr::D(d))) => {
                    Res::M(Arr::D(d.mapv(revad::$name::<f64>).into_shared()))
                }
            }), |x| match (x[0], Elementary::named(stringify!($name))) {
                (Sc::Slot(a), Some(f)) => Some(Form::Instr(Instr::Unary(a, f))),
                // An array Var: `revad::matrix::$name`'s node.
                (a @ Sc::Range(..), _) => Some(Form::Array(ArrayInstr::Map(
                    ArrayMap::named(stringify!($name))?,
                    a.arg()?,
                ))),
                _ => None,
            })?
            .into_py(py)
        }
    )*};
}

/// `f(x)` for a float or a Var, with a domain check; elementwise for arrays.
macro_rules! unary_checked {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[doc = ""]
        #[doc = "For an array Var or a NumPy array: elementwise, as one node."]
        #[pyfunction]
        fn $name(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            let a = record::declared(|| unary_arg(x, stringify!($name)))?;
            record::apply(stringify!($name), &[a], |x| Ok(match x[0].clone() {
                X::S(Arg::F(x)) => Res::S(Out::F(revad::$name(x).map_err(to_py)?)),
                X::S(Arg::V(v)) => Res::S(Out::V(revad::$name(v).map_err(to_py)?)),
                X::A(Ax::V(a)) => {
                    let (r, d) = arr1!(a, |x| revad::matrix::$name(x));
                    Res::V(finish(r.map_err(to_py)?, d))
                }
                X::A(Ax::M(a)) => {
                    let (r, d) = arr1!(a, |x| revad::matrix::$name(x));
                    Res::M(finish(r.map_err(to_py)?, d))
                }
            }))?
            .into_py(py)
        }
    )*};
}

/// `f(a, b)` for any mix of floats and Vars; a row with `=> Op` also takes arrays (array Vars,
/// NumPy arrays) with NumPy's broadcasting, as one node of `matrix::broadcast_elementwise`.
macro_rules! binary {
    ($($name:ident($a:ident, $b:ident) $(=> $op:ident)?: $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        $(
        #[doc = ""]
        #[doc = concat!(
            "With an array argument (an array Var or a NumPy array): elementwise with NumPy ",
            "broadcasting, one node (`BinaryOp::", stringify!($op), "`)."
        )]
        )?
        #[pyfunction]
        fn $name(py: Python<'_>, $a: &Bound<'_, PyAny>, $b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            $(
            let (x, y) = record::declared(|| -> PyResult<(X, X)> {
                Ok((
                    x_arg($a, stringify!($name), stringify!($a))?,
                    x_arg($b, stringify!($name), stringify!($b))?,
                ))
            })?;
            return record::apply(stringify!($name), &[x, y], |x| match x {
                [X::S(a), X::S(b)] => Ok(Res::S(binop!(*a, *b, revad::$name))),
                [x, y] => broadcast_binary(
                    revad::matrix::BinaryOp::$op,
                    (*x).clone(),
                    (*y).clone(),
                ),
                _ => unreachable!("two operands"),
            })?
            .into_py(py);
            #[allow(unreachable_code)]
            )?
            {
                let (a, b) = record::declared(|| -> PyResult<(Arg, Arg)> {
                    Ok((
                        arg($a, stringify!($name), stringify!($a))?,
                        arg($b, stringify!($name), stringify!($b))?,
                    ))
                })?;
                record::apply(stringify!($name), &[X::S(a), X::S(b)], |x| match x {
                    [X::S(a), X::S(b)] => Ok(Res::S(binop!(*a, *b, revad::$name))),
                    _ => unreachable!("two scalars"),
                })?
                .into_py(py)
            }
        }
    )*};
}

/// `f(a, b)` for any mix of floats and Vars, with a domain check.
macro_rules! binary_checked {
    ($($name:ident($a:ident, $b:ident): $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[pyfunction]
        fn $name(py: Python<'_>, $a: &Bound<'_, PyAny>, $b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            let (a, b) = record::declared(|| -> PyResult<(Arg, Arg)> {
                Ok((
                    arg($a, stringify!($name), stringify!($a))?,
                    arg($b, stringify!($name), stringify!($b))?,
                ))
            })?;
            record::apply(stringify!($name), &[X::S(a), X::S(b)], |x| {
                let [X::S(a), X::S(b)] = x else { unreachable!("two scalars") };
                Ok(Res::S(match (*a, *b) {
                    (Arg::F(a), Arg::F(b)) => Out::F(revad::$name(a, b).map_err(to_py)?),
                    (Arg::F(a), Arg::V(b)) => Out::V(revad::$name(a, b).map_err(to_py)?),
                    (Arg::V(a), Arg::F(b)) => Out::V(revad::$name(a, b).map_err(to_py)?),
                    (Arg::V(a), Arg::V(b)) => Out::V(revad::$name(a, b).map_err(to_py)?),
                }))
            })?
            .into_py(py)
        }
    )*};
}

/// `f(n, x)` with an integer first argument and a checked result.
macro_rules! int_first {
    ($($name:ident($n:ident, $x:ident): $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[pyfunction]
        fn $name(py: Python<'_>, $n: i32, $x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
            let a = record::declared(|| arg($x, stringify!($name), stringify!($x)))?;
            record::apply(stringify!($name), &[X::S(a)], move |x| {
                let [X::S(a)] = x else { unreachable!("one scalar") };
                Ok(Res::S(match *a {
                    Arg::F(x) => Out::F(revad::$name($n, x).map_err(to_py)?),
                    Arg::V(v) => Out::V(revad::$name($n, v).map_err(to_py)?),
                }))
            })?
            .into_py(py)
        }
    )*};
}

/// `f(x, n)` with an integer second argument and a checked result.
macro_rules! int_second {
    ($($name:ident($x:ident, $n:ident): $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[pyfunction]
        fn $name(py: Python<'_>, $x: &Bound<'_, PyAny>, $n: i32) -> PyResult<Py<PyAny>> {
            let a = record::declared(|| arg($x, stringify!($name), stringify!($x)))?;
            record::apply(stringify!($name), &[X::S(a)], move |x| {
                let [X::S(a)] = x else { unreachable!("one scalar") };
                Ok(Res::S(match *a {
                    Arg::F(x) => Out::F(revad::$name(x, $n).map_err(to_py)?),
                    Arg::V(v) => Out::V(revad::$name(v, $n).map_err(to_py)?),
                }))
            })?
            .into_py(py)
        }
    )*};
}

/// `f(x) -> bool/int` by value.
macro_rules! predicate {
    ($($name:ident -> $ty:ty: $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[pyfunction]
        fn $name(x: &Bound<'_, PyAny>) -> PyResult<$ty> {
            Ok(revad::$name(arg(x, stringify!($name), "x")?.value()))
        }
    )*};
}

/// `f(a, b) -> bool` by value.
macro_rules! logical2 {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = $doc]
        #[pyfunction]
        fn $name(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
            let a = arg(a, stringify!($name), "a")?.value();
            let b = arg(b, stringify!($name), "b")?.value();
            Ok(revad::$name(a, b))
        }
    )*};
}

unary! {
    exp: "eˣ; d/dx = eˣ.",
    exp2: "2ˣ; d/dx = 2ˣ·ln 2.",
    expm1: "eˣ − 1, accurate near 0; d/dx = eˣ.",
    log: "Natural logarithm (NaN for x < 0); d/dx = 1/x.",
    log2: "Base-2 logarithm; d/dx = 1/(x ln 2).",
    log10: "Base-10 logarithm; d/dx = 1/(x ln 10).",
    log1p: "log(1 + x), accurate near 0; d/dx = 1/(1 + x).",
    sqrt: "√x; d/dx = 1/(2√x).",
    cbrt: "∛x; d/dx = 1/(3∛x²).",
    square: "x²; d/dx = 2x.",
    inv: "1/x; d/dx = −1/x².",
    inv_sqrt: "1/√x; d/dx = −1/(2x√x).",
    inv_square: "1/x²; d/dx = −2/x³.",
    sin: "sin x; d/dx = cos x.",
    cos: "cos x; d/dx = −sin x.",
    tan: "tan x; d/dx = 1 + tan² x.",
    asin: "arcsin x; d/dx = 1/√(1 − x²).",
    acos: "arccos x; d/dx = −1/√(1 − x²).",
    atan: "arctan x; d/dx = 1/(1 + x²).",
    sinh: "sinh x; d/dx = cosh x.",
    cosh: "cosh x; d/dx = sinh x.",
    tanh: "tanh x; d/dx = 1 − tanh² x.",
    asinh: "arsinh x; d/dx = 1/√(x² + 1).",
    acosh: "arcosh x (NaN for x < 1); d/dx = 1/√(x² − 1).",
    atanh: "artanh x (NaN for |x| > 1); d/dx = 1/(1 − x²).",
    fabs: "|x|; d/dx = sign(x), 0 at 0.",
    abs: "|x|; d/dx = sign(x), 0 at 0.",
    floor: "⌊x⌋; derivative 0.",
    ceil: "⌈x⌉; derivative 0.",
    round: "x rounded half away from zero; derivative 0.",
    trunc: "x rounded toward zero; derivative 0.",
    erf: "The error function; d/dx = 2/√π·e^(−x²).",
    erfc: "1 − erf(x), accurate in the upper tail; d/dx = −2/√π·e^(−x²).",
    Phi_approx: "Logistic approximation of Φ: inv_logit(0.07056x³ + 1.5976x).",
    lgamma: "log |Γ(x)|; d/dx = ψ(x).",
    digamma: "ψ(x) = Γ′(x)/Γ(x); d/dx = ψ′(x).",
    trigamma: "ψ′(x); d/dx = ψ″(x).",
    log1p_exp: "log(1 + eˣ); d/dx = inv_logit(x).",
    log1m_exp: "log(1 − eˣ) for x < 0; d/dx = −1/expm1(−x).",
    logit: "log(u/(1 − u)); d/du = 1/(u(1 − u)).",
    inv_logit: "1/(1 + e⁻ˣ); d/dx = v(1 − v).",
    log_inv_logit: "log inv_logit(x); d/dx = 1 − inv_logit(x).",
    log1m_inv_logit: "log(1 − inv_logit(x)); d/dx = −inv_logit(x).",
    inv_cloglog: "1 − exp(−eˣ); d/dx = exp(x − eˣ).",
    step: "0 if x < 0 else 1 (Stan's step); derivative 0.",
}

unary_checked! {
    Phi: "Standard normal CDF Φ(x); d/dx = φ(x). NaN raises DomainError.",
    inv_Phi: "Standard normal quantile Φ⁻¹(p) for p in [0, 1]; d/dp = 1/φ(Φ⁻¹(p)).",
    tgamma: "Γ(x); d/dx = Γ(x)ψ(x). Zero and negative integers raise DomainError.",
    log1m: "log(1 − x) for x ≤ 1; d/dx = −1/(1 − x).",
}

binary! {
    hypot(x, y) => Hypot: "√(x² + y²); ∂x = x/h, ∂y = y/h.",
    atan2(y, x) => Atan2: "The angle of (x, y); ∂y = x/(x² + y²), ∂x = −y/(x² + y²).",
    fdim(x, y) => Fdim: "max(x − y, 0); ∂x = 1, ∂y = −1 where x > y.",
    fmax(x, y) => Fmax: "The larger argument (the other one if one is NaN).",
    fmin(x, y) => Fmin: "The smaller argument (the other one if one is NaN).",
    fmod(x, y) => Fmod: "x − trunc(x/y)·y; ∂x = 1, ∂y = −trunc(x/y).",
    owens_t(h, a): "Owen's T function T(h, a).",
    log_diff_exp(x, y) => LogDiffExp: "log(eˣ − eʸ); NaN for x < y.",
    multiply_log(a, b) => MultiplyLog: "a·log b, with 0·log 0 = 0.",
    lmultiply(a, b) => MultiplyLog: "a·log b, with 0·log 0 = 0 (Stan's newer name of multiply_log).",
}

binary_checked! {
    lbeta(a, b): "log B(a, b) = lgamma(a) + lgamma(b) − lgamma(a + b); ∂a = ψ(a) − ψ(a + b).",
    binomial_coefficient_log(n, k): "log of the binomial coefficient (n choose k) for real n, k.",
    log_falling_factorial(x, n): "log(Γ(x + 1)/Γ(x − n + 1)).",
    log_rising_factorial(x, n): "log(Γ(x + n)/Γ(x)).",
    gamma_p(a, z): "Regularised lower incomplete gamma P(a, z), a > 0, z ≥ 0.",
    gamma_q(a, z): "Regularised upper incomplete gamma Q(a, z) = 1 − P(a, z).",
}

int_first! {
    bessel_first_kind(v, x): "Bessel function of the first kind Jᵥ(x), integer order v.",
    bessel_second_kind(v, x): "Bessel function of the second kind Yᵥ(x), x > 0.",
    modified_bessel_first_kind(v, z): "Modified Bessel function of the first kind Iᵥ(z).",
    modified_bessel_second_kind(v, z): "Modified Bessel function of the second kind Kᵥ(z), z > 0.",
    lmgamma(k, x): "Log of the multivariate gamma function of dimension k.",
    binary_log_loss(y, y_hat): "−log(ŷ) if y = 1 else −log(1 − ŷ).",
}

int_second! {
    falling_factorial(x, n): "(x)ₙ = Γ(x + 1)/Γ(x − n + 1) for an integer n ≥ 0.",
    rising_factorial(x, n): "x⁽ⁿ⁾ = Γ(x + n)/Γ(x) for an integer n ≥ 0.",
}

predicate! {
    int_step -> i32: "1 if x > 0 else 0 (also 0 for NaN).",
    is_inf -> bool: "Whether x is ±∞.",
    is_nan -> bool: "Whether x is NaN.",
    logical_negation -> bool: "Whether x == 0 (Stan's !x).",
}

logical2! {
    logical_or: "a ≠ 0 or b ≠ 0.",
    logical_and: "a ≠ 0 and b ≠ 0.",
    logical_eq: "a == b by value.",
    logical_neq: "a != b by value.",
    logical_lt: "a < b by value.",
    logical_lte: "a <= b by value.",
    logical_gt: "a > b by value.",
    logical_gte: "a >= b by value.",
}

/// `pow(x, y)`: xʸ; ∂x = y·x^(y−1), ∂y = xʸ·ln x (0 at x = 0).
///
/// With an array argument (an array Var or a NumPy array): elementwise with NumPy broadcasting,
/// as ``x ** y``, one node.
#[pyfunction]
fn pow(py: Python<'_>, x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let (a, b) = record::declared(|| -> PyResult<(X, X)> {
        Ok((x_arg(x, "pow", "x")?, x_arg(y, "pow", "y")?))
    })?;
    record::apply("pow", &[a, b], |x| match x {
        [X::S(a), X::S(b)] => Ok(Res::S(binop!(*a, *b, revad::pow))),
        [a, b] => elementwise(Op::Pow, (*a).clone(), (*b).clone()),
        _ => unreachable!("two operands"),
    })?
    .into_py(py)
}

/// Three real arguments, read as declared for replay.
fn three_args(
    function: &'static str,
    names: [&str; 3],
    objs: [&Bound<'_, PyAny>; 3],
) -> PyResult<[X; 3]> {
    record::declared(|| {
        Ok([
            X::S(arg(objs[0], function, names[0])?),
            X::S(arg(objs[1], function, names[1])?),
            X::S(arg(objs[2], function, names[2])?),
        ])
    })
}

/// The three scalars of [`three_args`].
fn scalars3(x: &[&X]) -> (Arg, Arg, Arg) {
    match x {
        [X::S(a), X::S(b), X::S(c)] => (*a, *b, *c),
        _ => unreachable!("three scalars"),
    }
}

/// `fma(x, y, z) = x·y + z` in one rounding; ∂x = y, ∂y = x, ∂z = 1.
#[pyfunction]
fn fma(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    z: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let args = three_args("fma", ["x", "y", "z"], [x, y, z])?;
    record::apply("fma", &args, |x| {
        let (a, b, c) = scalars3(x);
        Ok(Res::S(ternary(
            a,
            b,
            c,
            revad::fma,
            revad::fma,
            revad::fma,
            revad::fma,
            revad::fma,
            revad::fma,
            revad::fma,
            revad::fma,
        )))
    })?
    .into_py(py)
}

/// `log_mix(θ, λ₁, λ₂) = log(θ e^λ₁ + (1 − θ) e^λ₂)` for θ in [0, 1].
#[pyfunction]
fn log_mix(
    py: Python<'_>,
    theta: &Bound<'_, PyAny>,
    lambda1: &Bound<'_, PyAny>,
    lambda2: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let args = three_args(
        "log_mix",
        ["theta", "lambda1", "lambda2"],
        [theta, lambda1, lambda2],
    )?;
    record::apply("log_mix", &args, |x| {
        let (a, b, c) = scalars3(x);
        macro_rules! go {
            ($($pa:ident $pb:ident $pc:ident => $wrap:ident),*) => {
                match (a, b, c) {
                    $( (Arg::$pa(a), Arg::$pb(b), Arg::$pc(c)) => Out::$wrap(revad::log_mix(a, b, c).map_err(to_py)?), )*
                }
            };
        }
        Ok(Res::S(go!(F F F => F, F F V => V, F V F => V, F V V => V, V F F => V, V F V => V, V V F => V, V V V => V)))
    })?
    .into_py(py)
}

/// Applies a function of three reals to the eight argument combinations.
#[allow(clippy::too_many_arguments)]
fn ternary(
    a: Arg,
    b: Arg,
    c: Arg,
    fff: fn(f64, f64, f64) -> f64,
    ffv: fn(f64, f64, Var) -> Var,
    fvf: fn(f64, Var, f64) -> Var,
    fvv: fn(f64, Var, Var) -> Var,
    vff: fn(Var, f64, f64) -> Var,
    vfv: fn(Var, f64, Var) -> Var,
    vvf: fn(Var, Var, f64) -> Var,
    vvv: fn(Var, Var, Var) -> Var,
) -> Out {
    match (a, b, c) {
        (Arg::F(a), Arg::F(b), Arg::F(c)) => Out::F(fff(a, b, c)),
        (Arg::F(a), Arg::F(b), Arg::V(c)) => Out::V(ffv(a, b, c)),
        (Arg::F(a), Arg::V(b), Arg::F(c)) => Out::V(fvf(a, b, c)),
        (Arg::F(a), Arg::V(b), Arg::V(c)) => Out::V(fvv(a, b, c)),
        (Arg::V(a), Arg::F(b), Arg::F(c)) => Out::V(vff(a, b, c)),
        (Arg::V(a), Arg::F(b), Arg::V(c)) => Out::V(vfv(a, b, c)),
        (Arg::V(a), Arg::V(b), Arg::F(c)) => Out::V(vvf(a, b, c)),
        (Arg::V(a), Arg::V(b), Arg::V(c)) => Out::V(vvv(a, b, c)),
    }
}

/// `if_else(cond, a, b)`: `a` if `cond` is nonzero else `b` (the chosen argument itself), as
/// Stan's ``if_else``; `cond` is an integer or a bool (Python's or NumPy's). For arrays of
/// conditions, ``revad.where(cond, a, b)``.
#[pyfunction]
fn if_else(
    py: Python<'_>,
    cond: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (x, y) = record::declared(|| -> PyResult<(Arg, Arg)> {
        Ok((arg(a, "if_else", "a")?, arg(b, "if_else", "b")?))
    })?;
    // A comparison of scalar Vars made while recording: recorded with the choice, decided
    // anew on each replay.
    let compared = cond
        .cast::<record::PyCond>()
        .ok()
        .and_then(|c| c.borrow().operands());
    if let Some((ca @ X::S(_), cb @ X::S(_), cmp)) = compared {
        return record::apply("if_else", &[ca, cb, X::S(x), X::S(y)], move |v| match v {
            [X::S(ca), X::S(cb), X::S(x), X::S(y)] => {
                let cond = cmp(ca.value(), cb.value());
                Ok(Res::S(binop!(*x, *y, |x, y| revad::if_else(cond, x, y))))
            }
            _ => unreachable!("four scalars"),
        })?
        .into_py(py);
    }
    let cond = condition(&record::decided(cond))?;
    record::apply("if_else", &[X::S(x), X::S(y)], move |v| match v {
        [X::S(x), X::S(y)] => Ok(Res::S(binop!(*x, *y, |x, y| revad::if_else(cond, x, y)))),
        _ => unreachable!("two scalars"),
    })?
    .into_py(py)
}

/// An integer or boolean condition (Stan's `int`): Python's `bool` and `int`, NumPy's `bool_`
/// and integers, anything with `__index__`; a `TypeError` for floats, Vars and arrays.
fn condition(cond: &Bound<'_, PyAny>) -> PyResult<bool> {
    let numpy_bool = cond
        .py()
        .import("numpy")
        .and_then(|np| np.getattr("bool_"))
        .is_ok_and(|t| cond.is_instance(&t).unwrap_or(false));
    if cond.is_instance_of::<pyo3::types::PyBool>() || numpy_bool {
        return cond.is_truthy();
    }
    if cond.cast::<PyVar>().is_err() && cond.hasattr("__index__")? {
        if let Ok(i) = cond.call_method0("__index__") {
            return i.is_truthy();
        }
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "if_else: cond must be an integer or a bool, not {}; for a condition per element use \
         revad.where(cond, a, b)",
        type_name(cond)
    )))
}

/// The elements of a sequence (a list/tuple of floats and Vars, or a 1-D array) as arguments.
fn elements(xs: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Vec<Arg>> {
    let mut out = Vec::new();
    for (i, item) in xs.try_iter()?.enumerate() {
        let item = item?;
        out.push(arg(&item, function, &format!("xs[{i}]"))?);
    }
    Ok(out)
}

/// Splits arguments into a vector of Vars (constants become constants of the result only).
fn as_vars(args: &[Arg]) -> Option<Vec<Var>> {
    if args.iter().all(|a| matches!(a, Arg::F(_))) {
        return None;
    }
    Some(
        args.iter()
            .map(|a| match *a {
                Arg::V(v) => v,
                // A constant in a list with Vars: a fresh variable nothing flows from.
                Arg::F(x) => Var::new(x),
            })
            .collect(),
    )
}

/// `log_sum_exp(a, b)` of two reals (elementwise with NumPy broadcasting for arrays, one node),
/// or `log_sum_exp(xs)` of a sequence, an array Var or a NumPy array: log(Σ e^xᵢ) without
/// overflow, over every element or along ``axis`` (an int or tuple, with ``keepdims``), as one
/// node; ∂/∂xᵢ = softmax(x)ᵢ.
#[pyfunction]
#[pyo3(signature = (a, b=None, *, axis=None, keepdims=false))]
fn log_sum_exp(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    const F: &str = "log_sum_exp";
    if let Some(b) = b {
        let (x, y) = record::declared(|| -> PyResult<(X, X)> {
            Ok((x_arg(a, F, "a")?, x_arg(b, F, "b")?))
        })?;
        return record::apply(F, &[x, y], |x| match x {
            [X::S(x), X::S(y)] => Ok(Res::S(binop!(*x, *y, revad::log_sum_exp))),
            [x, y] => broadcast_binary(
                revad::matrix::BinaryOp::LogSumExp,
                (*x).clone(),
                (*y).clone(),
            ),
            _ => unreachable!("two operands"),
        })?
        .into_py(py);
    }
    reduction(py, Reduction::LogSumExp, a, axis, keepdims, F)
}

/// A reduction (`sum`, `log_sum_exp`) of a sequence, an array Var or a NumPy array, over every
/// element or along `axis`.
fn reduction(
    py: Python<'_>,
    how: Reduction,
    xs: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    function: &'static str,
) -> PyResult<Py<PyAny>> {
    let x = record::declared(|| -> PyResult<Result<X, Vec<Arg>>> {
        if let Some(a) = try_array(xs, function)? {
            return Ok(Ok(X::A(a)));
        }
        if axis.is_some_and(|a| !a.is_none()) || keepdims {
            // A nested list with axes: read as NumPy reads it.
            return Ok(Ok(shape_arg(xs, function, "xs")?));
        }
        if let Ok(v) = xs.cast::<PyVar>() {
            // A scalar Var: its own reduction.
            return Ok(Ok(v.get().x(function)?));
        }
        Ok(Err(elements(xs, function)?))
    })?;
    match x {
        Ok(x) => {
            let axes = read_axes(axis, shape_of(&x).len(), function)?;
            // The sum of every element of an array Var: `matrix::sum`'s node.
            let whole = how == Reduction::Sum && axes.is_none() && !keepdims;
            record::apply_form(
                function,
                &[x],
                move |x| reduce(how, x[0].clone(), axes.clone(), keepdims),
                |x| match x[0] {
                    a @ Sc::Range(..) if whole => Some(Form::Array(ArrayInstr::Sum(a.arg()?))),
                    _ => None,
                },
            )?
            .into_py(py)
        }
        Err(args) => {
            let xs: Vec<X> = args.into_iter().map(X::S).collect();
            record::apply(function, &xs, move |x| {
                let args: Vec<Arg> = x
                    .iter()
                    .map(|a| match a {
                        X::S(a) => *a,
                        _ => unreachable!("scalars"),
                    })
                    .collect();
                Ok(Res::S(match (as_vars(&args), how) {
                    (None, Reduction::LogSumExp) => {
                        let xs: Vec<f64> = args.iter().map(|a| a.value()).collect();
                        Out::F(revad::special::log_exp::log_sum_exp_all(&xs))
                    }
                    (None, _) => Out::F(args.iter().map(|a| a.value()).sum()),
                    (Some(vars), Reduction::LogSumExp) => Out::V(revad::log_sum_exp_all(&vars)),
                    (Some(vars), _) => Out::V(revad::sum(&vars)),
                }))
            })?
            .into_py(py)
        }
    }
}

/// `sum(xs, axis=None, keepdims=False)`: Σ xᵢ of a sequence, an array Var or a NumPy array,
/// over every element or along ``axis`` (an int or a tuple, as NumPy's), as one node;
/// ∂/∂xᵢ = 1.
#[pyfunction]
#[pyo3(signature = (xs, axis=None, keepdims=false))]
fn sum(
    py: Python<'_>,
    xs: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    reduction(py, Reduction::Sum, xs, axis, keepdims, "sum")
}

family! {
    functions: [
        exp,
        exp2,
        expm1,
        log,
        log2,
        log10,
        log1p,
        sqrt,
        cbrt,
        square,
        inv,
        inv_sqrt,
        inv_square,
        sin,
        cos,
        tan,
        asin,
        acos,
        atan,
        sinh,
        cosh,
        tanh,
        asinh,
        acosh,
        atanh,
        fabs,
        abs,
        floor,
        ceil,
        round,
        trunc,
        erf,
        erfc,
        Phi_approx,
        lgamma,
        digamma,
        trigamma,
        log1p_exp,
        log1m_exp,
        logit,
        inv_logit,
        log_inv_logit,
        log1m_inv_logit,
        inv_cloglog,
        step,
        Phi,
        inv_Phi,
        tgamma,
        log1m,
        pow,
        hypot,
        atan2,
        fdim,
        fmax,
        fmin,
        fmod,
        owens_t,
        log_diff_exp,
        multiply_log,
        lmultiply,
        lbeta,
        binomial_coefficient_log,
        log_falling_factorial,
        log_rising_factorial,
        gamma_p,
        gamma_q,
        bessel_first_kind,
        bessel_second_kind,
        modified_bessel_first_kind,
        modified_bessel_second_kind,
        lmgamma,
        binary_log_loss,
        falling_factorial,
        rising_factorial,
        int_step,
        is_inf,
        is_nan,
        logical_negation,
        logical_or,
        logical_and,
        logical_eq,
        logical_neq,
        logical_lt,
        logical_lte,
        logical_gt,
        logical_gte,
        fma,
        log_mix,
        if_else,
        log_sum_exp,
        sum,
    ],
}
