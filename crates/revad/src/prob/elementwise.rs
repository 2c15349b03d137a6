//! The loop of the location-scale distributions, on top of [`super::tails::run`]: each element's
//! value and partials come from a closure of the arguments' values (three or four of them);
//! the contributions are summed (log densities, log CDFs) or, for a CDF ([`Tail::Cdf`]), the
//! closure gives `log Fᵢ` and the result is `Π Fᵢ` with partials `F · ∂ log Fᵢ`. One node. Also
//! a composite Gauss–Legendre rule for CDFs computed by quadrature.

use std::convert::Infallible;

use super::args::{Out, ProbArg, ProbOutput};
use super::tails::{build3, build4, run, Tail};

/// The loop over `n` elements of three arguments; `f(a, b, c)` gives the element's value (or
/// log CDF factor, for [`Tail::Cdf`]) and its partials `[∂a, ∂b, ∂c]`.
pub(super) fn eval3<A: ProbArg, B: ProbArg, C: ProbArg>(
    a: &A,
    b: &B,
    c: &C,
    n: usize,
    tail: Tail,
    mut f: impl FnMut(f64, f64, f64) -> (f64, [f64; 3]),
) -> Out<(A, B, C)>
where
    (A, B, C): ProbOutput,
{
    let Ok((v, d)) = run::<3, Infallible>(n, tail, |i| Ok(f(a.val(i), b.val(i), c.val(i))));
    build3(a, b, c, v, &d)
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
    tail: Tail,
    mut f: impl FnMut(f64, f64, f64, f64) -> (f64, [f64; 4]),
) -> Out<(A, B, C, D)>
where
    (A, B, C, D): ProbOutput,
{
    let Ok((v, parts)) =
        run::<4, Infallible>(n, tail, |i| Ok(f(a.val(i), b.val(i), c.val(i), d.val(i))));
    build4(a, b, c, d, v, &parts)
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
