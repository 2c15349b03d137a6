//! Elementwise functions of one array, each one node.
//!
//! | function | value | ∂cᵢ/∂aᵢ |
//! |---|---|---|
//! | `exp` | eᵃ | cᵢ |
//! | `log` | log a | 1/aᵢ |
//! | `square` | a² | 2aᵢ |

use super::operand::{slot_of, Operand};
use crate::tape::{self, Adjoints};
use crate::var::{Storage, Var};

/// Records `c = f(a)` elementwise with `∂cᵢ/∂aᵢ = d(aᵢ, cᵢ)`.
fn map<S: Storage>(a: &impl Operand<S>, f: fn(f64) -> f64, d: fn(f64, f64) -> f64) -> Var<S> {
    let av = a.value();
    let value = av.with_data(av.as_slice().iter().map(|&x| f(x)).collect());
    let n = value.len();
    let ka = a.key();
    let (a_val, c_val) = (av.clone(), value.clone());
    let keys: Vec<u64> = ka.into_iter().collect();
    let key = tape::record_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            if let Some(k) = ka {
                let (mut below, g) = adj.split_at_result(out, n);
                let r = below.run(slot_of(k), n);
                let (x, c) = (a_val.as_slice(), c_val.as_slice());
                for i in 0..n {
                    r[i] += g[i] * d(x[i], c[i]);
                }
            }
        }
    });
    Var::from_key(value, key)
}

/// `exp` of every element.
pub fn exp<S: Storage>(a: &impl Operand<S>) -> Var<S> {
    map(a, f64::exp, |_, c| c)
}

/// Natural logarithm of every element (NaN below zero).
pub fn log<S: Storage>(a: &impl Operand<S>) -> Var<S> {
    map(a, f64::ln, |x, _| 1.0 / x)
}

/// Square of every element.
pub fn square<S: Storage>(a: &impl Operand<S>) -> Var<S> {
    map(a, |x| x * x, |x, _| 2.0 * x)
}
