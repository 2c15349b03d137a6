//! The vector arguments of the multivariate densities: one vector, or an array of vectors of
//! one size (Stan's `vector` and `array[] vector`), each variables or data.
//!
//! A density reads the argument's values as the rows of an n×K row-major block ([`Rows`]) and,
//! in its reverse pass, adds an n×K block of adjoints back into whichever operands are
//! variables ([`Rows::add_adjoint`]). One vector broadcasts against an array of vectors: its
//! adjoint is the sum of the rows.
//!
//! Implemented for a vector (`Var<Vector>`, [`Vector`], nalgebra's `DVector<f64>`), a matrix
//! with one vector per row (`Var<Matrix>`, [`Matrix`], `DMatrix<f64>`), and slices and `Vec`s
//! of vectors (variables or data).

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector};

use crate::error::{check, Result};
use crate::linalg::node::{Arg, Bars};
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var, Vector};

/// One vector or an array of vectors of one size, variables or data: the `y` and `μ` of a
/// multivariate density.
///
/// ```
/// use ndarray::array;
/// use revad::prob::Vectors;
/// use revad::Vector;
/// let one: Vector = array![1.0, 2.0].into_shared();
/// let rows = one.rows("f", "random variable").unwrap();
/// assert_eq!((rows.count(), rows.size()), (1, 2));
/// let many = vec![one.clone(), one];
/// assert_eq!(many.rows("f", "random variable").unwrap().count(), 2);
/// ```
pub trait Vectors {
    /// The values, one vector per row. `what` names the argument in the error raised when the
    /// vectors of an array differ in size ("random variable", "location variable").
    ///
    /// # Errors
    /// [`Error::Size`](crate::Error::Size) if the vectors of an array differ in size: "f: Size
    /// of one of the vectors of the random variable has size 3, but must have size 2".
    fn rows(&self, function: &'static str, what: &'static str) -> Result<Rows<'_>>;
}

/// The values of a [`Vectors`] argument: `count` vectors of `size` elements, row-major, and the
/// operands their adjoints go to.
pub struct Rows<'a> {
    values: Cow<'a, [f64]>,
    count: usize,
    size: usize,
    single: bool,
    args: Vec<Arg>,
}

impl Rows<'_> {
    /// How many vectors (1 for a single vector).
    pub fn count(&self) -> usize {
        self.count
    }

    /// The size of each vector.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether this is one vector (which broadcasts against an array), not an array of them.
    pub fn is_single(&self) -> bool {
        self.single
    }

    /// Whether any of the vectors is a variable.
    pub fn is_var(&self) -> bool {
        self.args.iter().any(Option::is_some)
    }

    /// Vector `i`, or the one vector for any `i` when this is a single vector.
    pub fn row(&self, i: usize) -> &[f64] {
        let i = if self.single { 0 } else { i };
        &self.values[i * self.size..(i + 1) * self.size]
    }

    /// All values, row-major.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The operands, for a node's argument list (one per variable or data part, in order).
    pub(crate) fn args(&self) -> &[Arg] {
        &self.args
    }

    /// How the reverse pass finds this argument's operands: those of the node's argument
    /// list from position `first` on.
    pub(crate) fn at(&self, first: usize) -> RowsBar {
        RowsBar {
            first,
            parts: self.args.len(),
            size: self.size,
            count: self.count,
            single: self.single,
            var: self.is_var(),
        }
    }

    /// Checks every element with `ok` (Stan's `check_finite`, `check_not_nan` on each vector):
    /// "f: Location parameter[2] is inf, but must be finite" (for an array of vectors the
    /// index counts through the vectors in order, from 1).
    pub(crate) fn check(
        &self,
        function: &'static str,
        argument: &'static str,
        ok: impl Fn(f64) -> bool,
        requirement: &str,
    ) -> Result<()> {
        crate::linalg::check::elements(function, argument, &self.values, ok, requirement)
    }
}

/// A [`Rows`] argument's place in a node's operand list, kept by the reverse pass.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowsBar {
    first: usize,
    parts: usize,
    size: usize,
    count: usize,
    single: bool,
    var: bool,
}

impl RowsBar {
    /// Whether any of the vectors is a variable.
    pub(crate) fn is_var(&self) -> bool {
        self.var
    }

    /// Whether this is one vector (its adjoint the sum over the terms).
    pub(crate) fn is_single(&self) -> bool {
        self.single
    }

    /// Adds `scale ×` the adjoint `d`, `n` rows of `size` (row-major), into the variables: row
    /// `i` into vector `i`, or, for a single vector, the sum of the rows.
    pub(crate) fn add_adjoint(&self, bars: &mut Bars<'_>, d: &[f64], n: usize, scale: f64) {
        let k = self.size;
        if self.single {
            if let Some(run) = bars.run(self.first) {
                for row in d[..n * k].chunks_exact(k.max(1)) {
                    for (a, &x) in run.iter_mut().zip(row) {
                        *a += scale * x;
                    }
                }
            }
            return;
        }
        debug_assert_eq!(n, self.count);
        let mut row = 0;
        for part in self.first..self.first + self.parts {
            let run = bars.run(part);
            let rows = match &run {
                Some(r) => r.len() / k.max(1),
                None => 1,
            };
            if let Some(run) = run {
                for (a, &x) in run.iter_mut().zip(&d[row * k..(row + rows) * k]) {
                    *a += scale * x;
                }
            }
            row += rows;
        }
    }
}

