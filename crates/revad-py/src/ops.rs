//! NumPy-style arithmetic on arguments, shared by the `Var` class's operators and the
//! functions that spell them (`add`, `multiply`, `pow`, ...): elementwise operators with
//! NumPy's broadcasting, `@` with NumPy's rules for 1-D and 2-D operands, and whole-array
//! reductions. Each operation records one node; an operation of data only gives data.
//!
//! A 1-D array is a Rust `Vector` (Stan's column vector), a 2-D array a `Matrix`; a `RowVector`
//! appears only where Stan needs one (`v @ M`, `append_row(M, v)`, `m[i] = v`) and comes back
//! as a 1-D array of the same adjoint run.

use ndarray::Array2;
use pyo3::prelude::*;
use revad::{matrix, Matrix, RowVector, Storage, Var, Vector};

use revad::program::scalar::{ArrayInstr, Instr};

use crate::args::{arr1, arr2, binop, finish, finish_scalar, shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::errors::{self, to_py};
use crate::record::{Form, Sc};

/// The elementwise operators.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl Op {
    /// The operation of `matrix::broadcast_elementwise`.
    pub fn broadcast(self) -> matrix::BinaryOp {
        match self {
            Op::Add => matrix::BinaryOp::Add,
            Op::Sub => matrix::BinaryOp::Subtract,
            Op::Mul => matrix::BinaryOp::Multiply,
            Op::Div => matrix::BinaryOp::Divide,
            Op::Pow => matrix::BinaryOp::Pow,
        }
    }

    /// The scalar form of `a op b` (see [`crate::record::apply_form`]): the operator of
    /// [`Op::scalar`] on a scalar variable and a scalar variable or a float, the array–scalar
    /// node of [`arr_scalar`], or the node of [`arr_arr`] for arrays of one kind and shape
    /// (`same_shape`, from [`same_shape`]) (`+ − · /`).
    pub fn form(self, a: &Sc<'_>, b: &Sc<'_>, same_shape: bool) -> Option<Form> {
        use Instr::*;
        let is_array = |x: &Sc<'_>| matches!(x, Sc::Range(..) | Sc::Data(..));
        if is_array(a) != is_array(b) {
            return self.array_scalar_form(a, b);
        }
        if is_array(a) {
            return self.array_array_form(a, b, same_shape);
        }
        let instr = match (self, *a, *b) {
            (Op::Add, Sc::Slot(a), Sc::Slot(b)) => Add(a, b),
            (Op::Add, Sc::Slot(x), Sc::Const(c)) | (Op::Add, Sc::Const(c), Sc::Slot(x)) => {
                AddConst(x, c)
            }
            (Op::Sub, Sc::Slot(a), Sc::Slot(b)) => Sub(a, b),
            (Op::Sub, Sc::Slot(x), Sc::Const(c)) => SubConst(x, c),
            (Op::Sub, Sc::Const(c), Sc::Slot(x)) => ConstSub(c, x),
            (Op::Mul, Sc::Slot(a), Sc::Slot(b)) => Mul(a, b),
            (Op::Mul, Sc::Slot(x), Sc::Const(c)) | (Op::Mul, Sc::Const(c), Sc::Slot(x)) => {
                MulConst(x, c)
            }
            (Op::Div, Sc::Slot(a), Sc::Slot(b)) => Div(a, b),
            (Op::Div, Sc::Slot(x), Sc::Const(c)) => DivConst(x, c),
            (Op::Div, Sc::Const(c), Sc::Slot(x)) => ConstDiv(c, x),
            (Op::Pow, Sc::Slot(a), Sc::Slot(b)) => Pow(a, b),
            // `pow(x, 1)` is `x` itself.
            (Op::Pow, Sc::Slot(x), Sc::Const(1.0)) => return Some(Form::Alias(x)),
            (Op::Pow, Sc::Slot(x), Sc::Const(c)) => PowConst(x, c),
            (Op::Pow, Sc::Const(c), Sc::Slot(x)) => ConstPow(c, x),
            _ => return None,
        };
        Some(Form::Instr(instr))
    }

    /// The scalar form of [`arr_scalar`]'s node for an array and a scalar operand (in either
    /// order), as `arr_scalar` calls it.
    fn array_scalar_form(self, a: &Sc<'_>, b: &Sc<'_>) -> Option<Form> {
        use revad::matrix::ArrayScalarOp as A;
        let reflected = matches!(a, Sc::Slot(_) | Sc::Const(_));
        let (array, scalar) = if reflected { (b, a) } else { (a, b) };
        let op = match (self, reflected) {
            (Op::Add, _) => A::Add,
            (Op::Mul, _) => A::Multiply,
            (Op::Sub, false) => A::Subtract,
            (Op::Sub, true) => A::ScalarSubtract,
            (Op::Div, false) => A::Divide,
            (Op::Div, true) => A::ScalarDivide,
            (Op::Pow, _) => return None,
        };
        let (a, s) = (array.arg()?, scalar.arg()?);
        Some(Form::Array(ArrayInstr::WithScalar { op, a, s }))
    }

    /// The scalar form of [`arr_arr`]'s node for two arrays of one kind and shape.
    fn array_array_form(self, a: &Sc<'_>, b: &Sc<'_>, same_shape: bool) -> Option<Form> {
        use revad::matrix::ArrayArrayOp as A;
        let op = match self {
            Op::Add => A::Add,
            Op::Sub => A::Subtract,
            Op::Mul => A::Multiply,
            Op::Div => A::Divide,
            Op::Pow => return None,
        };
        let (a, b) = (a.arg()?, b.arg()?);
        same_shape.then_some(Form::Array(ArrayInstr::WithArray { op, a, b }))
    }

    /// `a op b` for two scalars.
    pub fn scalar(self, a: Arg, b: Arg) -> Out {
        match self {
            Op::Add => binop!(a, b, |x, y| x + y),
            Op::Sub => binop!(a, b, |x, y| x - y),
            Op::Mul => binop!(a, b, |x, y| x * y),
            Op::Div => binop!(a, b, |x, y| x / y),
            Op::Pow => binop!(a, b, revad::pow),
        }
    }
}

