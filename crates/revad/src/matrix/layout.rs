//! Copy kernels of the layout functions: transposes and strided windows of row-major arrays,
//! forward (a copy) and reverse (an add of the moved elements), at about the speed of a copy.
//!
//! The transposes work in square tiles, so that both the rows read and the columns written of
//! a tile stay in the L1 cache however large the matrix is.

/// The side of a transpose tile: a tile's 8 source rows and 8 destination rows are each one
/// cache line of 8 `f64`s, read (or written) whole through a buffer on the stack, so that
/// every line of either matrix is touched once, whatever the strides (large power-of-two
/// strides would otherwise map a tile's lines to one cache set and evict them).
const TILE: usize = 8;

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{__m256d, __m512d};
#[cfg(target_arch = "x86_64")]
use pulp::{
    bytemuck::cast,
    x86::{V3, V4},
};

/// The side of a block of tiles moved together (a multiple of [`TILE`]).
const BLOCK: usize = 64;

/// `dst = srcᵀ` (or `dst += srcᵀ` if `add`) for `src` `rows × cols` row-major and `dst`
/// `cols × rows` row-major.
#[inline(always)]
fn transpose_with(src: &[f64], rows: usize, cols: usize, dst: &mut [f64], add: bool) {
    let op = move |d: &mut f64, s: f64| {
        if add {
            *d += s
        } else {
            *d = s
        }
    };
    let (src, dst) = (&src[..rows * cols], &mut dst[..rows * cols]);
    let full = (rows - rows % TILE, cols - cols % TILE);
    #[cfg(target_arch = "x86_64")]
    match (V4::try_new(), V3::try_new()) {
        (Some(v4), _) => v4.vectorize(|| tiles_v4(v4, src, rows, cols, dst, full, add)),
        (None, Some(v3)) => v3.vectorize(|| tiles_v3(v3, src, rows, cols, dst, full, add)),
        (None, None) => tiles(src, rows, cols, dst, full, op),
    }
    #[cfg(not(target_arch = "x86_64"))]
    tiles(src, rows, cols, dst, full, op);
    let (full_r, full_c) = full;
    // The columns past the last full tile, then the rows past it.
    for i in 0..full_r {
        for j in full_c..cols {
            op(&mut dst[j * rows + i], src[i * cols + j]);
        }
    }
    for i in full_r..rows {
        for j in 0..cols {
            op(&mut dst[j * rows + i], src[i * cols + j]);
        }
    }
}

/// The full tiles of [`transpose_with`] (rows `..full_r`, columns `..full_c`), each through a
/// buffer on the stack.
#[inline(always)]
fn tiles(
    src: &[f64],
    rows: usize,
    cols: usize,
    dst: &mut [f64],
    (full_r, full_c): (usize, usize),
    op: impl Fn(&mut f64, f64) + Copy,
) {
    // Blocks of BLOCK × BLOCK elements, tile by tile: a block's source and destination lines
    // (2 × 32 KiB) stay in L2 and its pages in the TLB while its tiles are moved.
    for b0 in (0..full_r).step_by(BLOCK) {
        for c0 in (0..full_c).step_by(BLOCK) {
            for i0 in (b0..(b0 + BLOCK).min(full_r)).step_by(TILE) {
                for j0 in (c0..(c0 + BLOCK).min(full_c)).step_by(TILE) {
                    let mut t = [[0.0; TILE]; TILE];
                    for (k, row) in t.iter_mut().enumerate() {
                        let s = (i0 + k) * cols + j0;
                        row.copy_from_slice(&src[s..s + TILE]);
                    }
                    for (j, out) in dst[j0 * rows..].chunks_mut(rows).take(TILE).enumerate() {
                        for (x, row) in out[i0..i0 + TILE].iter_mut().zip(&t) {
                            op(x, row[j]);
                        }
                    }
                }
            }
        }
    }
}

/// [`tiles`] on AVX-512: a tile's 8 rows are 8 registers, transposed by 8 unpacks and 16
/// two-register permutes (pairs, then 128-bit halves, then 256-bit halves), and stored (or
/// added) as 8 rows of the destination. The tiles go down the source 8 columns at a time, so
/// that the 8 destination rows of a tile column are written from start to end as 8 streams
/// (by blocks of tiles, a 256×256 transpose took twice as long: its rows, 2 KiB apart, share
/// a few cache sets).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tiles_v4(
    v4: V4,
    src: &[f64],
    rows: usize,
    cols: usize,
    dst: &mut [f64],
    (full_r, full_c): (usize, usize),
    add: bool,
) {
    let a = v4.avx512f;
    let transpose = TileTranspose::new(v4);
    for j0 in (0..full_c).step_by(TILE) {
        for i0 in (0..full_r).step_by(TILE) {
            let r: [__m512d; TILE] = std::array::from_fn(|k| load_row(src, (i0 + k) * cols + j0));
            for (j, col) in transpose.apply(r).into_iter().enumerate() {
                let d = (j0 + j) * rows + i0;
                let out: &mut [f64; TILE] = (&mut dst[d..d + TILE]).try_into().expect("a tile row");
                let col = if add {
                    a._mm512_add_pd(cast(*out), col)
                } else {
                    col
                };
                *out = cast(col);
            }
        }
    }
}

