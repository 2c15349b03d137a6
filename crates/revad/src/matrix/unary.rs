//! Elementwise (vectorised) functions of one array, each one node: Stan's vectorised unary
//! functions on `vector`, `row_vector` and `matrix`.
//!
//! Every function applies the scalar function of the same name (`revad::sqrt`, ...) to each
//! element, so values agree with the scalar versions to the bit, except `exp`, `log`, `log1p`,
//! `expm1`, `inv_logit`, `log_inv_logit`, `log1m_inv_logit`, `log1p_exp` and `tanh`: those
//! run the SIMD kernels of [`crate::elementary`], within 1 ulp of the scalar (standard
//! library) value for `exp`, `log`, `log1p` and `expm1`, 2 ulps for the logistic functions
//! and 3 for `tanh` (the kernels also compute the derivatives below that need an
//! exponential). Each multiplies the result's adjoints by the same derivative formula the
//! scalar version uses: `āᵢ += c̄ᵢ · ∂cᵢ/∂aᵢ`,
//! evaluated in the reverse pass from `aᵢ` and `cᵢ` (the diagonal Jacobian of an elementwise
//! map; Giles 2008, section 3.1). Domain edges, NaN and infinities behave as in the scalar
//! function (see its documentation); a data argument gives a constant array with no
//! reverse-pass work.
//!
//! | function | value cᵢ | ∂cᵢ/∂aᵢ |
//! |---|---|---|
//! | `exp` | eᵃ | cᵢ |
//! | `exp2` | 2ᵃ | cᵢ·ln 2 |
//! | `expm1` | eᵃ − 1 | cᵢ + 1 (eᵃ below −1) |
//! | `log` | ln a | 1/aᵢ (NaN where cᵢ is NaN) |
//! | `log2` | log₂ a | 1/(aᵢ ln 2) |
//! | `log10` | log₁₀ a | 1/(aᵢ ln 10) |
//! | `log1p` | ln(1 + a) | 1/(1 + aᵢ) |
//! | `square` | a² | 2aᵢ |
//! | `sqrt` | √a | 1/(2cᵢ) |
//! | `cbrt` | ∛a | 1/(3cᵢ²) |
//! | `inv` | 1/a | −cᵢ² |
//! | `inv_sqrt` | 1/√a | −cᵢ/(2aᵢ) |
//! | `inv_square` | 1/a² | −2cᵢ/aᵢ |
//! | `sin`, `cos`, `tan` | | cos aᵢ, −sin aᵢ, 1 + cᵢ² |
//! | `asin`, `acos` | | ±1/√((1 − aᵢ)(1 + aᵢ)) |
//! | `atan` | | 1/(1 + aᵢ²) |
//! | `sinh`, `cosh` | | cosh aᵢ, sinh aᵢ |
//! | `tanh` | | 1 − cᵢ² (4e/(1 + e)², e = e^(−2\|aᵢ\|), beyond \|aᵢ\| = ½) |
//! | `asinh` | | 1/√(aᵢ² + 1) |
//! | `acosh` | | 1/√((aᵢ − 1)(aᵢ + 1)) |
//! | `atanh` | | 1/((1 − aᵢ)(1 + aᵢ)) |
//! | `erf`, `erfc` | | ±2/√π · e^(−aᵢ²) |
//! | `Phi` | Φ(a) | φ(aᵢ) |
//! | `Phi_approx` | σ(u), u = 0.07056a³ + 1.5976a | σ(u)σ(−u)(0.21168aᵢ² + 1.5976) |
//! | `inv_Phi` | Φ⁻¹(a) | 1/φ(cᵢ) |
//! | `lgamma`, `digamma`, `trigamma` | | ψ(aᵢ), ψ′(aᵢ), ψ″(aᵢ) |
//! | `tgamma` | Γ(a) | cᵢ ψ(aᵢ) |
//! | `inv_logit` | σ(a) | σ(aᵢ)σ(−aᵢ) |
//! | `logit` | ln(a/(1 − a)) | 1/(aᵢ(1 − aᵢ)) |
//! | `log_inv_logit` | ln σ(a) | σ(−aᵢ) |
//! | `log1m_inv_logit` | ln(1 − σ(a)) | −σ(aᵢ) |
//! | `log1p_exp` | ln(1 + eᵃ) | σ(aᵢ) |
//! | `log1m_exp` | ln(1 − eᵃ) | −1/expm1(−aᵢ) |
//! | `log1m` | ln(1 − a) | −1/(1 − aᵢ) |
//! | `inv_cloglog` | 1 − exp(−eᵃ) | exp(aᵢ − e^(aᵢ)) |
//! | `fabs`, `abs` | \|a\| | sign(aᵢ) (0 at 0) |
//! | `floor`, `ceil`, `round`, `trunc`, `step` | | 0 (the result is a constant) |
//!
//! `Phi`, `inv_Phi`, `tgamma` and `log1m` check their arguments as the scalar versions do and
//! return the scalar version's error for the first element that fails.
//!
//! ```
//! use revad::{matrix, tape, Var, Vector};
//! let x = Var::array(Vector::from(vec![1.0, 4.0, 9.0]));
//! let y = matrix::sum(&matrix::sqrt(&x));
//! y.grad();
//! assert_eq!(y.value(), 6.0);
//! assert_eq!(x.adj().to_vec(), vec![0.5, 0.25, 0.5 / 3.0]);
//! tape::reset();
//! ```
#![allow(non_snake_case)]

