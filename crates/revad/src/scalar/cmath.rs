//! Functions of C's `<cmath>` (Stan Math paper, appendix A.4), the simple functions of A.5
//! (`square`, `inv`, `inv_sqrt`, `inv_square`), and their derivatives.
//!
//! Every function takes `f64` or [`Var`] arguments (mixed freely in the binary ones), returns
//! `f64` when all arguments are `f64`, and otherwise records at most one node whose partials are
//! computed in the reverse pass from the arguments' values and the result's value.
//!
//! # Domain errors and non-finite input
//!
//! Arguments outside a function's domain give NaN, as in C (`log(-1)`, `sqrt(-1)`,
//! `acos(2)`, `acosh(0.5)`, `atanh(2)`, `log1p(-2)`, `fmod(x, 0)`, `pow(-8, 1/3)`), and the
//! partials are then NaN too (also where the derivative formula alone would give a number, e.g.
//! 1/x for `log(-1)`), so the NaN reaches the gradient instead of a made-up number. (Current
//! Stan throws `std::domain_error` for `acosh(x < 1)`, `atanh(|x| > 1)` and `log1p(x < -1)`;
//! revad returns NaN for these like C does, so that every function here has the same infallible
//! signature.) NaN arguments give NaN values and partials, except where C defines a number:
//! `fmax`/`fmin` return the other argument; `pow(NaN, 0) = 1` (∂/∂x = 0, ∂/∂y NaN) and
//! `pow(1, NaN) = 1` (∂/∂x NaN, ∂/∂y = 0); and the rounding functions, whose derivative is 0
//! everywhere. Where the value is finite at a boundary, the partials are the limits
//! (`atan2(y, x)` with an infinite argument: 0; `tanh(±∞)`: 0), never NaN. Adjoints start at
//! +0, so a derivative of −0 reads back as 0.
//!
//! # Non-differentiable points
//!
//! As in Stan: `floor`, `ceil`, `round`, `trunc` have derivative 0 (their result is a new
//! constant variable); `abs`/`fabs` have derivative sign(x), 0 at x = 0; `fdim`, `fmax`,
//! `fmin` give the whole partial to the chosen argument; `fmod` is treated as smooth in both
//! arguments away from its jumps.

use super::real::{binary, record_unary, ternary, unary, Partial1, Promote, Promote3, Real};
use crate::var::Var;
use std::f64::consts::{LN_10, LN_2};

/// Above this magnitude `x² ± 1` is `x²` in `f64` (and `x²` may overflow): derivatives switch
/// to their asymptotic forms.
const HUGE: f64 = 1e150;

/// The variable of a `Var`-typed argument.
#[inline(always)]
fn var_of<T: Real>(x: T) -> Var {
    match x.to_var() {
        Some(v) => v,
        None => unreachable!("only called when the argument is a variable"),
    }
}

/// `val` as a result with no dependence on the arguments: `f64`, or a new constant variable
/// (Stan's `var(val)`: an adjoint slot and no reverse-pass closure).
#[inline(always)]
fn constant<T: Real>(val: f64) -> T {
    T::from_value_or(val, || Var::new(val))
}

/// `f(x)` for a unary function whose value `val` is already known; the node is recorded with
/// derivative `d` (shared by `pow`'s specialisations and the functions themselves).
#[inline(always)]
fn unary_out<A: Real, O: Real>(x: A, val: f64, d: impl Partial1) -> O {
    O::from_value_or(val, || record_unary(var_of(x), val, d))
}

// -------------------------------------------------------------------------------------------
// Exponentials and logarithms

/// `eˣ`; d/dx = eˣ.
///
/// ```
/// use revad::{exp, testing::check_gradient};
/// assert_eq!(exp(0.0), 1.0);
/// check_gradient(|v| exp(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn exp<T: Real>(x: T) -> T {
    let v = x.value().exp();
    unary(x, v, d_exp)
}

/// `2ˣ`; d/dx = 2ˣ·ln 2.
///
/// ```
/// use revad::{exp2, testing::check_gradient};
/// assert_eq!(exp2(3.0), 8.0);
/// check_gradient(|v| exp2(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn exp2<T: Real>(x: T) -> T {
    unary(x, x.value().exp2(), |_, v| v * LN_2)
}