/// [`tiles`] on AVX2: each 8×8 tile as four 4×4 quarters, a quarter's 4 rows 4 registers
/// transposed by 4 unpacks and 4 lane permutes, and stored (or added) as 4 half rows of the
/// destination. The quarters go down a destination row pair by pair (upper left, lower left,
/// then the right ones), so that every destination line of the tile is written whole before
/// the next, in the order of [`tiles_v4`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tiles_v3(
    v3: V3,
    src: &[f64],
    rows: usize,
    cols: usize,
    dst: &mut [f64],
    (full_r, full_c): (usize, usize),
    add: bool,
) {
    const Q: usize = TILE / 2;
    let a = v3.avx;
    for j0 in (0..full_c).step_by(TILE) {
        for i0 in (0..full_r).step_by(TILE) {
            for qj in [j0, j0 + Q] {
                for qi in [i0, i0 + Q] {
                    let columns = quarter_columns(v3, src, qi * cols + qj, cols);
                    for (c, col) in columns.into_iter().enumerate() {
                        let d = (qj + c) * rows + qi;
                        let out: &mut [f64; Q] =
                            (&mut dst[d..d + Q]).try_into().expect("a quarter row");
                        let col = if add {
                            a._mm256_add_pd(cast(*out), col)
                        } else {
                            col
                        };
                        *out = cast(col);
                    }
                }
            }
        }
    }
}

/// Four `f64` from `s[at..]` as a register.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn load_quarter_row(s: &[f64], at: usize) -> __m256d {
    let row: [f64; TILE / 2] = s[at..at + TILE / 2].try_into().expect("a quarter row");
    cast(row)
}

/// The columns of the 4×4 block of `s` whose first row starts at `at` (rows `ld` apart), on
/// AVX2: rows 0-1 and 2-3 paired by columns {0, 2} and {1, 3} (4 unpacks), then their 128-bit
/// halves exchanged (4 lane permutes), column c in register c.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn quarter_columns(v3: V3, s: &[f64], at: usize, ld: usize) -> [__m256d; TILE / 2] {
    let a = v3.avx;
    let r: [__m256d; TILE / 2] = std::array::from_fn(|k| load_quarter_row(s, at + k * ld));
    let t = [
        a._mm256_unpacklo_pd(r[0], r[1]),
        a._mm256_unpackhi_pd(r[0], r[1]),
        a._mm256_unpacklo_pd(r[2], r[3]),
        a._mm256_unpackhi_pd(r[2], r[3]),
    ];
    [
        a._mm256_permute2f128_pd::<0x20>(t[0], t[2]),
        a._mm256_permute2f128_pd::<0x20>(t[1], t[3]),
        a._mm256_permute2f128_pd::<0x31>(t[0], t[2]),
        a._mm256_permute2f128_pd::<0x31>(t[1], t[3]),
    ]
}

/// Eight `f64` from `s[at..]` as a register.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn load_row(s: &[f64], at: usize) -> __m512d {
    let row: [f64; TILE] = s[at..at + TILE].try_into().expect("a tile row");
    cast(row)
}

/// The transpose of an 8×8 tile held as 8 row registers, on AVX-512: 8 unpacks and 16
/// two-register permutes (pairs, then 128-bit halves, then 256-bit halves).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct TileTranspose {
    v4: V4,
    lo2: core::arch::x86_64::__m512i,
    hi2: core::arch::x86_64::__m512i,
    lo4: core::arch::x86_64::__m512i,
    hi4: core::arch::x86_64::__m512i,
}

