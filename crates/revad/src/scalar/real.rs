//! `Real`: the scalars that functions accept (`f64` or `Var`), and the helpers that turn a value
//! and its partial derivatives into a recorded operation.
//!
//! A function is written once, generic over its arguments: with only `f64` arguments it returns
//! `f64` and records nothing; with any `Var` argument it returns a `Var` and records one node
//! whose reverse pass computes the partials lazily from the stored values (the Stan Math paper,
//! section 8).
//!
//! ```
//! use revad::{hypot, Var};
//! let c: f64 = hypot(3.0, 4.0); // plain evaluation
//! let x = Var::new(3.0);
//! let h: Var = hypot(x, 4.0); // recorded: only x gets a partial
//! h.grad();
//! assert_eq!((c, x.adj()), (5.0, 0.6));
//! revad::tape::reset();
//! ```

use std::fmt::Debug;

use crate::tape::{self, Adjoints};
use crate::var::Var;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for crate::var::Var {}
}

/// A scalar argument: a constant `f64` or a [`Var`].
pub trait Real: Copy + Debug + sealed::Sealed + 'static {
    /// The value.
    fn value(self) -> f64;

    /// The variable, if this is one.
    #[doc(hidden)]
    fn to_var(self) -> Option<Var>;

    /// `val` for `f64`; `record()` for `Var`.
    #[doc(hidden)]
    fn from_value_or(val: f64, record: impl FnOnce() -> Var) -> Self;
}

impl Real for f64 {
    #[inline(always)]
    fn value(self) -> f64 {
        self
    }
    #[inline(always)]
    fn to_var(self) -> Option<Var> {
        None
    }
    #[inline(always)]
    fn from_value_or(val: f64, _record: impl FnOnce() -> Var) -> f64 {
        val
    }
}

impl Real for Var {
    #[inline(always)]
    fn value(self) -> f64 {
        self.val
    }
    #[inline(always)]
    fn to_var(self) -> Option<Var> {
        Some(self)
    }
    #[inline(always)]
    fn from_value_or(_val: f64, record: impl FnOnce() -> Var) -> Var {
        record()
    }
}

/// The result type of a function of two scalars: `f64` if both are `f64`, else `Var`.
pub trait Promote<B: Real>: Real {
    /// `f64` or `Var`.
    type Output: Real;
}

impl Promote<f64> for f64 {
    type Output = f64;
}
impl Promote<Var> for f64 {
    type Output = Var;
}
impl Promote<f64> for Var {
    type Output = Var;
}
impl Promote<Var> for Var {
    type Output = Var;
}

/// The result type of a function of three scalars.
pub type Promote3<A, B, C> = <<A as Promote<B>>::Output as Promote<C>>::Output;

/// A partial derivative of a unary function, from `(x, f(x))`.
pub(crate) trait Partial1: Fn(f64, f64) -> f64 + Copy + 'static {}
impl<F: Fn(f64, f64) -> f64 + Copy + 'static> Partial1 for F {}

/// A partial derivative of a binary function, from `(a, b, f(a, b))`.
pub(crate) trait Partial2: Fn(f64, f64, f64) -> f64 + Copy + 'static {}
impl<F: Fn(f64, f64, f64) -> f64 + Copy + 'static> Partial2 for F {}

/// `f(x)` with value `val` and derivative `d(x, val)`, computed in the reverse pass.
#[inline(always)]
pub(crate) fn unary<T: Real>(x: T, val: f64, d: impl Partial1) -> T {
    T::from_value_or(val, || match x.to_var() {
        Some(x) => record_unary(x, val, d),
        None => unreachable!("an f64 argument gives an f64 result"),
    })
}

/// Records `y = f(x)` with value `val`; the reverse pass adds `ȳ · d(x, y)` to `x̄`.
#[inline(always)]
pub(crate) fn record_unary(x: Var, val: f64, d: impl Partial1) -> Var {
    let (xs, xv) = (x.slot(), x.val);
    tape::record(val, [x], move |out| {
        move |adj: &mut Adjoints| {
            let g = adj[out];
            // A zero adjoint contributes nothing, even where the partial is NaN or infinite
            // (the side `if_else`/`where` did not choose).
            if g != 0.0 {
                adj[xs] += g * d(xv, val);
            }
        }
    })
}

/// `f(a, b)` with value `val` and partials `da(a, b, val)`, `db(a, b, val)`; only the partials
/// of variable arguments are recorded and evaluated.
#[inline(always)]
pub(crate) fn binary<A, B>(a: A, b: B, val: f64, da: impl Partial2, db: impl Partial2) -> A::Output
where
    A: Promote<B>,
    B: Real,
{
    A::Output::from_value_or(val, || match (a.to_var(), b.to_var()) {
        (Some(x), Some(y)) => record_binary(x, y, val, da, db),
        (Some(x), None) => {
            let bv = b.value();
            record_unary(x, val, move |xv, v| da(xv, bv, v))
        }
        (None, Some(y)) => {
            let av = a.value();
            record_unary(y, val, move |yv, v| db(av, yv, v))
        }
        (None, None) => unreachable!("two f64 arguments give an f64 result"),
    })
}

/// Records `z = f(x, y)` with both arguments variables.
#[inline(always)]
pub(crate) fn record_binary(x: Var, y: Var, val: f64, da: impl Partial2, db: impl Partial2) -> Var {
    let (xs, xv, ys, yv) = (x.slot(), x.val, y.slot(), y.val);
    tape::record(val, [x, y], move |out| {
        move |adj: &mut Adjoints| {
            let g = adj[out];
            if g != 0.0 {
                adj[xs] += g * da(xv, yv, val);
                adj[ys] += g * db(xv, yv, val);
            }
        }
    })
}

/// `f(a, b, c)` with value `val` and partials given the three arguments and the value.
/// Constant arguments get no partial; one node for any mix.
#[inline]
pub(crate) fn ternary<A, B, C>(
    a: A,
    b: B,
    c: C,
    val: f64,
    partials: impl Fn(f64, f64, f64, f64) -> [f64; 3] + Copy + 'static,
) -> Promote3<A, B, C>
where
    A: Promote<B>,
    B: Real,
    C: Real,
    A::Output: Promote<C>,
{
    let vars = [a.to_var(), b.to_var(), c.to_var()];
    let (av, bv, cv) = (a.value(), b.value(), c.value());
    Promote3::<A, B, C>::from_value_or(val, || {
        let slots = vars.map(|v| v.map(|v| v.slot()));
        let inputs =
            vars.map(|v| v.unwrap_or_else(|| vars.iter().flatten().next().copied().unwrap()));
        tape::record(val, inputs, move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                let p = partials(av, bv, cv, val);
                for (s, d) in slots.iter().zip(p) {
                    if let Some(s) = s {
                        adj[*s] += g * d;
                    }
                }
            }
        })
    })
}
