//! Elements by position, and reshaping in NumPy's order (row-major, "C order"), each ONE node.
//!
//! Positions count the elements of an array in row-major order (element `(i, j)` of an
//! `r × c` matrix is position `i·c + j`), which is how NumPy's integer-array indexing, boolean
//! masks and `reshape` read an array. With `ḡ`/`c̄` the result's adjoints:
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `gather(a, p, shape)`, `take(a, p)` | `cₖ = a[pₖ]` | `ā[pₖ] += c̄ₖ` (a repeated position gets the sum) |
//! | `scatter_add(a, p, shape)` | `cᵢ = Σ_{k: pₖ = i} aₖ` (0 where no position points) | `āₖ += c̄[pₖ]` |
//! | `reshape(a, rows, cols)` | the elements of `a`, row-major, as a `rows × cols` matrix | `ā += c̄` |
//! | `ravel(a)` | the elements of `a`, row-major, as a vector | `ā += c̄` |
//!
//! `gather` and `scatter_add` are each other's adjoint. Stan's `to_vector` and `to_matrix` read
//! and fill **column-major** (see the manipulation functions); `reshape` and `ravel` are
//! NumPy's row-major counterparts. A data operand gets no reverse-pass work, and a result of
//! data only is a constant with no node.
//!
//! ```
//! use revad::{matrix, tape, Matrix, Var, Vector};
//! use revad::ndarray::array;
//! let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
//! // NumPy's a[[1, 0], [2, 2]]: the elements (1, 2) and (0, 2), positions 5 and 2.
//! let c: Var<Vector> = matrix::gather(&a, &[5, 2], (2, 1)).unwrap();
//! assert_eq!(c.value().to_vec(), vec![6.0, 3.0]);
//! let s = matrix::dot_self(&c); // 6² + 3²
//! s.grad();
//! assert_eq!(a.adj(), array![[0.0, 0.0, 6.0], [0.0, 0.0, 12.0]].into_shared());
//! tape::reset();
//! ```

use super::layout::Strided;
use super::manipulation::{build, record};
use super::operand::Operand;
use crate::error::{check, Error, Result};
use crate::var::{Matrix, Storage, Var, Vector};

/// Checks that every position is less than `len`.
fn positions_in(function: &'static str, positions: &[usize], len: usize) -> Result<()> {
    positions.iter().try_for_each(|&p| {
        check::less_than(
            function,
            "a position",
            p,
            len,
            "less than the number of elements",
        )
    })
}

/// Checks that `shape` holds `n` elements.
fn shape_holds(function: &'static str, shape: (usize, usize), n: usize) -> Result<()> {
    check::size(
        function,
        "the shape's number of elements",
        n,
        shape.0 * shape.1,
    )
}

/// The first position if `positions` is a run `p, p + 1, …` (a copy is then one slice).
fn run_start(positions: &[usize]) -> Option<usize> {
    let first = *positions.first()?;
    positions
        .iter()
        .enumerate()
        .all(|(k, &p)| p == first + k)
        .then_some(first)
}