use std::f64::consts::{LN_10, LN_2};

use super::operand::{slot_of, Operand};
use super::pass;
use crate::error::Result;
use crate::kernels::elementary::{self, Derivative, Function};
use crate::special::{gamma as sg, normal as sn};
use crate::tape::{self, Adjoints};
use crate::var::{Storage, Var};

/// Above this magnitude `x² ± 1` is `x²` in `f64` (and `x²` may overflow): derivatives switch
/// to their asymptotic forms (as in the scalar versions).
const HUGE: f64 = 1e150;

/// Records `c = f(a)` elementwise with `∂cᵢ/∂aᵢ = d(aᵢ, cᵢ)`.
fn map<S, F, D>(a: &impl Operand<S>, f: F, d: D) -> Var<S>
where
    S: Storage,
    F: Fn(f64) -> f64,
    D: Fn(f64, f64) -> f64 + Copy + 'static,
{
    let av = a.value();
    let value = av.with_data(av.as_slice().iter().map(|&x| f(x)).collect());
    record(a.key(), &av, value, d)
}

/// [`map`] for a function that checks its argument: the first element's error, if any.
fn try_map<S, F, D>(a: &impl Operand<S>, f: F, d: D) -> Result<Var<S>>
where
    S: Storage,
    F: Fn(f64) -> Result<f64>,
    D: Fn(f64, f64) -> f64 + Copy + 'static,
{
    let av = a.value();
    let data = av
        .as_slice()
        .iter()
        .map(|&x| f(x))
        .collect::<Result<Vec<f64>>>()?;
    Ok(record(a.key(), &av, av.with_data(data), d))
}

/// The node of an elementwise function with value `value` of the operand with key `ka` and
/// value `a_val`; a constant array for a data operand.
fn record<S, D>(ka: Option<u64>, a_val: &S, value: S, d: D) -> Var<S>
where
    S: Storage,
    D: Fn(f64, f64) -> f64 + Copy + 'static,
{
    let Some(k) = ka else {
        return Var::array(value);
    };
    let n = value.len();
    let (a_val, c_val) = (a_val.clone(), value.clone());
    let key = tape::record_array_run(n, &[k], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_level(out, n);
            let r = below.run_or_fresh(slot_of(k), n);
            partials_into(r, g, a_val.as_slice(), c_val.as_slice(), d)
        }
    });
    Var::from_key(value, key)
}

/// `rᵢ += gᵢ·d(xᵢ, cᵢ)` (see [`AddPartials`]), in a long run compiled for the widest
/// instruction set the machine has.
fn add_partials(r: &mut [f64], g: &[f64], x: &[f64], c: &[f64], d: impl Fn(f64, f64) -> f64) {
    partials_into(
        tape::InputRun::Add(r),
        tape::ResultAdjoints::Run(g),
        x,
        c,
        d,
    )
}

