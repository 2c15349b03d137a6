//! Joining any number of matrices along an axis (NumPy's `concatenate`), as ONE node.
//!
//! With `C = [A₁; A₂; …]` (axis 0, the rows of each below the previous one's) or
//! `C = [A₁ A₂ …]` (axis 1, the columns side by side), each `Aₖ` is a block of `C`, and the
//! reverse pass hands each variable operand its block of `C̄`: `Āₖ += C̄[block k]`. Data
//! operands get no reverse-pass work; a result of data only is a constant with no node. Stan's
//! two-argument [`append_row`](super::append_row) and [`append_col`](super::append_col) are the
//! cases of two operands.
//!
//! ```
//! use revad::{matrix, tape, Matrix, Var};
//! use revad::matrix::Operand;
//! use revad::ndarray::array;
//! let a = Var::array(array![[1.0, 2.0]].into_shared());
//! let b: Matrix = array![[3.0, 4.0], [5.0, 6.0]].into_shared();
//! let c = Var::array(array![[7.0, 8.0]].into_shared());
//! let parts: [&dyn Operand<Matrix>; 3] = [&a, &b, &c];
//! let m = matrix::concatenate(&parts, 0).unwrap(); // 4×2
//! assert_eq!(m.value().row(3).to_vec(), vec![7.0, 8.0]);
//! let s = matrix::dot_self(&m);
//! s.grad();
//! assert_eq!(c.adj(), array![[14.0, 16.0]].into_shared());
//! tape::reset();
//! ```

use ndarray::Array2;

use super::operand::{slot_of, Operand};
use crate::error::{require_int, Error, Result};
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, Var};

/// The matrices `parts` joined along `axis`: below one another (`axis = 0`, NumPy's
/// `np.concatenate(parts, axis=0)`, `np.vstack`) or side by side (`axis = 1`, `np.hstack` of
/// matrices). Operands may be variables and data in any mix. One node; each variable operand
/// gets its block of the result's adjoint.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::matrix::Operand;
/// use revad::Matrix;
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0], [2.0]].into_shared());
/// let b = Var::array(array![[3.0, 4.0], [5.0, 6.0]].into_shared());
/// let m = matrix::concatenate(&[&a as &dyn Operand<Matrix>, &b], 1).unwrap();
/// assert_eq!(m.value(), &array![[1.0, 3.0, 4.0], [2.0, 5.0, 6.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::DomainInt`] for no operands (`concatenate: the number of arrays is 0, but must be
/// positive`) or an axis other than 0 or 1; [`Error::Size`] when the other axis differs:
/// `concatenate: the columns of an array has size 3, but must have size 2`.
pub fn concatenate(parts: &[&dyn Operand<Matrix>], axis: usize) -> Result<Var<Matrix>> {
    require_int(
        !parts.is_empty(),
        "concatenate",
        "the number of arrays",
        0,
        "positive",
    )?;
    require_int(axis < 2, "concatenate", "axis", axis as i64, "0 or 1")?;
    let values: Vec<_> = parts.iter().map(|p| p.value()).collect();
    let (r0, c0) = values[0].dim();
    for v in &values[1..] {
        let (r, c) = v.dim();
        let (what, expected, found) = if axis == 0 {
            ("the columns of an array", c0, c)
        } else {
            ("the rows of an array", r0, r)
        };
        if expected != found {
            return Err(Error::Size {
                function: "concatenate",
                what,
                expected,
                found,
            });
        }
    }
    // Each operand's (key, rows, columns) and the result's shape.
    let dims: Vec<(usize, usize)> = values.iter().map(|v| v.dim()).collect();
    let (rows, cols) = if axis == 0 {
        (dims.iter().map(|d| d.0).sum(), c0)
    } else {
        (r0, dims.iter().map(|d| d.1).sum())
    };
    let mut data = Vec::with_capacity(rows * cols);
    if axis == 0 {
        for v in &values {
            data.extend_from_slice(v.as_slice().expect("standard layout"));
        }
    } else {
        for i in 0..rows {
            for v in &values {
                data.extend_from_slice(v.row(i).as_slice().expect("standard layout"));
            }
        }
    }
    let value: Matrix = Array2::from_shape_vec((rows, cols), data)
        .expect("the parts fill the shape")
        .into_shared();
    let ops: Vec<(Option<u64>, usize, usize)> = parts
        .iter()
        .zip(&dims)
        .map(|(p, &(r, c))| (p.key(), r, c))
        .collect();
    let keys: Vec<u64> = ops.iter().filter_map(|o| o.0).collect();
    if keys.is_empty() {
        return Ok(Var::array(value));
    }
    let n = rows * cols;
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            // Where each operand starts: an element offset (axis 0) or a column (axis 1).
            let mut at = 0;
            for &(key, r, c) in &ops {
                if let Some(key) = key {
                    let run = below.run(slot_of(key), r * c);
                    if axis == 0 {
                        for (x, gi) in run.iter_mut().zip(&g[at..at + r * c]) {
                            *x += gi;
                        }
                    } else {
                        for i in 0..r {
                            let src = &g[i * cols + at..i * cols + at + c];
                            for (x, gi) in run[i * c..(i + 1) * c].iter_mut().zip(src) {
                                *x += gi;
                            }
                        }
                    }
                }
                at += if axis == 0 { r * c } else { c };
            }
        }
    });
    Ok(Var::from_key(value, key))
}
