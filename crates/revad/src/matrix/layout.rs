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

/// The side of a block of tiles moved together (a multiple of [`TILE`]).
const BLOCK: usize = 64;

/// `dst (op)= srcᵀ` for `src` `rows × cols` row-major and `dst` `cols × rows` row-major,
/// with `op(d, s)` the write (`*d = s` or `*d += s`).
#[inline(always)]
fn transpose_with(
    src: &[f64],
    rows: usize,
    cols: usize,
    dst: &mut [f64],
    op: impl Fn(&mut f64, f64) + Copy,
) {
    let (src, dst) = (&src[..rows * cols], &mut dst[..rows * cols]);
    let (full_r, full_c) = (rows - rows % TILE, cols - cols % TILE);
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

/// `dst = srcᵀ`: `src` is `rows × cols` row-major, `dst` is `cols × rows` row-major
/// (`dst[j·rows + i] = src[i·cols + j]`).
pub(crate) fn transpose_into(src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    if rows == 1 || cols == 1 {
        dst[..rows * cols].copy_from_slice(&src[..rows * cols]);
        return;
    }
    transpose_with(src, rows, cols, dst, |d, s| *d = s);
}

/// `dst += srcᵀ`, shapes as in [`transpose_into`].
pub(crate) fn transpose_add(src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    if rows == 1 || cols == 1 {
        add(&src[..rows * cols], &mut dst[..rows * cols]);
        return;
    }
    transpose_with(src, rows, cols, dst, |d, s| *d += s);
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

    /// Adds `g` (the window's elements, row-major) into the window of `a`.
    pub fn scatter_add(&self, g: &[f64], a: &mut [f64]) {
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
}