/// The rows of one vector operand.
fn one_vector<'a>(value: Cow<'a, Vector>, key: Option<u64>) -> Rows<'a> {
    let size = value.len();
    let values = match value {
        Cow::Borrowed(v) => Cow::Borrowed(v.as_slice()),
        Cow::Owned(v) => Cow::Owned(v.to_vec()),
    };
    Rows {
        values,
        count: 1,
        size,
        single: true,
        args: vec![key.map(|k| (k, size))],
    }
}

/// The rows of one matrix operand, a vector per row.
fn matrix_rows<'a>(value: Cow<'a, Matrix>, key: Option<u64>) -> Rows<'a> {
    let (count, size) = value.dim();
    let values = match value {
        Cow::Borrowed(m) => Cow::Borrowed(m.as_slice()),
        Cow::Owned(m) => Cow::Owned(m.as_slice().to_vec()),
    };
    Rows {
        values,
        count,
        size,
        single: false,
        // Data is one part per row, so that the reverse pass counts rows as for variables.
        args: match key {
            Some(k) => vec![Some((k, count * size))],
            None => vec![None; count],
        },
    }
}

/// The rows of an array of vectors given as `(value, key)` pairs.
fn array_rows<'a, 'v>(
    function: &'static str,
    what: &'static str,
    items: impl ExactSizeIterator<Item = (&'v Vector, Option<u64>)>,
) -> Result<Rows<'a>> {
    let count = items.len();
    let mut values = Vec::new();
    let mut args = Vec::with_capacity(count);
    let mut size = 0;
    for (i, (v, key)) in items.enumerate() {
        if i == 0 {
            size = v.len();
            values.reserve(count * size);
        } else {
            check::size(function, what, size, v.len())?;
        }
        values.extend(v.iter());
        args.push(key.map(|k| (k, size)));
    }
    Ok(Rows {
        values: Cow::Owned(values),
        count,
        size,
        single: false,
        args,
    })
}

/// "Size of one of the vectors of the random variable", from "random variable".
fn ragged(what: &'static str) -> &'static str {
    match what {
        "random variable" => "Size of one of the vectors of the random variable",
        "location variable" => "Size of one of the vectors of the location variable",
        _ => "Size of one of the vectors",
    }
}

impl Vectors for Var<Vector> {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(one_vector(Operand::value(self), Operand::key(self)))
    }
}

impl Vectors for Vector {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(one_vector(Operand::value(self), None))
    }
}

impl Vectors for DVector<f64> {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(one_vector(Operand::<Vector>::value(self), None))
    }
}

impl Vectors for Var<Matrix> {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(matrix_rows(Operand::value(self), Operand::key(self)))
    }
}

impl Vectors for Matrix {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(matrix_rows(Operand::value(self), None))
    }
}

impl Vectors for DMatrix<f64> {
    fn rows(&self, _: &'static str, _: &'static str) -> Result<Rows<'_>> {
        Ok(matrix_rows(Operand::<Matrix>::value(self), None))
    }
}

impl Vectors for [Var<Vector>] {
    fn rows(&self, function: &'static str, what: &'static str) -> Result<Rows<'_>> {
        let items = self.iter().map(|v| (&v.val, Some(v.key())));
        array_rows(function, ragged(what), items)
    }
}

impl Vectors for [Vector] {
    fn rows(&self, function: &'static str, what: &'static str) -> Result<Rows<'_>> {
        array_rows(function, ragged(what), self.iter().map(|v| (v, None)))
    }
}

impl<T: Vectors + ?Sized> Vectors for &T {
    fn rows(&self, function: &'static str, what: &'static str) -> Result<Rows<'_>> {
        (**self).rows(function, what)
    }
}

impl<T> Vectors for Vec<T>
where
    [T]: Vectors,
{
    fn rows(&self, function: &'static str, what: &'static str) -> Result<Rows<'_>> {
        self.as_slice().rows(function, what)
    }
}

/// Stan's `check_consistent_sizes_mvt` and size checks between the random variable `y` and the
/// location `μ`: arrays of vectors have one count, and the vectors one size. Returns the
/// number of terms (the larger count; 0 if either is empty).
pub(crate) fn check_y_mu(function: &'static str, y: &Rows<'_>, mu: &Rows<'_>) -> Result<usize> {
    if !y.single && !mu.single {
        check::size(function, "number of vectors of mu", y.count, mu.count)?;
    }
    if y.count == 0 || mu.count == 0 {
        return Ok(0);
    }
    check::size(function, "size of location parameter", y.size, mu.size)?;
    Ok(y.count.max(mu.count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn ragged_arrays_are_refused() {
        let a: Vec<Vector> = vec![array![1.0, 2.0].into_shared(), array![1.0].into_shared()];
        let e = a.rows("f", "random variable").err().unwrap();
        assert_eq!(
            e.to_string(),
            "f: Size of one of the vectors of the random variable has size 1, but must have size 2"
        );
    }

    #[test]
    fn matrix_rows_are_vectors() {
        let m: Matrix = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]].into_shared();
        let r = m.rows("f", "random variable").unwrap();
        assert_eq!((r.count(), r.size(), r.is_single()), (3, 2, false));
        assert_eq!(r.row(1), &[3.0, 4.0]);
    }
}
