//! Arithmetic operators (Stan Math paper, appendix A.2), compound assignment, and comparisons
//! by value (A.3).
//!
//! | op | value | partials |
//! |---|---|---|
//! | `a + b` | a + b | 1, 1 |
//! | `a - b` | a − b | 1, −1 |
//! | `a * b` | a·b | b, a |
//! | `a / b` | a/b | 1/b, −a/b² |
//! | `-a` | −a | −1 |
//!
//! Each has Var⊗Var, Var⊗f64 and f64⊗Var forms; a constant operand gets no partial and is not
//! promoted to a variable.

use std::cmp::Ordering;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Not, Sub, SubAssign};

use crate::tape::{self, Adjoints};
use crate::var::Var;

impl Add for Var {
    type Output = Var;
    /// `a + b`: ∂/∂a = ∂/∂b = 1.
    #[inline(always)]
    fn add(self, b: Var) -> Var {
        // A running sum `t = t + x` grows one record (see `tape::add`).
        tape::add(self.val + b.val, self, b)
    }
}

impl Sub for Var {
    type Output = Var;
    /// `a − b`: ∂/∂a = 1, ∂/∂b = −1.
    #[inline(always)]
    fn sub(self, b: Var) -> Var {
        let (a_s, b_s) = (self.slot(), b.slot());
        tape::record(self.val - b.val, [self, b], move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                adj[a_s] += g;
                adj[b_s] -= g;
            }
        })
    }
}

impl Mul for Var {
    type Output = Var;
    /// `a·b`: ∂/∂a = b, ∂/∂b = a.
    #[inline(always)]
    fn mul(self, b: Var) -> Var {
        // A running product `t = t·x` grows one record (see `tape::mul`). In the reverse pass
        // a zero adjoint contributes nothing, even next to a NaN or infinite operand.
        tape::mul(self.val * b.val, (self, self.val), (b, b.val))
    }
}

impl Div for Var {
    type Output = Var;
    /// `a/b`: ∂/∂a = 1/b, ∂/∂b = −(a/b)/b.
    #[inline(always)]
    fn div(self, b: Var) -> Var {
        let (a_s, b_s, bv) = (self.slot(), b.slot(), b.val);
        let q = self.val / bv;
        tape::record(q, [self, b], move |out| {
            move |adj: &mut Adjoints| {
                if adj[out] != 0.0 {
                    let g = adj[out] / bv;
                    adj[a_s] += g;
                    adj[b_s] -= g * q;
                }
            }
        })
    }
}

impl Neg for Var {
    type Output = Var;
    /// `−a`: ∂/∂a = −1.
    #[inline(always)]
    fn neg(self) -> Var {
        let a_s = self.slot();
        tape::record(-self.val, [self], move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                adj[a_s] -= g;
            }
        })
    }
}

/// Records `y = value` with `∂y/∂x = d` (a constant known in the forward pass).
#[inline(always)]
fn linear(x: Var, value: f64, d: f64) -> Var {
    let xs = x.slot();
    tape::record(value, [x], move |out| {
        move |adj: &mut Adjoints| {
            let g = adj[out];
            adj[xs] += g * d;
        }
    })
}

/// Records `y = value` with `∂y/∂x = 1`.
#[inline(always)]
fn shift(x: Var, value: f64) -> Var {
    let xs = x.slot();
    tape::record(value, [x], move |out| {
        move |adj: &mut Adjoints| {
            let g = adj[out];
            adj[xs] += g;
        }
    })
}

impl Add<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn add(self, b: f64) -> Var {
        shift(self, self.val + b)
    }
}

impl Add<Var> for f64 {
    type Output = Var;
    #[inline(always)]
    fn add(self, b: Var) -> Var {
        shift(b, self + b.val)
    }
}

impl Sub<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn sub(self, b: f64) -> Var {
        shift(self, self.val - b)
    }
}

impl Sub<Var> for f64 {
    type Output = Var;
    #[inline(always)]
    fn sub(self, b: Var) -> Var {
        linear(b, self - b.val, -1.0)
    }
}

impl Mul<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn mul(self, b: f64) -> Var {
        linear(self, self.val * b, b)
    }
}

impl Mul<Var> for f64 {
    type Output = Var;
    #[inline(always)]
    fn mul(self, b: Var) -> Var {
        linear(b, self * b.val, self)
    }
}

impl Div<f64> for Var {
    type Output = Var;
    #[inline(always)]
    fn div(self, b: f64) -> Var {
        linear(self, self.val / b, 1.0 / b)
    }
}

impl Div<Var> for f64 {
    type Output = Var;
    /// `c/b`: ∂/∂b = −(c/b)/b.
    #[inline(always)]
    fn div(self, b: Var) -> Var {
        let (b_s, bv) = (b.slot(), b.val);
        let q = self / bv;
        tape::record(q, [b], move |out| {
            move |adj: &mut Adjoints| {
                let g = adj[out];
                adj[b_s] -= g * q / bv;
            }
        })
    }
}

macro_rules! compound {
    ($($Trait:ident $method:ident $op:tt),*) => {$(
        impl $Trait<Var> for Var {
            #[inline(always)]
            fn $method(&mut self, b: Var) {
                *self = *self $op b;
            }
        }
        impl $Trait<f64> for Var {
            #[inline(always)]
            fn $method(&mut self, b: f64) {
                *self = *self $op b;
            }
        }
    )*};
}
compound!(AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

// Comparisons are by value (A.3) and record nothing.

impl PartialEq for Var {
    #[inline]
    fn eq(&self, b: &Var) -> bool {
        self.val == b.val
    }
}

impl PartialEq<f64> for Var {
    #[inline]
    fn eq(&self, b: &f64) -> bool {
        self.val == *b
    }
}

impl PartialEq<Var> for f64 {
    #[inline]
    fn eq(&self, b: &Var) -> bool {
        *self == b.val
    }
}

impl PartialOrd for Var {
    #[inline]
    fn partial_cmp(&self, b: &Var) -> Option<Ordering> {
        self.val.partial_cmp(&b.val)
    }
}

impl PartialOrd<f64> for Var {
    #[inline]
    fn partial_cmp(&self, b: &f64) -> Option<Ordering> {
        self.val.partial_cmp(b)
    }
}

impl PartialOrd<Var> for f64 {
    #[inline]
    fn partial_cmp(&self, b: &Var) -> Option<Ordering> {
        self.partial_cmp(&b.val)
    }
}

impl Not for Var {
    type Output = bool;
    /// Stan's `!x`: true when the value is zero.
    #[inline]
    fn not(self) -> bool {
        self.val == 0.0
    }
}

/// `Σ xᵢ` as one node (not a chain of additions): ∂/∂xᵢ = 1.
///
/// ```
/// use revad::{sum, Var};
/// let xs: Vec<Var> = (1..=4).map(|i| Var::new(i as f64)).collect();
/// let s = sum(&xs);
/// s.grad();
/// assert_eq!((s.value(), xs[3].adj()), (10.0, 1.0));
/// assert_eq!(revad::tape::stats().continuations, 1);
/// revad::tape::reset();
/// ```
pub fn sum(xs: &[Var]) -> Var {
    let total = xs.iter().map(|x| x.val).sum();
    tape::sum_node(total, xs)
}
