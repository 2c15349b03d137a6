//! The one recording helper of the linear-algebra layer: a node with any number of array or
//! scalar operands, variable or data, whose reverse pass gets the result's adjoint and the
//! operands' adjoint runs.

use ndarray::ArrayViewMut2;
use smallvec::SmallVec;

use crate::matrix::Operand;
use crate::tape::{self, Adjoints, Inputs, Slot};
use crate::var::{Storage, Var};
use crate::Real;

/// An operand of a node: the key and length of a variable's adjoint run, or `None` for data.
pub(crate) type Arg = Option<(u64, usize)>;

/// The [`Arg`] of an array operand.
pub(crate) fn arg<S: Storage>(a: &impl Operand<S>) -> Arg {
    a.key().map(|k| (k, a.value().len()))
}

/// The [`Arg`] of a scalar operand (`f64` or `Var`).
pub(crate) fn scalar_arg(x: impl Real) -> Arg {
    x.to_var().map(|v| (v.key(), 1))
}

/// What a node's reverse pass writes into: the adjoint runs of its operands, by position.
pub(crate) struct Bars<'a> {
    below: Inputs<'a>,
    args: &'a [Arg],
}

impl Bars<'_> {
    /// Whether operand `i` is a variable (so its adjoint is wanted).
    pub(crate) fn wants(&self, i: usize) -> bool {
        self.args[i].is_some()
    }

    /// The adjoint run of operand `i` (row-major), or `None` if it is data.
    pub(crate) fn run(&mut self, i: usize) -> Option<&mut [f64]> {
        let (k, n) = self.args[i]?;
        Some(self.below.run(Slot(k as u32), n))
    }

    /// The adjoint of operand `i` as an `r×c` row-major matrix, or `None` if it is data.
    pub(crate) fn matrix(
        &mut self,
        i: usize,
        shape: (usize, usize),
    ) -> Option<ArrayViewMut2<'_, f64>> {
        let run = self.run(i)?;
        Some(ArrayViewMut2::from_shape(shape, run).expect("operand's shape"))
    }

    /// The adjoint of scalar operand `i`, or `None` if it is data.
    pub(crate) fn scalar(&mut self, i: usize) -> Option<&mut f64> {
        self.run(i).map(|r| &mut r[0])
    }
}

/// Records one node of `out_len` result slots whose reverse pass calls `back(ḡ, bars)`.
/// Returns the result's key, or `None` (nothing recorded) when every operand is data.
pub(crate) fn record<const N: usize>(
    args: [Arg; N],
    out_len: usize,
    back: impl FnOnce(&[f64], &mut Bars<'_>) + 'static,
) -> Option<u64> {
    record_args(args, out_len, back)
}

/// [`record`] for a number of operands known only at run time (an array of vectors, one
/// operand each): `args` is any list of [`Arg`]s, kept by the node.
pub(crate) fn record_args<A: AsRef<[Arg]> + 'static>(
    args: A,
    out_len: usize,
    back: impl FnOnce(&[f64], &mut Bars<'_>) + 'static,
) -> Option<u64> {
    if args.as_ref().iter().all(Option::is_none) {
        return None;
    }
    let keys: SmallVec<[u64; 4]> = args.as_ref().iter().flatten().map(|a| a.0).collect();
    Some(tape::record_run(out_len, &keys, move |out| {
        move |adj: &mut Adjoints| {
            let (below, g) = adj.split_at_result(out, out_len);
            back(
                g,
                &mut Bars {
                    below,
                    args: args.as_ref(),
                },
            );
        }
    }))
}

/// A result value that becomes a `Var`: `f64` or an array.
pub(crate) trait Output: Sized {
    /// How many adjoint slots it needs.
    fn slots(&self) -> usize;
    /// The handle for the result of node `key`; a constant (a new independent variable, as
    /// for any function of data only) when nothing was recorded.
    fn wrap(self, key: Option<u64>) -> Var<Self>;
}

impl Output for f64 {
    fn slots(&self) -> usize {
        1
    }
    fn wrap(self, key: Option<u64>) -> Var {
        match key {
            Some(k) => Var::from_key(self, k),
            None => Var::new(self),
        }
    }
}

impl<S: Storage> Output for S {
    fn slots(&self) -> usize {
        self.len()
    }
    fn wrap(self, key: Option<u64>) -> Var<S> {
        match key {
            Some(k) => Var::from_key(self, k),
            None => Var::array(self),
        }
    }
}

/// One node with result `value`: [`record`] then [`Output::wrap`].
pub(crate) fn node<T: Output, const N: usize>(
    value: T,
    args: [Arg; N],
    back: impl FnOnce(&[f64], &mut Bars<'_>) + 'static,
) -> Var<T> {
    let key = record(args, value.slots(), back);
    value.wrap(key)
}

/// The key of the part of a result run that starts `offset` slots in, for a node with several
/// results (values and vectors of an eigendecomposition, the factors of an SVD).
pub(crate) fn offset_key(key: Option<u64>, offset: usize) -> Option<u64> {
    key.map(|k| k + offset as u64)
}