#[cfg(target_arch = "x86_64")]
impl TileTranspose {
    #[inline(always)]
    fn new(v4: V4) -> Self {
        let a = v4.avx512f;
        let idx = |i: [i64; 8]| a._mm512_setr_epi64(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
        // Pairs of 128-bit lanes of two registers, then their 256-bit halves.
        TileTranspose {
            v4,
            lo2: idx([0, 1, 8, 9, 4, 5, 12, 13]),
            hi2: idx([2, 3, 10, 11, 6, 7, 14, 15]),
            lo4: idx([0, 1, 2, 3, 8, 9, 10, 11]),
            hi4: idx([4, 5, 6, 7, 12, 13, 14, 15]),
        }
    }

    /// The columns of the tile whose rows are `r`.
    #[inline(always)]
    fn apply(self, r: [__m512d; TILE]) -> [__m512d; TILE] {
        let a = self.v4.avx512f;
        // Column j of a tile comes from u[k] and u[k + 4], low or high halves.
        const FROM: [(usize, bool); TILE] = [
            (0, false),
            (2, false),
            (1, false),
            (3, false),
            (0, true),
            (2, true),
            (1, true),
            (3, true),
        ];
        // t[2m] and t[2m+1]: the even and the odd columns of rows 2m and 2m + 1, paired.
        let t: [__m512d; TILE] = std::array::from_fn(|k| {
            let (x, y) = (r[k & !1], r[k | 1]);
            if k % 2 == 0 {
                a._mm512_unpacklo_pd(x, y)
            } else {
                a._mm512_unpackhi_pd(x, y)
            }
        });
        // u[0..4] from rows 0-3, u[4..8] from rows 4-7: columns {0,4}, {2,6}, {1,5},
        // {3,7} of four rows each.
        let u: [__m512d; TILE] = std::array::from_fn(|k| {
            let base = if k < 4 { 0 } else { 4 };
            let (x, y) = match k % 4 {
                0 | 1 => (t[base], t[base + 2]),
                _ => (t[base + 1], t[base + 3]),
            };
            a._mm512_permutex2var_pd(x, if k % 2 == 0 { self.lo2 } else { self.hi2 }, y)
        });
        std::array::from_fn(|j| {
            let (k, high) = FROM[j];
            a._mm512_permutex2var_pd(u[k], if high { self.hi4 } else { self.lo4 }, u[k + 4])
        })
    }
}

/// Copies the upper triangle of the row-major n×n `a` onto its lower one (`aⱼᵢ = aᵢⱼ` for
/// `i < j`): with AVX-512 or AVX2 the 8×8 tiles above the diagonal are transposed in registers
/// (whole, or as four 4×4 quarters), the tiles on it and the edges element by element;
/// elsewhere by tiles of 32.
pub(crate) fn mirror_upper(n: usize, a: &mut [f64]) {
    let a = &mut a[..n * n];
    #[cfg(target_arch = "x86_64")]
    match (V4::try_new(), V3::try_new()) {
        (Some(v4), _) => return v4.vectorize(|| mirror_upper_v4(v4, n, a)),
        (None, Some(v3)) => return v3.vectorize(|| mirror_upper_v3(v3, n, a)),
        (None, None) => {}
    }
    mirror_upper_blocks(n, a);
}

/// The portable [`mirror_upper`].
fn mirror_upper_blocks(n: usize, a: &mut [f64]) {
    const B: usize = 32;
    for ib in (0..n).step_by(B) {
        for jb in (ib..n).step_by(B) {
            for i in ib..(ib + B).min(n) {
                for j in (jb.max(i + 1))..(jb + B).min(n) {
                    a[j * n + i] = a[i * n + j];
                }
            }
        }
    }
}

/// A way to move one full 8×8 tile of [`mirror_upper`] in registers. (A trait rather than a
/// closure: a closure's body is compiled without the caller's instruction set, so its
/// intrinsics would not be inlined.)
#[cfg(target_arch = "x86_64")]
trait MirrorTile: Copy {
    /// Copies the tile at rows `i0..`, columns `j0..` (`j0 > i0`) of the n×n `a` onto rows
    /// `j0..`, columns `i0..`, transposed.
    fn mirror(self, a: &mut [f64], n: usize, i0: usize, j0: usize);
}

#[cfg(target_arch = "x86_64")]
impl MirrorTile for TileTranspose {
    #[inline(always)]
    fn mirror(self, a: &mut [f64], n: usize, i0: usize, j0: usize) {
        let r: [__m512d; TILE] = std::array::from_fn(|k| load_row(a, (i0 + k) * n + j0));
        for (j, col) in self.apply(r).into_iter().enumerate() {
            let d = (j0 + j) * n + i0;
            let out: &mut [f64; TILE] = (&mut a[d..d + TILE]).try_into().expect("a tile row");
            *out = cast(col);
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl MirrorTile for V3 {
    /// As four 4×4 quarters, down each destination line pair.
    #[inline(always)]
    fn mirror(self, a: &mut [f64], n: usize, i0: usize, j0: usize) {
        const Q: usize = TILE / 2;
        for qj in [j0, j0 + Q] {
            for qi in [i0, i0 + Q] {
                for (c, col) in quarter_columns(self, a, qi * n + qj, n)
                    .into_iter()
                    .enumerate()
                {
                    let d = (qj + c) * n + qi;
                    let out: &mut [f64; Q] = (&mut a[d..d + Q]).try_into().expect("a quarter row");
                    *out = cast(col);
                }
            }
        }
    }
}

/// [`mirror_upper`] with the full tiles above the diagonal moved by `tile`, the rest element
/// by element.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mirror_upper_tiles(n: usize, a: &mut [f64], tile: impl MirrorTile) {
    let full = n - n % TILE;
    for i0 in (0..full).step_by(TILE) {
        // The tile on the diagonal.
        for i in i0..i0 + TILE {
            for j in i + 1..i0 + TILE {
                a[j * n + i] = a[i * n + j];
            }
        }
        for j0 in (i0 + TILE..full).step_by(TILE) {
            tile.mirror(a, n, i0, j0);
        }
        // The columns right of the last full tile.
        for i in i0..i0 + TILE {
            for j in full..n {
                a[j * n + i] = a[i * n + j];
            }
        }
    }
    // The corner past the last full tile.
    for i in full..n {
        for j in i + 1..n {
            a[j * n + i] = a[i * n + j];
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mirror_upper_v4(v4: V4, n: usize, a: &mut [f64]) {
    mirror_upper_tiles(n, a, TileTranspose::new(v4));
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mirror_upper_v3(v3: V3, n: usize, a: &mut [f64]) {
    mirror_upper_tiles(n, a, v3);
}

/// Transposes a triangle of the n×n `src` (rows `src_ld` apart) into `dst` (rows `dst_ld`
/// apart): `dst[j·dst_ld + i] = src[i·src_ld + j]` for every `i ≥ j` (`lower`, the lower
/// triangle with its diagonal) or every `i ≤ j`; the rest of `dst` is left alone. With
/// `tolerance`, it also tells whether each moved element is within it of its mirror
/// `src[j·src_ld + i]` (false at a NaN): the symmetry check of a matrix read for its lower
/// triangle. With AVX-512 or AVX2 the full 8×8 tiles are transposed (and compared) in
/// registers (whole, or as four 4×4 quarters), those on the diagonal blended into `dst` by a
/// lane mask; the edges element by element.
pub(crate) fn transpose_triangle(
    src: &[f64],
    src_ld: usize,
    dst: &mut [f64],
    dst_ld: usize,
    n: usize,
    lower: bool,
    tolerance: Option<f64>,
) -> bool {
    let mut t = Triangle {
        src,
        src_ld,
        dst,
        dst_ld,
        n,
        lower,
        tolerance,
    };
    #[cfg(target_arch = "x86_64")]
    match (V4::try_new(), V3::try_new()) {
        (Some(v4), _) => return v4.vectorize(|| t.tiles_v4(v4) & t.elements(true)),
        (None, Some(v3)) => return v3.vectorize(|| t.tiles_v3(v3) & t.elements(true)),
        (None, None) => {}
    }
    t.elements(false)
}

/// The arguments of [`transpose_triangle`].
struct Triangle<'a> {
    src: &'a [f64],
    src_ld: usize,
    dst: &'a mut [f64],
    dst_ld: usize,
    n: usize,
    lower: bool,
    tolerance: Option<f64>,
}

impl Triangle<'_> {
    /// The elements one by one: all of them, or (`rest`) those outside the full 8×8 tiles.
    #[inline(always)]
    fn elements(&mut self, rest: bool) -> bool {
        let (src, sl, dl, n, lower) = (self.src, self.src_ld, self.dst_ld, self.n, self.lower);
        let (dst, tolerance) = (&mut *self.dst, self.tolerance);
        let full = n - n % TILE;
        let mut within = true;
        let mut step = |i: usize, j: usize| {
            let x = src[i * sl + j];
            dst[j * dl + i] = x;
            if let Some(tol) = tolerance {
                within &= (x - src[j * sl + i]).abs() <= tol;
            }
        };
        for i in 0..n {
            // The row's elements, less those of the full tiles (moved in the registers).
            let in_tiles = rest && i < full;
            let (from, to) = if lower { (0, i + 1) } else { (i, n) };
            match (in_tiles, lower) {
                (false, _) => (from..to).for_each(|j| step(i, j)),
                (true, true) => {}
                (true, false) => (full..to).for_each(|j| step(i, j)),
            }
        }
        within
    }

    /// The full tiles, in AVX-512 registers.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn tiles_v4(&mut self, v4: V4) -> bool {
        use core::arch::x86_64::_CMP_LE_OQ;
        let (src, sl, dl, n, lower) = (self.src, self.src_ld, self.dst_ld, self.n, self.lower);
        let dst = &mut *self.dst;
        let a = v4.avx512f;
        let transpose = TileTranspose::new(v4);
        let tiles = n / TILE;
        let tol = a._mm512_set1_pd(self.tolerance.unwrap_or(0.0));
        let mut within: u8 = 0xff;
        for bi in 0..tiles {
            // The tiles off the diagonal, then the one on it (bj = bi), whose column c moves
            // only its lanes k ≥ c (lower) or k ≤ c: the others are blended back from `dst`.
            let (from, to) = if lower { (0, bi + 1) } else { (bi, tiles) };
            for bj in from..to {
                let (i0, j0) = (bi * TILE, bj * TILE);
                let r: [__m512d; TILE] = std::array::from_fn(|k| load_row(src, (i0 + k) * sl + j0));
                for (c, col) in transpose.apply(r).into_iter().enumerate() {
                    // Column c of the tile: src[(i0 + k)·sl + j0 + c] for k < 8.
                    let lanes: u8 = match (bi == bj, lower) {
                        (false, _) => 0xff,
                        (true, true) => 0xff << c,
                        (true, false) => 0xff >> (TILE - 1 - c),
                    };
                    let d = (j0 + c) * dl + i0;
                    let out: &mut [f64; TILE] =
                        (&mut dst[d..d + TILE]).try_into().expect("a tile row");
                    *out = cast(a._mm512_mask_blend_pd(lanes, cast(*out), col));
                    if self.tolerance.is_some() {
                        let mirror = load_row(src, (j0 + c) * sl + i0);
                        let diff = a._mm512_abs_pd(a._mm512_sub_pd(col, mirror));
                        within &= a._mm512_cmp_pd_mask::<_CMP_LE_OQ>(diff, tol) | !lanes;
                    }
                }
            }
        }
        within == 0xff
    }

    /// The full tiles, each as four 4×4 quarters in AVX2 registers; on a tile of the diagonal,
    /// the quarter across it is skipped and the two on it are blended by a lane mask.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn tiles_v3(&mut self, v3: V3) -> bool {
        use core::arch::x86_64::_CMP_LE_OQ;
        const Q: usize = TILE / 2;
        let (src, sl, dl, n, lower) = (self.src, self.src_ld, self.dst_ld, self.n, self.lower);
        let dst = &mut *self.dst;
        let a = v3.avx;
        let tol = a._mm256_set1_pd(self.tolerance.unwrap_or(0.0));
        // Lane k of column c of a quarter on the diagonal moves if k ≥ c (lower) or k ≤ c.
        let lanes = |c: usize| -> u8 {
            if lower {
                (0xf << c) & 0xf
            } else {
                0xf >> (Q - 1 - c)
            }
        };
        let mut within: u8 = 0xf;
        let tiles = n / TILE;
        for bi in 0..tiles {
            // The tiles off the diagonal, then the one on it, quarter column by quarter
            // column so that each destination line is written whole before the next; on the
            // diagonal the quarter across it is skipped.
            let (from, to) = if lower { (0, bi + 1) } else { (bi, tiles) };
            for bj in from..to {
                let (i0, j0) = (bi * TILE, bj * TILE);
                for qj in [j0, j0 + Q] {
                    for qi in [i0, i0 + Q] {
                        if bi == bj && (qi < qj) == lower && qi != qj {
                            continue;
                        }
                        let columns = quarter_columns(v3, src, qi * sl + qj, sl);
                        for (c, col) in columns.into_iter().enumerate() {
                            let mask = if qi == qj { lanes(c) } else { 0xf };
                            let d = (qj + c) * dl + qi;
                            let out: &mut [f64; Q] =
                                (&mut dst[d..d + Q]).try_into().expect("a quarter row");
                            *out = if mask == 0xf {
                                cast(col)
                            } else {
                                let keep: [i64; Q] =
                                    std::array::from_fn(|k| -i64::from(mask >> k & 1));
                                cast(a._mm256_blendv_pd(cast(*out), col, cast(keep)))
                            };
                            if self.tolerance.is_some() {
                                let mirror = load_quarter_row(src, (qj + c) * sl + qi);
                                let diff = a._mm256_sub_pd(col, mirror);
                                let diff = a._mm256_andnot_pd(a._mm256_set1_pd(-0.0), diff);
                                let le = a._mm256_cmp_pd::<_CMP_LE_OQ>(diff, tol);
                                within &= (a._mm256_movemask_pd(le) as u8) | !mask;
                            }
                        }
                    }
                }
            }
        }
        within & 0xf == 0xf
    }
}

/// `dst = srcᵀ`: `src` is `rows × cols` row-major, `dst` is `cols × rows` row-major
/// (`dst[j·rows + i] = src[i·cols + j]`).
pub(crate) fn transpose_into(src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    if rows == 1 || cols == 1 {
        dst[..rows * cols].copy_from_slice(&src[..rows * cols]);
        return;
    }
    transpose_with(src, rows, cols, dst, false);
}

/// `dst += srcᵀ`, shapes as in [`transpose_into`].
pub(crate) fn transpose_add(src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    if rows == 1 || cols == 1 {
        add(&src[..rows * cols], &mut dst[..rows * cols]);
        return;
    }
    transpose_with(src, rows, cols, dst, true);
}

/// `dst += src`, element by element.
#[inline]
pub(crate) fn add(src: &[f64], dst: &mut [f64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d += s;
    }
}

/// A strided window of a row-major array: element `(p, q)` of the window, `p < rows`,
/// `q < cols`, is element `start + p·row_step + q·col_step` of the array (steps may be
/// negative, as NumPy's slices' are); the window's elements are numbered row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strided {
    pub start: usize,
    pub rows: usize,
    pub row_step: isize,
    pub cols: usize,
    pub col_step: isize,
}

impl Strided {
    /// The window of `rows` rows of `cols` contiguous elements, row `p` starting at element
    /// `start + p·stride`.
    pub const fn rows_of(start: usize, stride: usize, rows: usize, cols: usize) -> Strided {
        Strided {
            start,
            rows,
            row_step: stride as isize,
            cols,
            col_step: 1,
        }
    }

