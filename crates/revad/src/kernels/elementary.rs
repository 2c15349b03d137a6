//! Vectorised elementary functions on `f64` slices: `exp`, `log`, `log1p`, `expm1` to within
//! one ulp, and the functions built on them (`inv_logit`, `log_inv_logit`, `log1m_inv_logit`,
//! `log1p_exp`, `tanh`, `log_sum_exp`), run with the widest SIMD the CPU has (AVX-512, AVX2 or
//! plain scalar code, chosen at run time by `pulp`).
//!
//! Each function has a dispatching form ([`map`], [`log_sum_exp`]) and a form for one
//! instruction set ([`map_with`], [`log_sum_exp_with`]), so that tests can run every path.
//! The array functions of [`crate::matrix`] use them; the scalar functions (`revad::exp`, ...)
//! keep the standard library's (libm's) results, so an array's element and the scalar function
//! of the same value may differ in the last bit (within the bounds below).
//!
//! # Algorithms
//!
//! - `exp`: Cody–Waite range reduction `x = k·ln 2 + r`, `|r| ≤ ln 2 / 2`, with `ln 2` split in
//!   two parts so that `k·ln2_hi` is exact (W. J. Cody and W. Waite, *Software Manual for the
//!   Elementary Functions*, 1980; the constants are fdlibm's `e_exp.c`), the rounding error of
//!   `r` carried as a correction term, and `eʳ = 1 + r + r²·q(r)` with the Taylor polynomial
//!   `q` to `r¹¹/13!` (truncation error below 2⁻⁵⁷). The sum `1 + r` is formed exactly
//!   (Fast2Sum, Dekker 1971) and `2ᵏ` is built from its bits. On AVX-512 `exp` (and every
//!   kernel built on it) uses Tang's table-driven method instead (P. T. P. Tang, ACM TOMS
//!   15(2), 1989): `x = (16m + j)·ln2/16 + r`, `|r| ≤ ln2/32`, `eˣ = 2ᵐ·2^(j/16)·eʳ` with the
//!   16 values `2^(j/16)` and their rounding errors held in registers and looked up with a
//!   two-register permute, and a degree-6 minimax polynomial for `eʳ − 1` (ten multiply-adds
//!   per vector in all, against seventeen).
//! - `expm1`: the same reduction and polynomial, `eˣ − 1 = 2ᵏ(1 + r + d) − 1` summed in the
//!   order that cancels nothing for each `k` (as in fdlibm's `s_expm1.c`: exact
//!   `2ᵏ − 1` plus `2ᵏr` through TwoSum for small `k`, the `−1` folded into the tail for large
//!   `k`).
//! - `log`, `log1p`: fdlibm's `e_log.c`/`s_log1p.c` method: `x = 2ᵏ·(1 + f)` with
//!   `1 + f ∈ [√½, √2)`, `s = f/(2 + f)`, `ln(1 + f) = f − f²/2 + s·(f²/2 + R(s²))` with its
//!   degree-14 minimax polynomial `R` (error below 2⁻⁵⁸·⁴⁵, evaluated by Horner's rule), and for
//!   `log1p` the rounding error of `1 + x` added back as `c/(1 + x)`.
//! - `inv_logit`, `log_inv_logit`, `log1m_inv_logit`, `log1p_exp`: Stan's stable forms from
//!   `e = exp(−|x|)`: `σ(x) = 1/(1 + e)` or `e/(1 + e)`, `ln σ(x) = min(x, 0) − log1p(e)`,
//!   `log1p_exp(x) = max(x, 0) + log1p(e)`.
//! - `tanh(x) = sign(x)·t/(t + 2)` with `t = expm1(2|x|)` (no cancellation near 0).
//! - `log_sum_exp`: one pass for the maximum `m`, one for `Σ e^(xᵢ − m)` over the elements
//!   below `m`, then `m + log1p(Σ)` (the count of elements equal to `m`, less one, added exactly).
//!   A single pass with each lane's sum rescaled when its maximum grows (the "online"
//!   normaliser of Milakov and Gimelshein, 2018, per block of vectors) was measured 10% slower
//!   at 4096 and at 10⁶ elements: the maximum's pass costs less than the rescaling.
//!
//! Arguments outside a kernel's fast range (NaN, ±∞, subnormal arguments of `log`, results
//! that overflow or are subnormal) are rare: a lane that meets one is recomputed with the
//! standard library's function (or the crate's scalar function for the derived ones), so
//! special values are exactly the scalar ones.
//!
//! # Accuracy
//!
//! Measured against correctly rounded values (mpmath) on 10⁶ points per function over its
//! domain, on AVX-512, AVX2 and the scalar path (the latter without fused multiply-add):
//!
//! | function | max error (ulp) |
//! |---|---|
//! | `exp`, `log`, `log1p`, `expm1` | ≤ 1 |
//! | `inv_logit`, `log1p_exp`, `tanh` | ≤ 2 |
//! | `log_inv_logit`, `log1m_inv_logit` | ≤ 2 (relative to the result, which is near 0 for x ≫ 0) |

use pulp::{Arch, Simd, WithSimd};

#[cfg(target_arch = "x86_64")]
mod avx512;

/// The elementwise functions of [`map`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    /// `eˣ`.
    Exp,
    /// `ln x`.
    Log,
    /// `ln(1 + x)`.
    Log1p,
    /// `eˣ − 1`.
    Expm1,
    /// `1/(1 + e⁻ˣ)`.
    InvLogit,
    /// `ln(1/(1 + e⁻ˣ))`.
    LogInvLogit,
    /// `ln(1 − 1/(1 + e⁻ˣ))`.
    Log1mInvLogit,
    /// `ln(1 + eˣ)`.
    Log1pExp,
    /// `tanh x`.
    Tanh,
}

