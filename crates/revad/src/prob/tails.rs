//! The element loop every distribution without a loop of its own goes through: [`run`] sums log
//! terms (a log density, `lcdf`, `lccdf`) or multiplies CDF factors, and the builders turn the
//! per-element partials into one node (`elementwise::eval3/eval4` are conveniences on top).

use super::args::{OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};
use crate::error::Result;

/// How the per-element log values combine.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tail {
    /// A sum of log terms (`_lpdf`, `_lcdf`, `_lccdf`).
    Log,
    /// `exp` of the sum of the log CDF terms (`_cdf`), a product of CDFs.
    Cdf,
}

/// Runs `elem` over `0..n`; `elem(i)` gives element `i`'s log term and its derivatives with
/// respect to each of the `K` arguments. Returns the total and the partials of the total per
/// element: for [`Tail::Cdf`] the total is `exp(Σ log Fᵢ)` and its partials `F·∂log Fᵢ`, all
/// zero when `F` is zero (as in Stan).
pub(super) fn run<const K: usize, E>(
    n: usize,
    tail: Tail,
    mut elem: impl FnMut(usize) -> Result<(f64, [f64; K]), E>,
) -> Result<(f64, Vec<[f64; K]>), E> {
    let mut total = 0.0;
    let mut d = Vec::with_capacity(n);
    for i in 0..n {
        let (v, di) = elem(i)?;
        total += v;
        d.push(di);
    }
    if tail == Tail::Cdf {
        total = total.exp();
        for di in &mut d {
            for x in di.iter_mut() {
                *x = if total == 0.0 { 0.0 } else { total * *x };
            }
        }
    }
    Ok((total, d))
}

/// Adds the partials `d[i][k]` of argument `a` (the `k`-th) to `ops`.
pub(super) fn add<A: ProbArg, const K: usize>(
    ops: &mut OperandsAndPartials,
    a: &A,
    k: usize,
    d: &[[f64; K]],
) {
    if A::IS_VAR {
        let mut p = Partial::of(a);
        for (i, di) in d.iter().enumerate() {
            p.add(a, i, di[k]);
        }
        ops.add_partial(a, p);
    }
}

/// The node of a function of two arguments from the per-element partials `d[i] = [∂a, ∂b]`.
pub(super) fn build2<A: ProbArg, B: ProbArg>(a: &A, b: &B, v: f64, d: &[[f64; 2]]) -> Out<(A, B)>
where
    (A, B): ProbOutput,
{
    let mut ops = OperandsAndPartials::new();
    add(&mut ops, a, 0, d);
    add(&mut ops, b, 1, d);
    ops.finish(v)
}