    /// The window as one run of contiguous elements in order, `(first, len)`, when it is
    /// one (a row, a column of a vector, whole rows), so that it moves as one slice.
    fn run(&self) -> Option<(usize, usize)> {
        let along = |n: usize, step: isize| n <= 1 || step == 1;
        let dense = match (self.rows, self.cols) {
            (1, c) => along(c, self.col_step),
            (r, 1) => along(r, self.row_step),
            (_, c) => self.col_step == 1 && self.row_step == c as isize,
        };
        (dense && self.len() > 0).then_some((self.start, self.len()))
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    /// The lowest position of the window and one past its highest (`(0, 0)` when empty).
    pub fn bounds(&self) -> (isize, isize) {
        if self.len() == 0 {
            return (0, 0);
        }
        let corner = |p: usize, q: usize| {
            self.start as isize + p as isize * self.row_step + q as isize * self.col_step
        };
        let c = [
            corner(0, 0),
            corner(self.rows - 1, 0),
            corner(0, self.cols - 1),
            corner(self.rows - 1, self.cols - 1),
        ];
        let lo = *c.iter().min().expect("four corners");
        (lo, c.iter().max().expect("four corners") + 1)
    }

    /// The first element of row `p`.
    #[inline]
    fn row_start(&self, p: usize) -> usize {
        (self.start as isize + p as isize * self.row_step) as usize
    }

    /// The window's elements of `x`, row-major (a row of contiguous elements is one slice
    /// copy). The window must lie inside `x` (see [`Strided::bounds`]).
    pub fn gather(&self, x: &[f64]) -> Vec<f64> {
        if let Some((first, len)) = self.run() {
            return x[first..first + len].to_vec();
        }
        let mut out = Vec::with_capacity(self.len());
        for p in 0..self.rows {
            let s = self.row_start(p);
            match self.col_step {
                1 => out.extend_from_slice(&x[s..s + self.cols]),
                step => {
                    out.extend((0..self.cols).map(|q| x[(s as isize + q as isize * step) as usize]))
                }
            }
        }
        out
    }

    /// Adds the window's elements of `x`, row-major, into `out` (as long as the window):
    /// `out += gather(x)` without the intermediate vector.
    pub fn add_gathered(&self, x: &[f64], out: &mut [f64]) {
        if let Some((first, len)) = self.run() {
            return add(&x[first..first + len], out);
        }
        let mut out = out.iter_mut();
        for p in 0..self.rows {
            let s = self.row_start(p) as isize;
            for (q, o) in (0..self.cols).zip(&mut out) {
                *o += x[(s + q as isize * self.col_step) as usize];
            }
        }
    }

    /// Adds `g` (the window's elements, row-major) into the window of `a`.
    pub fn scatter_add(&self, g: &[f64], a: &mut [f64]) {
        if let Some((first, len)) = self.run() {
            return add(g, &mut a[first..first + len]);
        }
        for p in 0..self.rows {
            let s = self.row_start(p);
            let gp = &g[p * self.cols..(p + 1) * self.cols];
            match self.col_step {
                1 => add(gp, &mut a[s..s + self.cols]),
                step => {
                    for (q, gi) in gp.iter().enumerate() {
                        a[(s as isize + q as isize * step) as usize] += gi;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposes_agree_with_the_definition() {
        for (r, c) in [
            (1, 1),
            (1, 5),
            (5, 1),
            (3, 4),
            (17, 33),
            (40, 16),
            (70, 131),
            (128, 64),
        ] {
            let src: Vec<f64> = (0..r * c).map(|k| k as f64).collect();
            let mut dst = vec![0.0; r * c];
            transpose_into(&src, r, c, &mut dst);
            let mut acc = vec![1.0; r * c];
            transpose_add(&src, r, c, &mut acc);
            for i in 0..r {
                for j in 0..c {
                    assert_eq!(dst[j * r + i], src[i * c + j]);
                    assert_eq!(acc[j * r + i], src[i * c + j] + 1.0);
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_and_portable_tiles_agree() {
        // The full tiles by both paths (the portable one is what machines without AVX2 run).
        let Some(v4) = V4::try_new() else { return };
        for (r, c) in [(8, 8), (16, 24), (70, 131), (136, 72)] {
            let src: Vec<f64> = (0..r * c).map(|k| (k as f64).sin()).collect();
            let full = (r - r % TILE, c - c % TILE);
            for add in [false, true] {
                let op = move |d: &mut f64, s: f64| if add { *d += s } else { *d = s };
                let (mut a, mut b) = (vec![0.5; r * c], vec![0.5; r * c]);
                tiles(&src, r, c, &mut a, full, op);
                v4.vectorize(|| tiles_v4(v4, &src, r, c, &mut b, full, add));
                assert_eq!(a, b, "{r}×{c}, add = {add}");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_and_portable_tiles_agree() {
        // The full tiles by both paths, as machines with AVX2 but not AVX-512 run them.
        let Some(v3) = V3::try_new() else { return };
        for (r, c) in [(8, 8), (16, 24), (70, 131), (136, 72)] {
            let src: Vec<f64> = (0..r * c).map(|k| (k as f64).sin()).collect();
            let full = (r - r % TILE, c - c % TILE);
            for add in [false, true] {
                let op = move |d: &mut f64, s: f64| if add { *d += s } else { *d = s };
                let (mut a, mut b) = (vec![0.5; r * c], vec![0.5; r * c]);
                tiles(&src, r, c, &mut a, full, op);
                v3.vectorize(|| tiles_v3(v3, &src, r, c, &mut b, full, add));
                assert_eq!(a, b, "{r}×{c}, add = {add}");
            }
        }
    }

    #[test]
    fn mirrors_agree_with_the_definition() {
        // Every size around the tile's side, by the path this machine takes and the portable one.
        for n in (0..=26).chain([31, 32, 33, 50, 64, 65, 100]) {
            let a: Vec<f64> = (0..n * n).map(|k| (k as f64).sin()).collect();
            let mut want = a.clone();
            for i in 0..n {
                for j in 0..i {
                    want[i * n + j] = a[j * n + i];
                }
            }
            let (mut b, mut c) = (a.clone(), a.clone());
            mirror_upper(n, &mut b);
            mirror_upper_blocks(n, &mut c);
            assert_eq!(b, want, "n = {n}");
            assert_eq!(c, want, "n = {n}, portable");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_mirrors_and_triangles_agree_with_the_portable_ones() {
        // The AVX2 paths run explicitly, as machines without AVX-512 run them.
        let Some(v3) = V3::try_new() else { return };
        for n in (0..=26usize).chain([31, 32, 33, 50, 64, 65]) {
            let a: Vec<f64> = (0..n * n).map(|k| (k as f64).sin()).collect();
            let (mut b, mut c) = (a.clone(), a.clone());
            v3.vectorize(|| mirror_upper_v3(v3, n, &mut b));
            mirror_upper_blocks(n, &mut c);
            assert_eq!(b, c, "n = {n}");
            let (sl, dl) = (n + 3, n.next_multiple_of(8));
            let mut src = vec![0.0; n * sl];
            for i in 0..n {
                for j in 0..n {
                    src[i * sl + j] = ((i.min(j) * 31 + i.max(j)) as f64).sin();
                }
            }
            for lower in [true, false] {
                let run = |src: &[f64], tol: Option<f64>, fast: bool| {
                    let mut dst = vec![-7.0; n * dl];
                    let mut t = Triangle {
                        src,
                        src_ld: sl,
                        dst: &mut dst,
                        dst_ld: dl,
                        n,
                        lower,
                        tolerance: tol,
                    };
                    let within = if fast {
                        v3.vectorize(|| t.tiles_v3(v3) & t.elements(true))
                    } else {
                        t.elements(false)
                    };
                    (within, dst.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
                };
                for tol in [None, Some(1e-8)] {
                    assert_eq!(run(&src, tol, true), run(&src, tol, false), "n = {n}");
                }
                // A pair out of tolerance or a NaN in each quarter of a diagonal tile and
                // off it.
                for (i, j) in [(1, 0), (3, 1), (5, 2), (6, 5), (9, 1), (14, 9), (21, 19)] {
                    if i >= n {
                        continue;
                    }
                    let (p, q) = if lower { (i, j) } else { (j, i) };
                    for bad in [1e-6, f64::NAN] {
                        let mut s2 = src.clone();
                        s2[p * sl + q] += bad;
                        let (fast, slow) =
                            (run(&s2, Some(1e-8), true), run(&s2, Some(1e-8), false));
                        assert!(!fast.0, "n = {n} ({i}, {j}) + {bad}");
                        assert_eq!(fast, slow);
                    }
                }
            }
        }
    }

    #[test]
    fn triangles_agree_with_the_definition() {
        // Both triangles, each size around the tile's side, padded strides, the symmetry
        // verdict with a pair out of tolerance and a NaN in a register tile and at an edge.
        for n in (0..=26usize).chain([31, 32, 33, 50, 64, 65]) {
            let (sl, dl) = (n + 3, n.next_multiple_of(8));
            let mut src = vec![0.0; n * sl];
            for i in 0..n {
                for j in 0..n {
                    src[i * sl + j] = ((i.min(j) * 31 + i.max(j)) as f64).sin();
                }
            }
            for lower in [true, false] {
                let run = |src: &[f64], tol: Option<f64>| {
                    let mut dst = vec![-7.0; n * dl];
                    let within = transpose_triangle(src, sl, &mut dst, dl, n, lower, tol);
                    let mut want = vec![-7.0; n * dl];
                    let plain = Triangle {
                        src,
                        src_ld: sl,
                        dst: &mut want,
                        dst_ld: dl,
                        n,
                        lower,
                        tolerance: tol,
                    }
                    .elements(false);
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&dst), bits(&want), "n = {n}, lower = {lower}");
                    for i in 0..n {
                        for j in 0..n {
                            let moved = if lower { i >= j } else { i <= j };
                            let expect = if moved { src[i * sl + j] } else { -7.0 };
                            assert_eq!(dst[j * dl + i].to_bits(), expect.to_bits());
                        }
                    }
                    assert_eq!(within, plain);
                    within
                };
                assert!(run(&src, Some(1e-8)));
                assert!(run(&src, None));
                for (i, j) in [
                    (n.saturating_sub(1), 0),
                    (n / 2, 1),
                    (9, 1),
                    (5, 2),
                    (14, 9),
                ] {
                    if i <= j || i >= n {
                        continue;
                    }
                    let (a, b) = if lower { (i, j) } else { (j, i) };
                    for bad in [1e-6, f64::NAN] {
                        let mut s2 = src.clone();
                        s2[a * sl + b] += bad;
                        assert!(!run(&s2, Some(1e-8)), "n = {n} ({i}, {j}) + {bad}");
                        assert!(run(&s2, None));
                    }
                }
            }
        }
    }

    #[test]
    fn strided_windows() {
        let x: Vec<f64> = (0..12).map(|k| k as f64).collect();
        // The 3×4 matrix's rows 2, 0 and columns 3, 1 (steps -2 and -2).
        let w = Strided {
            start: 11,
            rows: 2,
            row_step: -8,
            cols: 2,
            col_step: -2,
        };
        assert_eq!(w.bounds(), (1, 12));
        assert_eq!(w.gather(&x), vec![11.0, 9.0, 3.0, 1.0]);
        let mut a = vec![0.0; 12];
        w.scatter_add(&[1.0, 2.0, 3.0, 4.0], &mut a);
        assert_eq!((a[11], a[9], a[3], a[1], a[0]), (1.0, 2.0, 3.0, 4.0, 0.0));
        let empty = Strided {
            start: 12,
            rows: 0,
            row_step: 4,
            cols: 3,
            col_step: 1,
        };
        assert!(empty.bounds() == (0, 0) && empty.gather(&x).is_empty());
    }

    /// Windows that are one contiguous run (moved as one slice) and windows that are not
    /// give the elements and adds of the definition, `start + p·row_step + q·col_step`.
    #[test]
    fn dense_and_sparse_windows_agree_with_the_definition() {
        let x: Vec<f64> = (0..24).map(|k| k as f64 * 1.5 - 3.0).collect();
        let windows = [
            Strided::rows_of(5, 1, 7, 1), // a column vector's segment
            Strided::rows_of(5, 7, 1, 7), // a row vector's segment
            Strided::rows_of(4, 4, 3, 4), // whole rows of a 6×4 matrix
            Strided::rows_of(5, 4, 3, 2), // a block: rows not contiguous
            Strided::rows_of(1, 4, 5, 1), // a column of a matrix
            Strided::rows_of(0, 5, 4, 1), // a diagonal
            Strided::rows_of(3, 4, 1, 1), // one element
            Strided {
                start: 9,
                rows: 4,
                row_step: -1,
                cols: 1,
                col_step: 1,
            }, // reversed
        ];
        for w in windows {
            let at = |p: usize, q: usize| {
                (w.start as isize + p as isize * w.row_step + q as isize * w.col_step) as usize
            };
            let mut expect = Vec::new();
            for p in 0..w.rows {
                for q in 0..w.cols {
                    expect.push(x[at(p, q)]);
                }
            }
            assert_eq!(w.gather(&x), expect, "{w:?}");
            let mut sums = vec![0.5; w.len()];
            w.add_gathered(&x, &mut sums);
            let expect_sums: Vec<f64> = expect.iter().map(|e| 0.5 + e).collect();
            assert_eq!(sums, expect_sums, "{w:?}");
            let g: Vec<f64> = (0..w.len()).map(|k| 1.0 + k as f64).collect();
            let (mut a, mut b) = (vec![0.25; 24], vec![0.25; 24]);
            w.scatter_add(&g, &mut a);
            for p in 0..w.rows {
                for q in 0..w.cols {
                    b[at(p, q)] += g[p * w.cols + q];
                }
            }
            assert_eq!(a, b, "{w:?}");
        }
    }
}