/// [`add_partials`], or `rᵢ = gᵢ·d(xᵢ, cᵢ)` when the run is fresh (see [`tape::InputRun`]),
/// with the result's adjoints `g` a run or one value for all. A zero adjoint contributes
/// nothing, even where the partial is NaN (an element `where` did not choose): a select rather
/// than a branch, so that the loop vectorises.
fn partials_into(
    r: tape::InputRun<'_>,
    g: tape::ResultAdjoints<'_>,
    x: &[f64],
    c: &[f64],
    d: impl Fn(f64, f64) -> f64,
) {
    pass::elementwise_pass(r, &g, |e, g, r, how| {
        let (x, c) = (&x[e.clone()], &c[e]);
        let terms = g.iter().zip(x).zip(c).map(|((&gi, &xi), &ci)| {
            let t = gi * d(xi, ci);
            if gi != 0.0 {
                t
            } else {
                0.0
            }
        });
        pass::write_terms(r, how, terms)
    })
}

/// An elementwise function of one array as a program's scalar form runs it (see
/// [`crate::program::scalar`]): the values and the reverse pass of the function of this
/// module of the same name, the same code its node runs.
///
/// ```
/// use revad::matrix::ArrayMap;
/// let exp = ArrayMap::named("exp").unwrap();
/// let (x, mut c) = ([0.0, 1.0], [0.0; 2]);
/// exp.values(&x, &mut c);
/// let mut r = [0.0; 2];
/// exp.reverse(&[1.0, 2.0], &x, &c, &mut r); // rᵢ += gᵢ·eˣⁱ
/// assert_eq!((c[0], r[1]), (1.0, 2.0 * c[1]));
/// ```
#[derive(Clone, Copy)]
pub struct ArrayMap {
    name: &'static str,
    values: fn(&[f64], &mut [f64]),
    reverse: MapReverse,
}

/// The reverse pass of an [`ArrayMap`]: `(g, x, c, r)` ↦ `rᵢ += gᵢ·f′(xᵢ)`.
type MapReverse = fn(&[f64], &[f64], &[f64], &mut [f64]);

impl ArrayMap {
    /// The elementwise function revad exports as `matrix::name`, if it has a flat form: every
    /// function of this module but the ones that check their arguments (`Phi`, `inv_Phi`,
    /// `tgamma`, `log1m`) and the piecewise constants (`floor`, ...).
    pub fn named(name: &str) -> Option<ArrayMap> {
        named_simd(name).or_else(|| named_scalar(name))
    }

    /// The function's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// `outᵢ = f(xᵢ)`.
    pub fn values(&self, x: &[f64], out: &mut [f64]) {
        (self.values)(x, out)
    }

    /// `rᵢ += gᵢ·f′(xᵢ)` (from `x` and the values `c`), as the function's node adds it.
    pub fn reverse(&self, g: &[f64], x: &[f64], c: &[f64], r: &mut [f64]) {
        (self.reverse)(g, x, c, r)
    }
}

impl std::fmt::Debug for ArrayMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for ArrayMap {
    fn eq(&self, other: &ArrayMap) -> bool {
        self.name == other.name
    }
}

/// `c = f(a)` elementwise with derivative 0: a constant array (as Stan's `floor(var)` is a new
/// constant `var`). A variable operand is still checked to be live.
fn constant_map<S: Storage>(a: &impl Operand<S>, f: impl Fn(f64) -> f64) -> Var<S> {
    let av = a.value();
    let value = av.with_data(av.as_slice().iter().map(|&x| f(x)).collect());
    match a.key() {
        None => Var::array(value),
        Some(k) => {
            let key = tape::record_run(value.len(), &[k], |_| |_: &mut Adjoints| {});
            Var::from_key(value, key)
        }
    }
}

/// The two elements of a function's doc example: `[a, b]` after its name, else 0.25 and 0.75.
macro_rules! example_points {
    () => {
        "0.25, 0.75"
    };
    ($a:literal, $b:literal) => {
        concat!(stringify!($a), ", ", stringify!($b))
    };
}

