//! Assignment into blocks of array variables (Stan Math's varmat design: subset assignment).
//!
//! Writing `x` over elements `K` of an array variable `a` keeps `a`'s adjoint run: from then on
//! slot `k ∈ K` stands for the new value. One reverse-pass callback, recorded at the time of
//! the assignment, undoes this in the reverse pass: when it runs, every operation that used the
//! new values has added into the slots, so it moves each slot's adjoint to the assigned source
//! (`x̄ⱼ += āₖ`) and zeroes the slot (`āₖ = 0`), so that the operations recorded *before* the
//! assignment, which used the old values, accumulate into it afresh. The old values need not be
//! restored: values are copied on write, so every closure that captured them still holds them.
//!
//! | assignment | value | reverse-pass callback |
//! |---|---|---|
//! | `a[K] = x` (array `x`, `|x| = |K|`) | `aₖⱼ ← xⱼ` | `x̄ⱼ += āₖⱼ; āₖⱼ ← 0` |
//! | `a[K] = s` (scalar `s`) | `aₖ ← s` | `s̄ += Σₖ āₖ; āₖ ← 0` |
//!
//! A source that shares slots with the target (a block of `a` assigned into `a`) is first
//! copied into a run of its own by one node, so the callback never reads a slot it zeroed. When
//! `K` repeats an index, the last write wins, in value and in adjoint.

use super::{Matrix, RowVector, Storage, Var, Vector};
use crate::error::{check, Error, Result};
use crate::matrix::{Operand, VectorKind};
use crate::scalar::Real;
use crate::tape::{self, Adjoints, Slot};

/// Where the assigned values come from.
#[derive(Clone, Copy)]
enum Source {
    /// Data: the callback only zeroes.
    Data,
    /// The run of an array variable (packed key): element `j` goes to target `j`.
    Run(u64),
    /// One scalar variable, broadcast to every target.
    One(Var),
}

/// The row-major positions of the `nrows × ncols` block at `(i, j)` of a matrix with `c`
/// columns.
fn block_positions(c: usize, i: usize, j: usize, nrows: usize, ncols: usize) -> Vec<usize> {
    (i..i + nrows)
        .flat_map(|p| (j..j + ncols).map(move |q| p * c + q))
        .collect()
}

/// A copy of the run `key` (`n` slots) in a new run, as one node: `x̄ += c̄`.
fn copy_run(key: u64, n: usize) -> u64 {
    tape::record_run(n, &[key], move |out| {
        move |adj: &mut Adjoints| {
            let (mut below, g) = adj.split_at_result(out, n);
            for (a, b) in below.run(Slot(key as u32), n).iter_mut().zip(g) {
                *a += b;
            }
        }
    })
}

impl<S: Storage> Var<S> {
    /// Writes `values` (one per position, or one for all) over the elements `ks` (row-major)
    /// and records the callback that hands their adjoints to `src`.
    fn write(&mut self, ks: Vec<usize>, values: &[f64], src: Source) {
        if ks.is_empty() {
            return;
        }
        let first = self.idx();
        let mut inputs = vec![self.element(0)];
        match src {
            Source::Data => {}
            Source::Run(key) => {
                // Its adjoints are added into slot by slot.
                tape::settle_run(key, ks.len());
                inputs.push(Var::from_key(0.0, key))
            }
            Source::One(v) => inputs.push(v),
        }
        // Recorded first, so that a refused (stale) handle leaves the value as it was.
        let targets = ks.clone();
        tape::reverse_pass_callback(&inputs, move |adj: &mut Adjoints| {
            // Backwards, so that of two writes to one element the last one gets its adjoint.
            for (j, &k) in ks.iter().enumerate().rev() {
                let t = Slot(first + k as u32);
                let g = adj[t];
                adj[t] = 0.0;
                match src {
                    Source::Data => {}
                    Source::Run(key) => adj[Slot(key as u32 + j as u32)] += g,
                    Source::One(v) => adj[v.slot()] += g,
                }
            }
        });
        for (j, &k) in targets.iter().enumerate() {
            self.val.set(k, values[j.min(values.len() - 1)]);
        }
    }