/// `eˣ − 1`, accurate near 0; d/dx = eˣ (taken as `expm1(x) + 1` for x ≥ −1, and as `eˣ`
/// below, where that sum would cancel).
///
/// ```
/// use revad::{expm1, testing::check_gradient};
/// assert_eq!(expm1(0.0), 0.0);
/// assert!((expm1(1e-10) / 1e-10 - 1.0).abs() < 1e-9); // exp(x) − 1 would be off by 1e-7
/// check_gradient(|v| expm1(v[0]), &[&[1e-3], &[-2.0]]);
/// ```
#[inline]
pub fn expm1<T: Real>(x: T) -> T {
    unary(x, x.value().exp_m1(), d_expm1)
}

/// Natural logarithm; d/dx = 1/x. NaN (value and derivative) for x < 0.
///
/// ```
/// use revad::{log, testing::check_gradient};
/// assert_eq!(log(1.0), 0.0);
/// assert!(log(-1.0).is_nan());
/// check_gradient(|v| log(v[0]), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn log<T: Real>(x: T) -> T {
    unary(x, x.value().ln(), d_log)
}

/// Base-2 logarithm; d/dx = 1/(x·ln 2). NaN for x < 0.
///
/// ```
/// use revad::{log2, testing::check_gradient};
/// assert_eq!(log2(8.0), 3.0);
/// check_gradient(|v| log2(v[0]), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn log2<T: Real>(x: T) -> T {
    unary(x, x.value().log2(), |x, v| {
        if v.is_nan() {
            v
        } else {
            1.0 / (x * LN_2)
        }
    })
}

/// Base-10 logarithm; d/dx = 1/(x·ln 10). NaN for x < 0.
///
/// ```
/// use revad::{log10, testing::check_gradient};
/// assert_eq!(log10(1000.0), 3.0);
/// check_gradient(|v| log10(v[0]), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn log10<T: Real>(x: T) -> T {
    unary(x, x.value().log10(), |x, v| {
        if v.is_nan() {
            v
        } else {
            1.0 / (x * LN_10)
        }
    })
}

/// `ln(1 + x)`, accurate near 0; d/dx = 1/(1 + x). NaN for x < −1 (Stan throws there).
///
/// ```
/// use revad::{log1p, testing::check_gradient};
/// assert_eq!(log1p(0.0), 0.0);
/// assert!((log1p(1e-10) / 1e-10 - 1.0).abs() < 1e-9); // log(1 + x) would be off by 1e-7
/// check_gradient(|v| log1p(v[0]), &[&[1e-3], &[2.0]]);
/// ```
#[inline]
pub fn log1p<T: Real>(x: T) -> T {
    unary(x, x.value().ln_1p(), d_log1p)
}

// -------------------------------------------------------------------------------------------
// Powers and roots

/// `√x`; d/dx = 1/(2√x) (∞ at x = 0).
///
/// ```
/// use revad::{sqrt, testing::check_gradient};
/// assert_eq!(sqrt(4.0), 2.0);
/// check_gradient(|v| sqrt(v[0]), &[&[0.5], &[9.0]]);
/// ```
#[inline]
pub fn sqrt<T: Real>(x: T) -> T {
    unary(x, x.value().sqrt(), d_sqrt)
}

/// Cube root (real, odd); d/dx = 1/(3·∛x²) (∞ at x = 0).
///
/// ```
/// use revad::{cbrt, testing::check_gradient};
/// assert_eq!(cbrt(27.0), 3.0);
/// assert_eq!(cbrt(-8.0), -2.0);
/// check_gradient(|v| cbrt(v[0]), &[&[0.5], &[-9.0]]);
/// ```
#[inline]
pub fn cbrt<T: Real>(x: T) -> T {
    unary(x, x.value().cbrt(), |_, v| 1.0 / (3.0 * v * v))
}

/// `x²`; d/dx = 2x.
///
/// ```
/// use revad::{square, Var};
/// let x = Var::new(3.0);
/// let y = square(x);
/// y.grad();
/// assert_eq!((y.value(), x.adj()), (9.0, 6.0));
/// revad::tape::reset();
/// ```
#[inline]
pub fn square<T: Real>(x: T) -> T {
    let v = x.value();
    unary(x, v * v, d_square)
}

/// `1/x`; d/dx = −1/x².
///
/// ```
/// use revad::{inv, testing::check_gradient};
/// assert_eq!(inv(4.0), 0.25);
/// check_gradient(|v| inv(v[0]), &[&[0.5], &[-3.0]]);
/// ```
#[inline]
pub fn inv<T: Real>(x: T) -> T {
    unary(x, 1.0 / x.value(), d_inv)
}

