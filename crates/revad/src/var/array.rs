//! Array storage for `Var<S>` ("varmat", after Stan Math's varmat design: the
//! `static_matrices` design document, stan-dev/design-docs 0005-static-matrices): one handle
//! holds the whole value array and the first slot of one contiguous run of adjoints, element
//! `k` of the row-major value owning slot `first + k`.
//!
//! Values are reference-counted arrays in standard (row-major) layout, so a handle clones
//! cheaply and reverse-pass closures capture the values they need without copying.

use ndarray::{ArcArray1, ArcArray2, Array1, Array2, ArrayView2};

use super::Var;
use crate::error::{Error, Result};
use crate::tape::{self, Slot};

/// A column vector (Stan's `vector`).
pub type Vector = ArcArray1<f64>;

/// A matrix, row-major (Stan's `matrix`).
pub type Matrix = ArcArray2<f64>;

/// A row vector (Stan's `row_vector`): a 1-D array that multiplies from the left.
#[derive(Clone, Debug, PartialEq)]
pub struct RowVector(pub ArcArray1<f64>);

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Vector {}
    impl Sealed for super::RowVector {}
    impl Sealed for super::Matrix {}
}

/// What a `Var` can hold besides `f64`: [`Vector`], [`RowVector`] and [`Matrix`].
pub trait Storage: Clone + std::fmt::Debug + sealed::Sealed + 'static {
    /// The number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// (rows, columns): `(n, 1)` for a vector, `(1, n)` for a row vector.
    fn shape(&self) -> (usize, usize);
    /// The elements in row-major order.
    ///
    /// # Panics
    /// If `self` is not in standard layout (see [`Storage::is_standard`]); the values of
    /// variables always are, and [`Operand::value`](crate::matrix::Operand::value) gives data
    /// in standard layout.
    fn as_slice(&self) -> &[f64];
    /// Whether the elements lie in standard (row-major, contiguous) layout, as
    /// [`Storage::as_slice`] requires.
    fn is_standard(&self) -> bool;
    /// A value of the same kind and shape as `self` with elements `data` (row-major).
    fn with_data(&self, data: Vec<f64>) -> Self;
    /// `self` in standard layout (a copy only if it is not already).
    fn standard(self) -> Self;
    /// The value as a 2-D array: n×1 for a vector, 1×n for a row vector.
    ///
    /// # Panics
    /// If `self` is not in standard layout, as [`Storage::as_slice`].
    fn view2(&self) -> ArrayView2<'_, f64> {
        ArrayView2::from_shape(self.shape(), self.as_slice()).expect("standard layout")
    }
    /// A value of this kind from a 2-D array of the matching shape.
    #[doc(hidden)]
    fn from2(m: Array2<f64>) -> Self;
    /// Sets element `k` (row-major), copying the array first if it is shared.
    #[doc(hidden)]
    fn set(&mut self, k: usize, x: f64);
    /// Element `k` in row-major order, in any layout.
    #[doc(hidden)]
    fn get(&self, k: usize) -> f64;
}

impl Storage for Vector {
    fn is_standard(&self) -> bool {
        self.is_standard_layout()
    }
    fn len(&self) -> usize {
        self.len()
    }
    fn shape(&self) -> (usize, usize) {
        (self.len(), 1)
    }
    fn as_slice(&self) -> &[f64] {
        (**self)
            .as_slice()
            .expect("revad keeps array values in standard layout")
    }
    fn with_data(&self, data: Vec<f64>) -> Self {
        Array1::from_vec(data).into_shared()
    }
    fn from2(m: Array2<f64>) -> Self {
        let n = m.len();
        m.into_shape_with_order(n).expect("a column").into_shared()
    }
    fn set(&mut self, k: usize, x: f64) {
        self[k] = x;
    }
    fn get(&self, k: usize) -> f64 {
        self[k]
    }
    fn standard(self) -> Self {
        if self.is_standard_layout() {
            self
        } else {
            // Not `to_owned`, which keeps a reversed (negative-stride) layout.
            self.as_standard_layout().into_owned().into_shared()
        }
    }
}

