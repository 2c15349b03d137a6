//! Vectorised loops shared by the layers, run with the widest SIMD the CPU has (AVX-512, AVX2,
//! NEON, or plain scalar code): `pulp` detects the instruction set once and compiles each loop
//! for it, so this module needs no `unsafe`. The compiler's own vectorisation of the same loops
//! targets the x86-64 baseline (SSE2) and pairs a value with its square instead of neighbouring
//! elements, which left these loops 2–3× slower.
//!
//! Sums run in four vector accumulators: the result differs from a left-to-right sum by
//! rounding only, and may differ in the last bits between machines of different vector width.

use pulp::{Arch, Simd, WithSimd};

pub mod elementary;

/// Below this length the scalar loop runs directly (dispatch costs a few nanoseconds).
const SHORT: usize = 32;

/// One operand of a loop: a broadcast scalar or contiguous values.
#[derive(Clone, Copy)]
pub(crate) enum Lane<'a> {
    One(f64),
    Many(&'a [f64]),
}

impl<'a> Lane<'a> {
    /// Value `i` (a scalar's one value at every `i`).
    #[inline(always)]
    pub(crate) fn at(self, i: usize) -> f64 {
        match self {
            Lane::One(v) => v,
            Lane::Many(a) => a[i],
        }
    }

    /// The first `n` values (a scalar unchanged).
    ///
    /// # Panics
    /// If there are fewer than `n` values.
    fn prefix(self, n: usize) -> Lane<'a> {
        match self {
            Lane::One(v) => Lane::One(v),
            Lane::Many(a) => Lane::Many(&a[..n]),
        }
    }
}

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

/// `(Σ zᵢ², every σᵢ positive and finite)` with `zᵢ = (yᵢ − μᵢ)·(1/σᵢ)`, `y` and `μ`
/// broadcast scalars or as long as `σ`; writes `zᵢ/σᵢ` into `dz` when given. A NaN anywhere
/// makes the sum NaN.
pub(crate) fn scaled_sq_sum(
    y: Lane<'_>,
    mu: Lane<'_>,
    sigma: &[f64],
    dz: Option<&mut [f64]>,
) -> (f64, bool) {
    let n = sigma.len();
    let (y, mu) = (y.prefix(n), mu.prefix(n));
    let dz = dz.map(|d| &mut d[..n]);
    Arch::new().dispatch(ScaledSqSum { y, mu, sigma, dz })
}