/// `1/√x`; d/dx = −1/(2·x^{3/2}).
///
/// ```
/// use revad::{inv_sqrt, testing::check_gradient};
/// assert_eq!(inv_sqrt(4.0), 0.5);
/// check_gradient(|v| inv_sqrt(v[0]), &[&[0.5], &[3.0]]);
/// ```
#[inline]
pub fn inv_sqrt<T: Real>(x: T) -> T {
    unary(x, 1.0 / x.value().sqrt(), d_inv_sqrt)
}

/// `1/x²`; d/dx = −2/x³.
///
/// ```
/// use revad::{inv_square, testing::check_gradient};
/// assert_eq!(inv_square(2.0), 0.25);
/// check_gradient(|v| inv_square(v[0]), &[&[0.5], &[-3.0]]);
/// ```
#[inline]
pub fn inv_square<T: Real>(x: T) -> T {
    let v = x.value();
    unary(x, 1.0 / (v * v), d_inv_square)
}

#[inline(always)]
pub(crate) fn d_exp(_: f64, e: f64) -> f64 {
    e
}
#[inline(always)]
pub(crate) fn d_expm1(x: f64, v: f64) -> f64 {
    if x >= -1.0 {
        v + 1.0
    } else {
        x.exp()
    }
}
#[inline(always)]
pub(crate) fn d_log(x: f64, v: f64) -> f64 {
    if v.is_nan() {
        v
    } else {
        1.0 / x
    }
}
#[inline(always)]
pub(crate) fn d_log1p(x: f64, v: f64) -> f64 {
    if v.is_nan() {
        v
    } else {
        1.0 / (1.0 + x)
    }
}
#[inline(always)]
pub(crate) fn d_sin(x: f64, _: f64) -> f64 {
    x.cos()
}
#[inline(always)]
pub(crate) fn d_cos(x: f64, _: f64) -> f64 {
    -x.sin()
}
#[inline(always)]
pub(crate) fn d_tan(_: f64, t: f64) -> f64 {
    1.0 + t * t
}
#[inline(always)]
pub(crate) fn d_tanh(x: f64, t: f64) -> f64 {
    if x.abs() <= 0.5 {
        1.0 - t * t
    } else {
        let e = (-2.0 * x.abs()).exp();
        4.0 * e / ((1.0 + e) * (1.0 + e))
    }
}
#[inline(always)]
pub(crate) fn d_sqrt(_: f64, v: f64) -> f64 {
    0.5 / v
}
#[inline(always)]
pub(crate) fn d_square(x: f64, _: f64) -> f64 {
    2.0 * x
}
#[inline(always)]
pub(crate) fn d_inv(_: f64, v: f64) -> f64 {
    -(v * v)
}
#[inline(always)]
fn d_inv_sqrt(x: f64, v: f64) -> f64 {
    -0.5 * v / x
}
#[inline(always)]
fn d_inv_square(x: f64, v: f64) -> f64 {
    -2.0 * v / x
}

