//! The recording helpers of the transforms: a node whose results are the constrained value and,
//! for a `_jacobian` function, the log-Jacobian after it; the layout in which a free matrix is
//! read; and a segment of a longer free vector as an operand.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::linalg::node::{offset_key, record, Arg, Bars, Output};
use crate::matrix::Operand;
use crate::var::{Storage, Var, Vector};

/// The results of a transform: the value and, for a `_jacobian` function, the log-Jacobian.
pub(crate) type Pair<S> = (Var<S>, Option<Var>);

/// Records ONE node with results `value` and, when `lp` is given, the scalar `lp` after it
/// (`value.len() + 1` slots); `back(ḡ, l̄, bars)` gets the value's adjoint and the
/// log-Jacobian's (0 without one). Nothing is recorded when every operand is data: the results
/// are then constants.
pub(crate) fn record_pair<S: Storage, const N: usize>(
    value: S,
    lp: Option<f64>,
    args: [Arg; N],
    back: impl FnOnce(&[f64], f64, &mut Bars<'_>) + 'static,
) -> Pair<S> {
    let n = value.len();
    let out_len = n + usize::from(lp.is_some());
    let key = record(args, out_len, move |g, bars| {
        let (gv, gl) = g.split_at(n);
        back(gv, gl.first().copied().unwrap_or(0.0), bars)
    });
    let lp = lp.map(|l| l.wrap(offset_key(key, n)));
    (value.wrap(key), lp)
}

/// The value of a `_jacobian` function: the pair with its log-Jacobian.
pub(crate) fn with_lp<S>((v, lp): (Var<S>, Option<Var>)) -> (Var<S>, Var) {
    (v, lp.expect("a log-Jacobian was asked for"))
}

/// How the elements of a free r×c matrix lie in its run: element (i, j) at
/// `i·row_stride + j·col_stride` (row-major for revad's matrices, column-major for the free
/// vector of a Stan model).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl Grid {
    /// An r×c matrix in row-major order.
    pub(crate) fn row_major(rows: usize, cols: usize) -> Grid {
        Grid {
            rows,
            cols,
            row_stride: cols,
            col_stride: 1,
        }
    }

    /// An r×c matrix in column-major order.
    pub(crate) fn col_major(rows: usize, cols: usize) -> Grid {
        Grid {
            rows,
            cols,
            row_stride: 1,
            col_stride: rows,
        }
    }

    /// Where element (i, j) is.
    #[inline]
    pub(crate) fn at(&self, i: usize, j: usize) -> usize {
        i * self.row_stride + j * self.col_stride
    }

    /// Where the element that is `k`-th in row-major order is.
    #[inline]
    pub(crate) fn at_row_major(&self, k: usize) -> usize {
        if self.col_stride == 1 {
            k
        } else {
            self.at(k / self.cols, k % self.cols)
        }
    }

    /// The number of elements.
    pub(crate) fn len(&self) -> usize {
        self.rows * self.cols
    }
}

/// `len` elements of a free vector from `offset` on, as an operand of their own: a node that
/// reads it adds into that part of the vector's adjoint run (no copy node).
pub(crate) struct Segment {
    value: Vector,
    key: Option<u64>,
}

impl Segment {
    /// The segment, or [`Error::Size`] if the vector is too short ("f: free vector has size 3,
    /// but must have size 5": the size it must have to hold the segment).
    pub(crate) fn new(
        function: &'static str,
        free: &impl Operand<Vector>,
        offset: usize,
        len: usize,
    ) -> Result<Segment> {
        let v = free.value();
        let s = v.as_slice();
        if offset + len > s.len() {
            return Err(Error::Size {
                function,
                what: "free vector",
                expected: offset + len,
                found: s.len(),
            });
        }
        let value = Vector::from(s[offset..offset + len].to_vec());
        // A slot is a key's low 32 bits, and a run never crosses a generation.
        let key = free.key().map(|k| k + offset as u64);
        Ok(Segment { value, key })
    }

    /// The values.
    pub(crate) fn values(&self) -> &[f64] {
        self.value.as_slice()
    }
}

impl Operand<Vector> for Segment {
    fn value(&self) -> Cow<'_, Vector> {
        Cow::Borrowed(&self.value)
    }
    fn key(&self) -> Option<u64> {
        self.key
    }
}