/// `Σ ln aᵢ` when every value lies in [2⁻⁶⁴, 2⁶⁴], else `None` (also for NaN): the values are
/// multiplied in vector lanes, each lane split into mantissa and binary exponent every eight
/// factors so nothing overflows, and one logarithm is taken at the end. The rounding of the
/// products adds about `n·ε/2` to the sum.
pub(crate) fn sum_ln_moderate(a: &[f64]) -> Option<f64> {
    Arch::new().dispatch(SumLnModerate { a })
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

/// `out = A·b` for a row-major `A` of `out.len()` rows and `k` columns: each row's dot
/// product in vector lanes along the row (the last, partial chunk through a masked load),
/// four rows at a time so four sums are in flight.
pub(crate) fn mat_vec(a: &[f64], k: usize, b: &[f64], out: &mut [f64]) {
    let (a, b) = (&a[..out.len() * k], &b[..k]);
    if k == 0 {
        out.fill(0.0);
        return;
    }
    Arch::new().dispatch(MatVec { a, k, b, out })
}

/// `b̄ += Aᵀ·g` for a row-major `A` of `g.len()` rows and `k` columns: `b̄` in vector lanes
/// along the row, held in registers when it fits in four vectors, four rows per update.
pub(crate) fn mat_t_vec_add(a: &[f64], k: usize, g: &[f64], b_bar: &mut [f64]) {
    let (a, b_bar) = (&a[..g.len() * k], &mut b_bar[..k]);
    if k == 0 {
        return;
    }
    Arch::new().dispatch(MatTVecAdd { a, k, g, b_bar })
}

/// `Ā += g·bᵀ` for a row-major `Ā` of `g.len()` rows and `k = b.len()` columns (row `i`
/// gains `gᵢ·b`).
pub(crate) fn add_outer(a_bar: &mut [f64], g: &[f64], b: &[f64]) {
    let k = b.len();
    let a_bar = &mut a_bar[..g.len() * k];
    if k == 0 {
        return;
    }
    Arch::new().dispatch(AddOuter { a_bar, g, b })
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

/// `Π aᵢ` in independent partial products, or `None` when a partial product left the normal
/// range at some step (a zero, a subnormal, an overflow or a NaN): only then can the product
/// differ from the ordered one by more than rounding, or a partial `Π aᵢ / aⱼ` lose accuracy.
pub(crate) fn product_normal(a: &[f64]) -> Option<f64> {
    dispatch_long(a.len(), ProductNormal { a })
}

/// `rᵢ += g·(p/aᵢ)`: the partials of a product `p` of normal partial products (see
/// [`product_normal`]).
pub(crate) fn add_quotients(r: &mut [f64], a: &[f64], p: f64, g: f64) {
    let a = &a[..r.len()];
    dispatch_long(r.len(), AddQuotients { r, a, p, g });
}

/// From this many elements on, [`dispatch_long`] runs a loop on the machine's widest
/// instruction set (below it the dispatch costs about what it saves).
const DISPATCH_MIN: usize = 64;

/// Runs `op` over `n` elements: compiled for the widest instruction set the machine has when
/// the run is long, as plain scalar code when it is short.
#[inline(always)]
pub(crate) fn dispatch_long<Op: WithSimd>(n: usize, op: Op) -> Op::Output {
    if n >= DISPATCH_MIN {
        Arch::new().dispatch(op)
    } else {
        op.with_simd(pulp::Scalar::new())
    }
}

/// `Σᵢ f(aᵢ, bᵢ, cᵢ)` (`N` sums at once) over three slices of one length, in eight
/// independent partial sums each; zipped slices carry no bounds checks, so the compiler
/// vectorises the loop (up to eight lanes where it is compiled for AVX-512).
#[inline(always)]
pub(crate) fn zip3_lane_sums<const N: usize>(
    a: &[f64],
    b: &[f64],
    c: &[f64],
    f: impl Fn(f64, f64, f64) -> [f64; N],
) -> [f64; N] {
    const W: usize = 8;
    let n = a.len().min(b.len()).min(c.len());
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    let mut acc = [[0.0; W]; N];
    let (a8, b8, c8) = (a.chunks_exact(W), b.chunks_exact(W), c.chunks_exact(W));
    let mut rest = [0.0; N];
    for ((&x, &y), &z) in a8
        .remainder()
        .iter()
        .zip(b8.remainder())
        .zip(c8.remainder())
    {
        for (r, v) in rest.iter_mut().zip(f(x, y, z)) {
            *r += v;
        }
    }
    for ((x, y), z) in a8.zip(b8).zip(c8) {
        for k in 0..W {
            let v = f(x[k], y[k], z[k]);
            for (s, v) in acc.iter_mut().zip(v) {
                s[k] += v;
            }
        }
    }
    std::array::from_fn(|s| {
        let l = &acc[s];
        (((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))) + rest[s]
    })
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

struct ScaledSqSum<'a> {
    y: Lane<'a>,
    mu: Lane<'a>,
    sigma: &'a [f64],
    dz: Option<&'a mut [f64]>,
}

impl WithSimd for ScaledSqSum<'_> {
    type Output = (f64, bool);
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> (f64, bool) {
        let (sigma, dz) = (self.sigma, self.dz);
        // One instantiation per broadcast/contiguous pair: no branch inside the loop.
        match (self.y, self.mu) {
            (Lane::Many(y), Lane::Many(m)) => {
                scaled_sq_sum_of(simd, Values::new(y), Values::new(m), sigma, dz)
            }
            (Lane::Many(y), Lane::One(m)) => {
                scaled_sq_sum_of(simd, Values::new(y), Splat::new(simd, m), sigma, dz)
            }
            (Lane::One(y), Lane::Many(m)) => {
                scaled_sq_sum_of(simd, Splat::new(simd, y), Values::new(m), sigma, dz)
            }
            (Lane::One(y), Lane::One(m)) => {
                scaled_sq_sum_of(simd, Splat::new(simd, y), Splat::new(simd, m), sigma, dz)
            }
        }
    }
}

/// An operand of a loop over vectors: element `i`, or vector `j` (elements `jL..(j+1)L`).
trait Operand<S: Simd>: Copy {
    fn vector(self, j: usize) -> S::f64s;
    fn scalar(self, i: usize) -> f64;
}

/// A broadcast scalar.
struct Splat<S: Simd>(S::f64s, f64);

impl<S: Simd> Clone for Splat<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Simd> Copy for Splat<S> {}

impl<S: Simd> Splat<S> {
    #[inline(always)]
    fn new(simd: S, x: f64) -> Self {
        Splat(simd.splat_f64s(x), x)
    }
}

impl<S: Simd> Operand<S> for Splat<S> {
    #[inline(always)]
    fn vector(self, _: usize) -> S::f64s {
        self.0
    }
    #[inline(always)]
    fn scalar(self, _: usize) -> f64 {
        self.1
    }
}

/// Contiguous values: the full vectors and the whole slice.
struct Values<'a, S: Simd>(&'a [S::f64s], &'a [f64]);

impl<S: Simd> Clone for Values<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S: Simd> Copy for Values<'_, S> {}

impl<'a, S: Simd> Values<'a, S> {
    #[inline(always)]
    fn new(a: &'a [f64]) -> Self {
        Values(S::as_simd_f64s(a).0, a)
    }
}

impl<S: Simd> Operand<S> for Values<'_, S> {
    #[inline(always)]
    fn vector(self, j: usize) -> S::f64s {
        self.0[j]
    }
    #[inline(always)]
    fn scalar(self, i: usize) -> f64 {
        self.1[i]
    }
}