/// `xʸ`; ∂/∂x = y·x^{y−1}, ∂/∂y = xʸ·ln x.
///
/// As in Stan, a constant exponent of 0.5, 1, 2, −0.5, −1 or −2 is computed as
/// [`sqrt`]`(x)`, `x` itself (no new node), [`square`]`(x)`, [`inv_sqrt`]`(x)`, [`inv`]`(x)`
/// or [`inv_square`]`(x)`, recording that function's cheaper node. This holds for an `f64` base
/// too, so `pow(f64, f64)` and `pow(Var, f64)` agree to the bit (`pow(-0.0, 0.5)` is therefore
/// `-0.0` and `pow(-∞, 0.5)` NaN, where C's `pow` gives `+0` and `+∞`; `1/√x` and `1/x²` may
/// differ from `powf` by an ulp). A variable exponent is never specialised. An integer exponent
/// is passed as a float (`pow(x, 3.0)`): Stan's `pow(var, int)` takes the same path as a double
/// exponent, so there is no separate integer form.
///
/// At x = 0: ∂/∂y = 0 (Stan's choice, avoiding 0·ln 0), and ∂/∂x is the limit of y·x^{y−1}
/// (0 for y > 1 or y = 0, 1 for y = 1, ∞ for 0 < y < 1); Stan reports 0 for ∂/∂x there,
/// which is wrong for y ≤ 1. A negative base with a non-integer exponent gives NaN; with an
/// integer exponent the value and ∂/∂x are finite and ∂/∂y is NaN (ln x is undefined).
///
/// ```
/// use revad::{pow, tape, Var};
/// let (x, y) = (Var::new(2.0), Var::new(3.0));
/// let z = pow(x, y);
/// z.grad();
/// assert_eq!(z.value(), 8.0);
/// assert_eq!(x.adj(), 12.0); // 3·2²
/// assert!((y.adj() - 8.0 * 2f64.ln()).abs() < 1e-14);
/// tape::reset();
///
/// // A constant exponent of 2 records a square: one node, no exponent stored.
/// let x = Var::new(5.0);
/// let before = tape::stats().continuations;
/// let s = pow(x, 2.0);
/// assert_eq!((s.value(), tape::stats().continuations - before), (25.0, 1));
/// tape::reset();
/// ```
#[inline]
pub fn pow<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let (x, y) = (a.value(), b.value());
    if b.to_var().is_none() {
        // A constant exponent: Stan's specialisations. `A::Output` is `A` here.
        if y == 2.0 {
            return unary_out(a, x * x, d_square);
        } else if y == 0.5 {
            return unary_out(a, x.sqrt(), d_sqrt);
        } else if y == 1.0 {
            return A::Output::from_value_or(x, || var_of(a));
        } else if y == -1.0 {
            return unary_out(a, 1.0 / x, d_inv);
        } else if y == -0.5 {
            return unary_out(a, 1.0 / x.sqrt(), d_inv_sqrt);
        } else if y == -2.0 {
            return unary_out(a, 1.0 / (x * x), d_inv_square);
        }
    }
    binary(a, b, x.powf(y), pow_dx, pow_dy)
}

/// ∂xᶜ/∂x for a constant exponent c, as [`pow`] records it: its specialisations' partials,
/// else [`pow_dx`]. (`c = 1` records no node.)
#[inline]
pub(crate) fn d_pow_const(x: f64, c: f64, v: f64) -> f64 {
    if c == 2.0 {
        d_square(x, v)
    } else if c == 0.5 {
        d_sqrt(x, v)
    } else if c == -1.0 {
        d_inv(x, v)
    } else if c == -0.5 {
        d_inv_sqrt(x, v)
    } else if c == -2.0 {
        d_inv_square(x, v)
    } else {
        pow_dx(x, c, v)
    }
}

/// ∂xʸ/∂x = y·x^{y−1}, as y·xʸ/x when xʸ is a normal number (no second `pow`), else directly.
#[inline(always)]
pub(crate) fn pow_dx(x: f64, y: f64, v: f64) -> f64 {
    let d = y * v / x;
    if v.is_normal() && d.is_finite() {
        d
    } else if y == 0.0 {
        0.0
    } else {
        y * x.powf(y - 1.0)
    }
}

/// ∂xʸ/∂y = xʸ·ln x; 0 when x = 0 (Stan) or when xʸ is 0 (the limit, also for x = ∞, y < 0).
#[inline(always)]
pub(crate) fn pow_dy(x: f64, _: f64, v: f64) -> f64 {
    if x == 0.0 || v == 0.0 {
        0.0
    } else {
        v * x.ln()
    }
}

/// `√(a² + b²)` without overflow; ∂/∂a = a/h, ∂/∂b = b/h.
///
/// ```
/// use revad::{hypot, testing::check_gradient};
/// assert_eq!(hypot(3.0, 4.0), 5.0);
/// check_gradient(|v| hypot(v[0], v[1]), &[&[3.0, 4.0], &[-1.0, 0.5]]);
/// ```
#[inline]
pub fn hypot<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let h = a.value().hypot(b.value());
    binary(a, b, h, |a, _, h| a / h, |_, b, h| b / h)
}

