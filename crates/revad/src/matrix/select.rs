//! Elementwise choice between two arrays by a condition array (Stan's container `select`,
//! NumPy's `where`), with NumPy's broadcasting, as ONE node.
//!
//! `cᵢⱼ = a[π_a(i, j)]` where `cond[π_cond(i, j)]` is true, else `b[π_b(i, j)]`, with each
//! operand broadcast to the result's shape by NumPy's rule (an axis of length 1 repeats:
//! `π(i, j) = (i mod r, j mod c)`). The reverse pass hands each result adjoint to the element
//! it was chosen from: `ā[π_a(i, j)] += c̄ᵢⱼ` where the condition holds, `b̄[π_b(i, j)] += c̄ᵢⱼ`
//! where it does not (so an element repeated by broadcasting gets the sum over its copies). The
//! condition is data and gets no adjoint.

use ndarray::{Array2, ArrayView2};

use super::operand::{keys_of, slot_of, Operand};
use crate::error::{Error, Result};
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, Var};

/// The shape that `shapes` broadcast to by NumPy's rule (each axis 1 or the common length).
///
/// # Errors
/// [`Error::Size`] naming the first operand whose axis is neither 1 nor the common length (the
/// most frequent length other than 1).
pub(super) fn broadcast_dims(
    function: &'static str,
    shapes: &[(usize, usize, &'static str)],
) -> Result<(usize, usize)> {
    // The common length of an axis: the most frequent length other than 1 (the first of those
    // on a tie), so that the message names the operand that does not fit.
    let common = |len: fn(&(usize, usize, &'static str)) -> usize| {
        let mut best = (1, 0);
        for s in shapes {
            let n = shapes.iter().filter(|t| len(t) == len(s)).count();
            if len(s) != 1 && n > best.1 {
                best = (len(s), n);
            }
        }
        best.0
    };
    let out = (common(|s| s.0), common(|s| s.1));
    for &(r, c, what) in shapes {
        for (have, want) in [(r, out.0), (c, out.1)] {
            if have != 1 && have != want {
                return Err(Error::Size {
                    function,
                    what,
                    expected: want,
                    found: have,
                });
            }
        }
    }
    Ok(out)
}

/// `a` where `cond` holds, else `b`, elementwise after NumPy's broadcasting of the three
/// shapes (Stan's `select(cond, a, b)` of containers, NumPy's `np.where(cond, a, b)`); `a` and
/// `b` may be variables or data. One node; each chosen element's adjoint goes back to where it
/// came from.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0, 3.0]].into_shared()); // 1×3
/// let b = Var::array(array![[-1.0], [-2.0]].into_shared()); // 2×1
/// let cond = array![[true, false, true], [false, false, true]];
/// let c = matrix::select(cond.view(), &a, &b).unwrap(); // 2×3
/// assert_eq!(c.value(), &array![[1.0, -1.0, 3.0], [-2.0, -2.0, 3.0]].into_shared());
/// matrix::sum(&c).grad();
/// assert_eq!(a.adj(), array![[1.0, 0.0, 2.0]].into_shared());
/// assert_eq!(b.adj(), array![[1.0], [2.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] when the shapes do not broadcast: `select: the columns of the first value
/// has size 2, but must have size 3`.
pub fn select(
    cond: ArrayView2<'_, bool>,
    a: &impl Operand<Matrix>,
    b: &impl Operand<Matrix>,
) -> Result<Var<Matrix>> {
    let (av, bv) = (a.value(), b.value());
    let ((rq, cq), (ra, ca), (rb, cb)) = (cond.dim(), av.dim(), bv.dim());
    // Rows and columns checked separately, so that the message names the axis.
    let (rows, _) = broadcast_dims(
        "select",
        &[
            (rq, 1, "the rows of the condition"),
            (ra, 1, "the rows of the first value"),
            (rb, 1, "the rows of the second value"),
        ],
    )?;
    let (_, cols) = broadcast_dims(
        "select",
        &[
            (1, cq, "the columns of the condition"),
            (1, ca, "the columns of the first value"),
            (1, cb, "the columns of the second value"),
        ],
    )?;
    let pick: Vec<bool> = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| (i, j)))
        .map(|(i, j)| cond[(i % rq, j % cq)])
        .collect();
    let (x, y) = (
        av.as_slice().expect("standard"),
        bv.as_slice().expect("standard"),
    );
    let ia = move |i: usize, j: usize| (i % ra) * ca + j % ca;
    let ib = move |i: usize, j: usize| (i % rb) * cb + j % cb;
    let data: Vec<f64> = (0..rows * cols)
        .map(|o| {
            let (i, j) = (o / cols, o % cols);
            if pick[o] {
                x[ia(i, j)]
            } else {
                y[ib(i, j)]
            }
        })
        .collect();
    let value: Matrix = Array2::from_shape_vec((rows, cols), data)
        .expect("rows × cols")
        .into_shared();
    let (ka, kb) = (a.key(), b.key());
    let keys = keys_of(ka, kb);
    if keys.is_empty() {
        return Ok(Var::array(value));
    }
    let n = rows * cols;
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            for (k, chosen, len, index) in [
                (ka, true, ra * ca, &ia as &dyn Fn(usize, usize) -> usize),
                (kb, false, rb * cb, &ib),
            ] {
                if let Some(k) = k {
                    let r = below.run(slot_of(k), len);
                    for (o, (&p, go)) in pick.iter().zip(g).enumerate() {
                        if p == chosen {
                            r[index(o / cols, o % cols)] += go;
                        }
                    }
                }
            }
        }
    });
    Ok(Var::from_key(value, key))
}