/// The loop of [`scaled_sq_sum`]: Σz² in four accumulators, min σ and max σ alongside.
#[inline(always)]
fn scaled_sq_sum_of<S: Simd>(
    simd: S,
    y: impl Operand<S>,
    mu: impl Operand<S>,
    sigma: &[f64],
    mut dz: Option<&mut [f64]>,
) -> (f64, bool) {
    let (s_head, s_tail) = S::as_simd_f64s(sigma);
    let zero = simd.splat_f64s(0.0);
    let (mut acc, mut lo, mut hi) = ([zero; 4], simd.splat_f64s(f64::INFINITY), zero);
    // zᵢ/σᵢ, zᵢ² and σᵢ of vector j (a function, not a closure: closures are not inlined into
    // the target-feature context).
    #[inline(always)]
    fn step<S: Simd>(
        simd: S,
        (y, mu, s): (impl Operand<S>, impl Operand<S>, S::f64s),
        j: usize,
    ) -> (S::f64s, S::f64s, S::f64s) {
        let inv = simd.div_f64s(simd.splat_f64s(1.0), s);
        let z = simd.mul_f64s(simd.sub_f64s(y.vector(j), mu.vector(j)), inv);
        (simd.mul_f64s(z, inv), simd.mul_f64s(z, z), s)
    }
    let mut out = dz.as_deref_mut().map(|d| S::as_mut_simd_f64s(d).0);
    let (blocks, rest) = pulp::as_arrays::<4, _>(s_head);
    for (b, block) in blocks.iter().enumerate() {
        for (k, &s) in block.iter().enumerate() {
            let (d, z2, s) = step(simd, (y, mu, s), 4 * b + k);
            if let Some(out) = out.as_deref_mut() {
                out[4 * b + k] = d;
            }
            acc[k] = simd.add_f64s(acc[k], z2);
            (lo, hi) = (simd.min_f64s(lo, s), simd.max_f64s(hi, s));
        }
    }
    for (j, &s) in (4 * blocks.len()..).zip(rest) {
        let (d, z2, s) = step(simd, (y, mu, s), j);
        if let Some(out) = out.as_deref_mut() {
            out[j] = d;
        }
        acc[0] = simd.add_f64s(acc[0], z2);
        (lo, hi) = (simd.min_f64s(lo, s), simd.max_f64s(hi, s));
    }
    let mut t = total(simd, acc);
    let (mut t_lo, mut t_hi) = (simd.reduce_min_f64s(lo), simd.reduce_max_f64s(hi));
    let start = sigma.len() - s_tail.len();
    for (i, &s) in (start..).zip(s_tail) {
        let inv = 1.0 / s;
        let z = (y.scalar(i) - mu.scalar(i)) * inv;
        t += z * z;
        t_lo = t_lo.min(s);
        t_hi = t_hi.max(s);
        if let Some(out) = dz.as_deref_mut() {
            out[i] = z * inv;
        }
    }
    (t, t_lo > 0.0 && t_hi < f64::INFINITY)
}

struct SumLnModerate<'a> {
    a: &'a [f64],
}

