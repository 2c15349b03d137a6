//! The shared loop of the continuous distributions with three or four arguments: each element
//! contributes a value and its partials with respect to every argument (computed together by a
//! per-element closure); the contributions are summed (log densities, log CDFs) or, for a CDF,
//! the closure gives `log Fᵢ` and its partials and the result is `Π Fᵢ = exp(Σ log Fᵢ)` with
//! partials `F · ∂ log Fᵢ`. One node is recorded through [`OperandsAndPartials`]. Also a
//! composite Gauss–Legendre rule for CDFs computed by quadrature.

use super::args::{OperandsAndPartials, Out, Partial, ProbArg, ProbOutput};

/// How the per-element contributions combine.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Combine {
    /// `Σ vᵢ` (log densities, log CDFs).
    Sum,
    /// `exp(Σ vᵢ)` where `vᵢ = log Fᵢ` (a CDF as a product); when it is 0 every partial is 0.
    Product,
}

/// Scales the partials of a product `F = exp(total)`.
fn finish(combine: Combine, total: f64, ds: &mut [&mut Partial]) -> f64 {
    match combine {
        Combine::Sum => total,
        Combine::Product => {
            let f = total.exp();
            for d in ds.iter_mut() {
                d.scale(f);
            }
            f
        }
    }
}

/// The loop over `n` elements of three arguments; `f(a, b, c)` gives the element's value and
/// its partials `[∂a, ∂b, ∂c]`.
pub(super) fn eval3<A: ProbArg, B: ProbArg, C: ProbArg>(
    a: &A,
    b: &B,
    c: &C,
    n: usize,
    combine: Combine,
    mut f: impl FnMut(f64, f64, f64) -> (f64, [f64; 3]),
) -> Out<(A, B, C)>
where
    (A, B, C): ProbOutput,
{
    let (mut da, mut db, mut dc) = (Partial::of(a), Partial::of(b), Partial::of(c));
    let mut total = 0.0;
    for i in 0..n {
        let (v, g) = f(a.val(i), b.val(i), c.val(i));
        total += v;
        da.add(a, i, g[0]);
        db.add(b, i, g[1]);
        dc.add(c, i, g[2]);
    }
    let value = finish(combine, total, &mut [&mut da, &mut db, &mut dc]);
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(a, da.into_vec());
    ops.add_owned(b, db.into_vec());
    ops.add_owned(c, dc.into_vec());
    ops.build(value)
}

/// The loop over `n` elements of four arguments; `f(a, b, c, d)` gives the element's value
/// and its partials `[∂a, ∂b, ∂c, ∂d]`.
#[allow(clippy::too_many_arguments)]
pub(super) fn eval4<A: ProbArg, B: ProbArg, C: ProbArg, D: ProbArg>(
    a: &A,
    b: &B,
    c: &C,
    d: &D,
    n: usize,
    combine: Combine,
    mut f: impl FnMut(f64, f64, f64, f64) -> (f64, [f64; 4]),
) -> Out<(A, B, C, D)>
where
    (A, B, C, D): ProbOutput,
{
    let (mut da, mut db, mut dc, mut dd) = (
        Partial::of(a),
        Partial::of(b),
        Partial::of(c),
        Partial::of(d),
    );
    let mut total = 0.0;
    for i in 0..n {
        let (v, g) = f(a.val(i), b.val(i), c.val(i), d.val(i));
        total += v;
        da.add(a, i, g[0]);
        db.add(b, i, g[1]);
        dc.add(c, i, g[2]);
        dd.add(d, i, g[3]);
    }
    let value = finish(combine, total, &mut [&mut da, &mut db, &mut dc, &mut dd]);
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(a, da.into_vec());
    ops.add_owned(b, db.into_vec());
    ops.add_owned(c, dc.into_vec());
    ops.add_owned(d, dd.into_vec());
    ops.build(value)
}

/// Nodes and weights of 8-point Gauss–Legendre quadrature on [−1, 1] (the positive half; the
/// rule is symmetric), from Abramowitz & Stegun table 25.4.
const GL8: [(f64, f64); 4] = [
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_27),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_48),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
];

/// `∫ₐᵇ f` by `panels` equal panels of 8-point Gauss–Legendre (exact for polynomials of degree
/// 15 on each panel); used for the CDFs whose closed forms cancel in a tail.
pub(super) fn gauss_legendre(f: impl Fn(f64) -> f64, a: f64, b: f64, panels: usize) -> f64 {
    let h = (b - a) / panels as f64;
    let mut sum = 0.0;
    for k in 0..panels {
        let mid = a + (k as f64 + 0.5) * h;
        for &(x, w) in &GL8 {
            sum += w * (f(mid - 0.5 * h * x) + f(mid + 0.5 * h * x));
        }
    }
    0.5 * h * sum
}
