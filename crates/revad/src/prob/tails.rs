//! The element loop every distribution without a loop of its own goes through: [`run`] sums log
//! terms (a log density, `lcdf`, `lccdf`) or multiplies CDF factors, and the builders turn the
//! per-element partials into one node (`elementwise::eval3/eval4` are conveniences on top).

use super::args::{OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};
use crate::error::Result;
use crate::special::gamma::{digamma, lgamma};
use crate::special::inc_gamma::{gamma_p_derivative, inc_gamma};

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

/// The node of a function of three arguments from the per-element partials.
pub(super) fn build3<A: ProbArg, B: ProbArg, C: ProbArg>(
    a: &A,
    b: &B,
    c: &C,
    v: f64,
    d: &[[f64; 3]],
) -> Out<(A, B, C)>
where
    (A, B, C): ProbOutput,
{
    let mut ops = OperandsAndPartials::new();
    add(&mut ops, a, 0, d);
    add(&mut ops, b, 1, d);
    add(&mut ops, c, 2, d);
    ops.finish(v)
}

/// The node of a function of four arguments from the per-element partials.
pub(super) fn build4<A: ProbArg, B: ProbArg, C: ProbArg, D: ProbArg>(
    a: &A,
    b: &B,
    c: &C,
    e: &D,
    v: f64,
    d: &[[f64; 4]],
) -> Out<(A, B, C, D)>
where
    (A, B, C, D): ProbOutput,
{
    let mut ops = OperandsAndPartials::new();
    add(&mut ops, a, 0, d);
    add(&mut ops, b, 1, d);
    add(&mut ops, c, 2, d);
    add(&mut ops, e, 3, d);
    ops.finish(v)
}

/// log P(a, z) or log Q(a, z) (`upper`) of the regularised incomplete gamma function, with
/// its derivatives in a (only when `grad_a`, else 0) and z. At z = 0 and z = ∞ the limits.
pub(super) fn log_inc_gamma(
    function: &'static str,
    a: f64,
    z: f64,
    upper: bool,
    grad_a: bool,
) -> Result<(f64, f64, f64)> {
    if z == 0.0 {
        return Ok(if upper {
            (0.0, 0.0, -gamma_p_derivative(a, 0.0))
        } else {
            (f64::NEG_INFINITY, 0.0, f64::INFINITY)
        });
    }
    if z == f64::INFINITY {
        return Ok(if upper {
            (f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY)
        } else {
            (0.0, 0.0, 0.0)
        });
    }
    let g = inc_gamma(function, a, z, grad_a)?;
    let tiny = if upper { g.q } else { g.p };
    if tiny < 1e-280 {
        return Ok(log_inc_gamma_tail(a, z, upper, grad_a));
    }
    let (v, other) = if upper { (g.q, g.p) } else { (g.p, g.q) };
    // log(1 − other) where the value is close to 1, keeping the tiny complement's accuracy
    let lv = if v > 0.5 { (-other).ln_1p() } else { v.ln() };
    let dens = gamma_p_derivative(a, z);
    // density / value, in log space where either is tiny
    let ratio = if dens > 1e-280 && v > 1e-280 {
        dens / v
    } else {
        ((a - 1.0) * z.ln() - z - lgamma(a) - lv).exp()
    };
    let sign = if upper { -1.0 } else { 1.0 };
    Ok((lv, sign * g.dp_da / v, sign * ratio))
}

/// log Q(a, z) for large z (Q underflowing) by the asymptotic series
/// Γ(a, z) ~ z^(a−1) e^(−z) Σₖ uₖ/zᵏ, uₖ = (a − 1)⋯(a − k) (DLMF 8.11.2), and log P(a, z) for
/// small z by P = z^a e^(−z)/Γ(a + 1) · Σₙ zⁿ/((a + 1)⋯(a + n)) (DLMF 8.7.1), both in log space;
/// with the derivatives of the logs in a (when `grad_a`) and z.
fn log_inc_gamma_tail(a: f64, z: f64, upper: bool, grad_a: bool) -> (f64, f64, f64) {
    let (mut sum, mut dsum) = (1.0, 0.0);
    let (mut t, mut dt) = (1.0f64, 0.0f64);
    for k in 1..5000 {
        let k = k as f64;
        let (nt, ndt) = if upper {
            (t * (a - k) / z, (dt * (a - k) + t) / z)
        } else {
            let r = z / (a + k);
            (t * r, dt * r - t * r / (a + k))
        };
        // the asymptotic series starts to diverge (for integer a, t ends at 0 while its
        // a-derivative goes on)
        if upper && (nt.abs() > t.abs() || (t == 0.0 && ndt.abs() > dt.abs())) {
            break;
        }
        t = nt;
        dt = ndt;
        sum += t;
        dsum += dt;
        if t.abs() <= 1e-17 * sum.abs() && (!grad_a || dt.abs() <= 1e-17 * dsum.abs()) {
            break;
        }
    }
    let ln_z = z.ln();
    let log_dens = (a - 1.0) * ln_z - z - lgamma(a);
    if upper {
        let lv = log_dens + sum.ln();
        let da = if grad_a {
            ln_z - digamma(a) + dsum / sum
        } else {
            0.0
        };
        (lv, da, -(log_dens - lv).exp())
    } else {
        let lv = a * ln_z - z - lgamma(a + 1.0) + sum.ln();
        let da = if grad_a {
            ln_z - digamma(a + 1.0) + dsum / sum
        } else {
            0.0
        };
        (lv, da, (log_dens - lv).exp())
    }
}