impl Function {
    /// The scalar reference: the standard library's function, or the crate's scalar version.
    pub fn scalar(self, x: f64) -> f64 {
        use crate::special::log_exp as sl;
        match self {
            Function::Exp => x.exp(),
            Function::Log => x.ln(),
            Function::Log1p => x.ln_1p(),
            Function::Expm1 => x.exp_m1(),
            Function::InvLogit => sl::inv_logit(x),
            Function::LogInvLogit => sl::log_inv_logit(x),
            Function::Log1mInvLogit => sl::log1m_inv_logit(x),
            Function::Log1pExp => sl::log1p_exp(x),
            Function::Tanh => x.tanh(),
        }
    }
}

/// `out[i] = f(x[i])` with the widest instruction set available.
///
/// ```
/// use revad::elementary::{map, Function};
/// let x = [0.0, 1.0, -1.0, f64::INFINITY];
/// let mut out = [0.0; 4];
/// map(Function::Exp, &x, &mut out);
/// assert_eq!(out[0], 1.0);
/// assert!((out[1] - std::f64::consts::E).abs() <= f64::EPSILON * 3.0);
/// assert_eq!(out[3], f64::INFINITY);
/// ```
///
/// # Panics
/// If `out` and `x` differ in length.
pub fn map(f: Function, x: &[f64], out: &mut [f64]) {
    assert_eq!(x.len(), out.len(), "map: lengths differ");
    Arch::new().dispatch(MapFn { f, x, out });
}

/// [`map`] on one instruction set (`pulp::Scalar::new()`, `pulp::x86::V3::try_new()`, ...).
///
/// # Panics
/// If `out` and `x` differ in length.
pub fn map_with<S: Simd>(simd: S, f: Function, x: &[f64], out: &mut [f64]) {
    assert_eq!(x.len(), out.len(), "map_with: lengths differ");
    simd.vectorize(MapFn { f, x, out });
}

/// `ln Σᵢ e^(xᵢ)` without overflow, with the widest instruction set available: −∞ for an
/// empty slice, the maximum if it is infinite (any +∞ gives +∞, all −∞ gives −∞), NaN if any
/// element is NaN.
///
/// ```
/// let v = revad::elementary::log_sum_exp(&[1000.0, 1000.0]);
/// assert_eq!(v, 1000.0 + std::f64::consts::LN_2);
/// ```
pub fn log_sum_exp(x: &[f64]) -> f64 {
    Arch::new().dispatch(LogSumExp { x })
}

/// [`log_sum_exp`] on one instruction set.
pub fn log_sum_exp_with<S: Simd>(simd: S, x: &[f64]) -> f64 {
    simd.vectorize(LogSumExp { x })
}

/// `(m, ln(1 + Σ_{i≠k} e^(xᵢ − m)))` with `m = x_k` the maximum, when the maximum is finite
/// and no element is NaN (elements may be −∞); `None` otherwise. `log_sum_exp(x) = m + l`.
pub(crate) fn log_sum_exp_parts(x: &[f64]) -> Option<(f64, f64)> {
    Arch::new().dispatch(LseParts { x, out: None })
}

/// [`log_sum_exp_parts`] that also writes `w[i] = e^(x[i] − m)` (1 at the maximum and its
/// ties, 0 below e⁻⁷⁰⁸) in its second pass, so that a reverse pass can take the partials
/// `e^(x[i] − m)·e^(−l)` from `w` instead of recomputing the exponentials. `w` is left
/// unspecified when the result is `None`.
///
/// # Panics
/// If `w` and `x` differ in length.
pub(crate) fn log_sum_exp_parts_into(x: &[f64], w: &mut [f64]) -> Option<(f64, f64)> {
    assert_eq!(x.len(), w.len(), "log_sum_exp_parts_into: lengths differ");
    Arch::new().dispatch(LseParts { x, out: Some(w) })
}

/// `r[i] += g · e^((x[i] − m) − l)`: the reverse pass of `log_sum_exp` with `(m, l)` from
/// [`log_sum_exp_parts`].
pub(crate) fn add_lse_weights(r: &mut [f64], x: &[f64], m: f64, l: f64, g: f64) {
    let x = &x[..r.len()];
    Arch::new().dispatch(LseWeights { r, x, m, l, g });
}

/// The derivatives the array functions' reverse passes need from a kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Derivative {
    /// `eˣ`.
    Exp,
    /// `σ(x)·σ(−x)`.
    InvLogit,
    /// `s·σ(a·x)` for `a, s = ±1`.
    Sigmoid { arg: f64, out: f64 },
    /// `1 − tanh²(x)`.
    Tanh,
}

/// `r[i] += g[i] · d(x[i])`, skipping elements whose `g[i]` is 0 (where `d` may be NaN).
pub(crate) fn add_scaled(d: Derivative, x: &[f64], g: &[f64], r: &mut [f64]) {
    let (x, g) = (&x[..r.len()], &g[..r.len()]);
    match d {
        Derivative::Exp => Arch::new().dispatch(AddScaled { k: Exp, x, g, r }),
        Derivative::InvLogit => Arch::new().dispatch(AddScaled {
            k: DInvLogit,
            x,
            g,
            r,
        }),
        Derivative::Sigmoid { arg, out } => Arch::new().dispatch(AddScaled {
            k: Sigmoid { arg, out },
            x,
            g,
            r,
        }),
        Derivative::Tanh => Arch::new().dispatch(AddScaled { k: DTanh, x, g, r }),
    }
}

