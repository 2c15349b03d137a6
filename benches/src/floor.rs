//! The floor of any reverse-mode gradient of the vectorised normal log density on this machine,
//! to read the `normal_lpdf` ratios against: no tape, no copy of the adjoints out and no zeroing
//! after; the forward pass is the f64 evaluation's (Σzᵢ² in one SIMD pass over x) and the
//! reverse pass reads x once and *writes* x̄ᵢ = (μ − xᵢ)/σ² (which no tape can do: it must add,
//! since another node may have reached x̄ first), with the same instruction set as revad's
//! kernels. What a gradient costs beyond this is bookkeeping; what this costs beyond the f64
//! evaluation is the memory traffic of reading x a second time and writing x̄.

use pulp::{Arch, Simd, WithSimd};

/// `(log p, x̄)` of `Σ log normal(xᵢ | μ, σ)` with respect to x, written into `adj`: the value
/// by revad's own f64 evaluation, x̄ by one SIMD pass.
pub fn normal_gradient_floor(x: &[f64], mu: f64, sigma: f64, adj: &mut [f64]) -> f64 {
    let lp = revad::normal_lpdf(x, mu, sigma, false).expect("valid arguments");
    let c = 1.0 / (sigma * sigma);
    Arch::new().dispatch(Write { x, mu, c, adj });
    lp
}

/// `adjᵢ = c·(μ − xᵢ)`.
struct Write<'a> {
    x: &'a [f64],
    mu: f64,
    c: f64,
    adj: &'a mut [f64],
}

impl WithSimd for Write<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (x_head, x_tail) = S::as_simd_f64s(self.x);
        let (d_head, d_tail) = S::as_mut_simd_f64s(self.adj);
        let (mu, c) = (simd.splat_f64s(self.mu), simd.splat_f64s(self.c));
        for (d, &v) in d_head.iter_mut().zip(x_head) {
            *d = simd.mul_f64s(c, simd.sub_f64s(mu, v));
        }
        for (d, &v) in d_tail.iter_mut().zip(x_tail) {
            *d = self.c * (self.mu - v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::densities;

    /// The floor computes the same value and x̄ as revad's gradient (lengths around the
    /// vector widths, so the tails are covered).
    #[test]
    fn the_floor_agrees_with_revad() {
        for n in [1, 7, 37, 4096] {
            let x = densities::data(n, 1);
            let (lp, x_bar, _, _) = densities::normal_gradient(&x, 0.3, 1.2);
            let mut adj = vec![f64::NAN; n];
            let got = normal_gradient_floor(revad::Storage::as_slice(&x), 0.3, 1.2, &mut adj);
            assert!((got - lp).abs() <= 1e-12 * lp.abs(), "n={n}: {got} vs {lp}");
            for (a, b) in adj.iter().zip(x_bar.iter()) {
                assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "n={n}");
            }
        }
    }
}
