//! The arguments of probability functions and the operands-and-partials builder.

pub(crate) use crate::kernels::Lane;

use crate::error::{Error, Result};
use crate::scalar::{Promote, Real};
use crate::tape::{self, Slot};
use crate::var::{RowVector, Storage, Var, Vector};
use smallvec::SmallVec;
use std::borrow::Cow;

/// The keys of a call's variable arguments, gathered to check they are live (inline up to
/// eight: no allocation for the usual few scalar and array arguments).
pub type Keys = SmallVec<[u64; 8]>;

/// An argument of a probability function: a scalar (`f64`, `Var`) that broadcasts, or a
/// container of constants (`&[f64]`, `&Vec<f64>`, `&Vector`, `&RowVector`, `&Matrix`) or of
/// variables (`&[Var]`, `&Vec<Var>`, `&Var<Vector>`, `&Var<RowVector>`, `&Var<Matrix>`).
pub trait ProbArg {
    /// `f64` for constants, `Var` for variables: what the argument contributes to the result
    /// type.
    type Scalar: Real;
    /// Whether the argument holds variables (a constant per type, like Stan's `is_constant`).
    const IS_VAR: bool;
    /// The number of elements, or `None` for a scalar (which broadcasts).
    fn size(&self) -> Option<usize>;
    /// Element `i` (a scalar ignores `i`).
    fn val(&self, i: usize) -> f64;
    /// The adjoint slot of element `i` (only called when `IS_VAR`).
    #[doc(hidden)]
    fn slot(&self, i: usize) -> Slot;
    /// The keys of the variables, to check they are live.
    #[doc(hidden)]
    fn keys(&self, out: &mut Keys);
    /// The first slot when the elements' slots are one contiguous run (an array variable).
    #[doc(hidden)]
    fn run(&self) -> Option<Slot> {
        None
    }
    /// A container's values when they are contiguous in memory (for loops that read them as a
    /// slice, hoisting the per-element dispatch); `None` for scalars and scattered variables.
    #[doc(hidden)]
    fn values(&self) -> Option<&[f64]> {
        None
    }
    /// A vector's values (variable or data) as a shared handle (no copy), for a node that
    /// reads them in the sweep; `None` otherwise.
    #[doc(hidden)]
    fn shared_values(&self) -> Option<Vector> {
        None
    }
}

/// One argument inside a hot loop.
impl<'a> Lane<'a> {
    /// `a` as a lane, or `None` when its elements are scattered (a list of scalar variables).
    pub(crate) fn of<A: ProbArg>(a: &'a A) -> Option<Self> {
        match a.size() {
            None => Some(Lane::One(a.val(0))),
            Some(_) => a.values().map(Lane::Many),
        }
    }
}

impl ProbArg for f64 {
    type Scalar = f64;
    const IS_VAR: bool = false;
    fn size(&self) -> Option<usize> {
        None
    }
    fn val(&self, _: usize) -> f64 {
        *self
    }
    fn slot(&self, _: usize) -> Slot {
        unreachable!("a constant has no slot")
    }
    fn keys(&self, _: &mut Keys) {}
}

impl ProbArg for Var {
    type Scalar = Var;
    const IS_VAR: bool = true;
    fn size(&self) -> Option<usize> {
        None
    }
    fn val(&self, _: usize) -> f64 {
        self.value()
    }
    fn slot(&self, _: usize) -> Slot {
        Var::slot(self)
    }
    fn keys(&self, out: &mut Keys) {
        out.push(self.key());
    }
}

/// Containers of constants.
macro_rules! data_container {
    ($($t:ty => |$s:ident| $slice:expr);* $(;)?) => {$(
        impl ProbArg for $t {
            type Scalar = f64;
            const IS_VAR: bool = false;
            fn size(&self) -> Option<usize> {
                let $s = self;
                Some($slice.len())
            }
            fn val(&self, i: usize) -> f64 {
                let $s = self;
                $slice[i]
            }
            fn slot(&self, _: usize) -> Slot {
                unreachable!("a constant has no slot")
            }
            fn keys(&self, _: &mut Keys) {}
            fn values(&self) -> Option<&[f64]> {
                let $s = self;
                Some($slice)
            }
        }
    )*};
}

