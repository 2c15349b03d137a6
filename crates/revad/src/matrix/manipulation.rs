//! Matrix and array manipulation (Stan Math paper, appendix A.9): slicing, stacking,
//! reshaping, repeating and sorting array variables.
//!
//! Every function that builds an array records ONE node (a result needs its own contiguous run
//! of adjoint slots, so it cannot share its input's run) whose reverse pass routes each
//! result adjoint back to the element it came from. All of them are linear maps that only move
//! (or repeat) elements, so every derivative is 0 or 1:
//!
//! | function | value | reverse pass |
//! |---|---|---|
//! | `block`, `row`, `col`, `sub_row`, `sub_col`, `head`, `tail`, `segment`, `diagonal` | `cₖ = a[π(k)]` (a window of `a`) | `ā[π(k)] += c̄ₖ` |
//! | `append_col(a, b)`, `append_row(a, b)` | `[a b]`, `[a; b]` | each input takes back its part of `c̄` |
//! | `transpose` | `C = Aᵀ` | `Ā += C̄ᵀ` (Giles 2008, section 2.2) |
//! | `to_vector`, `to_row_vector` | `a` read in column-major order | `ā[π(k)] += c̄ₖ` |
//! | `to_matrix(a, m, n)` | `a` read and written in column-major order | `ā[π(k)] += c̄ₖ` |
//! | `diag_matrix(v)` | `C = diag(v)` | `v̄ᵢ += C̄ᵢᵢ` (off-diagonal adjoints go nowhere) |
//! | `rep_vector(x, n)`, `rep_row_vector`, `rep_matrix` | every element `x` | `x̄ += Σₖ c̄ₖ` |
//! | `rep_matrix_vec(v, k)` | `k` copies of `v` | `v̄ᵢ += Σ` of the adjoints of the copies of `vᵢ` |
//! | `broadcast(a, m, n)` | NumPy's broadcast of `a` to `m × n` | `ā` += the sum over the copies |
//! | `sort_asc`, `sort_desc` | `cₖ = a[π(k)]`, `π` the sorting permutation | `ā[π(k)] += c̄ₖ` |
//!
//! `to_array_1d` records nothing: it returns scalar views that share the input's adjoint run.
//! `sort_indices_asc`, `sort_indices_desc`, `rank`, `dims`, `num_elements`, `rows` and `cols`
//! return plain integers (no gradient).
//!
//! # Indices
//!
//! Indices are **0-based** and ranges **half-open**, as everywhere in Rust (Stan counts from 1):
//! Stan's `block(m, 2, 3, 2, 2)` is `block(&m, 1, 2, 2, 2)` here, and `segment(v, i, n)` is
//! elements `i..i + n`. A range must lie inside the array; an empty range may start anywhere
//! from 0 to the length inclusive, as with slices (Stan insists that even an empty range start
//! at a valid index). Out-of-range indices give [`Error::DomainInt`] naming the function and
//! the argument, e.g. `col: j is 3, but must be less than the number of columns`; sizes that
//! do not fit give [`Error::Size`]. Nothing here panics on bad input.
//!
//! # Column-major order
//!
//! Stan's conversions between shapes read and fill matrices in **column-major** order (Eigen's
//! storage order), and these functions keep Stan's order even though revad stores matrices
//! row-major: `to_vector([[1, 2], [3, 4]])` is `[1, 3, 2, 4]`, as are `to_row_vector` and
//! `to_array_1d` of that matrix, and `to_matrix([1, 2, 3, 4], 2, 2)` is `[[1, 3], [2, 4]]`.
//!
//! Data operands (plain [`Vector`], [`RowVector`], [`Matrix`]) are accepted wherever Stan
//! accepts them; they get no adjoint work, and a result made from data only is a constant
//! array variable with no node.
//!
//! ```
//! use revad::{matrix, tape, Var};
//! use ndarray::array;
//! let a = Var::array(array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared());
//! let c = matrix::col(&a, 1).unwrap(); // [2, 5], a Var<Vector>
//! let s = matrix::dot_self(&c); // 2² + 5²
//! s.grad();
//! assert_eq!(a.adj(), array![[0.0, 4.0, 0.0], [0.0, 10.0, 0.0]].into_shared());
//! tape::reset();
//! ```

use std::borrow::Cow;

use ndarray::Array2;

use super::layout::{self, Strided};
use super::operand::{slot_of, Operand};
use crate::error::{check, Error, Result};
use crate::scalar::Real;
use crate::tape::{self, Adjoints};
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

// ---------------------------------------------------------------------------------------------
// Kinds

/// A vector kind: [`Vector`] (a column) or [`RowVector`].
pub trait VectorKind: Storage {
    /// The other orientation: what [`transpose`] makes of it.
    type Transposed: VectorKind;
    /// Whether this is a column vector (`n×1`).
    #[doc(hidden)]
    const COLUMN: bool;
}

impl VectorKind for Vector {
    type Transposed = RowVector;
    const COLUMN: bool = true;
}

impl VectorKind for RowVector {
    type Transposed = Vector;
    const COLUMN: bool = false;
}

/// The shape of an `n`-element vector of kind `S`.
fn vector_shape<S: VectorKind>(n: usize) -> (usize, usize) {
    if S::COLUMN {
        (n, 1)
    } else {
        (1, n)
    }
}

