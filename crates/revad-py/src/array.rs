//! Array arguments and results: NumPy arrays (data) and array Vars (`Var<Vector>`,
//! `Var<Matrix>`), NumPy-style elementwise operators (with broadcasting), `@`, and item
//! assignment.
//!
//! A 1-D array is a Rust `Vector` (Stan's column vector), a 2-D array a `Matrix`; a `RowVector`
//! appears only where Stan needs one (`v @ M`, `append_row(M, v)`, `m[i] = v`) and comes back
//! as a 1-D array of the same adjoint run. Data stays data: an
//! operation of data only gives a NumPy array (or a float), never a Var.

use ndarray::{Array1, Array2};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods, ToPyArray,
};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt, PySlice, PySliceMethods, PyTuple};
use revad::{matrix, Matrix, RowVector, Storage, Var, Vector};

use crate::data::PyData;
use crate::errors::{self, to_py};
use crate::var::{try_arg, Arg, Out, PyVar};

/// An array operand of kind `S`: a variable or data.
pub enum Arr<S: Storage> {
    /// An array variable (checked live).
    V(Var<S>),
    /// A data array.
    D(S),
}

impl<S: Storage> Arr<S> {
    /// The value.
    pub fn value(&self) -> &S {
        match self {
            Arr::V(v) => v.value(),
            Arr::D(d) => d,
        }
    }
}

/// An array operand: 1-D (a Rust vector) or 2-D (a matrix).
pub enum Ax {
    /// 1-D.
    V(Arr<Vector>),
    /// 2-D.
    M(Arr<Matrix>),
}

impl Ax {
    /// The NumPy shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Ax::V(a) => vec![a.value().len()],
            Ax::M(a) => {
                let (r, c) = a.value().dim();
                vec![r, c]
            }
        }
    }
}

/// Any real argument: a scalar (float or scalar Var) or an array.
pub enum X {
    /// A float or a scalar Var.
    S(Arg),
    /// An array Var or a NumPy array.
    A(Ax),
}

/// A result: a scalar, or an array (a Var, or data when every operand was data).
pub enum Res {
    /// A float or a scalar Var.
    S(Out),
    /// 1-D.
    V(Arr<Vector>),
    /// 2-D.
    M(Arr<Matrix>),
}

impl Res {
    /// The Python object: a float, a Var or a NumPy array.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self {
            Res::S(o) => o.into_py(py),
            Res::V(Arr::V(v)) => Ok(Py::new(py, PyVar::wrap_vector(&v))?.into_any()),
            Res::M(Arr::V(v)) => Ok(Py::new(py, PyVar::wrap_matrix(&v))?.into_any()),
            Res::V(Arr::D(d)) => Ok(d.to_pyarray(py).into_any().unbind()),
            Res::M(Arr::D(d)) => Ok(d.to_pyarray(py).into_any().unbind()),
        }
    }
}

/// `(2,)` / `(2, 3)`, as NumPy writes shapes.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The name of an object's type (for error messages).
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A NumPy array as data: `None` if `obj` is not an ndarray; a 0-d array is a float.
pub fn read_ndarray(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<X>> {
    let Ok(u) = obj.cast::<PyUntypedArray>() else {
        // A revad.Data is read as an array too, sharing its values.
        return Ok(obj.cast::<PyData>().ok().map(|d| d.get().operand()));
    };
    // The common case, a C-contiguous float64 array of 1 or 2 dimensions, is copied straight
    // from its buffer (`to_vec` takes no dynamic borrow: the copy is made before any Python
    // code can run).
    if u.is_c_contiguous() {
        if let Ok(a) = obj.cast::<PyArray1<f64>>() {
            if let Ok(data) = a.to_vec() {
                return Ok(Some(X::A(Ax::V(Arr::D(
                    Array1::from_vec(data).into_shared(),
                )))));
            }
        } else if let Ok(a) = obj.cast::<PyArray2<f64>>() {
            if let Ok(data) = a.to_vec() {
                let m = Array2::from_shape_vec(a.dims(), data).expect("shape");
                return Ok(Some(X::A(Ax::M(Arr::D(m.into_shared())))));
            }
        }
    }
    let converted;
    let a: PyReadonlyArrayDyn<'_, f64> = match obj.extract() {
        Ok(a) => a,
        Err(_) => {
            let kind = u.dtype().kind();
            if !matches!(kind, b'b' | b'i' | b'u' | b'f') {
                return Err(PyTypeError::new_err(format!(
                    "{function}: arrays must hold real numbers (a float dtype), not dtype {}",
                    u.dtype()
                )));
            }
            converted = obj.call_method1("astype", ("float64",))?;
            converted.extract()?
        }
    };
    let view = a.as_array();
    // Row-major: one copy, a memcpy when the array is C-contiguous.
    let data: Vec<f64> = match view.as_slice() {
        Some(s) => s.to_vec(),
        None => view.iter().copied().collect(),
    };
    Ok(Some(match *view.shape() {
        [] => X::S(Arg::F(data[0])),
        [_] => X::A(Ax::V(Arr::D(Array1::from_vec(data).into_shared()))),
        [r, c] => X::A(Ax::M(Arr::D(
            Array2::from_shape_vec((r, c), data)
                .expect("shape")
                .into_shared(),
        ))),
        ref s => {
            return Err(errors::size_error(format!(
                "{function}: arrays of {} dimensions are not supported (only 1-D and 2-D), \
                 shape {}",
                s.len(),
                shape_str(s)
            )))
        }
    }))
}

