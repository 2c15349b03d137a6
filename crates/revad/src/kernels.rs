//! Vectorised loops shared by the layers, run with the widest SIMD the CPU has (AVX-512, AVX2,
//! NEON, or plain scalar code): `pulp` detects the instruction set once and compiles each loop
//! for it, so this module needs no `unsafe`. The compiler's own vectorisation of the same loops
//! targets the x86-64 baseline (SSE2) and pairs a value with its square instead of neighbouring
//! elements, which left these loops 2–3× slower.
//!
//! Sums run in four vector accumulators: the result differs from a left-to-right sum by
//! rounding only, and may differ in the last bits between machines of different vector width.

use pulp::{Arch, Simd, WithSimd};

/// Below this length the scalar loop runs directly (dispatch costs a few nanoseconds).
const SHORT: usize = 32;

/// `(Σ zᵢ, Σ zᵢ²)` with `zᵢ = (aᵢ − m)·k`.
pub(crate) fn sums_shifted(a: &[f64], m: f64, k: f64) -> (f64, f64) {
    if a.len() < SHORT {
        return a.iter().fold((0.0, 0.0), |(s1, s2), &x| {
            let z = (x - m) * k;
            (s1 + z, s2 + z * z)
        });
    }
    Arch::new().dispatch(SumsShifted { a, m, k })
}

/// `Σ ((aᵢ − m)·k)²`.
pub(crate) fn sum_sq_shifted(a: &[f64], m: f64, k: f64) -> f64 {
    if a.len() < SHORT {
        return a.iter().map(|&x| ((x - m) * k) * ((x - m) * k)).sum();
    }
    Arch::new().dispatch(SumSqDiff { a, b: None, m, k })
}

/// `Σ ((aᵢ − bᵢ)·k)²` of two equally long slices.
pub(crate) fn sum_sq_diff(a: &[f64], b: &[f64], k: f64) -> f64 {
    let b = &b[..a.len()];
    if a.len() < SHORT {
        return a
            .iter()
            .zip(b)
            .map(|(x, y)| ((x - y) * k) * ((x - y) * k))
            .sum();
    }
    Arch::new().dispatch(SumSqDiff {
        a,
        b: Some(b),
        m: 0.0,
        k,
    })
}

/// `adjᵢ += c·(m − aᵢ)`, returning `Σ c·(m − aᵢ)`.
pub(crate) fn add_shifted_sum(adj: &mut [f64], a: &[f64], m: f64, c: f64) -> f64 {
    let a = &a[..adj.len()];
    if a.len() < SHORT {
        let mut s = 0.0;
        for (d, &x) in adj.iter_mut().zip(a) {
            let t = c * (m - x);
            *d += t;
            s += t;
        }
        return s;
    }
    Arch::new().dispatch(AddShiftedSum { adj, a, m, c })
}

/// `adjᵢ += c·(bᵢ − aᵢ)`.
pub(crate) fn add_diff(adj: &mut [f64], a: &[f64], b: &[f64], c: f64) {
    let (a, b) = (&a[..adj.len()], &b[..adj.len()]);
    if a.len() < SHORT {
        for ((d, &x), &y) in adj.iter_mut().zip(a).zip(b) {
            *d += c * (y - x);
        }
        return;
    }
    Arch::new().dispatch(AddDiff { adj, a, b, c })
}

/// `Σ aᵢ`.
pub(crate) fn sum(a: &[f64]) -> f64 {
    if a.len() < SHORT {
        return a.iter().sum();
    }
    Arch::new().dispatch(Dot { a, b: None })
}

/// `Σ aᵢbᵢ` of two equally long slices.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let b = &b[..a.len()];
    if a.len() < SHORT {
        return a.iter().zip(b).map(|(x, y)| x * y).sum();
    }
    Arch::new().dispatch(Dot { a, b: Some(b) })
}

/// `Σᵢ f(i)` for `i < n` where `f` is any closure (no SIMD dispatch: the compiler's own
/// vectorisation), in four independent partial sums: a single running sum would bound the loop
/// at one element per addition latency.
#[inline(always)]
pub(crate) fn lane_sum(n: usize, f: impl Fn(usize) -> f64) -> f64 {
    let mut s = [0.0; 4];
    let full = n / 4 * 4;
    for i in (0..full).step_by(4) {
        for (k, sk) in s.iter_mut().enumerate() {
            *sk += f(i + k);
        }
    }
    let rest: f64 = (full..n).map(&f).sum();
    ((s[0] + s[1]) + (s[2] + s[3])) + rest
}

