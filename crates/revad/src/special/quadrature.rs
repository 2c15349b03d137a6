//! Composite Gauss–Legendre quadrature, for the CDFs whose closed forms cancel in a tail (the
//! skew normal's and the exponentially modified normal's).

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
pub(crate) fn gauss_legendre(f: impl Fn(f64) -> f64, a: f64, b: f64, panels: usize) -> f64 {
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