/// Any argument: a Var (scalar or array), a NumPy array or a number; `None` otherwise.
pub fn try_x(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<X>> {
    // The common cases first: a Var, a float, a NumPy array.
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(Some(v.get().x(function)?));
    }
    if let Ok(x) = obj.cast::<PyFloat>() {
        return Ok(Some(X::S(Arg::F(x.value()))));
    }
    if let Some(x) = read_ndarray(obj, function)? {
        return Ok(Some(x));
    }
    Ok(try_arg(obj, function)?.map(X::S))
}

/// [`try_x`], with a `TypeError` naming the argument when it is none of those.
pub fn x_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    try_x(obj, function)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a float, a NumPy array, a revad.Data or a \
             revad.Var, not {}",
            type_name(obj)
        ))
    })
}

/// An array argument (array Var or NumPy array), or `None` for a scalar.
pub fn try_array(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Option<Ax>> {
    if let Ok(v) = obj.cast::<PyVar>() {
        return Ok(match v.get().x(function)? {
            X::A(a) => Some(a),
            X::S(_) => None,
        });
    }
    match read_ndarray(obj, function)? {
        Some(X::A(a)) => Ok(Some(a)),
        _ => Ok(None),
    }
}

/// An argument that must be an array.
pub fn array_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<Ax> {
    try_array(obj, function)?.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{function}: argument {name} must be a 1-D or 2-D NumPy array or array revad.Var, \
             not {}",
            type_name(obj)
        ))
    })
}

/// Applies `$body` to one array operand (`$x` bound to `&Var<S>` or `&S`); yields
/// `(result, data_only)`.
macro_rules! arr1 {
    ($a:expr, |$x:ident| $body:expr) => {
        match $a {
            $crate::array::Arr::V(v) => {
                let $x = &v;
                ($body, false)
            }
            $crate::array::Arr::D(d) => {
                let $x = &d;
                ($body, true)
            }
        }
    };
}
pub(crate) use arr1;

/// Applies `$body` to two array operands; yields `(result, data_only)`.
macro_rules! arr2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            ($crate::array::Arr::V(a), $crate::array::Arr::V(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::array::Arr::V(a), $crate::array::Arr::D(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::array::Arr::D(a), $crate::array::Arr::V(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::array::Arr::D(a), $crate::array::Arr::D(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, true)
            }
        }
    };
}
pub(crate) use arr2;

/// An array Var result, or its value when every operand was data.
pub fn finish<S: Storage>(v: Var<S>, data_only: bool) -> Arr<S> {
    if data_only {
        Arr::D(v.value().clone())
    } else {
        Arr::V(v)
    }
}