impl WithSimd for SumLnModerate<'_> {
    type Output = Option<f64>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Option<f64> {
        const LO: f64 = 5.421_010_862_427_522e-20; // 2⁻⁶⁴
        const HI: f64 = 1.844_674_407_370_955_2e19; // 2⁶⁴
        let (head, tail) = S::as_simd_f64s(self.a);
        let one = simd.splat_f64s(1.0);
        let mut acc = [one; 4];
        // min, max and a plain sum (which NaN cannot slip through, unlike min and max).
        let (mut lo, mut hi) = (simd.splat_f64s(f64::INFINITY), simd.splat_f64s(0.0));
        let mut check = simd.splat_f64s(0.0);
        let mut exponent = 0i64;
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        for chunk in blocks.chunks(8) {
            for block in chunk {
                for k in 0..4 {
                    acc[k] = simd.mul_f64s(acc[k], block[k]);
                    (lo, hi) = (simd.min_f64s(lo, block[k]), simd.max_f64s(hi, block[k]));
                    check = simd.add_f64s(check, block[k]);
                }
            }
            for a in &mut acc {
                exponent += renormalise::<S>(a);
            }
        }
        for &x in rest {
            acc[0] = simd.mul_f64s(acc[0], x);
            (lo, hi) = (simd.min_f64s(lo, x), simd.max_f64s(hi, x));
            check = simd.add_f64s(check, x);
        }
        let (mut lo, mut hi) = (simd.reduce_min_f64s(lo), simd.reduce_max_f64s(hi));
        let (mut p, mut check) = (1.0, simd.reduce_sum_f64s(check));
        for &x in tail {
            p *= x;
            (lo, hi, check) = (lo.min(x), hi.max(x), check + x);
        }
        if !(LO <= lo && hi <= HI && check.is_finite()) {
            return None;
        }
        for a in &mut acc {
            exponent += renormalise::<S>(a);
        }
        // Lanes in [1, 2): their product is below 2^(4·L), the tail's below 2^(64·L).
        let lanes = simd.mul_f64s(simd.mul_f64s(acc[0], acc[1]), simd.mul_f64s(acc[2], acc[3]));
        let product = simd.reduce_product_f64s(lanes) * p;
        Some(product.ln() + exponent as f64 * std::f64::consts::LN_2)
    }
}

struct ProductNormal<'a> {
    a: &'a [f64],
}

impl WithSimd for ProductNormal<'_> {
    type Output = Option<f64>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Option<f64> {
        let (head, tail) = S::as_simd_f64s(self.a);
        let one = simd.splat_f64s(1.0);
        let mut acc = [one; 4];
        // The smallest magnitude each partial product reached: the one way out of the normal
        // range that the end result does not show (a zero, an infinity and a NaN persist).
        let mut low = [one; 4];
        let (blocks, rest) = pulp::as_arrays::<4, _>(head);
        for block in blocks {
            for k in 0..4 {
                acc[k] = simd.mul_f64s(acc[k], block[k]);
                low[k] = simd.min_f64s(low[k], simd.abs_f64s(acc[k]));
            }
        }
        for (k, &x) in rest.iter().enumerate() {
            acc[k] = simd.mul_f64s(acc[k], x);
            low[k] = simd.min_f64s(low[k], simd.abs_f64s(acc[k]));
        }
        let lowest = simd.reduce_min_f64s(
            simd.min_f64s(simd.min_f64s(low[0], low[1]), simd.min_f64s(low[2], low[3])),
        );
        if lowest.is_nan() || lowest < f64::MIN_POSITIVE {
            return None;
        }
        // The lanes, then the tail, one at a time, each step checked.
        let lanes: &[f64] = pulp::bytemuck::cast_slice(&acc);
        let mut p = 1.0f64;
        for &x in lanes.iter().chain(tail) {
            p *= x;
            if !p.is_normal() {
                return None;
            }
        }
        Some(p)
    }
}

struct AddQuotients<'a> {
    r: &'a mut [f64],
    a: &'a [f64],
    p: f64,
    g: f64,
}

impl WithSimd for AddQuotients<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (r_head, r_tail) = S::as_mut_simd_f64s(self.r);
        let (a_head, a_tail) = S::as_simd_f64s(self.a);
        let (p, g) = (simd.splat_f64s(self.p), simd.splat_f64s(self.g));
        for (r, &x) in r_head.iter_mut().zip(a_head) {
            *r = simd.add_f64s(*r, simd.mul_f64s(g, simd.div_f64s(p, x)));
        }
        for (r, &x) in r_tail.iter_mut().zip(a_tail) {
            *r += self.g * (self.p / x);
        }
    }
}

/// `(e, m)` with `x = m·2ᵉ`, `m` in [1, 2), for a positive normal number `x`.
#[inline(always)]
pub(crate) fn split_binary(x: f64) -> (i64, f64) {
    const MANTISSA: u64 = 0x000f_ffff_ffff_ffff;
    const ONE: u64 = 0x3ff0_0000_0000_0000;
    let b = x.to_bits();
    (
        ((b >> 52) & 0x7ff) as i64 - 1023,
        f64::from_bits((b & MANTISSA) | ONE),
    )
}