impl Storage for RowVector {
    fn is_standard(&self) -> bool {
        self.0.is_standard_layout()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn shape(&self) -> (usize, usize) {
        (1, self.0.len())
    }
    fn as_slice(&self) -> &[f64] {
        (*self.0)
            .as_slice()
            .expect("revad keeps array values in standard layout")
    }
    fn with_data(&self, data: Vec<f64>) -> Self {
        RowVector(Array1::from_vec(data).into_shared())
    }
    fn from2(m: Array2<f64>) -> Self {
        let n = m.len();
        RowVector(m.into_shape_with_order(n).expect("a row").into_shared())
    }
    fn set(&mut self, k: usize, x: f64) {
        self.0[k] = x;
    }
    fn get(&self, k: usize) -> f64 {
        self.0[k]
    }
    fn standard(self) -> Self {
        RowVector(self.0.standard())
    }
}

impl Storage for Matrix {
    fn is_standard(&self) -> bool {
        self.is_standard_layout()
    }
    fn len(&self) -> usize {
        self.len()
    }
    fn shape(&self) -> (usize, usize) {
        self.dim()
    }
    fn as_slice(&self) -> &[f64] {
        (**self)
            .as_slice()
            .expect("revad keeps array values in standard layout")
    }
    fn with_data(&self, data: Vec<f64>) -> Self {
        Array2::from_shape_vec(self.dim(), data)
            .expect("same shape")
            .into_shared()
    }
    fn from2(m: Array2<f64>) -> Self {
        m.into_shared()
    }
    fn set(&mut self, k: usize, x: f64) {
        let c = self.ncols();
        self[(k / c, k % c)] = x;
    }
    fn get(&self, k: usize) -> f64 {
        match (**self).as_slice() {
            Some(s) => s[k],
            None => {
                let c = self.ncols();
                self[(k / c, k % c)]
            }
        }
    }
    fn standard(self) -> Self {
        if self.is_standard_layout() {
            self
        } else {
            self.as_standard_layout().into_owned().into_shared()
        }
    }
}

impl<S: Storage> Var<S> {
    /// A new independent array variable (an input to differentiate by): one handle, one run
    /// of adjoint slots.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let x = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    /// let s = matrix::dot_self(&x); // Σ xᵢ²
    /// s.grad();
    /// assert_eq!(x.adj().to_vec(), vec![2.0, 4.0, 6.0]);
    /// tape::reset();
    /// ```
    pub fn array(value: S) -> Var<S> {
        let value = value.standard();
        let key = tape::new_array_run(value.len());
        Var::from_key(value, key)
    }

    /// The value.
    #[inline]
    pub fn value(&self) -> &S {
        &self.val
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.val.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.val.is_empty()
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.val.shape()
    }

    /// The first slot of the adjoint run, for a reverse pass that reads or writes the run's
    /// adjoints (by [`Adjoints::run`](tape::Adjoints::run), or slot by slot).
    #[inline]
    pub fn first_slot(&self) -> Slot {
        tape::settle_run(self.key(), self.len());
        Slot(self.idx())
    }

    /// The adjoints, shaped like the value.
    ///
    /// # Panics
    /// If the variable is stale; see [`Var::try_adj`].
    pub fn adj(&self) -> S {
        self.try_adj().unwrap_or_else(|e| panic!("revad: {e}"))
    }

    /// The adjoints, or [`Error::StaleVar`].
    pub fn try_adj(&self) -> Result<S> {
        tape::adjoint_run(self.key(), self.len())
            .map(|a| self.val.with_data(a))
            .ok_or(Error::StaleVar { function: "adj" })
    }

    /// The adjoints, moved out of the tape in one pass, leaving zeros behind (so the end of the
    /// scope has nothing left to clear there): the gradient of an input read once, as the
    /// last thing before its scope ends. A later [`Var::adj`] gives zeros.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let v = Var::array(Vector::from(vec![1.0, 2.0]));
    /// matrix::dot_self(&v).grad();
    /// assert_eq!(v.take_adj().unwrap().to_vec(), vec![2.0, 4.0]);
    /// assert_eq!(v.adj().to_vec(), vec![0.0, 0.0]); // taken
    /// tape::reset();
    /// assert!(v.take_adj().is_err()); // stale
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleVar`] if the variable is stale.
    pub fn take_adj(&self) -> Result<S> {
        tape::take_adjoint_run(self.key(), self.len())
            .map(|a| self.val.with_data(a))
            .ok_or(Error::StaleVar { function: "adj" })
    }

    /// [`Var::take_adj`] as the last read of the current scope, which ends next: the scope's
    /// other adjoints may read zero afterwards (they are not kept). For a gradient of one
    /// long input returned as its scope closes: the tape hands over its adjoint buffer as
    /// the result, as `take_adj` does when the input's slots fill most of it, but here also
    /// when intermediates fill the rest, which it then neither copies nor zeroes.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let g = {
    ///     let _scope = tape::nested();
    ///     let x = Var::array(Vector::from(vec![0.0; 1 << 15]));
    ///     matrix::sum(&matrix::exp(&x)).grad();
    ///     x.take_last_adj().unwrap()
    /// };
    /// assert!(g.iter().all(|&gi| gi == 1.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleVar`] if the variable is stale.
    pub fn take_last_adj(&self) -> Result<S> {
        tape::take_last_adjoint_run(self.key(), self.len())
            .map(|a| self.val.with_data(a))
            .ok_or(Error::StaleVar { function: "adj" })
    }

    /// The value and the packed slot and generation, for bindings that keep handles in
    /// another form (e.g. a Python object); see [`Var::to_bits`].
    #[doc(hidden)]
    pub fn to_array_bits(&self) -> (S, u64) {
        (self.val.clone(), self.key())
    }

    /// The inverse of [`Var::to_array_bits`]. A handle rebuilt from another kind's value of the
    /// same length (a vector's run read as a row vector) is the same variable viewed in that
    /// kind. Check [`Var::is_live`] before use, as for [`Var::from_bits`].
    #[doc(hidden)]
    pub fn from_array_bits(value: S, key: u64) -> Var<S> {
        Var::from_key(value.standard(), key)
    }

