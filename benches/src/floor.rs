//! The floor of any reverse-mode gradient of the vectorised normal log density on this machine,
//! to read the `normal_lpdf` ratios against: no tape, no copy of the adjoints out and no zeroing
//! after; the forward pass is the f64 evaluation's (Σzᵢ² in one SIMD pass over x) and the
//! reverse pass reads x once and *writes* x̄ᵢ = (μ − xᵢ)/σ² (which no tape can do: it must add,
//! since another node may have reached x̄ first), with the same instruction set as revad's
//! kernels. What a gradient costs beyond this is bookkeeping; what this costs beyond the f64
//! evaluation is the memory traffic of reading x a second time and writing x̄.

use pulp::{Arch, Simd, WithSimd};

/// `(log p, x̄)` of `Σ log normal(xᵢ | μ, σ)` with respect to x, written into `adj`.
pub fn normal_gradient_floor(x: &[f64], mu: f64, sigma: f64, adj: &mut [f64]) -> f64 {
    let inv = 1.0 / sigma;
    let sum_z2 = Arch::new().dispatch(SumSq { x, mu, inv });
    let n = x.len() as f64;
    Arch::new().dispatch(Write {
        x,
        mu,
        c: inv * inv,
        adj,
    });
    -0.5 * sum_z2 - n * (sigma.ln() + 0.918_938_533_204_672_8)
}

/// `Σ ((xᵢ − μ)/σ)²` in four vector accumulators.
struct SumSq<'a> {
    x: &'a [f64],
    mu: f64,
    inv: f64,
}

impl WithSimd for SumSq<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> f64 {
        let (head, tail) = S::as_simd_f64s(self.x);
        let (mu, inv) = (simd.splat_f64s(self.mu), simd.splat_f64s(self.inv));
        let mut acc = [simd.splat_f64s(0.0); 4];
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        for block in blocks {
            for k in 0..4 {
                let z = simd.mul_f64s(simd.sub_f64s(block[k], mu), inv);
                acc[k] = simd.mul_add_f64s(z, z, acc[k]);
            }
        }
        for &v in rest {
            let z = simd.mul_f64s(simd.sub_f64s(v, mu), inv);
            acc[0] = simd.mul_add_f64s(z, z, acc[0]);
        }
        let t = simd.add_f64s(simd.add_f64s(acc[0], acc[1]), simd.add_f64s(acc[2], acc[3]));
        let tail: f64 = tail
            .iter()
            .map(|v| ((v - self.mu) * self.inv).powi(2))
            .sum();
        simd.reduce_sum_f64s(t) + tail
    }
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