/// Splits each lane of a vector of positive normal numbers into its mantissa in [1, 2) (left
/// in the lane) and its binary exponent (summed and returned).
#[inline(always)]
fn renormalise<S: Simd>(a: &mut S::f64s) -> i64 {
    let lanes: &mut [f64] = pulp::bytemuck::cast_slice_mut(std::slice::from_mut(a));
    let mut exponent = 0;
    for x in lanes {
        let (e, m) = split_binary(*x);
        exponent += e;
        *x = m;
    }
    exponent
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

/// The number of `f64` lanes of a vector of `S`.
#[inline(always)]
pub(crate) fn lanes<S: Simd>() -> usize {
    std::mem::size_of::<S::f64s>() / std::mem::size_of::<f64>()
}

/// The vector at the start of `x` (at least one vector long).
#[inline(always)]
fn load<S: Simd>(x: &[f64]) -> S::f64s {
    S::as_simd_f64s(x).0[0]
}

/// The last vector of a row of `k ≥ lanes` elements with the lanes before the row's last `k %
/// lanes` elements zeroed: for `b`, the weights of the row's partial last chunk read as an
/// overlapping full vector (no masked load, which `pulp` makes a function call).
#[inline(always)]
fn last_window<S: Simd>(b: &[f64]) -> S::f64s {
    let (n, k) = (lanes::<S>(), b.len());
    let rem = k % n;
    let mut w = [0.0; 16];
    w[n - rem..n].copy_from_slice(&b[k - rem..]);
    load::<S>(&w[..n])
}

struct MatVec<'a> {
    a: &'a [f64],
    k: usize,
    b: &'a [f64],
    out: &'a mut [f64],
}

impl WithSimd for MatVec<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (k, n) = (self.k, lanes::<S>());
        if k < n {
            return mat_vec_scalar(self.a, k, self.b, self.out);
        }
        let b_head = S::as_simd_f64s(self.b).0;
        let b_last = (k % n != 0).then(|| last_window::<S>(self.b));
        let mut blocks = self.a.chunks_exact(4 * k).zip(self.out.chunks_exact_mut(4));
        for (rows, out) in &mut blocks {
            let sums = row_dots::<S, 4>(simd, rows, k, b_head, b_last);
            for (o, s) in out.iter_mut().zip(sums) {
                *o = simd.reduce_sum_f64s(s);
            }
        }
        let done = self.out.len() / 4 * 4;
        for (row, o) in self.a[done * k..]
            .chunks_exact(k)
            .zip(&mut self.out[done..])
        {
            let [s] = row_dots::<S, 1>(simd, row, k, b_head, b_last);
            *o = simd.reduce_sum_f64s(s);
        }
    }
}

/// The lane-wise products with `b` of the `R` rows of `rows` (each `k ≥ lanes` long), one
/// accumulator per row so that `R` chains are in flight: `b_head` holds `b`'s full vectors,
/// `b_last` its partial last chunk as [`last_window`] gives it (when `k` is not a multiple of
/// the lanes).
#[inline(always)]
fn row_dots<S: Simd, const R: usize>(
    simd: S,
    rows: &[f64],
    k: usize,
    b_head: &[S::f64s],
    b_last: Option<S::f64s>,
) -> [S::f64s; R] {
    let n = lanes::<S>();
    let mut acc = [simd.splat_f64s(0.0); R];
    for (c, &bc) in b_head.iter().enumerate() {
        for (r, s) in acc.iter_mut().enumerate() {
            *s = simd.mul_add_f64s(load::<S>(&rows[r * k + c * n..]), bc, *s);
        }
    }
    if let Some(bl) = b_last {
        for (r, s) in acc.iter_mut().enumerate() {
            *s = simd.mul_add_f64s(load::<S>(&rows[(r + 1) * k - n..]), bl, *s);
        }
    }
    acc
}

/// [`mat_vec`] for rows shorter than a vector: four rows at a time in scalar code.
fn mat_vec_scalar(a: &[f64], k: usize, b: &[f64], out: &mut [f64]) {
    let mut blocks = a.chunks_exact(4 * k).zip(out.chunks_exact_mut(4));
    for (rows, o) in &mut blocks {
        let mut s = [0.0; 4];
        for (j, &bj) in b.iter().enumerate() {
            for (r, sr) in s.iter_mut().enumerate() {
                *sr += rows[r * k + j] * bj;
            }
        }
        o.copy_from_slice(&s);
    }
    let done = out.len() / 4 * 4;
    for (row, o) in a[done * k..].chunks_exact(k).zip(&mut out[done..]) {
        *o = row.iter().zip(b).map(|(x, y)| x * y).sum();
    }
}

struct MatTVecAdd<'a> {
    a: &'a [f64],
    k: usize,
    g: &'a [f64],
    b_bar: &'a mut [f64],
}