/// The elements of `a` at the row-major `positions`, as an array of kind `T` and shape
/// `shape` (`(rows, cols)`; a vector result is `(n, 1)` or `(1, n)`): `cₖ = a[pₖ]`, with
/// `ā[pₖ] += c̄ₖ` in the reverse pass, so that a position given several times gets the sum of
/// its copies' adjoints. One node; this is NumPy's integer-array and boolean-mask indexing
/// (a mask selects the positions where it is true).
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let v = Var::array(Vector::from(vec![10.0, 20.0, 30.0]));
/// let c: Var<Vector> = matrix::gather(&v, &[2, 0, 2], (3, 1)).unwrap(); // [30, 10, 30]
/// matrix::sum(&c).grad();
/// assert_eq!(v.adj().to_vec(), vec![1.0, 0.0, 2.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::DomainInt`] if a position is out of range: `gather: a position is 3, but must be
/// less than the number of elements (3)`; [`Error::Size`] if `shape` does not hold
/// `positions.len()` elements.
pub fn gather<S: Storage, T: Storage>(
    a: &impl Operand<S>,
    positions: &[usize],
    shape: (usize, usize),
) -> Result<Var<T>> {
    let av = a.value();
    let x = av.as_slice();
    positions_in("gather", positions, x.len())?;
    shape_holds("gather", shape, positions.len())?;
    match run_start(positions) {
        Some(p0) => {
            let n = positions.len();
            let value = build::<T>(shape, x[p0..p0 + n].to_vec());
            Ok(record(value, [(a.key(), x.len())], move |_, g, r| {
                for (ri, gi) in r[p0..p0 + n].iter_mut().zip(g) {
                    *ri += gi;
                }
            }))
        }
        None => {
            let value = build::<T>(shape, positions.iter().map(|&p| x[p]).collect());
            let positions = positions.to_vec();
            Ok(record(value, [(a.key(), x.len())], move |_, g, r| {
                for (&p, gi) in positions.iter().zip(g) {
                    r[p] += gi;
                }
            }))
        }
    }
}

/// A strided window of `a` (NumPy's basic indexing: slices with any step and integers), as
/// an array of kind `T` and shape `shape`: element `(p, q)` of the window, `p < rows.0`,
/// `q < cols.0`, is `a`'s row-major element `start + p·rows.1 + q·cols.1` (a step may be
/// negative), and the window's elements fill the result row-major. The reverse pass adds the
/// result's adjoints back into the window of `ā`. One node, whose forward pass is a copy of
/// the window (a slice copy per row when `cols.1 = 1`) and reverse pass an add of the same
/// elements, with no index vector.
///
/// ```
/// use revad::{matrix, tape, Matrix, Var};
/// use revad::ndarray::array;
/// let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
/// // NumPy's a[::-1, 0::2]: rows 1, 0 and columns 0, 2.
/// let c: Var<Matrix> = matrix::strided(&a, 3, (2, -3), (2, 2), (2, 2)).unwrap();
/// assert_eq!(c.value(), &array![[4.0, 6.0], [1.0, 3.0]].into_shared());
/// matrix::sum(&c).grad();
/// assert_eq!(a.adj(), array![[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] if `shape` does not hold `rows.0 · cols.0` elements;
/// [`Error::DomainInt`] if the window reaches outside `a`: `strided: the window's end is 7,
/// but must be at most the number of elements (6)` (one past its furthest position), or
/// `strided: the window's first position is -3, but must be at least 0`.
pub fn strided<S: Storage, T: Storage>(
    a: &impl Operand<S>,
    start: usize,
    rows: (usize, isize),
    cols: (usize, isize),
    shape: (usize, usize),
) -> Result<Var<T>> {
    let av = a.value();
    let x = av.as_slice();
    let w = Strided {
        start,
        rows: rows.0,
        row_step: rows.1,
        cols: cols.0,
        col_step: cols.1,
    };
    shape_holds("strided", shape, w.len())?;
    let (lo, end) = w.bounds();
    if lo < 0 {
        return Err(Error::DomainInt {
            function: "strided",
            argument: "the window's first position",
            value: lo as i64,
            requirement: "at least 0".into(),
        });
    }
    check::at_most(
        "strided",
        "the window's end",
        end as usize,
        x.len(),
        "at most the number of elements",
    )?;
    let value = build::<T>(shape, w.gather(x));
    Ok(record(value, [(a.key(), x.len())], move |_, g, r| {
        w.scatter_add(g, r)
    }))
}

/// The elements of `a` at the row-major `positions` as a vector (NumPy's `np.take(a, p)`):
/// [`gather`] with the shape `(positions.len(), 1)`.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let m = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let d = matrix::take(&m, &[0, 3]).unwrap(); // the diagonal
/// assert_eq!(d.value().to_vec(), vec![1.0, 4.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// As [`gather`].
pub fn take<S: Storage>(a: &impl Operand<S>, positions: &[usize]) -> Result<Var<Vector>> {
    gather(a, positions, (positions.len(), 1))
}