/// The sum of four vector accumulators.
#[inline(always)]
fn total<S: Simd>(simd: S, acc: [S::f64s; 4]) -> f64 {
    let t = simd.add_f64s(simd.add_f64s(acc[0], acc[1]), simd.add_f64s(acc[2], acc[3]));
    simd.reduce_sum_f64s(t)
}

struct SumsShifted<'a> {
    a: &'a [f64],
    m: f64,
    k: f64,
}

impl WithSimd for SumsShifted<'_> {
    type Output = (f64, f64);
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> (f64, f64) {
        let (head, tail) = S::as_simd_f64s(self.a);
        let (m, k) = (simd.splat_f64s(self.m), simd.splat_f64s(self.k));
        let zero = simd.splat_f64s(0.0);
        let (mut s1, mut s2) = ([zero; 4], [zero; 4]);
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        for block in blocks {
            for (j, &x) in block.iter().enumerate() {
                let z = simd.mul_f64s(simd.sub_f64s(x, m), k);
                s1[j] = simd.add_f64s(s1[j], z);
                s2[j] = simd.add_f64s(s2[j], simd.mul_f64s(z, z));
            }
        }
        for &x in rest {
            let z = simd.mul_f64s(simd.sub_f64s(x, m), k);
            s1[0] = simd.add_f64s(s1[0], z);
            s2[0] = simd.add_f64s(s2[0], simd.mul_f64s(z, z));
        }
        let (mut t1, mut t2) = (total(simd, s1), total(simd, s2));
        for &x in tail {
            let z = (x - self.m) * self.k;
            t1 += z;
            t2 += z * z;
        }
        (t1, t2)
    }
}

/// `Σ ((aᵢ − bᵢ)·k)²`, or `Σ ((aᵢ − m)·k)²` without `b`.
struct SumSqDiff<'a> {
    a: &'a [f64],
    b: Option<&'a [f64]>,
    m: f64,
    k: f64,
}

impl WithSimd for SumSqDiff<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> f64 {
        let k = simd.splat_f64s(self.k);
        let zero = simd.splat_f64s(0.0);
        let mut acc = [zero; 4];
        let (head, tail) = S::as_simd_f64s(self.a);
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        let add = |acc: S::f64s, x: S::f64s, y: S::f64s| {
            let z = simd.mul_f64s(simd.sub_f64s(x, y), k);
            simd.add_f64s(acc, simd.mul_f64s(z, z))
        };
        let mut t = match self.b {
            None => {
                let m = simd.splat_f64s(self.m);
                for block in blocks {
                    for (j, &x) in block.iter().enumerate() {
                        acc[j] = add(acc[j], x, m);
                    }
                }
                for &x in rest {
                    acc[0] = add(acc[0], x, m);
                }
                0.0
            }
            Some(b) => {
                let (b_head, _) = S::as_simd_f64s(b);
                let (b_blocks, b_rest) = pulp::as_arrays::<4, _>(b_head);
                for (block, b_block) in blocks.iter().zip(b_blocks) {
                    for j in 0..4 {
                        acc[j] = add(acc[j], block[j], b_block[j]);
                    }
                }
                for (&x, &y) in rest.iter().zip(b_rest) {
                    acc[0] = add(acc[0], x, y);
                }
                0.0
            }
        };
        t += total(simd, acc);
        let start = self.a.len() - tail.len();
        for (i, &x) in tail.iter().enumerate() {
            let y = self.b.map_or(self.m, |b| b[start + i]);
            let z = (x - y) * self.k;
            t += z * z;
        }
        t
    }
}

struct AddShiftedSum<'a> {
    adj: &'a mut [f64],
    a: &'a [f64],
    m: f64,
    c: f64,
}

impl WithSimd for AddShiftedSum<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> f64 {
        let (d_head, d_tail) = S::as_mut_simd_f64s(self.adj);
        let (a_head, a_tail) = S::as_simd_f64s(self.a);
        let (m, c) = (simd.splat_f64s(self.m), simd.splat_f64s(self.c));
        let zero = simd.splat_f64s(0.0);
        let mut acc = [zero; 4];
        let (d_blocks, d_rest) = pulp::as_arrays_mut::<4, _>(d_head);
        let (a_blocks, a_rest) = pulp::as_arrays::<4, _>(a_head);
        for (d, x) in d_blocks.iter_mut().zip(a_blocks) {
            for j in 0..4 {
                let t = simd.mul_f64s(c, simd.sub_f64s(m, x[j]));
                d[j] = simd.add_f64s(d[j], t);
                acc[j] = simd.add_f64s(acc[j], t);
            }
        }
        for (d, &x) in d_rest.iter_mut().zip(a_rest) {
            let t = simd.mul_f64s(c, simd.sub_f64s(m, x));
            *d = simd.add_f64s(*d, t);
            acc[0] = simd.add_f64s(acc[0], t);
        }
        let mut s = total(simd, acc);
        for (d, &x) in d_tail.iter_mut().zip(a_tail) {
            let t = self.c * (self.m - x);
            *d += t;
            s += t;
        }
        s
    }
}