impl WithSimd for MatTVecAdd<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (k, n, a, g) = (self.k, lanes::<S>(), self.a, self.g);
        if k < n {
            return mat_t_vec_add_scalar(a, k, g, self.b_bar);
        }
        let rem = k % n;
        let zero = simd.splat_f64s(0.0);
        let (d_head, _) = S::as_mut_simd_f64s(self.b_bar);
        let full = d_head.len();
        // The partial last chunk as the row's last full vector, summed apart; the lanes it
        // shares with the chunk before are dropped at the end.
        let mut last = zero;
        let mut blocks = a.chunks_exact(4 * k).zip(g.chunks_exact(4));
        if full <= 3 {
            // b̄'s full chunks in registers for the whole pass.
            let mut acc = [zero; 3];
            acc[..full].copy_from_slice(d_head);
            for (rows, g) in &mut blocks {
                for (c, s) in acc.iter_mut().enumerate().take(full) {
                    *s = simd.add_f64s(*s, four_rows(simd, rows, k, g, c * n));
                }
                if rem != 0 {
                    last = simd.add_f64s(last, four_rows(simd, rows, k, g, k - n));
                }
            }
            d_head.copy_from_slice(&acc[..full]);
        } else {
            for (rows, g) in &mut blocks {
                for (c, d) in d_head.iter_mut().enumerate() {
                    *d = simd.add_f64s(*d, four_rows(simd, rows, k, g, c * n));
                }
                if rem != 0 {
                    last = simd.add_f64s(last, four_rows(simd, rows, k, g, k - n));
                }
            }
        }
        let done = g.len() / 4 * 4;
        for (row, &gi) in a[done * k..].chunks_exact(k).zip(&g[done..]) {
            let gv = simd.splat_f64s(gi);
            for (c, d) in d_head.iter_mut().enumerate() {
                *d = simd.mul_add_f64s(gv, load::<S>(&row[c * n..]), *d);
            }
            if rem != 0 {
                last = simd.mul_add_f64s(gv, load::<S>(&row[k - n..]), last);
            }
        }
        if rem != 0 {
            let mut w = [0.0; 16];
            S::as_mut_simd_f64s(&mut w[..n]).0[0] = last;
            for (d, &x) in self.b_bar[k - rem..].iter_mut().zip(&w[n - rem..n]) {
                *d += x;
            }
        }
    }
}

/// `Σᵣ gᵣ·rows[r][at..at + lanes]` over the four rows of `rows` (rows of length `k`), as two
/// independent products so that successive blocks do not wait on one chain.
#[inline(always)]
fn four_rows<S: Simd>(simd: S, rows: &[f64], k: usize, g: &[f64], at: usize) -> S::f64s {
    let x = |r: usize| load::<S>(&rows[r * k + at..]);
    let t = simd.mul_add_f64s(
        simd.splat_f64s(g[1]),
        x(1),
        simd.mul_f64s(simd.splat_f64s(g[0]), x(0)),
    );
    let u = simd.mul_add_f64s(
        simd.splat_f64s(g[3]),
        x(3),
        simd.mul_f64s(simd.splat_f64s(g[2]), x(2)),
    );
    simd.add_f64s(t, u)
}

/// [`mat_t_vec_add`] for rows shorter than a vector: four rows at a time in scalar code, each
/// `b̄ⱼ` loaded and stored once per four rows.
fn mat_t_vec_add_scalar(a: &[f64], k: usize, g: &[f64], b_bar: &mut [f64]) {
    let mut blocks = a.chunks_exact(4 * k).zip(g.chunks_exact(4));
    for (rows, gs) in &mut blocks {
        for (j, d) in b_bar.iter_mut().enumerate() {
            let x = |r: usize| rows[r * k + j];
            *d += (gs[0] * x(0) + gs[1] * x(1)) + (gs[2] * x(2) + gs[3] * x(3));
        }
    }
    let done = g.len() / 4 * 4;
    for (row, &gi) in a[done * k..].chunks_exact(k).zip(&g[done..]) {
        for (d, &x) in b_bar.iter_mut().zip(row) {
            *d += gi * x;
        }
    }
}

struct AddOuter<'a> {
    a_bar: &'a mut [f64],
    g: &'a [f64],
    b: &'a [f64],
}

impl WithSimd for AddOuter<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let (b_head, b_tail) = S::as_simd_f64s(self.b);
        for (row, &gi) in self.a_bar.chunks_exact_mut(self.b.len()).zip(self.g) {
            let (head, tail) = S::as_mut_simd_f64s(row);
            let gv = simd.splat_f64s(gi);
            for (d, &x) in head.iter_mut().zip(b_head) {
                *d = simd.mul_add_f64s(gv, x, *d);
            }
            for (d, &x) in tail.iter_mut().zip(b_tail) {
                *d += gi * x;
            }
        }
    }
}