/// `a op b` for arrays of one kind and shape: one node.
fn arr_arr<S: Storage>(op: Op, a: Arr<S>, b: Arr<S>) -> PyResult<Arr<S>> {
    let (r, d) = match op {
        Op::Add => arr2!(a, b, |x, y| matrix::add(x, y)),
        Op::Sub => arr2!(a, b, |x, y| matrix::subtract(x, y)),
        Op::Mul => arr2!(a, b, |x, y| matrix::elt_multiply(x, y)),
        Op::Div => arr2!(a, b, |x, y| matrix::elt_divide(x, y)),
        Op::Pow => arr2!(a, b, |x, y| matrix::pow(x, y)),
    };
    Ok(finish(r.map_err(to_py)?, d))
}

/// The scalar `s` as an array of `a`'s kind and shape: data for a float, one `rep_matrix` node
/// for a scalar Var.
fn scalar_like<S: Storage>(a: &Arr<S>, s: Arg) -> Arr<S> {
    let like = a.value();
    match s {
        Arg::F(c) => Arr::D(like.with_data(vec![c; like.len()])),
        Arg::V(v) => {
            let (r, c) = like.shape();
            let (val, key) = matrix::rep_matrix(v, r, c).to_array_bits();
            Arr::V(Var::from_array_bits(S::from2(val.into_owned()), key))
        }
    }
}

/// `a op s` (or `s op a` when `reflected`) for an array and a scalar.
fn arr_scalar<S: Storage>(op: Op, a: Arr<S>, s: Arg, reflected: bool) -> PyResult<Arr<S>> {
    macro_rules! with_s {
        (|$x:ident, $c:ident| $body:expr) => {
            match s {
                Arg::F($c) => arr1!(a, |$x| $body),
                Arg::V($c) => (arr1!(a, |$x| $body).0, false),
            }
        };
    }
    let (r, d) = match (op, reflected) {
        (Op::Add, _) => with_s!(|x, c| matrix::add_scalar(x, c)),
        (Op::Mul, _) => with_s!(|x, c| matrix::multiply_scalar(x, c)),
        (Op::Sub, false) => with_s!(|x, c| matrix::subtract_scalar(x, c)),
        (Op::Div, false) => with_s!(|x, c| matrix::divide(x, c)),
        (Op::Sub, true) => with_s!(|x, c| matrix::scalar_subtract(c, x)),
        (Op::Div, true) => with_s!(|x, c| matrix::scalar_elt_divide(c, x)),
        (Op::Pow, false) if matches!(s, Arg::F(c) if c == 2.0) => arr1!(a, |x| matrix::square(x)),
        (Op::Pow, false) => {
            let e = scalar_like(&a, s);
            return arr_arr(op, a, e);
        }
        (Op::Pow, true) => {
            let base = scalar_like(&a, s);
            return arr_arr(op, base, a);
        }
    };
    Ok(finish(r, d))
}