// ---------------------------------------------------------------------------------------------
// Lane arithmetic.

/// Short names for the vector operations the kernels use. `fma` is `pulp`'s `mul_add_e`: fused
/// where the instruction set has it (AVX2, AVX-512), a plain multiply and add on the scalar
/// path (never a software fused multiply-add); every kernel is accurate either way.
#[derive(Clone, Copy)]
struct V<S: Simd>(S);

impl<S: Simd> V<S> {
    #[inline(always)]
    fn c(self, v: f64) -> S::f64s {
        self.0.splat_f64s(v)
    }
    #[inline(always)]
    fn add(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.add_f64s(a, b)
    }
    #[inline(always)]
    fn sub(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.sub_f64s(a, b)
    }
    #[inline(always)]
    fn mul(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.mul_f64s(a, b)
    }
    #[inline(always)]
    fn div(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.div_f64s(a, b)
    }
    /// `a·b + c`.
    #[inline(always)]
    fn fma(self, a: S::f64s, b: S::f64s, c: S::f64s) -> S::f64s {
        self.0.mul_add_e_f64s(a, b, c)
    }
    #[inline(always)]
    fn abs(self, a: S::f64s) -> S::f64s {
        self.0.abs_f64s(a)
    }
    #[inline(always)]
    fn min(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.min_f64s(a, b)
    }
    #[inline(always)]
    fn max(self, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.max_f64s(a, b)
    }
    #[inline(always)]
    fn select(self, m: S::m64s, a: S::f64s, b: S::f64s) -> S::f64s {
        self.0.select_f64s(m, a, b)
    }
    #[inline(always)]
    fn lt(self, a: S::f64s, b: S::f64s) -> S::m64s {
        self.0.less_than_f64s(a, b)
    }
    #[inline(always)]
    fn le(self, a: S::f64s, b: S::f64s) -> S::m64s {
        self.0.less_than_or_equal_f64s(a, b)
    }
    #[inline(always)]
    fn eq(self, a: S::f64s, b: S::f64s) -> S::m64s {
        self.0.equal_f64s(a, b)
    }
    #[inline(always)]
    fn and(self, a: S::m64s, b: S::m64s) -> S::m64s {
        self.0.and_m64s(a, b)
    }
    #[inline(always)]
    fn bits(self, a: S::f64s) -> S::u64s {
        self.0.transmute_u64s_f64s(a)
    }
    #[inline(always)]
    fn float(self, a: S::u64s) -> S::f64s {
        self.0.transmute_f64s_u64s(a)
    }
    #[inline(always)]
    fn u(self, v: u64) -> S::u64s {
        self.0.splat_u64s(v)
    }
    /// Each lane shifted left by 52 bits (into the exponent field).
    #[inline(always)]
    fn shl52(self, mut a: S::u64s) -> S::u64s {
        for v in pulp::bytemuck::cast_slice_mut::<S::u64s, u64>(std::slice::from_mut(&mut a)) {
            *v <<= 52;
        }
        a
    }
    /// Each lane shifted right by 52 bits.
    #[inline(always)]
    fn shr52(self, mut a: S::u64s) -> S::u64s {
        for v in pulp::bytemuck::cast_slice_mut::<S::u64s, u64>(std::slice::from_mut(&mut a)) {
            *v >>= 52;
        }
        a
    }
    /// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly, for `|a| ≥ |b|` (Fast2Sum).
    #[inline(always)]
    fn fast_two_sum(self, a: S::f64s, b: S::f64s) -> (S::f64s, S::f64s) {
        let s = self.add(a, b);
        (s, self.add(self.sub(a, s), b))
    }
    /// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (Knuth's TwoSum).
    #[inline(always)]
    fn two_sum(self, a: S::f64s, b: S::f64s) -> (S::f64s, S::f64s) {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let e = self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb));
        (s, e)
    }
}

// ---------------------------------------------------------------------------------------------
// The cores: valid on their fast range only (callers check it).

/// 1.5·2⁵²: adding it rounds a value of magnitude below 2⁵¹ to an integer, left in the low
/// bits of the sum.
const SHIFT: f64 = 6_755_399_441_055_744.0;
const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 in two parts (fdlibm): `LN2_HI` has 32 significant bits, so `k·LN2_HI` is exact for
/// `|k| < 2²⁰`.
const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);