/// A scalar Var result, or its value when every operand was data.
pub fn finish_scalar(v: Var, data_only: bool) -> Out {
    if data_only {
        Out::F(v.value())
    } else {
        Out::V(v)
    }
}

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
        use crate::var::binop;
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
fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
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
fn to_2d(a: Ax) -> Arr<Matrix> {
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
fn broadcast_to(a: Arr<Matrix>, rows: usize, cols: usize) -> PyResult<Arr<Matrix>> {
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

/// A Python index into an axis of length `n` (negative counts from the end).
fn index(obj: &Bound<'_, PyAny>, n: usize, axis: usize) -> PyResult<usize> {
    let i: isize = obj.extract()?;
    let j = if i < 0 { i + n as isize } else { i };
    if j < 0 || j as usize >= n {
        return Err(PyIndexError::new_err(format!(
            "index {i} is out of bounds for axis {axis} with size {n}"
        )));
    }
    Ok(j as usize)
}

/// One axis of an index: a single position (the axis goes away) or positions of a slice.
enum Pick {
    One(usize),
    Many(Vec<usize>),
}

fn pick(obj: &Bound<'_, PyAny>, n: usize, axis: usize) -> PyResult<Pick> {
    if let Ok(s) = obj.cast::<PySlice>() {
        let ind = s.indices(n as isize)?;
        let idx = (0..ind.slicelength)
            .map(|k| (ind.start + k as isize * ind.step) as usize)
            .collect();
        return Ok(Pick::Many(idx));
    }
    if obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")? {
        return Ok(Pick::One(index(obj, n, axis)?));
    }
    Err(PyTypeError::new_err(format!(
        "revad.Var indices must be integers or slices, not {}",
        type_name(obj)
    )))
}

/// Whether `idx` is a run `start, start + 1, …`.
fn contiguous(idx: &[usize]) -> bool {
    idx.windows(2).all(|w| w[1] == w[0] + 1)
}

/// The elements `ks` (row-major positions) of `a` as a 1-D or 2-D Var of `shape`: one gathering
/// node, whose reverse pass hands each element's adjoint to its slot.
fn gather<S: Storage>(a: &Var<S>, ks: &[usize], shape: (usize, usize), matrix: bool) -> Res {
    let vars: Vec<Var> = ks.iter().map(|&k| a.element(k)).collect();
    if matrix {
        let like: Matrix = Array2::zeros(shape).into_shared();
        Res::M(Arr::V(Var::from_vars(&like, &vars).expect("sizes agree")))
    } else {
        let like: Vector = Array1::zeros(ks.len()).into_shared();
        Res::V(Arr::V(Var::from_vars(&like, &vars).expect("sizes agree")))
    }
}

/// `v[key]` of a 1-D array Var.
pub fn getitem_vector(v: &Var<Vector>, key: &Bound<'_, PyAny>) -> PyResult<Res> {
    let n = v.len();
    let key = match key.cast::<PyTuple>() {
        Ok(t) if t.len() == 1 => t.get_item(0)?,
        Ok(t) => {
            return Err(PyIndexError::new_err(format!(
                "too many indices for a 1-D revad.Var: {} were indexed",
                t.len()
            )))
        }
        Err(_) => key.clone(),
    };
    match pick(&key, n, 0)? {
        Pick::One(i) => Ok(Res::S(Out::V(v.element(i)))),
        Pick::Many(idx) if contiguous(&idx) => {
            let start = idx.first().copied().unwrap_or(0);
            Ok(Res::V(Arr::V(
                matrix::segment(v, start, idx.len()).map_err(to_py)?,
            )))
        }
        Pick::Many(idx) => Ok(gather(v, &idx, (idx.len(), 1), false)),
    }
}

/// `m[key]` of a 2-D array Var.
pub fn getitem_matrix(m: &Var<Matrix>, key: &Bound<'_, PyAny>) -> PyResult<Res> {
    let (r, c) = m.shape();
    let (kr, kc) = match key.cast::<PyTuple>() {
        Ok(t) if t.len() == 2 => (t.get_item(0)?, Some(t.get_item(1)?)),
        Ok(t) if t.len() == 1 => (t.get_item(0)?, None),
        Ok(t) => {
            return Err(PyIndexError::new_err(format!(
                "too many indices for a 2-D revad.Var: {} were indexed",
                t.len()
            )))
        }
        Err(_) => (key.clone(), None),
    };
    let rows = pick(&kr, r, 0)?;
    let cols = match kc {
        Some(k) => pick(&k, c, 1)?,
        None => Pick::Many((0..c).collect()),
    };
    match (rows, cols) {
        (Pick::One(i), Pick::One(j)) => Ok(Res::S(Out::V(m.at(i, j)))),
        (Pick::One(i), Pick::Many(js)) if js.len() == c && contiguous(&js) => {
            Ok(Res::V(from_row(Arr::V(matrix::row(m, i).map_err(to_py)?))))
        }
        (Pick::Many(is), Pick::One(j)) if is.len() == r && contiguous(&is) => {
            Ok(Res::V(Arr::V(matrix::col(m, j).map_err(to_py)?)))
        }
        (Pick::Many(is), Pick::Many(js)) if contiguous(&is) && contiguous(&js) => {
            let (i0, j0) = (
                is.first().copied().unwrap_or(0),
                js.first().copied().unwrap_or(0),
            );
            Ok(Res::M(Arr::V(
                matrix::block(m, i0, j0, is.len(), js.len()).map_err(to_py)?,
            )))
        }
        (Pick::One(i), Pick::Many(js)) => {
            let ks: Vec<usize> = js.iter().map(|j| i * c + j).collect();
            Ok(gather(m, &ks, (ks.len(), 1), false))
        }
        (Pick::Many(is), Pick::One(j)) => {
            let ks: Vec<usize> = is.iter().map(|i| i * c + j).collect();
            Ok(gather(m, &ks, (ks.len(), 1), false))
        }
        (Pick::Many(is), Pick::Many(js)) => {
            let ks: Vec<usize> = is
                .iter()
                .flat_map(|i| js.iter().map(move |j| i * c + j))
                .collect();
            Ok(gather(m, &ks, (is.len(), js.len()), true))
        }
    }
}

/// The row-major positions that `key` selects in an array of NumPy shape `shape` (1-D or 2-D),
/// and the NumPy shape of the selection (an integer index drops its axis).
fn selection(key: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let parts: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    if parts.len() > shape.len() {
        return Err(PyIndexError::new_err(format!(
            "too many indices for a {}-D revad.Var: {} were indexed",
            shape.len(),
            parts.len()
        )));
    }
    let picks: Vec<Pick> = (0..shape.len())
        .map(|axis| match parts.get(axis) {
            Some(p) => pick(p, shape[axis], axis),
            None => Ok(Pick::Many((0..shape[axis]).collect())),
        })
        .collect::<PyResult<_>>()?;
    let axis = |p: &Pick| match p {
        Pick::One(i) => vec![*i],
        Pick::Many(is) => is.clone(),
    };
    let out_shape: Vec<usize> = picks
        .iter()
        .filter_map(|p| match p {
            Pick::One(_) => None,
            Pick::Many(is) => Some(is.len()),
        })
        .collect();
    let ks = match picks[..] {
        [ref p] => axis(p),
        [ref p, ref q] => {
            let c = shape[1];
            let (is, js) = (axis(p), axis(q));
            is.iter()
                .flat_map(|i| js.iter().map(move |j| i * c + j))
                .collect()
        }
        _ => unreachable!("1-D or 2-D"),
    };
    Ok((ks, out_shape))
}

/// `a[key] = value` in place (seed 001's assignment, `Var::assign_indices`): `value` is a
/// float or scalar Var (written to every selected element), or an array Var, NumPy array or
/// sequence whose shape is the selection's, or broadcasts to it by NumPy's rule.
pub fn setitem<S: Storage>(
    a: &mut Var<S>,
    shape: &[usize],
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (ks, target) = selection(key, shape)?;
    let src = match try_x(value, "__setitem__")? {
        Some(x) => x,
        None => X::A(crate::matfun::array(value, "__setitem__", "value")?),
    };
    let src = match src {
        X::S(Arg::F(c)) => return a.fill_indices(&ks, c).map_err(to_py),
        X::S(Arg::V(v)) => return a.fill_indices(&ks, v).map_err(to_py),
        X::A(s) => s,
    };
    let have = src.shape();
    if have == target {
        return match src {
            Ax::V(Arr::V(v)) => a.assign_indices(&ks, &v),
            Ax::V(Arr::D(d)) => a.assign_indices(&ks, &d),
            Ax::M(Arr::V(m)) => a.assign_indices(&ks, &m),
            Ax::M(Arr::D(d)) => a.assign_indices(&ks, &d),
        }
        .map_err(to_py);
    }
    // NumPy's rule for the source: leading axes of length 1 go, then it must broadcast to the
    // selection's shape without the selection stretching.
    let mut trimmed: &[usize] = &have;
    while trimmed.len() > target.len() && trimmed[0] == 1 {
        trimmed = &trimmed[1..];
    }
    if broadcast_shape(trimmed, &target).as_deref() != Some(&target[..]) {
        return Err(errors::size_error(format!(
            "could not broadcast input array from shape {} into shape {}",
            shape_str(&have),
            shape_str(&target)
        )));
    }
    let (r, c) = match target[..] {
        [] => (1, 1),
        [n] => (1, n),
        [r, c] => (r, c),
        _ => unreachable!("1-D or 2-D"),
    };
    match broadcast_to(to_2d(src), r, c)? {
        Arr::V(m) => a.assign_indices(&ks, &m),
        Arr::D(d) => a.assign_indices(&ks, &d),
    }
    .map_err(to_py)
}