/// What [`transpose`] makes of a kind: a matrix stays a matrix, a vector becomes a row vector
/// and a row vector a vector.
pub trait Transpose: Storage {
    /// The kind of the transpose.
    type Output: Storage;
}

impl Transpose for Matrix {
    type Output = Matrix;
}
impl Transpose for Vector {
    type Output = RowVector;
}
impl Transpose for RowVector {
    type Output = Vector;
}

/// Which kind [`append_col`] makes of two kinds (Stan's overloads): matrix and matrix, matrix
/// and vector, vector and matrix, vector and vector give a matrix; row vector and row vector a
/// row vector.
pub trait AppendCol<B: Storage>: Storage {
    /// The kind of the result.
    type Output: Storage;
}

impl AppendCol<Matrix> for Matrix {
    type Output = Matrix;
}
impl AppendCol<Vector> for Matrix {
    type Output = Matrix;
}
impl AppendCol<Matrix> for Vector {
    type Output = Matrix;
}
impl AppendCol<Vector> for Vector {
    type Output = Matrix;
}
impl AppendCol<RowVector> for RowVector {
    type Output = RowVector;
}

/// Which kind [`append_row`] makes of two kinds (Stan's overloads): matrix and matrix, matrix
/// and row vector, row vector and matrix, row vector and row vector give a matrix; vector and
/// vector a vector.
pub trait AppendRow<B: Storage>: Storage {
    /// The kind of the result.
    type Output: Storage;
}

impl AppendRow<Matrix> for Matrix {
    type Output = Matrix;
}
impl AppendRow<RowVector> for Matrix {
    type Output = Matrix;
}
impl AppendRow<Matrix> for RowVector {
    type Output = Matrix;
}
impl AppendRow<RowVector> for RowVector {
    type Output = Matrix;
}
impl AppendRow<Vector> for Vector {
    type Output = Vector;
}

// ---------------------------------------------------------------------------------------------
// Recording

/// An operand of a node: its key (`None` for data) and its number of elements.
pub(super) type Arg = (Option<u64>, usize);

/// A value of kind `T` with shape `shape` and row-major elements `data`.
pub(super) fn build<T: Storage>(shape: (usize, usize), data: Vec<f64>) -> T {
    T::from2(Array2::from_shape_vec(shape, data).expect("data fills the shape"))
}

/// Records `value`, a linear function of the operands `args`, as one node. The reverse pass
/// calls `back(k, ḡ, ā)` for each variable operand `k`, with the result's adjoints `ḡ` and the
/// operand's adjoint run `ā`, into which `back` adds. Without variable operands nothing is
/// recorded: the result is a constant with a fresh run of its own.
pub(super) fn record<T: Storage, const N: usize>(
    value: T,
    args: [Arg; N],
    back: impl Fn(usize, &[f64], &mut [f64]) + 'static,
) -> Var<T> {
    let n = value.len();
    let keys: Vec<u64> = args.iter().filter_map(|a| a.0).collect();
    if keys.is_empty() {
        return Var::from_key(value, tape::new_run(n));
    }
    let key = tape::record_array_run(n, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            for (k, &(key, len)) in args.iter().enumerate() {
                if let Some(key) = key {
                    back(k, g, below.run(slot_of(key), len));
                }
            }
        }
    });
    Var::from_key(value, key)
}

/// [`record`] for a rearrangement of every element of one operand (`arg`): its reverse pass
/// `back(ḡ, ā, fresh)` adds ḡ, rearranged, into `ā`, or writes it there when `fresh` (the
/// operand's adjoints count as zero and hold leftovers, see [`tape::InputRun`]).
fn record_moved<T: Storage>(
    value: T,
    arg: Arg,
    back: impl Fn(&[f64], &mut [f64], bool) + 'static,
) -> Var<T> {
    let n = value.len();
    let Some(key) = arg.0 else {
        return Var::from_key(value, tape::new_run(n));
    };
    let len = arg.1;
    let key = tape::record_array_run(n, &[key], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            match below.run_or_fresh(slot_of(key), len) {
                tape::InputRun::Add(run) => back(g, run, false),
                tape::InputRun::Set(run) => back(g, run.into_slice(), true),
            }
        }
    });
    Var::from_key(value, key)
}

/// `ā += ḡᵀ` for `ḡ` a `rows × cols` matrix, or `ā = ḡᵀ` when `fresh`: the reverse pass of a
/// transposing [`record_moved`].
fn transpose_back(g: &[f64], rows: usize, cols: usize, run: &mut [f64], fresh: bool) {
    match fresh {
        true => layout::transpose_into(g, rows, cols, run),
        false => layout::transpose_add(g, rows, cols, run),
    }
}

/// The window `w` of the operand with key `ka` and (standard) value `av`, as an array
/// variable of kind `T` and shape `(w.rows, w.cols)`.
fn window<S: Storage, T: Storage>(ka: Option<u64>, av: Cow<'_, S>, w: Strided) -> Var<T> {
    let value = build::<T>((w.rows, w.cols), w.gather(av.as_slice()));
    record(value, [(ka, av.len())], move |_, g, r| w.scatter_add(g, r))
}