/// The reduction `x = k·ln 2 + r + c` of exp and expm1: `(t, r, d, k)` with `t = SHIFT + k`
/// (whose bits hold `k`), `|r| ≤ ln 2 / 2` and `e^(r + c) − 1 = r + d` to about 2⁻⁶⁰ relative.
#[inline(always)]
fn exp_reduce<S: Simd>(v: V<S>, x: S::f64s) -> (S::f64s, S::f64s, S::f64s, S::f64s) {
    let t = v.fma(x, v.c(LOG2_E), v.c(SHIFT));
    let k = v.sub(t, v.c(SHIFT));
    // hi = x − k·ln2_hi is exact (Sterbenz); r = hi − lo rounds, c is that rounding.
    let hi = v.fma(v.c(-LN2_HI), k, x);
    let lo = v.mul(k, v.c(LN2_LO));
    let r = v.sub(hi, lo);
    let c = v.sub(v.sub(hi, r), lo);
    // q(r) = (eʳ − 1 − r)/r² = Σ_{n≥2} rⁿ⁻²/n!, to n = 13, in even and odd halves.
    let r2 = v.mul(r, r);
    const C: [f64; 12] = [
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    let mut even = v.c(C[10]);
    let mut odd = v.c(C[11]);
    for j in (0..5).rev() {
        even = v.fma(even, r2, v.c(C[2 * j]));
        odd = v.fma(odd, r2, v.c(C[2 * j + 1]));
    }
    let q = v.fma(odd, r, even);
    // e^(r + c) − 1 − r = r²q + c(1 + r) (c² and c·r² are below 2⁻¹⁰⁷).
    let d = v.fma(r2, q, v.fma(c, r, c));
    (t, r, d, k)
}

/// `2ᵏ` from `t = SHIFT + k`, for `−1022 ≤ k ≤ 1023`.
#[inline(always)]
fn pow2<S: Simd>(v: V<S>, t: S::f64s) -> S::f64s {
    v.float(v.shl52(v.0.add_u64s(v.bits(t), v.u(1023))))
}

/// `eˣ` for `|x| ≤ 708` (the result and `2ᵏ` normal).
#[inline(always)]
fn exp_core<S: Simd>(v: V<S>, x: S::f64s) -> S::f64s {
    #[cfg(target_arch = "x86_64")]
    if let Some(s4) = avx512::token(v.0) {
        return avx512::from(avx512::exp(s4, avx512::to(x)));
    }
    let (t, r, d, _) = exp_reduce(v, x);
    let (s, e) = v.fast_two_sum(v.c(1.0), r);
    v.mul(v.add(s, v.add(e, d)), pow2(v, t))
}

/// `eˣ − 1` for `−38 ≤ x ≤ 709`.
#[inline(always)]
fn expm1_core<S: Simd>(v: V<S>, x: S::f64s) -> S::f64s {
    let (t, r, d, k) = exp_reduce(v, x);
    let scale = pow2(v, t);
    // k in [−1, 53]: 2ᵏ − 1 is exact; add 2ᵏr through TwoSum, then the tail.
    let (s, e) = v.two_sum(v.sub(scale, v.c(1.0)), v.mul(scale, r));
    let mid = v.add(s, v.fma(scale, d, e));
    // k ≤ −2: 2ᵏ(1 + r + d) ≤ 0.36, the result near −1 loses nothing.
    let low = v.fma(scale, v.add(v.c(1.0), v.add(r, d)), v.c(-1.0));
    // k ≥ 54: 2ᵏ(1 + r + (d − 2⁻ᵏ)), the −1 folded into the tail (2⁻ᵏ clamped at 2⁻¹⁰⁰,
    // whose effect is far below an ulp).
    let tc = v.min(t, v.c(SHIFT + 100.0));
    let inv = v.float(v.shl52(v.0.sub_u64s(v.u(1023 + 0x4338_0000_0000_0000), v.bits(tc))));
    let (s1, e1) = v.fast_two_sum(v.c(1.0), r);
    let high = v.mul(scale, v.add(s1, v.add(e1, v.sub(d, inv))));
    let is_low = v.lt(k, v.c(-1.5));
    let is_high = v.lt(v.c(53.5), k);
    v.select(is_low, low, v.select(is_high, high, mid))
}

/// `(k, z)` with `x = 2ᵏz`, `z ∈ [√½, √2)`, for positive normal finite `x`.
#[inline(always)]
fn log_reduce<S: Simd>(v: V<S>, x: S::f64s) -> (S::f64s, S::f64s) {
    // bits(1) − bits(√½): the exponent of x·(1/√½) rounded down, biased by 1023.
    const OFF: u64 = 0x3FF0_0000_0000_0000 - 0x3FE6_A09E_667F_3BCD;
    const TOP: u64 = 0xFFF0_0000_0000_0000;
    const ONE: u64 = 0x3FF0_0000_0000_0000;
    let s = v.0;
    let ix = v.bits(x);
    let w = s.add_u64s(ix, v.u(OFF));
    let z = v.float(s.add_u64s(s.sub_u64s(ix, s.and_u64s(w, v.u(TOP))), v.u(ONE)));
    // k + 1023 in the low mantissa bits of 2⁵², then unbiased.
    let kb = v.float(s.or_u64s(v.shr52(w), v.u(0x4330_0000_0000_0000)));
    let k = v.sub(kb, v.c(4_503_599_627_370_496.0 + 1023.0));
    (k, z)
}

/// `k·ln 2 + ln(1 + f) + c` from `s = f/(2 + f)` (fdlibm's `e_log.c`), for `1 + f ∈ [√½, √2)`.
#[inline(always)]
fn log_tail<S: Simd>(v: V<S>, k: S::f64s, f: S::f64s, s: S::f64s, c: S::f64s) -> S::f64s {
    // fdlibm's Lg1..Lg7 (e_log.c), by their bits.
    const LG: [f64; 7] = [
        f64::from_bits(0x3FE5_5555_5555_5593),
        f64::from_bits(0x3FD9_9999_9997_FA04),
        f64::from_bits(0x3FD2_4924_9422_9359),
        f64::from_bits(0x3FCC_71C5_1D8E_78AF),
        f64::from_bits(0x3FC7_4664_96CB_03DE),
        f64::from_bits(0x3FC3_9A09_D078_C69F),
        f64::from_bits(0x3FC2_F112_DF3E_5244),
    ];
    let hfsq = v.mul(v.c(0.5), v.mul(f, f));
    // R(z) = z·(Lg1 + z·(Lg2 + ...)) by Horner's rule: fewer operations than fdlibm's split
    // into even and odd halves (which shortens the dependency chain, not the count).
    let z = v.mul(s, s);
    let mut r = v.c(LG[6]);
    for &c in LG[..6].iter().rev() {
        r = v.fma(r, z, v.c(c));
    }
    let r = v.mul(z, r);
    // k·ln2_hi − ((hfsq − (s·(hfsq + R) + (k·ln2_lo + c))) − f)
    let inner = v.fma(s, v.add(hfsq, r), v.fma(k, v.c(LN2_LO), c));
    v.fma(k, v.c(LN2_HI), v.sub(f, v.sub(hfsq, inner)))
}

/// `ln x` for positive normal finite `x`.
#[inline(always)]
fn log_core<S: Simd>(v: V<S>, x: S::f64s) -> S::f64s {
    let (k, z) = log_reduce(v, x);
    let f = v.sub(z, v.c(1.0));
    let s = v.div(f, v.add(v.c(2.0), f));
    log_tail(v, k, f, s, v.c(0.0))
}

/// `ln(1 + x)` for finite `x > −1`.
#[inline(always)]
fn log1p_core<S: Simd>(v: V<S>, x: S::f64s) -> S::f64s {
    let one = v.c(1.0);
    let u = v.add(one, x);
    // The rounding error of 1 + x (Fast2Sum with the larger operand first).
    let small = v.lt(v.abs(x), one);
    let e = v.select(small, v.sub(x, v.sub(u, one)), v.sub(one, v.sub(u, x)));
    let (k, z) = log_reduce(v, u);
    // k = 0: f = x exactly and nothing to correct.
    let k0 = v.eq(k, v.c(0.0));
    let f = v.select(k0, x, v.sub(z, one));
    let e = v.select(k0, v.c(0.0), e);
    // One division for s = f/(2 + f) and c = e/u (s needs no correct rounding: its term is a
    // fiftieth of the result at most).
    let two_f = v.add(v.c(2.0), f);
    let q = v.div(one, v.mul(u, two_f));
    let s = v.mul(v.mul(f, u), q);
    let c = v.mul(v.mul(e, two_f), q);
    log_tail(v, k, f, s, c)
}

// ---------------------------------------------------------------------------------------------
// The kernels: a fast path, the range where it is valid, and the scalar reference.

/// An elementwise function on vectors: the value on `in_range` lanes, the scalar reference
/// elsewhere (with the same test on one element in `in_range_scalar`).
trait Kernel: Copy {
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s;
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s;
    fn in_range_scalar(self, x: f64) -> bool;
    fn scalar(self, x: f64) -> f64;
}

/// `|x| ≤ bound` (false for NaN).
#[inline(always)]
fn abs_le<S: Simd>(v: V<S>, x: S::f64s, bound: f64) -> S::m64s {
    v.le(v.abs(x), v.c(bound))
}

#[derive(Clone, Copy)]
struct Exp;
impl Kernel for Exp {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        exp_core(v, x)
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        abs_le(v, x, 708.0)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        x.abs() <= 708.0
    }
    fn scalar(self, x: f64) -> f64 {
        x.exp()
    }
}