/// Whether `a` and `b` are arrays of one kind (1-D or 2-D) and shape: the operands
/// [`elementwise`] gives to one [`arr_arr`] node.
pub fn same_shape(a: &X, b: &X) -> bool {
    match (a, b) {
        (X::A(Ax::V(a)), X::A(Ax::V(b))) => a.value().len() == b.value().len(),
        (X::A(Ax::M(a)), X::A(Ax::M(b))) => a.value().dim() == b.value().dim(),
        _ => false,
    }
}

/// NumPy's broadcast shape of two shapes (axes aligned from the right; an axis of length 1
/// stretches), or `None` if they do not broadcast.
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let pad = |s: &[usize]| {
        let mut v = vec![1; n - s.len()];
        v.extend_from_slice(s);
        v
    };
    pad(a)
        .into_iter()
        .zip(pad(b))
        .map(|(x, y)| match (x, y) {
            _ if x == y || y == 1 => Some(x),
            (1, _) => Some(y),
            _ => None,
        })
        .collect()
}

/// An array operand as 2-D, as NumPy pads shapes on the left: a 1-D `(n,)` is `(1, n)` (the
/// same variable: its run read as a one-row matrix).
pub fn to_2d(a: Ax) -> Arr<Matrix> {
    let one_row = |v: Vector| {
        let n = v.len();
        Array2::from_shape_vec((1, n), v.to_vec())
            .expect("one row")
            .into_shared()
    };
    match a {
        Ax::M(m) => m,
        Ax::V(Arr::V(v)) => {
            let (val, key) = v.to_array_bits();
            Arr::V(Var::from_array_bits(one_row(val), key))
        }
        Ax::V(Arr::D(d)) => Arr::D(one_row(d)),
    }
}

/// A `(1, n)` 2-D result as 1-D (the same variable).
fn to_1d(a: Arr<Matrix>) -> Arr<Vector> {
    let flat = |m: Matrix| Vector::from(m.iter().copied().collect::<Vec<f64>>());
    match a {
        Arr::V(v) => {
            let (val, key) = v.to_array_bits();
            Arr::V(Var::from_array_bits(flat(val), key))
        }
        Arr::D(d) => Arr::D(flat(d)),
    }
}

/// `a` broadcast to `rows × cols` (NumPy's rule): data in NumPy fashion, a variable by one
/// `broadcast` node (none when the shape already fits).
pub fn broadcast_to(a: Arr<Matrix>, rows: usize, cols: usize) -> PyResult<Arr<Matrix>> {
    if a.value().dim() == (rows, cols) {
        return Ok(a);
    }
    Ok(match a {
        Arr::V(v) => Arr::V(matrix::broadcast(&v, rows, cols).map_err(to_py)?),
        Arr::D(d) => {
            let (r, c) = d.dim();
            let view = d.broadcast((rows, cols)).ok_or_else(|| {
                errors::size_error(format!(
                    "could not broadcast input array from shape ({r}, {c}) into shape \
                     ({rows}, {cols})"
                ))
            })?;
            Arr::D(view.to_owned().into_shared())
        }
    })
}