/// `x·y + z` with one rounding (fused multiply-add); ∂/∂x = y, ∂/∂y = x, ∂/∂z = 1 (all NaN
/// where the value is NaN, e.g. `fma(0, ∞, 1)`).
///
/// Any mix of `f64` and `Var` arguments records one node with the variables' partials only.
///
/// ```
/// use revad::{fma, testing::check_gradient};
/// assert_eq!(fma(2.0, 3.0, 1.0), 7.0);
/// check_gradient(|v| fma(v[0], v[1], v[2]), &[&[2.0, 3.0, 1.0], &[-0.5, 4.0, 2.0]]);
/// ```
#[inline]
pub fn fma<A, B, C>(x: A, y: B, z: C) -> Promote3<A, B, C>
where
    A: Promote<B>,
    B: Real,
    C: Real,
    A::Output: Promote<C>,
{
    let v = x.value().mul_add(y.value(), z.value());
    ternary(
        x,
        y,
        z,
        v,
        |x, y, _, v| {
            if v.is_nan() {
                [v; 3]
            } else {
                [y, x, 1.0]
            }
        },
    )
}

// -------------------------------------------------------------------------------------------
// Trigonometric functions

/// Sine; d/dx = cos x.
///
/// ```
/// use revad::{sin, testing::check_gradient};
/// assert_eq!(sin(0.0), 0.0);
/// check_gradient(|v| sin(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn sin<T: Real>(x: T) -> T {
    unary(x, x.value().sin(), d_sin)
}

/// Cosine; d/dx = −sin x.
///
/// ```
/// use revad::{cos, testing::check_gradient};
/// assert_eq!(cos(0.0), 1.0);
/// check_gradient(|v| cos(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn cos<T: Real>(x: T) -> T {
    unary(x, x.value().cos(), d_cos)
}

/// Tangent; d/dx = 1 + tan² x.
///
/// ```
/// use revad::{tan, testing::check_gradient};
/// assert_eq!(tan(0.0), 0.0);
/// check_gradient(|v| tan(v[0]), &[&[0.5], &[-1.0]]);
/// ```
#[inline]
pub fn tan<T: Real>(x: T) -> T {
    unary(x, x.value().tan(), d_tan)
}

/// Arc sine, in [−π/2, π/2]; d/dx = 1/√(1 − x²), with 1 − x² as (1 − x)(1 + x) for accuracy
/// near ±1. NaN for |x| > 1.
///
/// ```
/// use revad::{asin, testing::check_gradient};
/// assert_eq!(asin(1.0), std::f64::consts::FRAC_PI_2);
/// check_gradient(|v| asin(v[0]), &[&[0.3], &[-0.7]]);
/// ```
#[inline]
pub fn asin<T: Real>(x: T) -> T {
    unary(x, x.value().asin(), |x, _| {
        1.0 / ((1.0 - x) * (1.0 + x)).sqrt()
    })
}

/// Arc cosine, in [0, π]; d/dx = −1/√(1 − x²), with 1 − x² as (1 − x)(1 + x). NaN for
/// |x| > 1.
///
/// ```
/// use revad::{acos, testing::check_gradient};
/// assert_eq!(acos(1.0), 0.0);
/// check_gradient(|v| acos(v[0]), &[&[0.3], &[-0.7]]);
/// ```
#[inline]
pub fn acos<T: Real>(x: T) -> T {
    unary(x, x.value().acos(), |x, _| {
        -1.0 / ((1.0 - x) * (1.0 + x)).sqrt()
    })
}

/// Arc tangent, in (−π/2, π/2); d/dx = 1/(1 + x²) (as 1/x² for huge |x|, where x² overflows).
///
/// ```
/// use revad::{atan, testing::check_gradient};
/// assert_eq!(atan(1.0), std::f64::consts::FRAC_PI_4);
/// check_gradient(|v| atan(v[0]), &[&[0.3], &[-5.0]]);
/// ```
#[inline]
pub fn atan<T: Real>(x: T) -> T {
    unary(x, x.value().atan(), |x, _| {
        if x.abs() < HUGE {
            1.0 / (1.0 + x * x)
        } else {
            let r = 1.0 / x;
            r * r
        }
    })
}

/// The angle of the point (x, y), in [−π, π]: `atan2(y, x)`; ∂/∂y = x/(x² + y²),
/// ∂/∂x = −y/(x² + y²) (with r = hypot(x, y), as (x/r)/r where x² + y² would overflow or
/// underflow).
///
/// Both partials are NaN at the origin (the angle is not differentiable there) and 0 when an
/// argument is infinite and neither is NaN.
///
/// ```
/// use revad::{atan2, Var};
/// let (y, x) = (Var::new(1.0), Var::new(1.0));
/// let t = atan2(y, x);
/// t.grad();
/// assert_eq!(t.value(), std::f64::consts::FRAC_PI_4);
/// assert_eq!((y.adj(), x.adj()), (0.5, -0.5));
/// revad::tape::reset();
/// ```
#[inline]
pub fn atan2<A: Promote<B>, B: Real>(y: A, x: B) -> A::Output {
    let v = y.value().atan2(x.value());
    binary(
        y,
        x,
        v,
        |y, x, _| atan2_partial(x, y),
        |y, x, _| -atan2_partial(y, x),
    )
}