#[derive(Clone, Copy)]
struct Log;
impl Kernel for Log {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        log_core(v, x)
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        v.and(v.le(v.c(f64::MIN_POSITIVE), x), v.le(x, v.c(f64::MAX)))
    }
    fn in_range_scalar(self, x: f64) -> bool {
        (f64::MIN_POSITIVE..=f64::MAX).contains(&x)
    }
    fn scalar(self, x: f64) -> f64 {
        x.ln()
    }
}

#[derive(Clone, Copy)]
struct Log1p;
impl Kernel for Log1p {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        // ±0 keeps its sign, as in the standard library.
        v.select(v.eq(x, v.c(0.0)), x, log1p_core(v, x))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        v.and(v.lt(v.c(-1.0), x), v.le(x, v.c(f64::MAX)))
    }
    fn in_range_scalar(self, x: f64) -> bool {
        -1.0 < x && x <= f64::MAX
    }
    fn scalar(self, x: f64) -> f64 {
        x.ln_1p()
    }
}

#[derive(Clone, Copy)]
struct Expm1;
impl Kernel for Expm1 {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        // ±0 keeps its sign, as in the standard library.
        v.select(v.eq(x, v.c(0.0)), x, expm1_core(v, x))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        v.and(v.le(v.c(-38.0), x), v.le(x, v.c(709.0)))
    }
    fn in_range_scalar(self, x: f64) -> bool {
        (-38.0..=709.0).contains(&x)
    }
    fn scalar(self, x: f64) -> f64 {
        x.exp_m1()
    }
}

/// `ln ε`, below which `eˣ/(1 + eˣ)` is `eˣ` (as in the scalar `inv_logit`).
const LOG_EPSILON: f64 = -52.0 * std::f64::consts::LN_2;

/// `s·σ(a·x)` for `a, s = ±1`; `InvLogit` is `a = s = 1`.
#[derive(Clone, Copy)]
struct Sigmoid {
    arg: f64,
    out: f64,
}
impl Kernel for Sigmoid {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        let x = v.mul(x, v.c(self.arg));
        let e = exp_core(v, v.mul(v.abs(x), v.c(-1.0)));
        let d = v.add(v.c(1.0), e);
        let neg = v.select(v.lt(x, v.c(LOG_EPSILON)), e, v.div(e, d));
        let r = v.select(v.lt(x, v.c(0.0)), neg, v.div(v.c(1.0), d));
        v.mul(r, v.c(self.out))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        abs_le(v, x, 708.0)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        x.abs() <= 708.0
    }
    fn scalar(self, x: f64) -> f64 {
        self.out * crate::special::log_exp::inv_logit(self.arg * x)
    }
}