/// `a op b` for any two operands, with NumPy's broadcasting rules: a scalar with anything, and
/// two arrays whose shapes broadcast (`(n,)` with `(m, n)`, `(m, 1)` with `(1, n)` or `(n,)`,
/// ...), each as one node (`matrix::broadcast_elementwise` when the shapes differ).
pub fn elementwise(op: Op, a: X, b: X) -> PyResult<Res> {
    // A power of an array and a scalar Var: one broadcast node (rather than the scalar
    // repeated by a node of its own).
    if op == Op::Pow
        && matches!(
            (&a, &b),
            (X::A(_), X::S(Arg::V(_))) | (X::S(Arg::V(_)), X::A(_))
        )
    {
        return broadcast_binary(op.broadcast(), a, b);
    }
    Ok(match (a, b) {
        (X::S(a), X::S(b)) => Res::S(op.scalar(a, b)),
        (X::A(Ax::V(a)), X::S(s)) => Res::V(arr_scalar(op, a, s, false)?),
        (X::A(Ax::M(a)), X::S(s)) => Res::M(arr_scalar(op, a, s, false)?),
        (X::S(s), X::A(Ax::V(a))) => Res::V(arr_scalar(op, a, s, true)?),
        (X::S(s), X::A(Ax::M(a))) => Res::M(arr_scalar(op, a, s, true)?),
        (X::A(Ax::V(a)), X::A(Ax::V(b))) if a.value().len() == b.value().len() => {
            Res::V(arr_arr(op, a, b)?)
        }
        (X::A(Ax::M(a)), X::A(Ax::M(b))) if a.value().dim() == b.value().dim() => {
            Res::M(arr_arr(op, a, b)?)
        }
        (X::A(a), X::A(b)) => broadcast_binary(op.broadcast(), X::A(a), X::A(b))?,
    })
}

/// Any operand as a 2-D array, as NumPy pads shapes on the left: a scalar is `1 × 1`, a 1-D
/// `(n,)` is `(1, n)` (a variable keeps its adjoint run: no node).
pub fn x_to_2d(x: X) -> Arr<Matrix> {
    match x {
        X::S(Arg::F(c)) => Arr::D(Array2::from_elem((1, 1), c).into_shared()),
        X::S(Arg::V(v)) => {
            let (val, key) = v.to_bits();
            Arr::V(Var::from_array_bits(
                Array2::from_elem((1, 1), val).into_shared(),
                key,
            ))
        }
        X::A(a) => to_2d(a),
    }
}

/// A 2-D result read as NumPy shape `shape` of the same number of elements (0, 1 or 2
/// dimensions): the same variable (its adjoint run) in another kind, no node; a scalar is its
/// one element, sharing the slot.
pub fn view_as(m: Arr<Matrix>, shape: &[usize]) -> Res {
    debug_assert_eq!(m.value().len(), shape.iter().product::<usize>());
    match (shape, m) {
        ([], Arr::V(v)) => Res::S(Out::V(v.element(0))),
        ([], Arr::D(d)) => Res::S(Out::F(d.iter().copied().next().unwrap_or(f64::NAN))),
        ([_], m) => Res::V(to_1d(m)),
        ([r, c], Arr::V(v)) if v.value().dim() == (*r, *c) => Res::M(Arr::V(v)),
        ([r, c], Arr::V(v)) => {
            let (val, key) = v.to_array_bits();
            let val = Array2::from_shape_vec((*r, *c), val.iter().copied().collect())
                .expect("same number of elements")
                .into_shared();
            Res::M(Arr::V(Var::from_array_bits(val, key)))
        }
        ([r, c], Arr::D(d)) => Res::M(Arr::D(
            Array2::from_shape_vec((*r, *c), d.iter().copied().collect())
                .expect("same number of elements")
                .into_shared(),
        )),
        _ => unreachable!("revad arrays have at most 2 dimensions"),
    }
}

/// The NumPy shape of an operand.
pub fn shape_of(x: &X) -> Vec<usize> {
    match x {
        X::S(_) => vec![],
        X::A(a) => a.shape(),
    }
}

/// `op(a, b)` elementwise with NumPy's broadcasting, for any two operands (scalars are 0-d
/// arrays), as ONE node (`matrix::broadcast_elementwise`); data only gives data. Two scalars
/// give a scalar.
pub fn broadcast_binary(op: matrix::BinaryOp, a: X, b: X) -> PyResult<Res> {
    let (sa, sb) = (shape_of(&a), shape_of(&b));
    let out = broadcast_shape(&sa, &sb).ok_or_else(|| {
        errors::size_error(format!(
            "operands could not be broadcast together with shapes {} {}",
            shape_str(&sa),
            shape_str(&sb)
        ))
    })?;
    let (a, b) = (x_to_2d(a), x_to_2d(b));
    let (m, d) = arr2!(a, b, |x, y| matrix::broadcast_elementwise(op, x, y));
    Ok(view_as(finish(m.map_err(to_py)?, d), &out))
}

