//! Recording with a hand-written reverse pass: the tape's callback functions for `Var`s, found
//! under [`revad::tape`](crate::tape).

use super::Var;
use crate::tape::{self, Adjoints, Slot};

/// Records an operation with result `value` whose reverse pass is `f`.
///
/// `inputs` are the variables `f` reads or writes the adjoints of; they are checked to be live.
/// `f` receives the result's slot and the adjoints, reads `adj[out]` and adds into the inputs'
/// adjoints. This is Stan's `make_callback_var` (Steve Bronder,
/// "Thinking About Automatic Differentiation in Fun New Ways").
///
/// ```
/// use revad::{tape, Var};
/// // y = x³ with a hand-written reverse pass: x̄ += 3x²·ȳ.
/// let x = Var::new(2.0);
/// let (xs, xv) = (x.slot(), x.value());
/// let y = tape::callback_var(xv.powi(3), [x], move |out, adj| {
///     adj[xs] += 3.0 * xv * xv * adj[out];
/// });
/// y.grad();
/// assert_eq!(x.adj(), 12.0);
/// tape::reset();
/// ```
#[inline(always)]
pub fn callback_var<const N: usize, F>(value: f64, inputs: [Var; N], f: F) -> Var
where
    F: FnOnce(Slot, &mut Adjoints) + 'static,
{
    tape::callback(value, inputs, f)
}

/// Like [`callback_var`] for any number of inputs; `data` is copied into the arena and handed
/// to `f` as a slice when it runs (no heap allocation).
///
/// ```
/// use revad::{tape, Var};
/// // s = Σ xᵢ as one node.
/// let xs = [Var::new(1.0), Var::new(2.0), Var::new(3.0)];
/// let slots: Vec<_> = xs.iter().map(|x| x.slot()).collect();
/// let s = tape::callback_var_with_data(6.0, &xs, &slots, |slots, out, adj| {
///     let g = adj[out];
///     for &s in slots {
///         adj[s] += g;
///     }
/// });
/// s.grad();
/// assert_eq!(xs[2].adj(), 1.0);
/// tape::reset();
/// ```
pub fn callback_var_with_data<P, F>(value: f64, inputs: &[Var], data: &[P], f: F) -> Var
where
    P: Copy + 'static,
    F: FnOnce(&[P], Slot, &mut Adjoints) + 'static,
{
    tape::callback_with_data(value, inputs, data, f)
}

/// Records a reverse-pass closure with no result variable (Stan's `reverse_pass_callback`).
///
/// `inputs` are the variables whose adjoints `f` touches; they are checked to be live.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// // Copies the adjoint of a vector's first element into a scalar: x̄ += v̄₀.
/// let v = Var::array(Vector::from(vec![1.0, 2.0]));
/// let x = Var::new(5.0);
/// let (first, xs) = (v.first_slot(), x.slot());
/// // Recorded before v is used, so it runs after the uses' reverse passes (newest first).
/// tape::reverse_pass_callback(&[x], move |adj| adj[xs] += adj[first]);
/// let z = matrix::sum(&v) * 3.0;
/// z.grad();
/// assert_eq!(x.adj(), 3.0);
/// tape::reset();
/// ```
pub fn reverse_pass_callback<F>(inputs: &[Var], f: F)
where
    F: FnOnce(&mut Adjoints) + 'static,
{
    tape::reverse_callback(inputs, f)
}

/// Whether `v` belongs to a scope that is still open and has not been reset since `v` was made.
///
/// ```
/// use revad::{tape, Var};
/// let x = Var::new(1.0);
/// assert!(tape::is_live(&x));
/// tape::reset();
/// assert!(!tape::is_live(&x));
/// ```
pub fn is_live(v: &Var) -> bool {
    v.is_live()
}