/// `min(a·x, 0) − log1p(e^(−|x|))` (`log_inv_logit` for `a = 1`, `log1m_inv_logit` for
/// `a = −1`) or, with `plus`, `max(x, 0) + log1p(e^(−|x|))` (`log1p_exp`).
#[derive(Clone, Copy)]
struct LogLogistic {
    arg: f64,
    plus: bool,
}
impl Kernel for LogLogistic {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        let x = v.mul(x, v.c(self.arg));
        let l = log1p_core(v, exp_core(v, v.mul(v.abs(x), v.c(-1.0))));
        if self.plus {
            v.add(v.max(x, v.c(0.0)), l)
        } else {
            v.sub(v.min(x, v.c(0.0)), l)
        }
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        abs_le(v, x, 708.0)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        x.abs() <= 708.0
    }
    fn scalar(self, x: f64) -> f64 {
        use crate::special::log_exp as sl;
        if self.plus {
            sl::log1p_exp(self.arg * x)
        } else {
            sl::log_inv_logit(self.arg * x)
        }
    }
}

#[derive(Clone, Copy)]
struct Tanh;
impl Kernel for Tanh {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        // tanh 22 rounds to 1: clamping there covers the whole line.
        let ax = v.min(v.abs(x), v.c(22.0));
        let t = expm1_core(v, v.add(ax, ax));
        let y = v.div(t, v.add(t, v.c(2.0)));
        let sign = v.0.and_u64s(v.bits(x), v.u(1 << 63));
        v.float(v.0.or_u64s(v.bits(y), sign))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        v.eq(x, x)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        !x.is_nan()
    }
    fn scalar(self, x: f64) -> f64 {
        x.tanh()
    }
}

/// `σ(x)·σ(−x) = e/(1 + e)²` with `e = e^(−|x|)`.
#[derive(Clone, Copy)]
struct DInvLogit;
impl Kernel for DInvLogit {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        let e = exp_core(v, v.mul(v.abs(x), v.c(-1.0)));
        let d = v.add(v.c(1.0), e);
        v.div(e, v.mul(d, d))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        abs_le(v, x, 708.0)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        x.abs() <= 708.0
    }
    fn scalar(self, x: f64) -> f64 {
        let v = crate::special::log_exp::inv_logit(x);
        crate::special::log_exp::inv_logit_derivative(x, v)
    }
}

/// `1 − tanh²(x) = 4e/(1 + e)²` with `e = e^(−2|x|)`.
#[derive(Clone, Copy)]
struct DTanh;
impl Kernel for DTanh {
    #[inline(always)]
    fn vector<S: Simd>(self, v: V<S>, x: S::f64s) -> S::f64s {
        let e = exp_core(v, v.mul(v.abs(x), v.c(-2.0)));
        let d = v.add(v.c(1.0), e);
        v.div(v.mul(v.c(4.0), e), v.mul(d, d))
    }
    #[inline(always)]
    fn in_range<S: Simd>(self, v: V<S>, x: S::f64s) -> S::m64s {
        abs_le(v, x, 354.0)
    }
    fn in_range_scalar(self, x: f64) -> bool {
        x.abs() <= 354.0
    }
    fn scalar(self, x: f64) -> f64 {
        if x.is_nan() {
            return x;
        }
        let e = (-2.0 * x.abs()).exp();
        4.0 * e / ((1.0 + e) * (1.0 + e))
    }
}

// ---------------------------------------------------------------------------------------------
// Slice drivers.

/// A vector of `x`'s tail (fewer elements than a vector) padded with 0.5, which is in every
/// kernel's range.
#[inline(always)]
fn load_tail<S: Simd>(s: S, tail: &[f64]) -> S::f64s {
    let mut v = s.splat_f64s(0.5);
    pulp::bytemuck::cast_slice_mut::<S::f64s, f64>(std::slice::from_mut(&mut v))[..tail.len()]
        .copy_from_slice(tail);
    v
}

/// Whether any lane of `m` is set.
#[inline(always)]
fn any<S: Simd>(s: S, m: S::m64s) -> bool {
    s.reduce_max_f64s(s.select_f64s(m, s.splat_f64s(1.0), s.splat_f64s(0.0))) > 0.0
}

/// `out = k(x)`: the fast path on every vector, noting lanes out of range, then those elements
/// again with the scalar reference.
#[inline(always)]
fn map_kernel<S: Simd, K: Kernel>(s: S, k: K, x: &[f64], out: &mut [f64]) {
    let v = V(s);
    let (xh, xt) = S::as_simd_f64s(x);
    let (oh, ot) = S::as_mut_simd_f64s(out);
    let mut bad = s.less_than_f64s(v.c(0.0), v.c(0.0));
    for (o, &xv) in oh.iter_mut().zip(xh) {
        *o = k.vector(v, xv);
        bad = s.or_m64s(bad, s.not_m64s(k.in_range(v, xv)));
    }
    if !xt.is_empty() {
        let xv = load_tail(s, xt);
        let y = k.vector(v, xv);
        bad = s.or_m64s(bad, s.not_m64s(k.in_range(v, xv)));
        let lanes = pulp::bytemuck::cast_slice::<S::f64s, f64>(std::slice::from_ref(&y));
        ot.copy_from_slice(&lanes[..ot.len()]);
    }
    if any(s, bad) {
        for (o, &xi) in out.iter_mut().zip(x) {
            if !k.in_range_scalar(xi) {
                *o = k.scalar(xi);
            }
        }
    }
}