/// A vector operand read as a row vector (the same elements and adjoint run).
pub fn as_row(a: Arr<Vector>) -> Arr<RowVector> {
    match a {
        Arr::V(v) => {
            let (val, key) = v.to_array_bits();
            Arr::V(Var::from_array_bits(RowVector(val), key))
        }
        Arr::D(d) => Arr::D(RowVector(d)),
    }
}

/// A row-vector result as a 1-D array.
pub fn from_row(a: Arr<RowVector>) -> Arr<Vector> {
    match a {
        Arr::V(v) => {
            let (val, key) = v.to_array_bits();
            Arr::V(Var::from_array_bits(val.0, key))
        }
        Arr::D(d) => Arr::D(d.0),
    }
}

/// `a @ b` with NumPy's rules for 1-D and 2-D operands.
pub fn matmul(a: Ax, b: Ax) -> PyResult<Res> {
    Ok(match (a, b) {
        (Ax::V(a), Ax::V(b)) => {
            let (r, d) = arr2!(a, b, |x, y| matrix::dot_product(x, y));
            Res::S(finish_scalar(r.map_err(to_py)?, d))
        }
        (Ax::M(a), Ax::V(b)) => {
            let (r, d) = arr2!(a, b, |x, y| matrix::multiply(x, y));
            Res::V(finish(r.map_err(to_py)?, d))
        }
        (Ax::V(a), Ax::M(b)) => {
            let a = as_row(a);
            let (r, d) = arr2!(a, b, |x, y| matrix::multiply(x, y));
            Res::V(from_row(finish(r.map_err(to_py)?, d)))
        }
        (Ax::M(a), Ax::M(b)) => {
            let (r, d) = arr2!(a, b, |x, y| matrix::multiply(x, y));
            Res::M(finish(r.map_err(to_py)?, d))
        }
    })
}

/// A data matrix of more elements than this keeps its product on the tape: the form copies
/// its data in on every call, which costs as much as the product itself (a regression of 100
/// observations and 10 predictors: 1.56 µs by the form, 1.42 µs replayed; of 20 and 3:
/// 0.86 against 1.18).
const MATVEC_DATA_MAX: u32 = 512;

/// The scalar form of `a @ b` for a matrix `a` and a vector `b` (`matrix_vector`), of at
/// least one element each: [`ArrayInstr::MatVec`].
pub fn matmul_form(matrix_vector: bool, a: &Sc<'_>, b: &Sc<'_>) -> Option<Form> {
    let nonempty = |s: &Sc<'_>| matches!(s, Sc::Range(_, n) | Sc::Data(_, n) if *n > 0);
    let large_data = matches!(a, Sc::Data(_, n) if *n > MATVEC_DATA_MAX);
    if !(matrix_vector && nonempty(a) && nonempty(b)) || large_data {
        return None;
    }
    Some(Form::Array(ArrayInstr::MatVec {
        a: a.arg()?,
        b: b.arg()?,
    }))
}

/// `a @ b` for any operands: a scalar operand is an error, as in NumPy.
pub fn matmul_x(a: X, b: X) -> PyResult<Res> {
    match (a, b) {
        (X::A(a), X::A(b)) => matmul(a, b),
        _ => Err(errors::size_error(
            "matmul: an operand is a scalar; @ needs 1-D or 2-D arrays (use * to scale)",
        )),
    }
}

/// `sum` of an array (any shape), one node; Σ of the values for data.
pub fn sum_array(a: Ax) -> Out {
    match a {
        Ax::V(Arr::V(v)) => Out::V(matrix::sum(&v)),
        Ax::M(Arr::V(m)) => Out::V(matrix::sum(&m)),
        Ax::V(Arr::D(d)) => Out::F(d.sum()),
        Ax::M(Arr::D(d)) => Out::F(d.sum()),
    }
}