/// The elements of `a` (in row-major order) added into an array of kind `T` and shape `shape`
/// at the row-major `positions`: `cᵢ = Σ_{k: pₖ = i} aₖ`, 0 where no position points (NumPy's
/// `np.add.at` into zeros, JAX's `segment_sum`). The adjoint of [`gather`]: `āₖ += c̄[pₖ]`.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// let a = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
/// let c: Var<Vector> = matrix::scatter_add(&a, &[1, 0, 1], (2, 1)).unwrap(); // [2, 4]
/// assert_eq!(c.value().to_vec(), vec![2.0, 4.0]);
/// let y = matrix::dot_product(&c, &Vector::from(vec![10.0, 100.0])).unwrap();
/// y.grad();
/// assert_eq!(a.adj().to_vec(), vec![100.0, 10.0, 100.0]);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] unless there is one position per element of `a`; [`Error::DomainInt`] if a
/// position is outside `shape`.
pub fn scatter_add<S: Storage, T: Storage>(
    a: &impl Operand<S>,
    positions: &[usize],
    shape: (usize, usize),
) -> Result<Var<T>> {
    let av = a.value();
    let x = av.as_slice();
    if positions.len() != x.len() {
        return Err(Error::Size {
            function: "scatter_add",
            what: "the positions (one per element)",
            expected: x.len(),
            found: positions.len(),
        });
    }
    let m = shape.0 * shape.1;
    positions_in("scatter_add", positions, m)?;
    let mut data = vec![0.0; m];
    for (&p, &xk) in positions.iter().zip(x) {
        data[p] += xk;
    }
    let value = build::<T>(shape, data);
    let positions = positions.to_vec();
    Ok(record(value, [(a.key(), x.len())], move |_, g, r| {
        for (rk, &p) in r.iter_mut().zip(&positions) {
            *rk += g[p];
        }
    }))
}

/// The elements of `a` read in row-major order (NumPy's C order) as a `rows × cols` matrix:
/// NumPy's `a.reshape(rows, cols)`. One node, `ā += c̄`; the result has its own adjoints, so
/// assigning into it leaves `a` as it was.
///
/// ```
/// use revad::{matrix, tape, Var, Vector};
/// use revad::ndarray::array;
/// let v = Var::array(Vector::from(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
/// let m = matrix::reshape(&v, 2, 3).unwrap();
/// assert_eq!(m.value(), &array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] unless `rows · cols` is the number of elements: `reshape: the shape's
/// number of elements has size 4, but must have size 6`.
pub fn reshape<S: Storage>(a: &impl Operand<S>, rows: usize, cols: usize) -> Result<Var<Matrix>> {
    copy_as("reshape", a, (rows, cols))
}

/// The elements of `a` read in row-major order (NumPy's C order) as a vector: NumPy's
/// `a.ravel()`, `a.flatten()` and `a.reshape(-1)`. One node, `ā += c̄`.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let m = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// assert_eq!(matrix::ravel(&m).value().to_vec(), vec![1.0, 2.0, 3.0, 4.0]);
/// // Stan's to_vector reads column-major instead.
/// assert_eq!(matrix::to_vector(&m).value().to_vec(), vec![1.0, 3.0, 2.0, 4.0]);
/// tape::reset();
/// ```
pub fn ravel<S: Storage>(a: &impl Operand<S>) -> Var<Vector> {
    let n = a.value().len();
    copy_as("ravel", a, (n, 1)).expect("n elements fill (n, 1)")
}

/// `a`'s elements, row-major, as kind `T` of shape `shape`, one node: `ā += c̄`.
fn copy_as<S: Storage, T: Storage>(
    function: &'static str,
    a: &impl Operand<S>,
    shape: (usize, usize),
) -> Result<Var<T>> {
    let av = a.value();
    let n = av.len();
    shape_holds(function, shape, n)?;
    let value = build::<T>(shape, av.as_slice().to_vec());
    Ok(record(value, [(a.key(), n)], |_, g, r| {
        for (ri, gi) in r.iter_mut().zip(g) {
            *ri += gi;
        }
    }))
}