struct MapFn<'a> {
    f: Function,
    x: &'a [f64],
    out: &'a mut [f64],
}

impl WithSimd for MapFn<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, s: S) {
        let (x, out) = (self.x, self.out);
        match self.f {
            Function::Exp => map_kernel(s, Exp, x, out),
            Function::Log => map_kernel(s, Log, x, out),
            Function::Log1p => map_kernel(s, Log1p, x, out),
            Function::Expm1 => map_kernel(s, Expm1, x, out),
            Function::InvLogit => map_kernel(s, Sigmoid { arg: 1.0, out: 1.0 }, x, out),
            Function::LogInvLogit => map_kernel(
                s,
                LogLogistic {
                    arg: 1.0,
                    plus: false,
                },
                x,
                out,
            ),
            Function::Log1mInvLogit => map_kernel(
                s,
                LogLogistic {
                    arg: -1.0,
                    plus: false,
                },
                x,
                out,
            ),
            Function::Log1pExp => map_kernel(
                s,
                LogLogistic {
                    arg: 1.0,
                    plus: true,
                },
                x,
                out,
            ),
            Function::Tanh => map_kernel(s, Tanh, x, out),
        }
    }
}

/// `r += g ∘ k(x)`, skipping zero `g` (the kernel may be NaN there).
struct AddScaled<'a, K> {
    k: K,
    x: &'a [f64],
    g: &'a [f64],
    r: &'a mut [f64],
}

impl<K: Kernel> WithSimd for AddScaled<'_, K> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, s: S) {
        let (k, v) = (self.k, V(s));
        let (xh, xt) = S::as_simd_f64s(self.x);
        let (gh, gt) = S::as_simd_f64s(self.g);
        let (rh, rt) = S::as_mut_simd_f64s(self.r);
        let zero = v.c(0.0);
        let mut bad = s.less_than_f64s(zero, zero);
        for ((r, &xv), &gv) in rh.iter_mut().zip(xh).zip(gh) {
            *r = add_scaled_step(v, k, xv, gv, *r, &mut bad);
        }
        if !xt.is_empty() {
            let (xv, gv, rv) = (load_tail(s, xt), load_tail(s, gt), load_tail(s, rt));
            let y = add_scaled_step(v, k, xv, gv, rv, &mut bad);
            let lanes = pulp::bytemuck::cast_slice::<S::f64s, f64>(std::slice::from_ref(&y));
            let n = rt.len();
            rt.copy_from_slice(&lanes[..n]);
        }
        if any(s, bad) {
            for ((r, &xi), &gi) in self.r.iter_mut().zip(self.x).zip(self.g) {
                if !k.in_range_scalar(xi) && gi != 0.0 {
                    *r += gi * k.scalar(xi);
                }
            }
        }
    }
}

/// `r + g·k(x)` on the lanes in range with nonzero `g` (0 elsewhere), noting the lanes out of
/// range in `bad`. (A function rather than a closure: closures do not inherit the instruction
/// set's target features, so their vector operations would not be inlined.)
#[inline(always)]
fn add_scaled_step<S: Simd, K: Kernel>(
    v: V<S>,
    k: K,
    xv: S::f64s,
    gv: S::f64s,
    rv: S::f64s,
    bad: &mut S::m64s,
) -> S::f64s {
    let (s, zero) = (v.0, v.c(0.0));
    let ok = k.in_range(v, xv);
    *bad = s.or_m64s(*bad, s.not_m64s(ok));
    let keep = s.and_m64s(ok, s.not_m64s(v.eq(gv, zero)));
    v.add(rv, v.select(keep, v.mul(gv, k.vector(v, xv)), zero))
}

/// `x − x`, or 0 for `x = −∞`: NaN exactly for NaN and +∞.
#[inline(always)]
fn finite_part<S: Simd>(v: V<S>, x: S::f64s) -> S::f64s {
    v.select(v.eq(x, v.c(f64::NEG_INFINITY)), v.c(0.0), v.sub(x, x))
}

/// `(e^(x − m), 0)` for `−708 ≤ x − m < 0`, `(0, 1)` for `x = m`, `(0, 0)` below.
#[inline(always)]
fn lse_term<S: Simd>(v: V<S>, xv: S::f64s, mv: S::f64s) -> (S::f64s, S::f64s) {
    let zero = v.c(0.0);
    let t = v.sub(xv, mv);
    let keep = v.and(v.lt(t, zero), v.le(v.c(-708.0), t));
    let e = v.select(keep, exp_core(v, v.max(t, v.c(-708.0))), zero);
    (e, v.select(v.eq(t, zero), v.c(1.0), zero))
}

/// `g·e^((x − m) − l)`, 0 where the exponent is below −708 (a weight below 2⁻¹⁰²¹).
#[inline(always)]
fn lse_weight<S: Simd>(v: V<S>, xv: S::f64s, m: S::f64s, l: S::f64s, g: S::f64s) -> S::f64s {
    let t = v.sub(v.sub(xv, m), l);
    let keep = v.le(v.c(-708.0), t);
    v.select(keep, v.mul(g, exp_core(v, v.max(t, v.c(-708.0)))), v.c(0.0))
}

struct LogSumExp<'a> {
    x: &'a [f64],
}