    /// Assigns the elements of `src` (row-major, of any kind) to the elements at the row-major
    /// positions `ks` of this variable, in place: `a[kⱼ] ← srcⱼ` (see the module
    /// documentation for the reverse pass). Repeated positions take the last value.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0, 4.0]));
    /// let x = Var::array(Vector::from(vec![10.0, 20.0]));
    /// v.assign_indices(&[0, 2], &x).unwrap(); // v = [10, 2, 20, 4]
    /// let y = matrix::dot_self(&v);
    /// y.grad();
    /// assert_eq!(y.value(), 100.0 + 4.0 + 400.0 + 16.0);
    /// assert_eq!(x.adj().to_vec(), vec![20.0, 40.0]);
    /// assert_eq!(v.adj().to_vec(), vec![0.0, 4.0, 0.0, 8.0]); // the overwritten inputs: 0
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::Size`] if `src` does not have `ks.len()` elements; [`Error::DomainInt`] if a
    /// position is out of range.
    pub fn assign_indices<T: Storage>(
        &mut self,
        ks: &[usize],
        src: &impl Operand<T>,
    ) -> Result<()> {
        let sv = src.value();
        if sv.len() != ks.len() {
            return Err(Error::Size {
                function: "assign",
                what: "the assigned values",
                expected: ks.len(),
                found: sv.len(),
            });
        }
        self.check_positions(ks)?;
        let source = match src.key() {
            None => Source::Data,
            Some(key) => {
                let (s0, n) = ((key as u32) as usize, sv.len());
                let (t0, m) = (self.idx() as usize, self.len());
                if n > 0 && s0 < t0 + m && t0 < s0 + n {
                    Source::Run(copy_run(key, n))
                } else {
                    Source::Run(key)
                }
            }
        };
        self.write(ks.to_vec(), sv.as_slice(), source);
        Ok(())
    }

    /// Assigns the scalar `x` (a float or a scalar variable) to every element at the row-major
    /// positions `ks`, in place (a scalar broadcast into a block): `x̄ += Σ āₖ` in the reverse
    /// pass.
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    /// let x = Var::new(5.0);
    /// v.fill_indices(&[1, 2], x).unwrap(); // v = [1, 5, 5]
    /// let y = matrix::dot_self(&v);
    /// y.grad();
    /// assert_eq!((y.value(), x.adj()), (51.0, 20.0));
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::DomainInt`] if a position is out of range.
    pub fn fill_indices(&mut self, ks: &[usize], x: impl Real) -> Result<()> {
        self.check_positions(ks)?;
        let source = x.to_var().map_or(Source::Data, Source::One);
        self.write(ks.to_vec(), &[x.value()], source);
        Ok(())
    }

    fn check_positions(&self, ks: &[usize]) -> Result<()> {
        ks.iter().try_for_each(|&k| {
            check::less_than(
                "assign",
                "the position",
                k,
                self.len(),
                "less than the number of elements",
            )
        })
    }
}

impl<S: VectorKind> Var<S> {
    /// Assigns the vector `src` to elements `start..start + src.len()`, in place (Stan's
    /// `v[start:end] = src`, 0-based): see [`Var::assign_indices`].
    ///
    /// ```
    /// use revad::{matrix, tape, Var, Vector};
    /// let mut v = Var::array(Vector::from(vec![1.0, 2.0, 3.0]));
    /// let w = Var::array(Vector::from(vec![7.0, 8.0]));
    /// v.assign_segment(1, &w).unwrap();
    /// assert_eq!(v.value().to_vec(), vec![1.0, 7.0, 8.0]);
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::DomainInt`] if the segment does not fit: `assign_segment: start + size of
    /// the source is 4, but must be at most the size of the vector`.
    pub fn assign_segment(&mut self, start: usize, src: &impl Operand<S>) -> Result<()> {
        let n = src.value().len();
        check::at_most(
            "assign_segment",
            "start + size of the source",
            start.saturating_add(n),
            self.len(),
            "at most the size of the vector",
        )?;
        let ks: Vec<usize> = (start..start + n).collect();
        self.assign_indices(&ks, src)
    }

