//! AVX-512 forms of the kernels' cores, for the instructions the portable `pulp::Simd` interface
//! lacks (a two-register permute used as a 16-entry table lookup, 64-bit shifts). The generic
//! cores call these when the instruction set is `pulp::x86::V4`: the check is a comparison of
//! type identifiers, which the compiler resolves while instantiating each kernel, so the other
//! instruction sets keep their portable code and AVX-512 pays nothing for the choice.

use core::arch::x86_64::{__m512d, __m512i};
use pulp::bytemuck::cast;
use pulp::x86::V4;
use pulp::Simd;
use std::any::Any;

/// The AVX-512 token when `S` is `V4`.
#[inline(always)]
pub(super) fn token<S: Simd>(s: S) -> Option<V4> {
    (&s as &dyn Any).downcast_ref::<V4>().copied()
}

/// A vector of the generic interface as an AVX-512 register (only called when `S` is `V4`, so
/// the sizes agree).
#[inline(always)]
pub(super) fn to<T: pulp::bytemuck::Pod>(x: T) -> __m512d {
    cast(x)
}

/// An AVX-512 register as a vector of the generic interface.
#[inline(always)]
pub(super) fn from<T: pulp::bytemuck::Pod>(x: __m512d) -> T {
    cast(x)
}

/// `2^(j/16)` rounded, `j = 0..16`, in two registers.
const EXP_T: [[f64; 8]; 2] = {
    let b: [u64; 16] = [
        0x3FF0_0000_0000_0000,
        0x3FF0_B558_6CF9_890F,
        0x3FF1_72B8_3C7D_517B,
        0x3FF2_387A_6E75_6238,
        0x3FF3_06FE_0A31_B715,
        0x3FF3_DEA6_4C12_3422,
        0x3FF4_BFDA_D536_2A27,
        0x3FF5_AB07_DD48_5429,
        0x3FF6_A09E_667F_3BCD,
        0x3FF7_A114_73EB_0187,
        0x3FF8_ACE5_422A_A0DB,
        0x3FF9_C491_82A3_F090,
        0x3FFA_E89F_995A_D3AD,
        0x3FFC_199B_DD85_529C,
        0x3FFD_5818_DCFB_A487,
        0x3FFE_A4AF_A2A4_90DA,
    ];
    let mut t = [[0.0; 8]; 2];
    let mut j = 0;
    while j < 16 {
        t[j / 8][j % 8] = f64::from_bits(b[j]);
        j += 1;
    }
    t
};

/// `(2^(j/16) − T_j)/T_j` rounded: the relative error of each table entry.
const EXP_R: [[f64; 8]; 2] = {
    let b: [u64; 16] = [
        0x0000_0000_0000_0000,
        0x3C97_9AA6_5D83_7B6D,
        0xBC80_1B15_EAA5_9348,
        0x3C96_8EFD_E3A8_A894,
        0x3C83_4D75_4DB0_ABB6,
        0x3C85_9F48_A72A_4C6D,
        0x3C76_90CE_BB7A_AFB0,
        0x3C90_63E1_E21C_5409,
        0xBC93_B3EF_BF5E_2228,
        0xBC7B_32DC_B94D_A51D,
        0x3C8D_B72F_C1F0_EAB4,
        0x3C71_AFFC_2B91_CE27,
        0x3C8C_1A77_92CB_3387,
        0x3C73_6EAE_30AF_0CB3,
        0x3C74_A385_A63D_07A7,
        0xBC8F_F712_8FD3_91F0,
    ];
    let mut t = [[0.0; 8]; 2];
    let mut j = 0;
    while j < 16 {
        t[j / 8][j % 8] = f64::from_bits(b[j]);
        j += 1;
    }
    t
};

/// `eʳ − 1 − r ≈ r²·q(r)` on `|r| ≤ 0.0217` (ln 2/32 = 0.02166): `q`'s coefficients from `r⁰`
/// up, the minimax fit of the absolute error (Remez exchange at 150 bits, rounded to
/// doubles); the error of `r + r²q(r)` is below 2⁻⁵⁶.
const EXP_Q: [f64; 5] = [
    f64::from_bits(0x3FE0_0000_0000_0005),
    f64::from_bits(0x3FC5_5555_5548_EA56),
    f64::from_bits(0x3FA5_5555_5545_55FE),
    f64::from_bits(0x3F81_1123_B889_2483),
    f64::from_bits(0x3F56_C186_560C_7EB4),
];

/// `eˣ` for `|x| ≤ 708`, by Tang's table-driven method (P. T. P. Tang, "Table-driven
/// implementation of the exponential function in IEEE floating-point arithmetic", ACM TOMS
/// 15(2), 1989) with 16 table entries held in two registers: `x = (16m + j)·ln2/16 + r`,
/// `|r| ≤ ln2/32`, `eˣ = 2ᵐ·2^(j/16)·eʳ`, `2^(j/16) = T_j(1 + R_j)`, and
/// `eˣ = s + s·(R_j + r + r²q(r))` with `s = 2ᵐT_j` built from the bits of `T_j`.
#[inline(always)]
pub(super) fn exp(s: V4, x: __m512d) -> __m512d {
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    const INV: f64 = 16.0 * std::f64::consts::LOG2_E;
    // ln2/16 in two parts: k·HI is exact in the fused multiply-add, the remainder below 2⁻⁶⁰.
    const HI: f64 = std::f64::consts::LN_2 / 16.0;
    const LO: f64 = f64::from_bits(0x3C7A_BC9E_3B39_803F) / 16.0;
    let a = s.avx512f;
    let c = |v: f64| a._mm512_set1_pd(v);
    let t = a._mm512_fmadd_pd(x, c(INV), c(SHIFT));
    let k = a._mm512_sub_pd(t, c(SHIFT));
    let r = a._mm512_fnmadd_pd(k, c(HI), x);
    let r = a._mm512_fnmadd_pd(k, c(LO), r);
    // The table index is the low four bits of k, which are t's.
    let ti: __m512i = a._mm512_castpd_si512(t);
    let tj = a._mm512_permutex2var_pd(to(EXP_T[0]), ti, to(EXP_T[1]));
    let rj = a._mm512_permutex2var_pd(to(EXP_R[0]), ti, to(EXP_R[1]));
    // 2ᵐ·T_j: m = k >> 4 into the exponent field (k's bits from 4 up, shifted to bit 52).
    let e = a._mm512_and_si512(
        a._mm512_slli_epi64::<48>(ti),
        a._mm512_set1_epi64(0xFFF0_0000_0000_0000_u64 as i64),
    );
    let sc = a._mm512_castsi512_pd(a._mm512_add_epi64(a._mm512_castpd_si512(tj), e));
    let r2 = a._mm512_mul_pd(r, r);
    let mut q = c(EXP_Q[4]);
    for &ci in EXP_Q[..4].iter().rev() {
        q = a._mm512_fmadd_pd(q, r, c(ci));
    }
    let p = a._mm512_fmadd_pd(r2, q, a._mm512_add_pd(r, rj));
    a._mm512_fmadd_pd(sc, p, sc)
}
