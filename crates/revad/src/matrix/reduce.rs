//! Reductions of one array to a scalar, each one node.
//!
//! | function | value | ∂/∂aᵢ |
//! |---|---|---|
//! | `sum` | Σ aᵢ | 1 |
//! | `mean` | Σ aᵢ / n | 1/n |
//! | `dot_self` | Σ aᵢ² | 2aᵢ |

use pulp::{Simd, WithSimd};

use super::operand::slot_of;
use crate::kernels;
use crate::tape::{self, Adjoints};
use crate::var::{Storage, Var};

/// `rᵢ += g` (or `g·pᵢ`): a reduction's reverse pass; `rᵢ = …` when the run is fresh (its
/// adjoints count as zero, see [`tape::InputRun`]).
struct AddScaled<'a> {
    r: tape::InputRun<'a>,
    g: f64,
    p: Option<&'a [f64]>,
}

impl WithSimd for AddScaled<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        use tape::InputRun::{Add, Set};
        let g = self.g;
        match (self.p, self.r) {
            (None, Add(r)) => r.iter_mut().for_each(|x| *x += g),
            (None, Set(r)) => r.set_from(std::iter::repeat(g)),
            (Some(p), Add(r)) => r.iter_mut().zip(p).for_each(|(x, p)| *x += g * p),
            (Some(p), Set(r)) => r.set_from(p.iter().map(|p| g * p)),
        }
    }
}

/// Records `y = value` with `∂y/∂aᵢ = w · pᵢ` where `p` is `partials` (or 1 when `None`).
fn reduce<S: Storage>(a: &Var<S>, value: f64, w: f64, partials: Option<S>) -> Var {
    reduction(a.key(), a.len(), value, w, partials)
}

/// [`reduce`] of the array variable with key `k` and `n` elements.
pub(super) fn reduction<S: Storage>(
    k: u64,
    n: usize,
    value: f64,
    w: f64,
    partials: Option<S>,
) -> Var {
    tape::record_keyed(value, &[k], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, 1);
            let g = g[0];
            match partials.as_ref() {
                // Every x̄ᵢ gets g·w: a level if the run counts as zero (see `tape::Inputs::add_level`).
                None => {
                    if let Some(r) = below.add_level(slot_of(k), n, g * w) {
                        reduced_into(r, g, w, None)
                    }
                }
                Some(p) => {
                    reduced_into(below.run_or_fresh(slot_of(k), n), g, w, Some(p.as_slice()))
                }
            }
        }
    })
}

/// The reverse pass of a reduction with result adjoint `g`: `rᵢ += (g·w)·pᵢ` (`pᵢ` = 1 when
/// `None`), in a long run compiled for the widest instruction set the machine has. A
/// program's scalar form runs `sum`'s (`w` = 1) with it too.
pub(crate) fn add_reduced(r: &mut [f64], g: f64, w: f64, p: Option<&[f64]>) {
    reduced_into(tape::InputRun::Add(r), g, w, p)
}

/// [`add_reduced`] into a run that may be fresh (see [`AddScaled`]).
fn reduced_into(r: tape::InputRun<'_>, g: f64, w: f64, p: Option<&[f64]>) {
    let g = g * w;
    kernels::dispatch_long(r.len(), AddScaled { r, g, p })
}

/// `Σ aᵢ` of every element.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let s = matrix::sum(&a);
/// s.grad();
/// assert_eq!((s.value(), a.adj()), (10.0, array![[1.0, 1.0], [1.0, 1.0]].into_shared()));
/// tape::reset();
/// ```
pub fn sum<S: Storage>(a: &Var<S>) -> Var {
    reduce(a, kernels::sum(a.value().as_slice()), 1.0, None)
}

/// The mean of the elements (NaN for an empty array).
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![1.0, 2.0, 6.0]));
/// let m = matrix::mean(&a);
/// m.grad();
/// assert_eq!((m.value(), a.adj()[0]), (3.0, 1.0 / 3.0));
/// tape::reset();
/// ```
pub fn mean<S: Storage>(a: &Var<S>) -> Var {
    let n = a.len() as f64;
    reduce(a, kernels::sum(a.value().as_slice()) / n, 1.0 / n, None)
}

/// `Σ aᵢ²`.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![1.0, -2.0]));
/// let s = matrix::dot_self(&a);
/// s.grad();
/// assert_eq!((s.value(), a.adj().to_vec()), (5.0, vec![2.0, -4.0]));
/// tape::reset();
/// ```
pub fn dot_self<S: Storage>(a: &Var<S>) -> Var {
    let x = a.value().as_slice();
    let v = kernels::dot(x, x);
    reduce(a, v, 2.0, Some(a.value().clone()))
}