/// `num/(num² + other²)`; where the sum of squares overflows or underflows, as `(num/r)/r`
/// with `r = hypot(num, other)` (0 when r is infinite).
#[inline(always)]
pub(crate) fn atan2_partial(num: f64, other: f64) -> f64 {
    let s = num * num + other * other;
    if s.is_normal() {
        return num / s;
    }
    let r = num.hypot(other);
    if r.is_infinite() && !num.is_nan() && !other.is_nan() {
        0.0
    } else {
        (num / r) / r
    }
}

// -------------------------------------------------------------------------------------------
// Hyperbolic functions

/// Hyperbolic sine; d/dx = cosh x.
///
/// ```
/// use revad::{sinh, testing::check_gradient};
/// assert_eq!(sinh(0.0), 0.0);
/// check_gradient(|v| sinh(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn sinh<T: Real>(x: T) -> T {
    unary(x, x.value().sinh(), |x, _| x.cosh())
}

/// Hyperbolic cosine; d/dx = sinh x.
///
/// ```
/// use revad::{cosh, testing::check_gradient};
/// assert_eq!(cosh(0.0), 1.0);
/// check_gradient(|v| cosh(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn cosh<T: Real>(x: T) -> T {
    unary(x, x.value().cosh(), |x, _| x.sinh())
}

/// Hyperbolic tangent; d/dx = 1 − tanh² x = sech² x, taken as 1 − tanh² x for |x| ≤ 0.5 and as
/// 4e/(1 + e)² with e = e^{−2|x|} beyond, where 1 − tanh² x would cancel.
///
/// ```
/// use revad::{tanh, testing::check_gradient};
/// assert_eq!(tanh(0.0), 0.0);
/// assert_eq!(tanh(40.0), 1.0);
/// check_gradient(|v| tanh(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn tanh<T: Real>(x: T) -> T {
    unary(x, x.value().tanh(), d_tanh)
}

/// Inverse hyperbolic sine; d/dx = 1/√(x² + 1) (1/|x| for huge |x|).
///
/// ```
/// use revad::{asinh, testing::check_gradient};
/// assert_eq!(asinh(0.0), 0.0);
/// check_gradient(|v| asinh(v[0]), &[&[0.5], &[-2.0]]);
/// ```
#[inline]
pub fn asinh<T: Real>(x: T) -> T {
    unary(x, x.value().asinh(), |x, _| {
        if x.abs() < HUGE {
            1.0 / (x * x + 1.0).sqrt()
        } else {
            1.0 / x.abs()
        }
    })
}

/// Inverse hyperbolic cosine (from `libm`: the standard library's loses digits near 1);
/// d/dx = 1/√(x² − 1), with x² − 1 as (x − 1)(x + 1) (1/x for huge x). NaN for x < 1
/// (Stan throws there).
///
/// ```
/// use revad::{acosh, testing::check_gradient};
/// assert_eq!(acosh(1.0), 0.0);
/// assert!(acosh(0.5).is_nan());
/// check_gradient(|v| acosh(v[0]), &[&[1.5], &[4.0]]);
/// ```
#[inline]
pub fn acosh<T: Real>(x: T) -> T {
    unary(x, libm::acosh(x.value()), |x, v| {
        if v.is_nan() {
            v
        } else if x < HUGE {
            1.0 / ((x - 1.0) * (x + 1.0)).sqrt()
        } else {
            1.0 / x
        }
    })
}

