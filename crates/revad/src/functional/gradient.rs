//! `gradient(f, x) = (f(x), ∇f(x))`.

use std::cell::RefCell;

use crate::error::Error;
use crate::tape::{self, Key};
use crate::var::Var;

/// Up to this many inputs live on the stack.
const SMALL: usize = 16;

thread_local! {
    /// Input vectors of finished calls, kept for reuse (one per level of nesting, up to 8).
    static POOL: RefCell<Vec<Vec<Var>>> = const { RefCell::new(Vec::new()) };
}

/// New input variables for `x`: one run of slots, whose key is returned, and the variables in
/// order (an exact-size iterator, so that a vector takes them without a capacity check each).
#[inline(always)]
fn new_inputs(x: &[f64]) -> (Key, impl ExactSizeIterator<Item = Var> + '_) {
    let key = tape::new_run(x.len());
    let vars = x
        .iter()
        .enumerate()
        .map(move |(i, &xi)| Var::from_key(xi, tape::nth_key(key, i)));
    (key, vars)
}

/// The input variables of one call (one run of slots), in a vector given back to the pool on
/// drop (also on panic).
struct Inputs {
    vars: Vec<Var>,
    key: Key,
}

impl Inputs {
    fn new(x: &[f64]) -> Inputs {
        let mut vars = POOL
            .try_with(|p| p.borrow_mut().pop())
            .ok()
            .flatten()
            .unwrap_or_default();
        vars.clear();
        let (key, new) = new_inputs(x);
        vars.extend(new);
        Inputs { vars, key }
    }

    /// Copies the inputs' adjoints into `grad`.
    fn adjoints_into(&self, grad: &mut [f64]) {
        tape::adjoint_run_into(self.key, grad);
    }
}

impl Drop for Inputs {
    fn drop(&mut self) {
        let v = std::mem::take(&mut self.vars);
        let _ = POOL.try_with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < 8 {
                p.push(v);
            }
        });
    }
}

/// The value and gradient of `f` at `x`.
///
/// `f` receives the inputs as variables and returns the result. It runs in a fresh nested
/// scope, which is recovered afterwards, also if `f` panics.
///
/// ```
/// // f(x, y) = x·log(y) + log(x·y)·y, the talk's example.
/// let (fx, g) = revad::gradient(|v| v[0] * revad::log(v[1]) + revad::log(v[0] * v[1]) * v[1], &[1.3, 2.4]);
/// let (x, y) = (1.3f64, 2.4f64);
/// assert!((fx - (x * y.ln() + (x * y).ln() * y)).abs() < 1e-14);
/// assert!((g[0] - (y.ln() + y / x)).abs() < 1e-14);
/// assert!((g[1] - (x / y + (x * y).ln() + 1.0)).abs() < 1e-14);
/// ```
pub fn gradient(f: impl FnOnce(&[Var]) -> Var, x: &[f64]) -> (f64, Vec<f64>) {
    let mut g = vec![0.0; x.len()];
    let fx = gradient_into(f, x, &mut g);
    (fx, g)
}

/// [`gradient`] writing ∇f(x) into `grad` (no allocation once warm).
///
/// # Panics
/// If `grad.len() != x.len()`, or as [`Var::grad`] does (e.g. `f` returned a variable made
/// outside the call).
pub fn gradient_into(f: impl FnOnce(&[Var]) -> Var, x: &[f64], grad: &mut [f64]) -> f64 {
    assert_eq!(
        grad.len(),
        x.len(),
        "gradient_into: grad and x differ in length"
    );
    let _scope = tape::nested();
    if x.len() <= SMALL {
        // Few inputs: keep them on the stack.
        let mut buf = [Var::placeholder(); SMALL];
        let (key, new) = new_inputs(x);
        for (b, v) in buf.iter_mut().zip(new) {
            *b = v;
        }
        let y = f(&buf[..x.len()]);
        y.grad();
        tape::adjoint_run_into(key, grad);
        return y.value();
    }
    let inputs = Inputs::new(x);
    let y = f(&inputs.vars);
    y.grad();
    inputs.adjoints_into(grad);
    y.value()
}

/// [`gradient`] for a fallible `f`: its error is returned, and the tape is recovered. A
/// result that cannot be swept (a variable of an outer scope, a stale one) is an [`Error`]
/// too, never a panic.
///
/// ```
/// use revad::{try_gradient, Error, Var};
/// fn sqrt_checked(x: Var) -> Result<Var, Error> {
///     if x.value() < 0.0 {
///         return Err(Error::Domain { function: "sqrt_checked", argument: "x",
///                                    value: x.value(), requirement: "nonnegative".into() });
///     }
///     Ok(x * x)
/// }
/// assert!(try_gradient(|v| sqrt_checked(v[0]), &[-1.0]).is_err());
/// assert_eq!(try_gradient(|v| sqrt_checked(v[0]), &[3.0]).unwrap(), (9.0, vec![6.0]));
/// ```
pub fn try_gradient<E: From<Error>>(
    f: impl FnOnce(&[Var]) -> Result<Var, E>,
    x: &[f64],
) -> Result<(f64, Vec<f64>), E> {
    let _scope = tape::nested();
    let inputs = Inputs::new(x);
    let y = f(&inputs.vars)?;
    y.try_grad()?;
    let mut g = vec![0.0; x.len()];
    inputs.adjoints_into(&mut g);
    Ok((y.value(), g))
}