data_container! {
    &[f64] => |s| s;
    &Vec<f64> => |s| s.as_slice();
}

/// Data arrays, in any memory layout: contiguous values are read as a slice (and a vector's
/// shared), others element by element.
impl<S: Storage> ProbArg for &S {
    type Scalar = f64;
    const IS_VAR: bool = false;
    fn size(&self) -> Option<usize> {
        Some(Storage::len(*self))
    }
    #[inline]
    fn val(&self, i: usize) -> f64 {
        Storage::get(*self, i)
    }
    fn slot(&self, _: usize) -> Slot {
        unreachable!("a constant has no slot")
    }
    fn keys(&self, _: &mut Keys) {}
    fn values(&self) -> Option<&[f64]> {
        self.is_standard().then(|| Storage::as_slice(*self))
    }
    fn shared_values(&self) -> Option<Vector> {
        let any = *self as &dyn std::any::Any;
        match (
            any.downcast_ref::<Vector>(),
            any.downcast_ref::<RowVector>(),
        ) {
            (Some(v), _) if v.is_standard() => Some(v.clone()),
            (_, Some(r)) if r.is_standard() => Some(r.0.clone()),
            _ => None,
        }
    }
}

impl ProbArg for &[Var] {
    type Scalar = Var;
    const IS_VAR: bool = true;
    fn size(&self) -> Option<usize> {
        Some(self.len())
    }
    fn val(&self, i: usize) -> f64 {
        self[i].value()
    }
    fn slot(&self, i: usize) -> Slot {
        self[i].slot()
    }
    fn keys(&self, out: &mut Keys) {
        out.extend(self.iter().map(|v| v.key()));
    }
}

impl ProbArg for &Vec<Var> {
    type Scalar = Var;
    const IS_VAR: bool = true;
    fn size(&self) -> Option<usize> {
        Some(self.len())
    }
    fn val(&self, i: usize) -> f64 {
        self[i].value()
    }
    fn slot(&self, i: usize) -> Slot {
        self[i].slot()
    }
    fn keys(&self, out: &mut Keys) {
        out.extend(self.iter().map(|v| v.key()));
    }
}

impl<S: Storage> ProbArg for &Var<S> {
    type Scalar = Var;
    const IS_VAR: bool = true;
    fn size(&self) -> Option<usize> {
        Some(self.len())
    }
    fn val(&self, i: usize) -> f64 {
        self.value().as_slice()[i]
    }
    fn slot(&self, i: usize) -> Slot {
        Slot(self.first_slot().0 + i as u32)
    }
    fn keys(&self, out: &mut Keys) {
        out.push(self.key());
    }
    fn run(&self) -> Option<Slot> {
        Some(self.first_slot())
    }
    fn values(&self) -> Option<&[f64]> {
        Some(self.value().as_slice())
    }
    fn shared_values(&self) -> Option<Vector> {
        (self.value() as &dyn std::any::Any)
            .downcast_ref::<Vector>()
            .cloned()
    }
}

/// The result type of a probability function of the arguments in the tuple: `f64` when all
/// are constants, `Var` otherwise.
pub trait ProbOutput {
    /// `f64` or `Var`.
    type Out: Real;
}

impl<A: ProbArg> ProbOutput for (A,) {
    type Out = A::Scalar;
}

impl<A: ProbArg, B: ProbArg> ProbOutput for (A, B)
where
    A::Scalar: Promote<B::Scalar>,
{
    type Out = <A::Scalar as Promote<B::Scalar>>::Output;
}