/// Inverse hyperbolic tangent (from `libm`: the standard library's loses digits near −1);
/// d/dx = 1/(1 − x²), with 1 − x² as (1 − x)(1 + x). ±∞ at ±1,
/// NaN for |x| > 1 (Stan throws there).
///
/// ```
/// use revad::{atanh, testing::check_gradient};
/// assert_eq!(atanh(0.0), 0.0);
/// assert_eq!(atanh(1.0), f64::INFINITY);
/// check_gradient(|v| atanh(v[0]), &[&[0.3], &[-0.7]]);
/// ```
#[inline]
pub fn atanh<T: Real>(x: T) -> T {
    unary(x, libm::atanh(x.value()), |x, v| {
        if v.is_nan() {
            v
        } else {
            1.0 / ((1.0 - x) * (1.0 + x))
        }
    })
}

// -------------------------------------------------------------------------------------------
// Absolute value, rounding, and piecewise-linear functions

/// `|x|`; d/dx = sign(x), and 0 at x = 0 (Stan). For a variable x > 0 the result is x itself;
/// for x < 0 a negation; for x = 0 a new constant 0; for NaN a node with NaN derivative.
///
/// ```
/// use revad::{fabs, testing::check_gradient};
/// assert_eq!(fabs(-2.0), 2.0);
/// check_gradient(|v| fabs(v[0]), &[&[-1.5], &[2.0]]);
/// ```
#[inline]
pub fn fabs<T: Real>(x: T) -> T {
    let v = x.value();
    T::from_value_or(v.abs(), || {
        let xv = var_of(x);
        if v > 0.0 {
            xv
        } else if v < 0.0 {
            -xv
        } else if v == 0.0 {
            Var::new(0.0)
        } else {
            record_unary(xv, v, |_, _| f64::NAN)
        }
    })
}

/// `|x|`: the same as [`fabs`] (Stan's `abs` delegates to it); d/dx = sign(x), 0 at x = 0.
///
/// ```
/// use revad::{abs, testing::check_gradient};
/// assert_eq!(abs(-2.0), 2.0);
/// check_gradient(|v| abs(v[0]), &[&[-1.5], &[2.0]]);
/// ```
#[inline]
pub fn abs<T: Real>(x: T) -> T {
    fabs(x)
}

/// Largest integer ≤ x; derivative 0 (Stan: a new constant variable, also for NaN).
///
/// ```
/// use revad::{floor, tape, Var};
/// assert_eq!(floor(-1.5), -2.0);
/// let x = Var::new(1.5);
/// let y = floor(x);
/// y.grad();
/// assert_eq!(x.adj(), 0.0); // a step function: derivative 0
/// tape::reset();
/// ```
#[inline]
pub fn floor<T: Real>(x: T) -> T {
    constant(x.value().floor())
}

/// Smallest integer ≥ x; derivative 0 (a new constant variable).
///
/// ```
/// use revad::{ceil, tape, Var};
/// assert_eq!(ceil(-1.5), -1.0);
/// let x = Var::new(1.5);
/// let y = ceil(x);
/// y.grad();
/// assert_eq!(x.adj(), 0.0); // a step function: derivative 0
/// tape::reset();
/// ```
#[inline]
pub fn ceil<T: Real>(x: T) -> T {
    constant(x.value().ceil())
}

/// Nearest integer, halves away from zero (C's `round`); derivative 0 (a new constant
/// variable).
///
/// ```
/// use revad::{round, tape, Var};
/// assert_eq!((round(2.5), round(-2.5)), (3.0, -3.0)); // halves away from 0
/// let x = Var::new(1.5);
/// let y = round(x);
/// y.grad();
/// assert_eq!(x.adj(), 0.0); // a step function: derivative 0
/// tape::reset();
/// ```
#[inline]
pub fn round<T: Real>(x: T) -> T {
    constant(x.value().round())
}

/// x rounded toward zero; derivative 0 (a new constant variable).
///
/// ```
/// use revad::{trunc, tape, Var};
/// assert_eq!(trunc(-1.7), -1.0);
/// let x = Var::new(1.5);
/// let y = trunc(x);
/// y.grad();
/// assert_eq!(x.adj(), 0.0); // a step function: derivative 0
/// tape::reset();
/// ```
#[inline]
pub fn trunc<T: Real>(x: T) -> T {
    constant(x.value().trunc())
}