/// Runs the test function `$check` (generic over `S: Simd`) on every instruction set this CPU
/// has: scalar, then AVX2 (4 lanes) and AVX-512 (8 lanes) where present.
#[cfg(test)]
macro_rules! on_every_instruction_set {
    ($check:ident) => {{
        $check(pulp::Scalar::new());
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(simd) = pulp::x86::V3::try_new() {
                $check(simd);
            }
            if let Some(simd) = pulp::x86::V4::try_new() {
                $check(simd);
            }
        }
    }};
}
#[cfg(test)]
pub(crate) use on_every_instruction_set;

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

    /// The product kernels at lengths around every block boundary, on every instruction set
    /// this CPU has: the product against the ordered one, `None` for a zero, a NaN, an
    /// infinity, an overflow or a partial product that dips below the normal range and comes
    /// back (at the first, a middle and the last element), and the quotients against a loop.
    #[test]
    fn product_kernels_agree_with_plain_loops() {
        crate::kernels::on_every_instruction_set!(check_product_kernels);
    }

    fn check_product_kernels<S: Simd>(simd: S) {
        let product = |a: &[f64]| ProductNormal { a }.with_simd(simd);
        for n in [1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 129, 1000, 4099] {
            let a: Vec<f64> = (0..n)
                .map(|i| 1.0 + 0.3 * (i as f64 * 0.37).sin())
                .collect();
            let ordered = a.iter().product::<f64>();
            let p = product(&a).expect("normal partial products");
            assert!(
                (p - ordered).abs() <= 1e-13 * n as f64 * ordered.abs(),
                "n={n}"
            );
            for at in [0, n / 2, n - 1] {
                for bad in [0.0, f64::NAN, f64::INFINITY, -f64::INFINITY, 1e-320] {
                    let mut b = a.clone();
                    b[at] = bad;
                    assert_eq!(product(&b), None, "n={n} at={at} bad={bad}");
                }
            }
            // Overflow, and a dip below the normal range that a later element undoes (the
            // result is normal, the steps were not), in one partial product for every lane
            // count: elements 32 apart, from the start and from a multiple of 32 in the middle.
            for m in [0, 32 * (n / 64)] {
                if m + 64 >= n {
                    continue;
                }
                let mut b = a.clone();
                (b[m], b[m + 32]) = (1e300, 1e300);
                assert_eq!(product(&b), None, "n={n} m={m} overflow");
                (b[m], b[m + 32], b[m + 64]) = (1e-300, 1e-300, 1e300);
                assert_eq!(product(&b), None, "n={n} m={m} dip");
                (b[m], b[m + 32], b[m + 64]) = (1e-150, 1e-150, 1e300);
                assert!(product(&b).is_some(), "n={n} m={m} no dip");
            }
            let mut r: Vec<f64> = (0..n).map(|i| i as f64).collect();
            AddQuotients {
                r: &mut r,
                a: &a,
                p,
                g: 0.7,
            }
            .with_simd(simd);
            for i in 0..n {
                let want = i as f64 + 0.7 * (p / a[i]);
                assert!((r[i] - want).abs() <= 1e-15 * want.abs(), "n={n} i={i}");
            }
        }
    }

    /// Matrix·vector kernels at every row count around the four-row blocks and column counts
    /// around each vector width (in registers up to four vectors, through memory beyond),
    /// against plain loops, on every instruction set this CPU has (2, 4 and 8 lanes).
    #[test]
    fn matrix_kernels_agree_with_plain_loops() {
        crate::kernels::on_every_instruction_set!(check_matrix_kernels);
    }

    /// The vector-σ kernels (Σz² with the σ check and zᵢ/σᵢ, and Σ ln σᵢ) at lengths around
    /// every block boundary, with y and μ each broadcast or not, on every instruction set this
    /// CPU has, against plain loops; out-of-range and NaN values, placed in a full vector and
    /// in the tail.
    #[test]
    fn vector_sigma_kernels_agree_with_plain_loops() {
        crate::kernels::on_every_instruction_set!(check_vector_sigma_kernels);
    }

    fn check_vector_sigma_kernels<S: Simd>(simd: S) {
        let close = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * (1.0 + y.abs());
        for n in [
            0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 300, 1027,
        ] {
            let y: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
            let m: Vec<f64> = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
            let s: Vec<f64> = (0..n)
                .map(|i| 0.01 + (i as f64 * 0.7).sin().abs() * 50.0)
                .collect();
            fn lanes(v: &[f64], one: bool) -> (Lane<'_>, Vec<f64>) {
                match one {
                    true => (Lane::One(0.25), vec![0.25; v.len()]),
                    false => (Lane::Many(v), v.to_vec()),
                }
            }
            for (y_one, m_one, with_dz) in [
                (false, false, true),
                (false, true, false),
                (true, false, true),
                (true, true, false),
            ] {
                let ((yl, yv), (ml, mv)) = (lanes(&y, y_one), lanes(&m, m_one));
                let mut dz = vec![f64::NAN; n];
                let (t, ok) = simd.vectorize(ScaledSqSum {
                    y: yl,
                    mu: ml,
                    sigma: &s,
                    dz: with_dz.then_some(&mut dz[..]),
                });
                let z: Vec<f64> = (0..n).map(|i| (yv[i] - mv[i]) * (1.0 / s[i])).collect();
                assert!(close(t, z.iter().map(|z| z * z).sum(), 1e-12), "n={n}");
                assert!(ok, "n={n}");
                if with_dz {
                    for i in 0..n {
                        assert!(close(dz[i], z[i] * (1.0 / s[i]), 1e-15), "n={n} i={i}");
                    }
                }
            }
            let want: f64 = s.iter().map(|x| x.ln()).sum();
            let got = simd.vectorize(SumLnModerate { a: &s });
            assert!(close(got.unwrap(), want, 1e-14), "n={n}");
            // Extremes of the range: products that would overflow without renormalising.
            let big = vec![1.8e19; n];
            let got = simd.vectorize(SumLnModerate { a: &big }).unwrap();
            assert!(close(got, n as f64 * f64::ln(1.8e19), 1e-14), "n={n}");
            for k in [0, n / 2, n.saturating_sub(1)]
                .into_iter()
                .filter(|_| n > 0)
            {
                for (bad, sigma_ok, ln_ok) in [
                    (0.0, false, false),
                    (-2.0, false, false),
                    (f64::INFINITY, false, false),
                    (1e-30, true, false),
                    (1e30, true, false),
                ] {
                    let mut t = s.clone();
                    t[k] = bad;
                    let (_, ok) = simd.vectorize(ScaledSqSum {
                        y: Lane::Many(&y),
                        mu: Lane::One(0.0),
                        sigma: &t,
                        dz: None,
                    });
                    assert_eq!(ok, sigma_ok, "n={n} k={k} {bad}");
                    let ln = simd.vectorize(SumLnModerate { a: &t });
                    assert_eq!(ln.is_some(), ln_ok, "n={n} k={k} {bad}");
                }
                let mut t = s.clone();
                t[k] = f64::NAN;
                let (sum, _) = simd.vectorize(ScaledSqSum {
                    y: Lane::Many(&y),
                    mu: Lane::One(0.0),
                    sigma: &t,
                    dz: None,
                });
                assert!(sum.is_nan(), "n={n} k={k}");
                assert!(simd.vectorize(SumLnModerate { a: &t }).is_none());
            }
        }
        // Out-of-range values fall back to the scalar sum, through the public entry point.
        let wide: [f64; 5] = [1e-300, 1e300, 3.0, 1e-200, 7e250];
        let want: f64 = wide.iter().map(|x| x.ln()).sum();
        let got = crate::special::log_exp::sum_log_slice(&wide);
        assert!(close(got, want, 1e-14));
    }

    fn check_matrix_kernels<S: Simd>(simd: S) {
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + y.abs());
        for r in [0, 1, 3, 4, 5, 8, 13] {
            for k in [1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 31, 33, 40, 65] {
                let a: Vec<f64> = (0..r * k).map(|i| (i as f64 * 0.37).sin()).collect();
                let b: Vec<f64> = (0..k).map(|i| (i as f64 * 0.11).cos()).collect();
                let g: Vec<f64> = (0..r).map(|i| 1.0 - 0.3 * i as f64).collect();
                let mut out = vec![f64::NAN; r];
                simd.vectorize(MatVec {
                    a: &a,
                    k,
                    b: &b,
                    out: &mut out,
                });
                for i in 0..r {
                    let want: f64 = (0..k).map(|j| a[i * k + j] * b[j]).sum();
                    assert!(close(out[i], want), "mat_vec r={r} k={k} i={i}");
                }
                let mut b_bar = b.clone();
                simd.vectorize(MatTVecAdd {
                    a: &a,
                    k,
                    g: &g,
                    b_bar: &mut b_bar,
                });
                for j in 0..k {
                    let want = b[j] + (0..r).map(|i| a[i * k + j] * g[i]).sum::<f64>();
                    assert!(close(b_bar[j], want), "mat_t_vec_add r={r} k={k} j={j}");
                }
                let mut a_bar = a.clone();
                simd.vectorize(AddOuter {
                    a_bar: &mut a_bar,
                    g: &g,
                    b: &b,
                });
                for i in 0..r {
                    for j in 0..k {
                        let want = a[i * k + j] + g[i] * b[j];
                        assert!(close(a_bar[i * k + j], want), "add_outer r={r} k={k}");
                    }
                }
            }
        }
        // The public entry points, including no columns.
        let mut out = vec![f64::NAN; 3];
        mat_vec(&[], 0, &[], &mut out);
        assert_eq!(out, [0.0; 3]);
    }
}