impl<A: ProbArg, B: ProbArg, C: ProbArg> ProbOutput for (A, B, C)
where
    A::Scalar: Promote<B::Scalar>,
    <A::Scalar as Promote<B::Scalar>>::Output: Promote<C::Scalar>,
{
    type Out = <<A::Scalar as Promote<B::Scalar>>::Output as Promote<C::Scalar>>::Output;
}

impl<A: ProbArg, B: ProbArg, C: ProbArg, D: ProbArg> ProbOutput for (A, B, C, D)
where
    A::Scalar: Promote<B::Scalar>,
    <A::Scalar as Promote<B::Scalar>>::Output: Promote<C::Scalar>,
    <<A::Scalar as Promote<B::Scalar>>::Output as Promote<C::Scalar>>::Output: Promote<D::Scalar>,
{
    type Out =
        <<<A::Scalar as Promote<B::Scalar>>::Output as Promote<C::Scalar>>::Output as Promote<
            D::Scalar,
        >>::Output;
}

impl<A: ProbArg, B: ProbArg, C: ProbArg, D: ProbArg, E: ProbArg> ProbOutput for (A, B, C, D, E)
where
    (A, B, C, D): ProbOutput,
    Out<(A, B, C, D)>: Promote<E::Scalar>,
{
    type Out = <Out<(A, B, C, D)> as Promote<E::Scalar>>::Output;
}

/// The result of a probability function of arguments `T` (a tuple).
pub type Out<T> = <T as ProbOutput>::Out;