impl WithSimd for LogSumExp<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: Simd>(self, s: S) -> f64 {
        match (LseParts {
            x: self.x,
            out: None,
        })
        .with_simd(s)
        {
            Some((m, l)) => m + l,
            None => crate::special::log_exp::log_sum_exp_scalar(self.x),
        }
    }
}

struct LseParts<'a> {
    x: &'a [f64],
    out: Option<&'a mut [f64]>,
}

impl WithSimd for LseParts<'_> {
    type Output = Option<(f64, f64)>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, s: S) -> Option<(f64, f64)> {
        let v = V(s);
        let x = self.x;
        if x.is_empty() {
            return None;
        }
        let (xh, xt) = S::as_simd_f64s(x);
        // The maximum, and Σ(x − x) over the elements above −∞, which is NaN exactly when
        // some element is NaN or +∞.
        let ninf = v.c(f64::NEG_INFINITY);
        let (mut hi, mut check) = ([ninf; 4], [v.c(0.0); 4]);
        let (blocks, rest) = pulp::as_arrays::<4, _>(xh);
        for b in blocks {
            for j in 0..4 {
                hi[j] = v.max(hi[j], b[j]);
                check[j] = v.add(check[j], finite_part(v, b[j]));
            }
        }
        for &xv in rest {
            hi[0] = v.max(hi[0], xv);
            check[0] = v.add(check[0], finite_part(v, xv));
        }
        let hi = v.max(v.max(hi[0], hi[1]), v.max(hi[2], hi[3]));
        let check = v.add(v.add(check[0], check[1]), v.add(check[2], check[3]));
        let mut m = s.reduce_max_f64s(hi);
        let mut ok = s.reduce_sum_f64s(check) == 0.0;
        for &xi in xt {
            m = m.max(xi);
            ok &= xi.is_finite() || xi == f64::NEG_INFINITY;
        }
        if !ok || m == f64::NEG_INFINITY {
            return None;
        }
        // Σ e^(xᵢ − m) over xᵢ < m (terms below e⁻⁷⁰⁸ dropped: they cannot change m + log1p),
        // and the number of xᵢ equal to m.
        let mv = v.c(m);
        let zero = v.c(0.0);
        let (mut sum, mut ties) = ([zero; 4], [zero; 4]);
        match self.out {
            None => {
                for b in blocks {
                    for j in 0..4 {
                        let (e, c) = lse_term(v, b[j], mv);
                        sum[j] = v.add(sum[j], e);
                        ties[j] = v.add(ties[j], c);
                    }
                }
                for &xv in rest {
                    let (e, c) = lse_term(v, xv, mv);
                    sum[0] = v.add(sum[0], e);
                    ties[0] = v.add(ties[0], c);
                }
            }
            Some(out) => {
                // The same, writing e^(x − m) (the tie count, 1, at the maximum).
                let (oh, ot) = S::as_mut_simd_f64s(out);
                let (oblocks, orest) = pulp::as_arrays_mut::<4, _>(oh);
                for (b, o) in blocks.iter().zip(oblocks) {
                    for j in 0..4 {
                        let (e, c) = lse_term(v, b[j], mv);
                        sum[j] = v.add(sum[j], e);
                        ties[j] = v.add(ties[j], c);
                        o[j] = v.add(e, c);
                    }
                }
                for (&xv, o) in rest.iter().zip(orest) {
                    let (e, c) = lse_term(v, xv, mv);
                    sum[0] = v.add(sum[0], e);
                    ties[0] = v.add(ties[0], c);
                    *o = v.add(e, c);
                }
                for (o, &xi) in ot.iter_mut().zip(xt) {
                    let t = xi - m;
                    *o = if t == 0.0 {
                        1.0
                    } else if t >= -708.0 {
                        t.exp()
                    } else {
                        0.0
                    };
                }
            }
        }
        if !xt.is_empty() {
            // Padding −∞ adds nothing to either sum.
            let mut xv = v.c(f64::NEG_INFINITY);
            pulp::bytemuck::cast_slice_mut::<S::f64s, f64>(std::slice::from_mut(&mut xv))
                [..xt.len()]
                .copy_from_slice(xt);
            let (e, c) = lse_term(v, xv, mv);
            sum[0] = v.add(sum[0], e);
            ties[0] = v.add(ties[0], c);
        }
        let sum = v.add(v.add(sum[0], sum[1]), v.add(sum[2], sum[3]));
        let ties = v.add(v.add(ties[0], ties[1]), v.add(ties[2], ties[3]));
        let rest = (s.reduce_sum_f64s(ties) - 1.0) + s.reduce_sum_f64s(sum);
        Some((m, rest.ln_1p()))
    }
}

struct LseWeights<'a> {
    r: &'a mut [f64],
    x: &'a [f64],
    m: f64,
    l: f64,
    g: f64,
}

impl WithSimd for LseWeights<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, s: S) {
        let v = V(s);
        let (m, l, g) = (v.c(self.m), v.c(self.l), v.c(self.g));
        let (xh, xt) = S::as_simd_f64s(self.x);
        let (rh, rt) = S::as_mut_simd_f64s(self.r);
        for (r, &xv) in rh.iter_mut().zip(xh) {
            *r = v.add(*r, lse_weight(v, xv, m, l, g));
        }
        if !xt.is_empty() {
            let y = lse_weight(v, load_tail(s, xt), m, l, g);
            let lanes = pulp::bytemuck::cast_slice::<S::f64s, f64>(std::slice::from_ref(&y));
            for (r, &yi) in rt.iter_mut().zip(lanes) {
                *r += yi;
            }
        }
    }
}