struct AddDiff<'a> {
    adj: &'a mut [f64],
    a: &'a [f64],
    b: &'a [f64],
    c: f64,
}

impl WithSimd for AddDiff<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (d_head, d_tail) = S::as_mut_simd_f64s(self.adj);
        let (a_head, a_tail) = S::as_simd_f64s(self.a);
        let (b_head, b_tail) = S::as_simd_f64s(self.b);
        let c = simd.splat_f64s(self.c);
        for ((d, &x), &y) in d_head.iter_mut().zip(a_head).zip(b_head) {
            *d = simd.add_f64s(*d, simd.mul_f64s(c, simd.sub_f64s(y, x)));
        }
        for ((d, &x), &y) in d_tail.iter_mut().zip(a_tail).zip(b_tail) {
            *d += self.c * (y - x);
        }
    }
}

/// `Σ aᵢbᵢ`, or `Σ aᵢ` without `b`.
struct Dot<'a> {
    a: &'a [f64],
    b: Option<&'a [f64]>,
}

impl WithSimd for Dot<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> f64 {
        let zero = simd.splat_f64s(0.0);
        let mut acc = [zero; 4];
        let (head, tail) = S::as_simd_f64s(self.a);
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        match self.b {
            None => {
                for block in blocks {
                    for j in 0..4 {
                        acc[j] = simd.add_f64s(acc[j], block[j]);
                    }
                }
                for &x in rest {
                    acc[0] = simd.add_f64s(acc[0], x);
                }
            }
            Some(b) => {
                let (b_head, _) = S::as_simd_f64s(b);
                let (b_blocks, b_rest) = pulp::as_arrays::<4, _>(b_head);
                for (block, b_block) in blocks.iter().zip(b_blocks) {
                    for j in 0..4 {
                        acc[j] = simd.add_f64s(acc[j], simd.mul_f64s(block[j], b_block[j]));
                    }
                }
                for (&x, &y) in rest.iter().zip(b_rest) {
                    acc[0] = simd.add_f64s(acc[0], simd.mul_f64s(x, y));
                }
            }
        }
        let mut t = total(simd, acc);
        let start = self.a.len() - tail.len();
        for (i, &x) in tail.iter().enumerate() {
            t += self.b.map_or(x, |b| x * b[start + i]);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lengths around every block boundary of every vector width, against plain loops.
    #[test]
    fn kernels_agree_with_plain_loops() {
        for n in [
            0, 1, 7, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 1000, 4099,
        ] {
            let a: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + y.abs());
            let (m, k) = (0.3, 1.7);
            let z: Vec<f64> = a.iter().map(|x| (x - m) * k).collect();
            let (s1, s2) = sums_shifted(&a, m, k);
            assert!(close(s1, z.iter().sum()), "n={n}");
            assert!(close(s2, z.iter().map(|t| t * t).sum()), "n={n}");
            assert!(close(sum_sq_shifted(&a, m, k), s2), "n={n}");
            let want: f64 = a.iter().zip(&b).map(|(x, y)| ((x - y) * k).powi(2)).sum();
            assert!(close(sum_sq_diff(&a, &b, k), want), "n={n}");
            assert!(close(sum(&a), a.iter().sum()), "n={n}");
            assert!(
                close(dot(&a, &b), a.iter().zip(&b).map(|(x, y)| x * y).sum()),
                "n={n}"
            );
            let mut adj = b.clone();
            let s = add_shifted_sum(&mut adj, &a, m, k);
            for i in 0..n {
                assert!(close(adj[i], b[i] + k * (m - a[i])), "n={n} i={i}");
            }
            assert!(close(s, a.iter().map(|x| k * (m - x)).sum()), "n={n}");
            let mut adj = b.clone();
            add_diff(&mut adj, &a, &b, k);
            for i in 0..n {
                assert!(close(adj[i], b[i] + k * (b[i] - a[i])), "n={n} i={i}");
            }
        }
    }
}