/// The common size of the containers among `args` (`(name, size)` pairs), 1 if all are
/// scalars; an [`Error::Size`] naming the first that differs.
pub fn common_size(
    function: &'static str,
    args: &[(&'static str, Option<usize>)],
) -> Result<usize> {
    let mut n: Option<usize> = None;
    for &(name, size) in args {
        if let Some(s) = size {
            match n {
                None => n = Some(s),
                Some(m) if m != s => {
                    return Err(Error::Size {
                        function,
                        what: name,
                        expected: m,
                        found: s,
                    })
                }
                _ => {}
            }
        }
    }
    Ok(n.unwrap_or(1))
}

/// Whether a container among `sizes` is empty (Stan then returns 0, or 1 for a CDF).
pub fn any_empty(sizes: &[Option<usize>]) -> bool {
    sizes.contains(&Some(0))
}

/// The partials of one argument, gathered in the forward loop: a running sum (kept in a
/// register) for a scalar, one entry per element for a container, nothing for a constant.
///
/// A scalar's partial is a field of this local value, so it stays in a register (summed through
/// a `Vec`'s `p[0]` it would go through memory every element: the compiler cannot prove it does
/// not alias the containers' partials).
///
/// ```
/// use revad::prob::{OperandsAndPartials, Out, Partial};
/// use revad::Var;
/// // f(μ) = Σᵢ (yᵢ − μ)², ∂f/∂μ = −2 Σᵢ (yᵢ − μ).
/// let (y, mu) = ([1.0, 2.0, 4.0], Var::new(0.5));
/// let mut dmu = Partial::of(&mu);
/// let mut f = 0.0;
/// for (i, yi) in y.iter().enumerate() {
///     f += (yi - mu.value()).powi(2);
///     dmu.add(&mu, i, -2.0 * (yi - mu.value()));
/// }
/// let mut ops = OperandsAndPartials::new();
/// ops.add_partial(&mu, dmu);
/// let f: Out<(Var,)> = ops.build(f);
/// f.grad();
/// assert_eq!(mu.adj(), -11.0);
/// revad::tape::reset();
/// ```
pub struct Partial {
    sum: f64,
    each: Vec<f64>,
}

impl Partial {
    /// An empty accumulator shaped for `a`.
    pub fn of<A: ProbArg>(a: &A) -> Self {
        let each = match a.size() {
            Some(n) if A::IS_VAR => vec![0.0; n],
            _ => Vec::new(),
        };
        Partial { sum: 0.0, each }
    }

    /// Adds `d` to the partial of element `i` of `a` (to the sum for a scalar).
    #[inline(always)]
    pub fn add<A: ProbArg>(&mut self, a: &A, i: usize, d: f64) {
        if A::IS_VAR {
            if a.size().is_some() {
                self.each[i] += d;
            } else {
                self.sum += d;
            }
        }
    }

    /// Multiplies every partial by `f` (the chain rule through `F = exp(Σ log Fᵢ)`); a zero `f`
    /// gives zero partials even where they were infinite.
    pub fn scale(&mut self, f: f64) {
        let scale = |x: &mut f64| *x = if f == 0.0 { 0.0 } else { *x * f };
        scale(&mut self.sum);
        self.each.iter_mut().for_each(scale);
    }

    /// The partials in the layout [`OperandsAndPartials::add_owned`] takes.
    pub fn into_vec(self) -> Vec<f64> {
        if self.each.is_empty() {
            vec![self.sum]
        } else {
            self.each
        }
    }
}

/// Checks every element of `a` with `check(value)`; the first failure is returned.
pub fn check_all<A: ProbArg>(a: &A, check: impl Fn(f64) -> Result<()>) -> Result<()> {
    if let Some(values) = a.values() {
        return values.iter().try_for_each(|&v| check(v));
    }
    for i in 0..a.size().unwrap_or(1) {
        check(a.val(i))?;
    }
    Ok(())
}

/// Stan's operands-and-partials (Stan Math paper, section 15.5): the partials of a result with
/// respect to each variable argument, gathered in the forward pass and recorded as one node.
///
/// ```
/// use revad::prob::{OperandsAndPartials, Out};
/// use revad::Var;
/// // f(x, y) = x·y for a scalar x and a container y, recorded by hand.
/// let x = Var::new(2.0);
/// let y = [3.0, 4.0];
/// let dx = [y[0] + y[1]]; // partials live as long as the builder
/// let mut ops = OperandsAndPartials::new();
/// ops.add(&x, &dx);
/// ops.add(&&y[..], &[]); // a constant: nothing to record
/// let f: Out<(Var, &[f64])> = ops.build(x.value() * (y[0] + y[1]));
/// f.grad();
/// assert_eq!(x.adj(), 7.0);
/// revad::tape::reset();
/// ```
pub struct OperandsAndPartials<'a> {
    keys: Keys,
    pairs: SmallVec<[(Slot, f64); 8]>,
    runs: SmallVec<[(Slot, Cow<'a, [f64]>); 4]>,
}

impl Default for OperandsAndPartials<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> OperandsAndPartials<'a> {
    /// An empty builder.
    #[inline(always)]
    pub fn new() -> Self {
        OperandsAndPartials {
            keys: SmallVec::new(),
            pairs: SmallVec::new(),
            runs: SmallVec::new(),
        }
    }

    /// The partials of argument `a`: `d[i]` for element `i` of a container, `d[0]` (already
    /// summed over the broadcast) for a scalar. Constants are skipped (their `d` may be empty).
    /// The partials of an array variable are borrowed until [`build`](Self::build) copies them
    /// into the tape, so `d` must outlive the builder.
    pub fn add<A: ProbArg>(&mut self, a: &A, d: &'a [f64]) {
        if !A::IS_VAR {
            return;
        }
        a.keys(&mut self.keys);
        match (a.size(), a.run()) {
            (None, _) => self.pairs.push((a.slot(0), d[0])),
            (Some(n), Some(first)) => self.runs.push((first, d[..n].into())),
            (Some(n), None) => self.pairs.extend((0..n).map(|i| (a.slot(i), d[i]))),
        }
    }

    /// [`add`](Self::add) taking the partials by value (no borrow to outlive the builder).
    pub fn add_owned<A: ProbArg>(&mut self, a: &A, d: Vec<f64>) {
        if !A::IS_VAR {
            return;
        }
        match (a.size(), a.run()) {
            (Some(n), Some(first)) => {
                a.keys(&mut self.keys);
                let mut d = d;
                d.truncate(n);
                self.runs.push((first, d.into()));
            }
            _ => {
                // Scalars and scattered slots are copied into pairs at once.
                let mut tmp = OperandsAndPartials::new();
                tmp.add(a, &d);
                self.keys.append(&mut tmp.keys);
                self.pairs.append(&mut tmp.pairs);
            }
        }
    }

    /// The partials of argument `a` gathered in a [`Partial`]: a scalar's sum goes to the pairs
    /// directly (no one-element `Vec` as through [`Partial::into_vec`]), a container's run moves
    /// in as [`add_owned`](Self::add_owned) does.
    pub fn add_partial<A: ProbArg>(&mut self, a: &A, p: Partial) {
        if !A::IS_VAR {
            return;
        }
        match a.size() {
            None => {
                a.keys(&mut self.keys);
                self.pairs.push((a.slot(0), p.sum));
            }
            Some(_) => self.add_owned(a, p.each),
        }
    }

    /// The result: `value` as an `f64`, or a variable recorded with the partials gathered.
    pub fn build<O: Real>(mut self, value: f64) -> O {
        self.finish(value)
    }

    /// [`build`](Self::build) in place: the builder is a few hundred bytes of inline buffers,
    /// and moving it by value into `build` cost more than a scalar density's arithmetic. The
    /// owned runs are taken, so the builder must not be used again (the densities call this
    /// last).
    #[inline]
    pub(crate) fn finish<O: Real>(&mut self, value: f64) -> O {
        O::from_value_or(value, || {
            tape::partials_node(value, &self.keys, &self.pairs, &mut self.runs)
        })
    }
}

/// A constant argument whose shape is known only at run time (for bindings): a scalar, or a
/// container of constants, owned or borrowed (a binding reads a NumPy array in place).
///
/// ```
/// use revad::prob::{normal_lpdf, ConstArg};
/// let data = [0.5, -1.0];
/// let borrowed: f64 =
///     normal_lpdf(ConstArg::Slice(&data), ConstArg::Scalar(0.0), 1.0, false).unwrap();
/// let owned: f64 = normal_lpdf(ConstArg::Vector(data.to_vec()), 0.0, 1.0, false).unwrap();
/// assert_eq!(borrowed, owned);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum ConstArg<'a> {
    /// A scalar, broadcast.
    Scalar(f64),
    /// A container.
    Vector(Vec<f64>),
    /// A borrowed container (no copy).
    Slice(&'a [f64]),
    /// A shared vector (no copy; a node may keep it for the reverse pass instead of partials).
    Shared(Vector),
}

impl ProbArg for ConstArg<'_> {
    type Scalar = f64;
    const IS_VAR: bool = false;
    fn size(&self) -> Option<usize> {
        match self {
            ConstArg::Scalar(_) => None,
            ConstArg::Vector(v) => Some(v.len()),
            ConstArg::Slice(s) => Some(s.len()),
            ConstArg::Shared(v) => Some(v.len()),
        }
    }
    #[inline]
    fn val(&self, i: usize) -> f64 {
        match self {
            ConstArg::Scalar(x) => *x,
            ConstArg::Vector(v) => v[i],
            ConstArg::Slice(s) => s[i],
            ConstArg::Shared(v) => v[i],
        }
    }
    fn slot(&self, _: usize) -> Slot {
        unreachable!("a constant has no slot")
    }
    fn keys(&self, _: &mut Keys) {}
    fn values(&self) -> Option<&[f64]> {
        match self {
            ConstArg::Scalar(_) => None,
            ConstArg::Vector(v) => Some(v),
            ConstArg::Slice(s) => Some(s),
            ConstArg::Shared(v) => Some(Storage::as_slice(v)),
        }
    }
    fn shared_values(&self) -> Option<Vector> {
        match self {
            ConstArg::Shared(v) => Some(v.clone()),
            _ => None,
        }
    }
}

/// A variable argument whose shape is known only at run time (for bindings): a scalar
/// variable, an array variable, or a list of scalar variables.
#[derive(Clone, Debug)]
pub enum VarArg {
    /// A scalar variable, broadcast.
    Scalar(Var),
    /// A vector variable (one adjoint run).
    Array(Var<Vector>),
    /// Scalar variables anywhere on the tape.
    List(Vec<Var>),
}

impl ProbArg for VarArg {
    type Scalar = Var;
    const IS_VAR: bool = true;
    fn size(&self) -> Option<usize> {
        match self {
            VarArg::Scalar(_) => None,
            VarArg::Array(a) => Some(a.len()),
            VarArg::List(v) => Some(v.len()),
        }
    }
    #[inline]
    fn val(&self, i: usize) -> f64 {
        match self {
            VarArg::Scalar(x) => x.value(),
            VarArg::Array(a) => a.value().as_slice()[i],
            VarArg::List(v) => v[i].value(),
        }
    }
    fn slot(&self, i: usize) -> Slot {
        match self {
            VarArg::Scalar(x) => x.slot(),
            VarArg::Array(a) => Slot(a.first_slot().0 + i as u32),
            VarArg::List(v) => v[i].slot(),
        }
    }
    fn keys(&self, out: &mut Keys) {
        match self {
            VarArg::Scalar(x) => out.push(x.key()),
            VarArg::Array(a) => out.push(a.key()),
            VarArg::List(v) => out.extend(v.iter().map(|x| x.key())),
        }
    }
    fn values(&self) -> Option<&[f64]> {
        match self {
            VarArg::Array(a) => Some(a.value().as_slice()),
            _ => None,
        }
    }
    fn shared_values(&self) -> Option<Vector> {
        match self {
            VarArg::Array(a) => Some(a.value().clone()),
            _ => None,
        }
    }
    fn run(&self) -> Option<Slot> {
        match self {
            VarArg::Array(a) => Some(a.first_slot()),
            _ => None,
        }
    }
}

/// An argument of a probability function run on plain floats (a program's scalar form, see
/// [`crate::program::scalar`]): its values, and where its adjoints are when it is a variable
/// (a scalar's slot, or an array's first slot).
#[derive(Clone, Copy)]
pub(crate) struct Flat<'a> {
    pub lane: Lane<'a>,
    pub var: Option<usize>,
}