/// The doc example of an elementwise function `$name` (`$unwrap` after calls that return
/// `Result`): its values are the scalar function's, and its adjoints the scalar derivative's.
macro_rules! example {
    ($name:ident, $unwrap:literal, $($p:literal),*) => {
        concat!(
            "```\n",
            "use revad::{matrix, tape, Var, Vector};\n",
            "let x = Vector::from(vec![", example_points!($($p),*), "]);\n",
            "let a = Var::array(x.clone());\n",
            "let c = matrix::", stringify!($name), "(&a)", $unwrap, ";\n",
            "// Each element is the scalar function's value ...\n",
            "assert_eq!(c.value()[1], revad::", stringify!($name), "(x[1])", $unwrap, ");\n",
            "matrix::sum(&c).grad();\n",
            "// ... and each adjoint its derivative.\n",
            "let (_, g) = revad::gradient(|v| revad::", stringify!($name), "(v[0])", $unwrap,
            ", &[x[1]]);\n",
            "assert!((a.adj()[1] - g[0]).abs() <= 1e-14 * g[0].abs().max(1.0));\n",
            "tape::reset();\n",
            "```",
        )
    };
}

/// One public function per line: `name => derivative(x, c)` (or `name [a, b] => ...` for the
/// points of its doc example), the value being the scalar function `crate::name` on `f64`.
macro_rules! vectorised {
    ($($(#[doc = $doc:expr])+ $name:ident $([$($p:literal),*])? => $d:expr;)+) => {$(
        $(#[doc = $doc])+
        ///
        /// One node; the value of each element is the scalar function's, and so is the
        /// derivative formula (`c` is the result).
        ///
        #[doc = example!($name, "", $($($p),*)?)]
        pub fn $name<S: Storage>(a: &impl Operand<S>) -> Var<S> {
            map(a, crate::$name::<f64>, $d)
        }
    )+
        /// The flat forms of the functions of this table (see [`ArrayMap`]).
        fn named_scalar(name: &str) -> Option<ArrayMap> {
            match name {
                $(stringify!($name) => Some(ArrayMap {
                    name: stringify!($name),
                    values: |x, out| {
                        for (o, &xi) in out.iter_mut().zip(x) {
                            *o = crate::$name::<f64>(xi);
                        }
                    },
                    reverse: |g, x, c, r| add_partials(r, g, x, c, $d),
                }),)+
                _ => None,
            }
        }
    };
}

/// As [`vectorised!`] for the functions whose scalar version returns `Result`.
macro_rules! vectorised_checked {
    ($($(#[doc = $doc:expr])+ $name:ident $([$($p:literal),*])? => $d:expr;)+) => {$(
        $(#[doc = $doc])+
        ///
        /// One node; the value of each element is the scalar function's, and so is the
        /// derivative formula (`c` is the result).
        ///
        #[doc = example!($name, ".unwrap()", $($($p),*)?)]
        ///
        /// # Errors
        /// The error of the scalar function for the first element outside its domain.
        pub fn $name<S: Storage>(a: &impl Operand<S>) -> Result<Var<S>> {
            try_map(a, crate::$name::<f64>, $d)
        }
    )+};
}

/// As [`vectorised!`] for the functions with derivative 0 (the result is a constant).
macro_rules! vectorised_constant {
    ($($(#[doc = $doc:expr])+ $name:ident;)+) => {$(
        $(#[doc = $doc])+
        ///
        /// Elementwise; derivative 0, so the result is a constant array (no reverse-pass work).
        ///
        #[doc = concat!(
            "```\n",
            "use revad::{matrix, tape, Var, Vector};\n",
            "let x = Vector::from(vec![-1.5, 0.5, 2.5]);\n",
            "let a = Var::array(x.clone());\n",
            "let c = matrix::", stringify!($name), "(&a);\n",
            "assert_eq!(c.value()[0], revad::", stringify!($name), "(x[0]));\n",
            "matrix::sum(&c).grad();\n",
            "assert_eq!(a.adj().to_vec(), vec![0.0; 3]);\n",
            "tape::reset();\n",
            "```",
        )]
        pub fn $name<S: Storage>(a: &impl Operand<S>) -> Var<S> {
            constant_map(a, crate::$name::<f64>)
        }
    )+};
}

/// `NaN` where the value is NaN (outside the domain), else `d`.
#[inline(always)]
fn nan_or(c: f64, d: impl FnOnce() -> f64) -> f64 {
    if c.is_nan() {
        c
    } else {
        d()
    }
}

vectorised! {
    /// `2ᵃ` of every element; ∂cᵢ/∂aᵢ = cᵢ·ln 2.
    exp2 => |_, c| c * LN_2;
    /// Base-2 logarithm of every element (NaN below zero); ∂cᵢ/∂aᵢ = 1/(aᵢ ln 2).
    log2 => |x, c| nan_or(c, || 1.0 / (x * LN_2));
    /// Base-10 logarithm of every element (NaN below zero); ∂cᵢ/∂aᵢ = 1/(aᵢ ln 10).
    log10 => |x, c| nan_or(c, || 1.0 / (x * LN_10));
    /// Square of every element; ∂cᵢ/∂aᵢ = 2aᵢ.
    square => |x, _| 2.0 * x;
    /// `√a` of every element; ∂cᵢ/∂aᵢ = 1/(2cᵢ).
    sqrt => |_, c| 0.5 / c;
    /// Cube root of every element; ∂cᵢ/∂aᵢ = 1/(3cᵢ²).
    cbrt => |_, c| 1.0 / (3.0 * c * c);
    /// `1/a` of every element; ∂cᵢ/∂aᵢ = −cᵢ².
    inv => |_, c| -(c * c);
    /// `1/√a` of every element; ∂cᵢ/∂aᵢ = −cᵢ/(2aᵢ).
    inv_sqrt => |x, c| -0.5 * c / x;
    /// `1/a²` of every element; ∂cᵢ/∂aᵢ = −2cᵢ/aᵢ.
    inv_square => |x, c| -2.0 * c / x;
    /// Sine of every element; ∂cᵢ/∂aᵢ = cos aᵢ.
    sin => |x: f64, _| x.cos();
    /// Cosine of every element; ∂cᵢ/∂aᵢ = −sin aᵢ.
    cos => |x: f64, _| -x.sin();
    /// Tangent of every element; ∂cᵢ/∂aᵢ = 1 + cᵢ².
    tan => |_, c| 1.0 + c * c;
    /// Arc sine of every element (NaN outside [−1, 1]); ∂cᵢ/∂aᵢ = 1/√((1 − aᵢ)(1 + aᵢ)).
    asin => |x: f64, _| 1.0 / ((1.0 - x) * (1.0 + x)).sqrt();
    /// Arc cosine of every element (NaN outside [−1, 1]); ∂cᵢ/∂aᵢ = −1/√((1 − aᵢ)(1 + aᵢ)).
    acos => |x: f64, _| -1.0 / ((1.0 - x) * (1.0 + x)).sqrt();
    /// Arc tangent of every element; ∂cᵢ/∂aᵢ = 1/(1 + aᵢ²).
    atan => |x: f64, _| if x.abs() < HUGE { 1.0 / (1.0 + x * x) } else { (1.0 / x) * (1.0 / x) };
    /// Hyperbolic sine of every element; ∂cᵢ/∂aᵢ = cosh aᵢ.
    sinh => |x: f64, _| x.cosh();
    /// Hyperbolic cosine of every element; ∂cᵢ/∂aᵢ = sinh aᵢ.
    cosh => |x: f64, _| x.sinh();
    /// Inverse hyperbolic sine of every element; ∂cᵢ/∂aᵢ = 1/√(aᵢ² + 1).
    asinh => |x: f64, _| if x.abs() < HUGE { 1.0 / (x * x + 1.0).sqrt() } else { 1.0 / x.abs() };
    /// Inverse hyperbolic cosine of every element (NaN below 1); ∂cᵢ/∂aᵢ = 1/√((aᵢ − 1)(aᵢ + 1)).
    acosh [1.5, 3.0] => d_acosh;
    /// Inverse hyperbolic tangent of every element (±∞ at ±1, NaN beyond);
    /// ∂cᵢ/∂aᵢ = 1/((1 − aᵢ)(1 + aᵢ)).
    atanh => |x, c| nan_or(c, || 1.0 / ((1.0 - x) * (1.0 + x)));
    /// The error function of every element; ∂cᵢ/∂aᵢ = 2/√π · e^(−aᵢ²).
    erf => |x, _| sn::erf_deriv(x);
    /// The complementary error function of every element; ∂cᵢ/∂aᵢ = −2/√π · e^(−aᵢ²).
    erfc => |x, _| -sn::erf_deriv(x);
    /// Stan's logistic approximation of Φ, `σ(0.07056a³ + 1.5976a)`, of every element;
    /// ∂cᵢ/∂aᵢ = σ(u)σ(−u)(0.21168aᵢ² + 1.5976) with u the argument of σ.
    Phi_approx => |x, _| sn::Phi_approx_deriv(x);
    /// ln |Γ(a)| of every element (+∞ at the poles); ∂cᵢ/∂aᵢ = ψ(aᵢ).
    lgamma => |x, _| sg::digamma(x);
    /// ψ(a) of every element (NaN at the poles); ∂cᵢ/∂aᵢ = ψ′(aᵢ).
    digamma => |x, _| sg::trigamma(x);
    /// ψ′(a) of every element (+∞ at the poles); ∂cᵢ/∂aᵢ = ψ″(aᵢ).
    trigamma => |x, _| sg::tetragamma(x);
    /// The log odds `ln(a/(1 − a))` of every element (NaN outside [0, 1]);
    /// ∂cᵢ/∂aᵢ = 1/(aᵢ(1 − aᵢ)).
    logit => |x, c| if c.is_nan() { f64::NAN } else { 1.0 / (x * (1.0 - x)) };
    /// `ln(1 − eᵃ)` of every element (NaN above 0, −∞ at 0); ∂cᵢ/∂aᵢ = −1/expm1(−aᵢ).
    log1m_exp [-0.5, -2.0] => d_log1m_exp;
    /// The inverse complementary log-log `1 − exp(−eᵃ)` of every element;
    /// ∂cᵢ/∂aᵢ = exp(aᵢ − e^(aᵢ)).
    inv_cloglog => |x: f64, _| (x - x.exp()).exp();
    /// `|a|` of every element; ∂cᵢ/∂aᵢ = sign(aᵢ), 0 at 0 (Stan).
    fabs => d_fabs;
    /// `|a|` of every element (the same as [`fabs`]); ∂cᵢ/∂aᵢ = sign(aᵢ), 0 at 0.
    abs => d_fabs;
}

/// [`map`] through a SIMD kernel: the values from [`elementary::map`], the derivative `d(x, c)`.
fn simd_map<S, D>(a: &impl Operand<S>, f: Function, d: D) -> Var<S>
where
    S: Storage,
    D: Fn(f64, f64) -> f64 + Copy + 'static,
{
    let av = a.value();
    let value = simd_values(&*av, f);
    record(a.key(), &av, value, d)
}

/// The values of `f` on every element of `av` through its SIMD kernel. A long array's are
/// computed by blocks into a buffer in L1 and appended, so that the result's memory is written
/// once (a zeroed vector would be written twice).
fn simd_values<S: Storage>(av: &S, f: Function) -> S {
    const BLOCK: usize = 1024;
    let x = av.as_slice();
    if x.len() <= BLOCK {
        let mut out = vec![0.0; x.len()];
        elementary::map(f, x, &mut out);
        return av.with_data(out);
    }
    let mut out = Vec::with_capacity(x.len());
    let mut buf = [0.0; BLOCK];
    for block in x.chunks(BLOCK) {
        let b = &mut buf[..block.len()];
        elementary::map(f, block, b);
        out.extend_from_slice(b);
    }
    av.with_data(out)
}

/// [`simd_map`] whose derivative also needs a SIMD kernel: āᵢ += c̄ᵢ·d(aᵢ) in one vector pass.
fn simd_map_kernel<S: Storage>(a: &impl Operand<S>, f: Function, d: Derivative) -> Var<S> {
    let av = a.value();
    let value = simd_values(&*av, f);
    let Some(k) = a.key() else {
        return Var::array(value);
    };
    let n = value.len();
    let a_val = av.into_owned();
    let key = tape::record_array_run(n, &[k], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_level(out, n);
            let x = a_val.as_slice();
            let r = below.run_or_fresh(slot_of(k), n);
            pass::elementwise_pass(r, &g, |e, g, r, how| {
                if how == pass::Write::Set {
                    r.fill(0.0);
                }
                elementary::add_scaled(d, &x[e], g, r)
            })
        }
    });
    Var::from_key(value, key)
}

/// The doc example of a function computed by a SIMD kernel: its values are within a few ulps
/// of the scalar function's, and its adjoints the scalar derivative's.
macro_rules! example_simd {
    ($name:ident) => {
        concat!(
            "```\n",
            "use revad::{matrix, tape, Var, Vector};\n",
            "let x = Vector::from(vec![0.25, 0.75]);\n",
            "let a = Var::array(x.clone());\n",
            "let c = matrix::",
            stringify!($name),
            "(&a);\n",
            "// Each element is the scalar function's value to within a few ulps ...\n",
            "let want = revad::",
            stringify!($name),
            "(x[1]);\n",
            "assert!((c.value()[1] - want).abs() <= 4.0 * f64::EPSILON * want.abs());\n",
            "matrix::sum(&c).grad();\n",
            "// ... and each adjoint its derivative.\n",
            "let (_, g) = revad::gradient(|v| revad::",
            stringify!($name),
            "(v[0]), &[x[1]]);\n",
            "assert!((a.adj()[1] - g[0]).abs() <= 1e-14 * g[0].abs().max(1.0));\n",
            "tape::reset();\n",
            "```",
        )
    };
}

/// A SIMD-kernel function's node, its derivative a closure or a kernel.
macro_rules! simd_dispatch {
    (kernel, $a:expr, $f:expr, $d:expr) => {
        simd_map_kernel($a, $f, $d)
    };
    (closure, $a:expr, $f:expr, $d:expr) => {
        simd_map($a, $f, $d)
    };
}

/// The functions computed by SIMD kernels: `name => Function, closure derivative(x, c)` or
/// `name => Function, kernel Derivative`.
macro_rules! vectorised_simd {
    ($($(#[doc = $doc:expr])+ $name:ident => $f:expr, $how:ident $d:expr;)+) => {$(
        $(#[doc = $doc])+
        ///
        /// One node; the values come from the SIMD kernel of [`crate::elementary`] (within
        /// the bound given in this module's documentation of the scalar function's values).
        ///
        #[doc = example_simd!($name)]
        pub fn $name<S: Storage>(a: &impl Operand<S>) -> Var<S> {
            simd_dispatch!($how, a, $f, $d)
        }
    )+
        /// The flat forms of the functions of this table (see [`ArrayMap`]).
        fn named_simd(name: &str) -> Option<ArrayMap> {
            match name {
                $(stringify!($name) => Some(ArrayMap {
                    name: stringify!($name),
                    values: |x, out| elementary::map($f, x, out),
                    reverse: |g, x, c, r| simd_reverse!($how, g, x, c, r, $d),
                }),)+
                _ => None,
            }
        }
    };
}

/// A SIMD-kernel function's reverse pass on plain floats, its derivative a closure or a
/// kernel: what its node's sweep runs.
macro_rules! simd_reverse {
    (kernel, $g:expr, $x:expr, $c:expr, $r:expr, $d:expr) => {{
        let _ = $c;
        elementary::add_scaled($d, $x, $g, $r)
    }};
    (closure, $g:expr, $x:expr, $c:expr, $r:expr, $d:expr) => {
        add_partials($r, $g, $x, $c, $d)
    };
}

vectorised_simd! {
    /// `eᵃ` of every element; ∂cᵢ/∂aᵢ = cᵢ.
    exp => Function::Exp, closure |_, c| c;
    /// `eᵃ − 1` of every element, accurate near 0; ∂cᵢ/∂aᵢ = e^(aᵢ) (a SIMD kernel).
    expm1 => Function::Expm1, kernel Derivative::Exp;
    /// Natural logarithm of every element (NaN below zero); ∂cᵢ/∂aᵢ = 1/aᵢ.
    log => Function::Log, closure |x, c| nan_or(c, || 1.0 / x);
    /// `ln(1 + a)` of every element, accurate near 0 (NaN below −1); ∂cᵢ/∂aᵢ = 1/(1 + aᵢ).
    log1p => Function::Log1p, closure |x, c| nan_or(c, || 1.0 / (1.0 + x));
    /// Hyperbolic tangent of every element; ∂cᵢ/∂aᵢ = 1 − cᵢ², as 4e/(1 + e)² with
    /// e = e^(−2|aᵢ|) (no cancellation; a SIMD kernel).
    tanh => Function::Tanh, kernel Derivative::Tanh;
    /// The logistic sigmoid σ of every element; ∂cᵢ/∂aᵢ = σ(aᵢ)σ(−aᵢ) = e/(1 + e)² with
    /// e = e^(−|aᵢ|) (a SIMD kernel).
    inv_logit => Function::InvLogit, kernel Derivative::InvLogit;
    /// `ln inv_logit(a)` of every element; ∂cᵢ/∂aᵢ = inv_logit(−aᵢ) (a SIMD kernel).
    log_inv_logit => Function::LogInvLogit, kernel Derivative::Sigmoid { arg: -1.0, out: 1.0 };
    /// `ln(1 − inv_logit(a))` of every element; ∂cᵢ/∂aᵢ = −inv_logit(aᵢ) (a SIMD kernel).
    log1m_inv_logit => Function::Log1mInvLogit, kernel Derivative::Sigmoid { arg: 1.0, out: -1.0 };
    /// `ln(1 + eᵃ)` of every element; ∂cᵢ/∂aᵢ = inv_logit(aᵢ) (a SIMD kernel).
    log1p_exp => Function::Log1pExp, kernel Derivative::Sigmoid { arg: 1.0, out: 1.0 };
}

vectorised_checked! {
    /// The standard normal CDF Φ of every element (Stan's cut-offs); ∂cᵢ/∂aᵢ = φ(aᵢ).
    /// A NaN element is an error.
    Phi => |x, _| sn::std_normal_pdf(x);
    /// The standard normal quantile Φ⁻¹ of every element; ∂cᵢ/∂aᵢ = 1/φ(cᵢ). Elements must
    /// lie in [0, 1].
    inv_Phi => |_, c| sn::inv_Phi_deriv(c);
    /// Γ(a) of every element; ∂cᵢ/∂aᵢ = cᵢ ψ(aᵢ). Zero and the negative integers are errors.
    tgamma => |x, c| c * sg::digamma(x);
    /// `ln(1 − a)` of every element; ∂cᵢ/∂aᵢ = −1/(1 − aᵢ). Elements above 1 are errors.
    log1m => |x, _| -1.0 / (1.0 - x);
}

vectorised_constant! {
    /// The largest integer ≤ a, of every element.
    floor;
    /// The smallest integer ≥ a, of every element.
    ceil;
    /// The nearest integer (halves away from zero), of every element.
    round;
    /// Every element rounded toward zero.
    trunc;
    /// Stan's step function of every element: 0 if a < 0, else 1 (also for NaN).
    step;
}

/// d acosh: 1/√((x − 1)(x + 1)), 1/x for huge x, NaN below 1.
fn d_acosh(x: f64, c: f64) -> f64 {
    if c.is_nan() {
        c
    } else if x < HUGE {
        1.0 / ((x - 1.0) * (x + 1.0)).sqrt()
    } else {
        1.0 / x
    }
}

/// d log1m_exp: −1/expm1(−x); NaN above 0 and the limit −∞ at 0.
fn d_log1m_exp(x: f64, _: f64) -> f64 {
    if x > 0.0 {
        f64::NAN
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        -1.0 / (-x).exp_m1()
    }
}

/// d|x|: sign(x), 0 at 0, NaN for NaN (Stan).
fn d_fabs(x: f64, _: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        f64::NAN
    }
}