    /// Assigns the scalar `x` to elements `start..start + n`, in place.
    ///
    /// # Errors
    /// [`Error::DomainInt`] if the segment does not fit.
    pub fn fill_segment(&mut self, start: usize, n: usize, x: impl Real) -> Result<()> {
        check::at_most(
            "fill_segment",
            "start + n",
            start.saturating_add(n),
            self.len(),
            "at most the size of the vector",
        )?;
        let ks: Vec<usize> = (start..start + n).collect();
        self.fill_indices(&ks, x)
    }
}

impl Var<Matrix> {
    /// The positions of a block, after checking that it fits.
    fn block_checked(
        &self,
        function: &'static str,
        i: usize,
        j: usize,
        nrows: usize,
        ncols: usize,
    ) -> Result<Vec<usize>> {
        let (r, c) = self.shape();
        check::at_most(
            function,
            "i + rows of the block",
            i.saturating_add(nrows),
            r,
            "at most the number of rows",
        )?;
        check::at_most(
            function,
            "j + columns of the block",
            j.saturating_add(ncols),
            c,
            "at most the number of columns",
        )?;
        Ok(block_positions(c, i, j, nrows, ncols))
    }

    /// Assigns the matrix `src` to the block whose top-left element is `(i, j)` (0-based), in
    /// place: `m[i:i + rows, j:j + cols] = src`; see [`Var::assign_indices`].
    ///
    /// ```
    /// use revad::{matrix, tape, Var};
    /// use ndarray::array;
    /// let mut m = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    /// let b = Var::array(array![[9.0], [8.0]].into_shared());
    /// m.assign_block(0, 1, &b).unwrap();
    /// let s = matrix::sum(&m);
    /// s.grad();
    /// assert_eq!(s.value(), 1.0 + 9.0 + 3.0 + 8.0);
    /// assert_eq!(b.adj(), array![[1.0], [1.0]].into_shared());
    /// assert_eq!(m.adj(), array![[1.0, 0.0], [1.0, 0.0]].into_shared());
    /// tape::reset();
    /// ```
    ///
    /// # Errors
    /// [`Error::DomainInt`] if the block does not fit.
    pub fn assign_block(&mut self, i: usize, j: usize, src: &impl Operand<Matrix>) -> Result<()> {
        let (nrows, ncols) = src.value().dim();
        let ks = self.block_checked("assign_block", i, j, nrows, ncols)?;
        self.assign_indices(&ks, src)
    }

    /// Assigns the scalar `x` to every element of the `nrows × ncols` block at `(i, j)`.
    ///
    /// # Errors
    /// [`Error::DomainInt`] if the block does not fit.
    pub fn fill_block(
        &mut self,
        i: usize,
        j: usize,
        nrows: usize,
        ncols: usize,
        x: impl Real,
    ) -> Result<()> {
        let ks = self.block_checked("fill_block", i, j, nrows, ncols)?;
        self.fill_indices(&ks, x)
    }

    /// Assigns the row vector `src` to row `i` (0-based), in place.
    ///
    /// # Errors
    /// [`Error::DomainInt`] if `i` is out of range; [`Error::Size`] if `src` does not have
    /// one element per column.
    pub fn assign_row(&mut self, i: usize, src: &impl Operand<RowVector>) -> Result<()> {
        let (r, c) = self.shape();
        check::at_most(
            "assign_row",
            "i + 1",
            i.saturating_add(1),
            r,
            "at most the number of rows",
        )?;
        if src.value().len() != c {
            return Err(Error::Size {
                function: "assign_row",
                what: "the row vector (one element per column)",
                expected: c,
                found: src.value().len(),
            });
        }
        self.assign_indices(&block_positions(c, i, 0, 1, c), src)
    }

    /// Assigns the vector `src` to column `j` (0-based), in place.
    ///
    /// # Errors
    /// [`Error::DomainInt`] if `j` is out of range; [`Error::Size`] if `src` does not have
    /// one element per row.
    pub fn assign_col(&mut self, j: usize, src: &impl Operand<Vector>) -> Result<()> {
        let (r, c) = self.shape();
        check::at_most(
            "assign_col",
            "j + 1",
            j.saturating_add(1),
            c,
            "at most the number of columns",
        )?;
        if src.value().len() != r {
            return Err(Error::Size {
                function: "assign_col",
                what: "the vector (one element per row)",
                expected: r,
                found: src.value().len(),
            });
        }
        self.assign_indices(&block_positions(c, 0, j, r, 1), src)
    }
}