impl<'a> Flat<'a> {
    /// The values as a constant argument (for the argument checks).
    pub(crate) fn constant(&self) -> ConstArg<'a> {
        match self.lane {
            Lane::One(v) => ConstArg::Scalar(v),
            Lane::Many(s) => ConstArg::Slice(s),
        }
    }

    /// The common size of `args` (1 if all are scalars); `None` if two containers differ in
    /// size.
    pub(crate) fn common_size(args: &[Flat<'_>]) -> Option<usize> {
        let mut n = None;
        for x in args {
            if let Lane::Many(s) = x.lane {
                if n.is_some_and(|n| n != s.len()) {
                    return None;
                }
                n = Some(s.len());
            }
        }
        Some(n.unwrap_or(1))
    }

    /// Whether some value satisfies `f`.
    pub(crate) fn any(&self, f: impl Fn(f64) -> bool) -> bool {
        match self.lane {
            Lane::One(v) => f(v),
            Lane::Many(s) => s.iter().any(|&v| f(v)),
        }
    }

    /// Whether the argument is an array variable.
    pub(crate) fn is_run(&self) -> bool {
        self.var.is_some() && matches!(self.lane, Lane::Many(_))
    }

    /// Whether the argument is a scalar variable.
    pub(crate) fn is_scalar_var(&self) -> bool {
        self.var.is_some() && matches!(self.lane, Lane::One(_))
    }
}
