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

use crate::args::{arr1, arr2, binop, finish, finish_scalar, shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::errors::{self, to_py};

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
        (Op::Sub, false) => with_s!(|x, c| matrix::add_scalar(x, -c)),
        (Op::Div, false) => with_s!(|x, c| matrix::divide(x, c)),
        (Op::Sub, true) => {
            let (neg, d) = arr1!(a, |x| matrix::multiply_scalar(x, -1.0));
            match s {
                Arg::F(c) => (matrix::add_scalar(&neg, c), d),
                Arg::V(c) => (matrix::add_scalar(&neg, c), false),
            }
        }
        (Op::Div, true) => {
            let (inv, d) = arr1!(a, |x| matrix::inv(x));
            match s {
                Arg::F(c) => (matrix::multiply_scalar(&inv, c), d),
                Arg::V(c) => (matrix::multiply_scalar(&inv, c), false),
            }
        }
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
        (X::A(a), X::A(b)) => {
            let (sa, sb) = (a.shape(), b.shape());
            let out = broadcast_shape(&sa, &sb).ok_or_else(|| {
                errors::size_error(format!(
                    "operands could not be broadcast together with shapes {} {}",
                    shape_str(&sa),
                    shape_str(&sb)
                ))
            })?;
            let (r, c) = match out[..] {
                [n] => (1, n),
                [r, c] => (r, c),
                _ => unreachable!("1-D or 2-D"),
            };
            let bop = match op {
                Op::Add => matrix::BinaryOp::Add,
                Op::Sub => matrix::BinaryOp::Subtract,
                Op::Mul => matrix::BinaryOp::Multiply,
                Op::Div => matrix::BinaryOp::Divide,
                Op::Pow => matrix::BinaryOp::Pow,
            };
            let (a, b) = (to_2d(a), to_2d(b));
            let (m, d) = arr2!(a, b, |x, y| matrix::broadcast_elementwise(bop, x, y));
            let m = finish(m.map_err(to_py)?, d);
            debug_assert_eq!(m.value().dim(), (r, c));
            if out.len() == 1 {
                Res::V(to_1d(m))
            } else {
                Res::M(m)
            }
        }
    })
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

/// `log_sum_exp` of an array (one node): ln Σ e^xᵢ without overflow; ∂/∂xᵢ = softmax(x)ᵢ.
pub fn log_sum_exp_array(a: Ax) -> Out {
    match a {
        Ax::V(a) => {
            let (r, d) = arr1!(a, |x| matrix::log_sum_exp(x));
            finish_scalar(r, d)
        }
        Ax::M(a) => {
            let (r, d) = arr1!(a, |x| matrix::log_sum_exp(x));
            finish_scalar(r, d)
        }
    }
}