    /// Whether the variable's scope is still open.
    pub fn is_live(&self) -> bool {
        tape::is_live_key(self.key())
    }

    /// Element `k` in row-major order, as a scalar variable sharing this variable's adjoint
    /// run (no node is recorded).
    ///
    /// # Panics
    /// If `k` is out of range.
    pub fn element(&self, k: usize) -> Var {
        assert!(
            k < self.len(),
            "revad: element {k} of an array of {}",
            self.len()
        );
        tape::settle_run(self.key(), self.len());
        Var::from_parts(self.val.as_slice()[k], self.idx() + k as u32, self.gen())
    }

    /// The elements as scalar variables (Stan's matvar view), sharing the adjoint run.
    pub fn to_vars(&self) -> Vec<Var> {
        tape::settle_run(self.key(), self.len());
        let (idx, gen) = (self.idx(), self.gen());
        let values = self.val.as_slice();
        (0..self.len())
            .map(|k| Var::from_parts(values[k], idx + k as u32, gen))
            .collect()
    }

    /// An array variable of the kind and shape of `like` from scalar variables (row-major),
    /// as one node whose reverse pass hands each element's adjoint to its scalar.
    ///
    /// # Errors
    /// [`Error::Size`] if `vars.len()` differs from `like.len()`.
    pub fn from_vars(like: &S, vars: &[Var]) -> Result<Var<S>> {
        if vars.len() != like.len() {
            return Err(Error::Size {
                function: "from_vars",
                what: "the scalar variables",
                expected: like.len(),
                found: vars.len(),
            });
        }
        let value = like.with_data(vars.iter().map(|v| v.value()).collect());
        let keys: Vec<u64> = vars.iter().map(|v| v.key()).collect();
        let slots: Vec<Slot> = vars.iter().map(|v| v.slot()).collect();
        let key = tape::record_run(vars.len(), &keys, move |out| {
            move |adj: &mut tape::Adjoints| {
                let (mut below, g) = adj.split_at_result(out, slots.len());
                for (s, gi) in slots.iter().zip(g) {
                    below[*s] += gi;
                }
            }
        });
        Ok(Var::from_key(value, key))
    }
}

impl<S: Storage> Var<S> {
    /// Assigns `x` to element `k` (row-major) in place (the varmat design's subset assignment).
    ///
    /// The element's adjoint slot now stands for `x`: one reverse-pass callback moves the
    /// slot's adjoint to `x` and zeroes it, so that the operations recorded *before* the
    /// assignment, which used the old element, accumulate into the slot afresh. The value is
    /// copied on write, so closures that captured the old values keep them. Operations recorded
    /// before the assignment are not affected; handles cloned before it keep the old value.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    /// let before = matrix::sum(&v); // uses the old v[1]
    /// let x = Var::new(10.0);
    /// v.assign(1, x).unwrap();
    /// let y = before + matrix::dot_self(&v); // 6 + (1 + 100 + 9)
    /// y.grad();
    /// assert_eq!((y.value(), x.adj()), (116.0, 20.0));
    /// assert_eq!(v.adj().to_vec(), vec![3.0, 1.0, 7.0]); // the old v[1] got only `before`'s 1
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::Size`] if `k` is out of range.
    pub fn assign(&mut self, k: usize, x: impl crate::Real) -> Result<()> {
        if k >= self.len() {
            return Err(Error::Size {
                function: "assign",
                what: "the array (index out of range)",
                expected: k + 1,
                found: self.len(),
            });
        }
        let target = Slot(self.idx() + k as u32);
        let xv = x.to_var();
        let inputs: Vec<Var> = std::iter::once(self.element(k)).chain(xv).collect();
        tape::reverse_pass_callback(&inputs, move |adj| {
            let g = adj[target];
            adj[target] = 0.0;
            if let Some(x) = xv {
                adj[x.slot()] += g;
            }
        });
        self.val.set(k, x.value());
        Ok(())
    }
}

impl<S: Storage> std::fmt::Debug for Var<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Var({:?}, slots {}..{})",
            self.val,
            self.idx(),
            self.idx() as usize + self.len()
        )
    }
}

impl Var<Matrix> {
    /// Element `(i, j)`, sharing the adjoint run.
    pub fn at(&self, i: usize, j: usize) -> Var {
        let (r, c) = self.val.dim();
        assert!(
            i < r && j < c,
            "revad: element ({i}, {j}) of a {r}×{c} matrix"
        );
        self.element(i * c + j)
    }
}

/// Checks that two shapes agree.
pub(crate) fn same_shape(
    function: &'static str,
    a: (usize, usize),
    b: (usize, usize),
) -> Result<()> {
    if a == b {
        Ok(())
    } else {
        Err(Error::Size {
            function,
            what: "the second argument",
            expected: a.0 * a.1,
            found: b.0 * b.1,
        })
    }
}