/// Positive difference `max(a − b, 0)`; ∂/∂a = 1, ∂/∂b = −1 when a > b, and both 0 otherwise
/// (the result is then a new constant 0, as in Stan). NaN (value and partials) if either is NaN.
///
/// ```
/// use revad::{fdim, testing::check_gradient};
/// assert_eq!((fdim(5.0, 3.0), fdim(1.0, 3.0)), (2.0, 0.0));
/// check_gradient(|v| fdim(v[0], v[1]), &[&[5.0, 3.0], &[1.0, 3.0]]);
/// ```
#[inline]
pub fn fdim<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let (x, y) = (a.value(), b.value());
    if x > y {
        binary(a, b, x - y, |_, _, _| 1.0, |_, _, _| -1.0)
    } else if x.is_nan() || y.is_nan() {
        nan_node(a, b)
    } else {
        constant(0.0)
    }
}

/// Value NaN with NaN partials for the variable arguments.
#[inline(always)]
fn nan_node<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    binary(a, b, f64::NAN, |_, _, _| f64::NAN, |_, _, _| f64::NAN)
}

/// The argument chosen by `fmax`/`fmin`, as the result: a variable is returned itself (no new
/// node), a constant as `f64` or a new constant variable.
#[inline(always)]
fn choose<A: Promote<B>, B: Real>(a: A, b: B, first: bool) -> A::Output {
    let v = if first { a.value() } else { b.value() };
    A::Output::from_value_or(v, || {
        let picked = if first { a.to_var() } else { b.to_var() };
        picked.unwrap_or_else(|| Var::new(v))
    })
}

/// The larger of a and b; the partial (1) goes to the chosen argument, which is returned
/// itself when it is a variable (no new node). If one is NaN the other is returned (C99); if
/// both are, NaN with NaN partials. Ties follow Stan: a variable is preferred to a constant, and
/// of two variables b is returned.
///
/// ```
/// use revad::{fmax, Var};
/// let (a, b) = (Var::new(1.0), Var::new(3.0));
/// let m = fmax(a, b);
/// m.grad();
/// assert_eq!((m.value(), a.adj(), b.adj()), (3.0, 0.0, 1.0));
/// assert_eq!(fmax(f64::NAN, 2.0), 2.0);
/// revad::tape::reset();
/// ```
#[inline]
pub fn fmax<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let (x, y) = (a.value(), b.value());
    match (x.is_nan(), y.is_nan()) {
        (true, true) => nan_node(a, b),
        (true, false) => choose(a, b, false),
        (false, true) => choose(a, b, true),
        (false, false) => {
            let tie_to_a = a.to_var().is_some() && b.to_var().is_none();
            choose(a, b, x > y || (x == y && tie_to_a))
        }
    }
}

/// The smaller of a and b; the partial (1) goes to the chosen argument, returned itself when it
/// is a variable. NaN handling and ties as in [`fmax`].
///
/// ```
/// use revad::{fmin, testing::check_gradient};
/// assert_eq!(fmin(1.0, f64::NAN), 1.0);
/// check_gradient(|v| fmin(v[0], v[1]), &[&[1.0, 3.0], &[2.0, -1.0]]);
/// ```
#[inline]
pub fn fmin<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let (x, y) = (a.value(), b.value());
    match (x.is_nan(), y.is_nan()) {
        (true, true) => nan_node(a, b),
        (true, false) => choose(a, b, false),
        (false, true) => choose(a, b, true),
        (false, false) => {
            let tie_to_a = a.to_var().is_some() && b.to_var().is_none();
            choose(a, b, x < y || (x == y && tie_to_a))
        }
    }
}

/// Remainder of a/b with the sign of a: `a − n·b` with n = trunc(a/b) (C's `fmod`);
/// ∂/∂a = 1, ∂/∂b = −n.
///
/// n is taken as round((a − fmod(a, b))/b), which is exact (a − fmod(a, b) is n·b up to one
/// rounding), where trunc of the rounded quotient a/b can be off by one. Where the value is NaN
/// (b = 0, a infinite, a NaN argument) both partials are NaN.
///
/// ```
/// use revad::{fmod, testing::check_gradient};
/// assert_eq!((fmod(7.0, 3.0), fmod(-7.0, 3.0)), (1.0, -1.0)); // the sign of a
/// check_gradient(|v| fmod(v[0], v[1]), &[&[7.0, 3.0], &[-5.5, 2.0]]);
/// ```
#[inline]
pub fn fmod<A: Promote<B>, B: Real>(a: A, b: B) -> A::Output {
    let v = a.value() % b.value();
    binary(
        a,
        b,
        v,
        |_, _, v| if v.is_nan() { f64::NAN } else { 1.0 },
        |a, b, v| -((a - v) / b).round(),
    )
}