/// Records `cₖ = a[perm[k]]` for a permutation (or any selection) `perm` of the elements of
/// the operand `a` with key `ka` and (standard) value `av`.
fn permute<S: Storage, T: Storage>(
    ka: Option<u64>,
    av: Cow<'_, S>,
    shape: (usize, usize),
    perm: Vec<usize>,
) -> Var<T> {
    let x = av.as_slice();
    let value = build::<T>(shape, perm.iter().map(|&i| x[i]).collect());
    record(value, [(ka, av.len())], move |_, g, r| {
        for (&i, gk) in perm.iter().zip(g) {
            r[i] += gk;
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Checks

const AT_MOST_ROWS: &str = "at most the number of rows";
const AT_MOST_COLS: &str = "at most the number of columns";
const LESS_THAN_ROWS: &str = "less than the number of rows";
const LESS_THAN_COLS: &str = "less than the number of columns";
const AT_MOST_SIZE: &str = "at most the size of the vector";

// ---------------------------------------------------------------------------------------------
// Stacking

/// `[a b]`: `b`'s columns to the right of `a`'s (Stan's `append_col`). The kinds may be
/// matrix or vector on either side (a matrix results) or two row vectors (a row vector
/// results); see [`AppendCol`]. The numbers of rows must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// let c: Vector = array![7.0, 8.0].into_shared();
/// let r = matrix::append_col(&m, &c).unwrap();
/// assert_eq!(r.value(), &array![[1.0, 2.0, 3.0, 7.0], [4.0, 5.0, 6.0, 8.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::append_col(&matrix_from(2, 1, &x[..2]), &vector_from(&x[2..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::Size`] if the rows differ: `append_col: the rows of the second argument has size
/// 3, but must have size 2`.
pub fn append_col<A, B>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var<<A as AppendCol<B>>::Output>>
where
    A: AppendCol<B>,
    B: Storage,
{
    let (av, bv) = (a.value(), b.value());
    let ((r, ca), (rb, cb)) = (av.shape(), bv.shape());
    if r != rb {
        return Err(Error::Size {
            function: "append_col",
            what: "the rows of the second argument",
            expected: r,
            found: rb,
        });
    }
    let c = ca + cb;
    let (x, y) = (av.as_slice(), bv.as_slice());
    let mut data = Vec::with_capacity(r * c);
    for i in 0..r {
        data.extend_from_slice(&x[i * ca..(i + 1) * ca]);
        data.extend_from_slice(&y[i * cb..(i + 1) * cb]);
    }
    let value = build((r, c), data);
    let parts = [
        Strided::rows_of(0, c, r, ca),
        Strided::rows_of(ca, c, r, cb),
    ];
    Ok(record(
        value,
        [(a.key(), av.len()), (b.key(), bv.len())],
        move |k, g, run| {
            // The input's run takes back its window of the result's adjoints.
            parts[k].add_gathered(g, run)
        },
    ))
}

/// `[a; b]`: `b`'s rows below `a`'s (Stan's `append_row`). The kinds may be matrix or row
/// vector on either side (a matrix results) or two vectors (a vector results); see
/// [`AppendRow`]. The numbers of columns must agree.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let (a, b): (Vector, Vector) = (array![1.0].into_shared(), array![2.0, 3.0].into_shared());
/// assert_eq!(matrix::append_row(&a, &b).unwrap().value().to_vec(), vec![1.0, 2.0, 3.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::append_row(&matrix_from(1, 2, &x[..2]), &matrix_from(1, 2, &x[2..])).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::Size`] if the columns differ: `append_row: the columns of the second argument has
/// size 3, but must have size 2`.
pub fn append_row<A, B>(
    a: &impl Operand<A>,
    b: &impl Operand<B>,
) -> Result<Var<<A as AppendRow<B>>::Output>>
where
    A: AppendRow<B>,
    B: Storage,
{
    let (av, bv) = (a.value(), b.value());
    let ((ra, c), (rb, cb)) = (av.shape(), bv.shape());
    if c != cb {
        return Err(Error::Size {
            function: "append_row",
            what: "the columns of the second argument",
            expected: c,
            found: cb,
        });
    }
    // Row-major storage: stacking rows is concatenation.
    let na = av.len();
    let data = [av.as_slice(), bv.as_slice()].concat();
    let value = build((ra + rb, c), data);
    Ok(record(
        value,
        [(a.key(), na), (b.key(), bv.len())],
        move |k, g, run| {
            let part = if k == 0 { &g[..na] } else { &g[na..] };
            for (d, s) in run.iter_mut().zip(part) {
                *d += s;
            }
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// Slicing

/// The `nrows × ncols` block of `m` whose top-left element is `(i, j)` (0-based): rows
/// `i..i + nrows`, columns `j..j + ncols` (Stan's `block`, which counts from 1).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::block(&m, 0, 1, 2, 2).unwrap().value(), &array![[2.0, 3.0], [5.0, 6.0]].into_shared());
/// assert!(matrix::block(&m, 1, 0, 2, 1).is_err()); // rows 1..3 of 2
/// check_gradient(|x| matrix::dot_self(&matrix::block(&matrix_from(2, 2, x), 1, 0, 1, 2).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`] if the block does not fit: `block: i + nrows is 4, but must be at most
/// the number of rows` (or `j + ncols` and the columns).
pub fn block(
    m: &impl Operand<Matrix>,
    i: usize,
    j: usize,
    nrows: usize,
    ncols: usize,
) -> Result<Var<Matrix>> {
    let mv = m.value();
    let (r, c) = mv.dim();
    check::at_most(
        "block",
        "i + nrows",
        i.saturating_add(nrows),
        r,
        AT_MOST_ROWS,
    )?;
    check::at_most(
        "block",
        "j + ncols",
        j.saturating_add(ncols),
        c,
        AT_MOST_COLS,
    )?;
    Ok(window(
        m.key(),
        mv,
        Strided::rows_of(i * c + j, c, nrows, ncols),
    ))
}

/// Column `j` of `m` (0-based) as a vector (Stan's `col`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::col(&m, 2).unwrap().value().to_vec(), vec![3.0, 6.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::col(&matrix_from(2, 2, x), 1).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `col: j is 3, but must be less than the number of columns`.
pub fn col(m: &impl Operand<Matrix>, j: usize) -> Result<Var<Vector>> {
    let mv = m.value();
    let (r, c) = mv.dim();
    check::less_than("col", "j", j, c, LESS_THAN_COLS)?;
    Ok(window(m.key(), mv, Strided::rows_of(j, c, r, 1)))
}

/// Row `i` of `m` (0-based) as a row vector (Stan's `row`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::row(&m, 1).unwrap().value().0.to_vec(), vec![4.0, 5.0, 6.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::row(&matrix_from(2, 2, x), 0).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `row: i is 2, but must be less than the number of rows`.
pub fn row(m: &impl Operand<Matrix>, i: usize) -> Result<Var<RowVector>> {
    let mv = m.value();
    let (r, c) = mv.dim();
    check::less_than("row", "i", i, r, LESS_THAN_ROWS)?;
    Ok(window(m.key(), mv, Strided::rows_of(i * c, c, 1, c)))
}

/// The `nrows` elements of column `j` from row `i` on (0-based): rows `i..i + nrows`, as a
/// vector (Stan's `sub_col`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::sub_col(&m, 1, 0, 1).unwrap().value().to_vec(), vec![4.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::sub_col(&matrix_from(2, 2, x), 0, 1, 2).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `sub_col: i + nrows is 4, but must be at most the number of rows`,
/// `sub_col: j is 3, but must be less than the number of columns`.
pub fn sub_col(m: &impl Operand<Matrix>, i: usize, j: usize, nrows: usize) -> Result<Var<Vector>> {
    let mv = m.value();
    let (r, c) = mv.dim();
    check::at_most(
        "sub_col",
        "i + nrows",
        i.saturating_add(nrows),
        r,
        AT_MOST_ROWS,
    )?;
    check::less_than("sub_col", "j", j, c, LESS_THAN_COLS)?;
    Ok(window(
        m.key(),
        mv,
        Strided::rows_of(i * c + j, c, nrows, 1),
    ))
}

/// The `ncols` elements of row `i` from column `j` on (0-based): columns `j..j + ncols`, as a
/// row vector (Stan's `sub_row`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::sub_row(&m, 0, 1, 2).unwrap().value().0.to_vec(), vec![2.0, 3.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::sub_row(&matrix_from(2, 2, x), 1, 0, 2).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `sub_row: i is 2, but must be less than the number of rows`,
/// `sub_row: j + ncols is 4, but must be at most the number of columns`.
pub fn sub_row(
    m: &impl Operand<Matrix>,
    i: usize,
    j: usize,
    ncols: usize,
) -> Result<Var<RowVector>> {
    let mv = m.value();
    let (r, c) = mv.dim();
    check::less_than("sub_row", "i", i, r, LESS_THAN_ROWS)?;
    check::at_most(
        "sub_row",
        "j + ncols",
        j.saturating_add(ncols),
        c,
        AT_MOST_COLS,
    )?;
    Ok(window(
        m.key(),
        mv,
        Strided::rows_of(i * c + j, c, 1, ncols),
    ))
}

/// Elements `i..i + n` of the vector or row vector with key `kv` and (standard) value `vv`,
/// as the same kind.
fn range<S: VectorKind>(
    function: &'static str,
    argument: &'static str,
    kv: Option<u64>,
    vv: Cow<'_, S>,
    i: usize,
    n: usize,
) -> Result<Var<S>> {
    check::at_most(
        function,
        argument,
        i.saturating_add(n),
        vv.len(),
        AT_MOST_SIZE,
    )?;
    let (rows, cols) = vector_shape::<S>(n);
    Ok(window(kv, vv, Strided::rows_of(i, cols, rows, cols)))
}

/// The first `n` elements of a vector or row vector (Stan's `head`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0].into_shared();
/// assert_eq!(matrix::head(&v, 2).unwrap().value().to_vec(), vec![1.0, 2.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::head(&vector_from(x), 2).unwrap()), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `head: n is 4, but must be at most the size of the vector`.
pub fn head<S: VectorKind>(v: &impl Operand<S>, n: usize) -> Result<Var<S>> {
    range("head", "n", v.key(), v.value(), 0, n)
}

/// The last `n` elements of a vector or row vector (Stan's `tail`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0].into_shared();
/// assert_eq!(matrix::tail(&v, 2).unwrap().value().to_vec(), vec![2.0, 3.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::tail(&vector_from(x), 2).unwrap()), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `tail: n is 4, but must be at most the size of the vector`.
pub fn tail<S: VectorKind>(v: &impl Operand<S>, n: usize) -> Result<Var<S>> {
    let vv = v.value();
    let len = vv.len();
    check::at_most("tail", "n", n, len, AT_MOST_SIZE)?;
    range("tail", "n", v.key(), vv, len - n, n)
}

/// The `n` elements from element `i` on (0-based): elements `i..i + n` of a vector or row
/// vector (Stan's `segment`, which counts from 1).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0, 4.0].into_shared();
/// assert_eq!(matrix::segment(&v, 1, 2).unwrap().value().to_vec(), vec![2.0, 3.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::segment(&vector_from(x), 1, 2).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `segment: i + n is 5, but must be at most the size of the vector`.
pub fn segment<S: VectorKind>(v: &impl Operand<S>, i: usize, n: usize) -> Result<Var<S>> {
    range("segment", "i + n", v.key(), v.value(), i, n)
}

/// The diagonal `(m₀₀, m₁₁, …)` of `m` as a vector, `min(rows, cols)` long (Stan's
/// `diagonal`; `m` need not be square).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::diagonal(&m).value().to_vec(), vec![1.0, 5.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::diagonal(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn diagonal(m: &impl Operand<Matrix>) -> Var<Vector> {
    let mv = m.value();
    let (r, c) = mv.dim();
    window(m.key(), mv, Strided::rows_of(0, c + 1, r.min(c), 1))
}

/// The square matrix with `v` on its diagonal and zeros elsewhere (Stan's `diag_matrix`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::diag_matrix(&v).value(), &array![[1.0, 0.0], [0.0, 2.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::diag_matrix(&vector_from(x))), &[&[1.0, -2.0]]);
/// ```
pub fn diag_matrix(v: &impl Operand<Vector>) -> Var<Matrix> {
    let vv = v.value();
    let n = vv.len();
    let mut data = vec![0.0; n * n];
    for (i, x) in vv.iter().enumerate() {
        data[i * (n + 1)] = *x;
    }
    record(build((n, n), data), [(v.key(), n)], move |_, g, r| {
        for (i, d) in r.iter_mut().enumerate() {
            *d += g[i * (n + 1)];
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Reshaping

/// Records `c = a` read in column-major order, as kind `T` (row-major `c` is then `aᵀ`
/// row-major): the transpose, and `to_vector`/`to_row_vector`. The elements are built as a
/// c×r matrix, which a vector or row vector `T` takes in that order.
fn column_major<S: Storage, T: Storage>(a: &impl Operand<S>) -> Var<T> {
    let av = a.value();
    let (r, c) = av.shape();
    let mut data = vec![0.0; r * c];
    layout::transpose_into(av.as_slice(), r, c, &mut data);
    record_moved(
        build((c, r), data),
        (a.key(), r * c),
        move |g, run, fresh| {
            // c[j·r + i] = a[i·c + j], so ā += ḡ read as the c×r matrix, transposed.
            transpose_back(g, c, r, run, fresh)
        },
    )
}

/// The transpose (Stan's `transpose`, `x'`): a matrix's transpose is a matrix, a vector's a
/// row vector and a row vector's a vector; see [`Transpose`].
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::transpose(&m).value(), &array![[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]].into_shared());
/// let w: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
/// check_gradient(|x| matrix::sum(&matrix::elt_multiply(&matrix::transpose(&matrix_from(2, 2, x)), &w).unwrap()), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn transpose<S: Transpose>(a: &impl Operand<S>) -> Var<S::Output> {
    column_major(a)
}

/// The elements as a vector in **column-major** order, Stan's order for `to_vector`: a
/// matrix `[[1, 2], [3, 4]]` gives `[1, 3, 2, 4]`; a vector or row vector keeps its order.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::to_vector(&m).value().to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]); // column-major
/// let w: Vector = array![1.0, 2.0, 3.0, 4.0].into_shared();
/// check_gradient(|x| matrix::dot_product(&matrix::to_vector(&matrix_from(2, 2, x)), &w).unwrap(), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn to_vector<S: Storage>(a: &impl Operand<S>) -> Var<Vector> {
    column_major(a)
}

/// The elements as a row vector in **column-major** order, Stan's order for
/// `to_row_vector`: a matrix `[[1, 2], [3, 4]]` gives `[1, 3, 2, 4]`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let m: Matrix = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]].into_shared();
/// assert_eq!(matrix::to_row_vector(&m).value().0.to_vec(), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// check_gradient(|x| matrix::dot_self(&matrix::to_row_vector(&matrix_from(2, 2, x))), &[&[1.0, -2.0, 0.5, 3.0]]);
/// ```
pub fn to_row_vector<S: Storage>(a: &impl Operand<S>) -> Var<RowVector> {
    column_major(a)
}

/// An `m × n` matrix holding the elements of `a` in **column-major** order, Stan's
/// `to_matrix(a, m, n)`: `a` is read column-major (a vector or row vector in its own order)
/// and the result filled column-major, so `to_matrix([1, 2, 3, 4], 2, 2)` is
/// `[[1, 3], [2, 4]]`. Stan's one-argument `to_matrix(v)` of a vector or row vector is
/// `to_matrix(&v, rows(&v), cols(&v))`.
///
/// ```
/// use revad::{matrix, tape, Vector};
/// use ndarray::array;
/// let v: Vector = array![1.0, 2.0, 3.0, 4.0, 5.0, 6.0].into_shared();
/// let m = matrix::to_matrix(&v, 2, 3).unwrap();
/// assert_eq!(m.value(), &array![[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]].into_shared());
/// // to_vector reads column-major, so it undoes to_matrix.
/// assert_eq!(matrix::to_vector(&m).value(), &v);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] unless `a` has `m·n` elements: `to_matrix: the first argument has size 5,
/// but must have size 6`.
pub fn to_matrix<S: Storage>(a: &impl Operand<S>, m: usize, n: usize) -> Result<Var<Matrix>> {
    let av = a.value();
    let (r, c) = av.shape();
    if m.checked_mul(n) != Some(av.len()) {
        return Err(Error::Size {
            function: "to_matrix",
            what: "the first argument",
            expected: m.saturating_mul(n),
            found: av.len(),
        });
    }
    // Result element (p, q) is element t = q·m + p of `a` read column-major: the result is
    // the transpose of that sequence read as a row-major n×m matrix. A vector (or row vector)
    // is that sequence itself; a matrix's is its transpose, unless the shape is the same
    // (then the result is `a`).
    let n_el = m * n;
    let key = a.key();
    if r == 1 || c == 1 || (m, n) == (r, c) {
        let transposed = r == 1 || c == 1;
        let mut data = vec![0.0; n_el];
        match transposed {
            true => layout::transpose_into(av.as_slice(), n, m, &mut data),
            false => data.copy_from_slice(av.as_slice()),
        }
        return Ok(record_moved(
            build((m, n), data),
            (key, n_el),
            move |g, run, fresh| match (transposed, fresh) {
                (true, _) => transpose_back(g, m, n, run, fresh),
                (false, true) => run.copy_from_slice(g),
                (false, false) => layout::add(g, run),
            },
        ));
    }
    let mut seq = vec![0.0; n_el];
    layout::transpose_into(av.as_slice(), r, c, &mut seq);
    let mut data = vec![0.0; n_el];
    layout::transpose_into(&seq, n, m, &mut data);
    Ok(record_moved(
        build((m, n), data),
        (key, n_el),
        move |g, run, fresh| {
            // The two transposes backwards: ḡ (m×n) to the sequence's adjoints, then to ā.
            let mut seq = vec![0.0; n_el];
            layout::transpose_into(g, m, n, &mut seq);
            transpose_back(&seq, c, r, run, fresh)
        },
    ))
}

/// The elements as scalar variables in **column-major** order (Stan's `to_array_1d`): views
/// that share the adjoint run of `a`, so nothing is recorded.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use revad::ndarray::array;
/// let m = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let xs = matrix::to_array_1d(&m); // [1, 3, 2, 4]: column-major, no node
/// let y = xs[1] * xs[2];
/// y.grad();
/// assert_eq!(m.adj(), array![[0.0, 3.0], [2.0, 0.0]].into_shared());
/// tape::reset();
/// ```
pub fn to_array_1d<S: Storage>(a: &Var<S>) -> Vec<Var> {
    let (r, c) = a.shape();
    (0..c)
        .flat_map(|j| (0..r).map(move |i| i * c + j))
        .map(|k| a.element(k))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Repetition

/// An array of kind `T` and shape `shape` with every element `x`; `x̄ += Σ ḡ`.
fn rep<T: Storage, R: Real>(x: R, shape: (usize, usize)) -> Var<T> {
    let value = build(shape, vec![x.value(); shape.0 * shape.1]);
    let arg = (x.to_var().map(|v| v.key()), 1);
    record(value, [arg], |_, g, r| r[0] += g.iter().sum::<f64>())
}

/// A vector of `n` copies of `x` (Stan's `rep_vector`); `x` may be a variable or `f64`.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// assert_eq!(matrix::rep_vector(2.0, 3).value().to_vec(), vec![2.0; 3]);
/// check_gradient(|x| matrix::dot_self(&matrix::rep_vector(x[0], 3)), &[&[1.5]]); // 3·x²
/// ```
pub fn rep_vector<R: Real>(x: R, n: usize) -> Var<Vector> {
    rep(x, (n, 1))
}

/// A row vector of `n` copies of `x` (Stan's `rep_row_vector`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// assert_eq!(matrix::rep_row_vector(2.0, 2).value().0.to_vec(), vec![2.0; 2]);
/// check_gradient(|x| matrix::dot_self(&matrix::rep_row_vector(x[0], 3)), &[&[1.5]]);
/// ```
pub fn rep_row_vector<R: Real>(x: R, n: usize) -> Var<RowVector> {
    rep(x, (1, n))
}

/// An `m × n` matrix with every element `x` (Stan's `rep_matrix(x, m, n)`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// assert_eq!(matrix::rep_matrix(2.0, 2, 3).value().dim(), (2, 3));
/// check_gradient(|x| matrix::dot_self(&matrix::rep_matrix(x[0], 2, 2)), &[&[1.5]]);
/// ```
pub fn rep_matrix<R: Real>(x: R, m: usize, n: usize) -> Var<Matrix> {
    rep(x, (m, n))
}

/// A matrix of `k` copies of a vector or row vector (Stan's `rep_matrix(v, n)` and
/// `rep_matrix(rv, m)`): a vector `v` gives the `len × k` matrix whose every column is `v`, a
/// row vector the `k × len` matrix whose every row is it.
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 2.0].into_shared();
/// assert_eq!(matrix::rep_matrix_vec(&v, 2).value(), &array![[1.0, 1.0], [2.0, 2.0]].into_shared());
/// check_gradient(|x| matrix::dot_self(&matrix::rep_matrix_vec(&vector_from(x), 3)), &[&[1.0, -2.0]]);
/// ```
pub fn rep_matrix_vec<S: VectorKind>(v: &impl Operand<S>, k: usize) -> Var<Matrix> {
    let vv = v.value();
    let len = vv.len();
    let perm: Vec<usize> = if S::COLUMN {
        (0..len).flat_map(|i| std::iter::repeat_n(i, k)).collect()
    } else {
        (0..k).flat_map(|_| 0..len).collect()
    };
    let shape = if S::COLUMN { (len, k) } else { (k, len) };
    permute(v.key(), vv, shape, perm)
}

/// `a` (an `r × c` matrix) repeated to `rows × cols` by NumPy's broadcasting rule: an axis of
/// length 1 is repeated, an axis of the target length is kept; `cᵢⱼ = a[i mod r, j mod c]`,
/// and in the reverse pass `āₚq += Σ` of the adjoints of its copies. One node (a copy when
/// the shape is already `rows × cols`).
///
/// ```
/// use revad::{matrix, tape, Var};
/// use ndarray::array;
/// let a = Var::array(array![[1.0], [2.0]].into_shared());
/// let b = matrix::broadcast(&a, 2, 3).unwrap(); // [[1, 1, 1], [2, 2, 2]]
/// let s = matrix::sum(&b);
/// s.grad();
/// assert_eq!(a.adj(), array![[3.0], [3.0]].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`] if an axis of `a` is neither 1 nor the target length.
pub fn broadcast(a: &impl Operand<Matrix>, rows: usize, cols: usize) -> Result<Var<Matrix>> {
    let av = a.value();
    let (r, c) = av.dim();
    for (have, want, what) in [
        (r, rows, "the rows (1 or the target)"),
        (c, cols, "the columns (1 or the target)"),
    ] {
        if have != 1 && have != want {
            return Err(Error::Size {
                function: "broadcast",
                what,
                expected: want,
                found: have,
            });
        }
    }
    let perm: Vec<usize> = (0..rows)
        .flat_map(|i| (0..cols).map(move |j| (i % r) * c + j % c))
        .collect();
    Ok(permute(a.key(), av, (rows, cols), perm))
}

// ---------------------------------------------------------------------------------------------
// Sorting

/// The indices of `x` in ascending (or descending) order of value: a stable sort, so ties keep
/// their order; NaN comes last either way.
fn order(x: &[f64], ascending: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&i, &j| {
        let (a, b) = (x[i], x[j]);
        match (a.is_nan(), b.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            // Not NaN: a total order (−0 and +0 tie).
            _ if ascending => a.partial_cmp(&b).expect("not NaN"),
            _ => b.partial_cmp(&a).expect("not NaN"),
        }
    });
    idx
}

/// Sorts a vector or row vector, refusing NaN as Stan does.
fn sort<S: VectorKind>(
    function: &'static str,
    v: &impl Operand<S>,
    ascending: bool,
) -> Result<Var<S>> {
    let vv = v.value();
    let x = vv.as_slice();
    if x.iter().any(|x| x.is_nan()) {
        return Err(Error::Domain {
            function,
            argument: "container argument",
            value: f64::NAN,
            requirement: "not NaN".into(),
        });
    }
    let perm = order(x, ascending);
    let shape = vector_shape::<S>(x.len());
    Ok(permute(v.key(), vv, shape, perm))
}

/// The elements in ascending order (Stan's `sort_asc`); each result element's adjoint goes
/// back to the element it came from.
///
/// ```
/// use revad::{matrix, tape, Var};
/// use ndarray::array;
/// let x = Var::array(array![3.0, -1.0, 2.0].into_shared());
/// let s = matrix::sort_asc(&x).unwrap(); // [-1, 2, 3]
/// let w = array![1.0, 10.0, 100.0].into_shared();
/// matrix::dot_product(&s, &w).unwrap().grad();
/// assert_eq!(x.adj(), array![100.0, 1.0, 10.0].into_shared());
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Domain`] if an element is NaN: `sort_asc: container argument is NaN, but must not
/// be NaN`.
pub fn sort_asc<S: VectorKind>(v: &impl Operand<S>) -> Result<Var<S>> {
    sort("sort_asc", v, true)
}

/// The elements in descending order (Stan's `sort_desc`).
///
/// ```
/// use revad::testing::{check_gradient, matrix_from, vector_from};
/// use revad::{matrix, Matrix, Vector};
/// use revad::ndarray::array;
/// let v: Vector = array![1.0, 3.0, 2.0].into_shared();
/// assert_eq!(matrix::sort_desc(&v).unwrap().value().to_vec(), vec![3.0, 2.0, 1.0]);
/// let w: Vector = array![1.0, 10.0, 100.0].into_shared();
/// check_gradient(|x| matrix::dot_product(&matrix::sort_desc(&vector_from(x)).unwrap(), &w).unwrap(), &[&[1.0, -2.0, 0.5]]);
/// ```
///
/// # Errors
/// [`Error::Domain`] if an element is NaN: `sort_desc: container argument is NaN, but must not
/// be NaN`.
pub fn sort_desc<S: VectorKind>(v: &impl Operand<S>) -> Result<Var<S>> {
    sort("sort_desc", v, false)
}

/// The 0-based indices of the elements in ascending order of value (Stan's
/// `sort_indices_asc`, which counts from 1): `v[idx[0]]` is the smallest. Ties keep their
/// order (Stan leaves it unspecified); NaN elements come last (Stan leaves that undefined).
///
/// ```
/// use revad::{matrix, Vector};
/// let v = Vector::from(vec![3.0, 1.0, 2.0]);
/// assert_eq!(matrix::sort_indices_asc(&v), vec![1, 2, 0]);
/// ```
pub fn sort_indices_asc<S: VectorKind>(v: &impl Operand<S>) -> Vec<usize> {
    order(v.value().as_slice(), true)
}

/// The 0-based indices of the elements in descending order of value (Stan's
/// `sort_indices_desc`): `v[idx[0]]` is the largest. Ties keep their order; NaN elements come
/// last.
///
/// ```
/// use revad::{matrix, Vector};
/// let v = Vector::from(vec![3.0, 1.0, 2.0]);
/// assert_eq!(matrix::sort_indices_desc(&v), vec![0, 2, 1]);
/// ```
pub fn sort_indices_desc<S: VectorKind>(v: &impl Operand<S>) -> Vec<usize> {
    order(v.value().as_slice(), false)
}

/// The number of elements of `v` less than `v[s]` (Stan's `rank`; `s` is 0-based here).
///
/// ```
/// use revad::{matrix, Vector};
/// let v = Vector::from(vec![3.0, 1.0, 2.0]);
/// assert_eq!(matrix::rank(&v, 0).unwrap(), 2); // two elements are less than 3
/// assert!(matrix::rank(&v, 3).is_err());
/// ```
///
/// # Errors
/// [`Error::DomainInt`]: `rank: s is 3, but must be less than the size of the vector`.
pub fn rank<S: VectorKind>(v: &impl Operand<S>, s: usize) -> Result<usize> {
    let vv = v.value();
    let x = vv.as_slice();
    check::less_than("rank", "s", s, x.len(), "less than the size of the vector")?;
    Ok(x.iter().filter(|&&y| y < x[s]).count())
}

// ---------------------------------------------------------------------------------------------
// Sizes

/// The dimensions `[rows, cols]` (Stan's `dims` of a matrix type): `[n, 1]` for a vector and
/// `[1, n]` for a row vector, as in Stan.
///
/// ```
/// use revad::{matrix, Matrix, Vector};
/// assert_eq!(matrix::dims(&Vector::from(vec![1.0, 2.0])), vec![2, 1]);
/// assert_eq!(matrix::dims(&Matrix::zeros((2, 3))), vec![2, 3]);
/// ```
pub fn dims<S: Storage>(a: &impl Operand<S>) -> Vec<usize> {
    let (r, c) = a.value().shape();
    vec![r, c]
}

/// The number of elements (Stan's `num_elements`).
///
/// ```
/// use revad::{matrix, Matrix};
/// assert_eq!(matrix::num_elements(&Matrix::zeros((2, 3))), 6);
/// ```
pub fn num_elements<S: Storage>(a: &impl Operand<S>) -> usize {
    a.value().len()
}

/// The number of rows (Stan's `rows`): `n` for a vector, 1 for a row vector.
///
/// ```
/// use revad::{matrix, Matrix, RowVector, Vector};
/// assert_eq!(matrix::rows(&Matrix::zeros((2, 3))), 2);
/// assert_eq!(matrix::rows(&Vector::from(vec![1.0, 2.0])), 2);
/// assert_eq!(matrix::rows(&RowVector(Vector::from(vec![1.0, 2.0]))), 1);
/// ```
pub fn rows<S: Storage>(a: &impl Operand<S>) -> usize {
    a.value().shape().0
}

/// The number of columns (Stan's `cols`): 1 for a vector, `n` for a row vector.
///
/// ```
/// use revad::{matrix, Matrix, Vector};
/// assert_eq!(matrix::cols(&Matrix::zeros((2, 3))), 3);
/// assert_eq!(matrix::cols(&Vector::from(vec![1.0, 2.0])), 1);
/// ```
pub fn cols<S: Storage>(a: &impl Operand<S>) -> usize {
    a.value().shape().1
}
