//! Stan's matrix functions for array Vars and NumPy arrays, each one node (`revad::matrix`).
//!
//! An array argument is an array Var, a NumPy array, or a list/tuple of floats and scalar
//! Vars (gathered into one vector Var by one node: Stan's matvar-to-varmat conversion). A
//! function of data only returns data (a float or a NumPy array).

use ndarray::Array1;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyAny;
use revad::matrix::Reduction;
use revad::{matrix, Matrix, Var, Vector};

use crate::args::{arr1, arr2, finish, finish_scalar, shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{arg, array_arg, matrix_arg, try_array, try_x, vector_arg, x_arg};
use crate::errors::{size_error, to_py};
use crate::family::family;
use crate::record::{self, Sc};
use crate::ops::{as_row, elementwise, from_row, matmul, matmul_form, Op};
use crate::shape::{read_axes, reduce};

/// A scalar result of one array argument: `$var` for a Var (`$x: &Var<S>`), `$data` for data
/// (`$d: &S`).
macro_rules! scalar_of {
    ($a:expr, |$x:ident| $body:expr) => {
        match $a {
            Ax::V(a) => {
                let (r, d) = arr1!(a, |$x| $body);
                finish_scalar(r, d)
            }
            Ax::M(a) => {
                let (r, d) = arr1!(a, |$x| $body);
                finish_scalar(r, d)
            }
        }
    };
}

/// The Python result of the operation `f` of `function` on the operands that `read` reads
/// (inside `record::declared`): the function declared for replay.
fn replay(
    py: Python<'_>,
    function: &'static str,
    read: impl FnOnce() -> PyResult<Vec<X>>,
    f: impl record::Operation,
) -> PyResult<Py<PyAny>> {
    let operands = record::declared(read)?;
    record::apply(function, &operands, f)?.into_py(py)
}

/// A reduction of an array argument over every element or along ``axis`` (NumPy's).
fn reduce_arg(
    py: Python<'_>,
    how: Reduction,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    function: &'static str,
) -> PyResult<Py<PyAny>> {
    let a = record::declared(|| array_arg(x, function, "x"))?;
    let axes = read_axes(axis, a.shape().len(), function)?;
    record::apply(function, &[X::A(a)], move |x| {
        reduce(how, x[0].clone(), axes.clone(), keepdims)
    })?
    .into_py(py)
}

/// `mean(xs, axis=None, keepdims=False)`: Σ xᵢ / n of an array (NaN for an empty one), over
/// every element or along ``axis`` (an int or a tuple, as NumPy's), one node; ∂/∂xᵢ = 1/n.
#[pyfunction]
#[pyo3(signature = (xs, axis=None, keepdims=false))]
fn mean(
    py: Python<'_>,
    xs: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    reduce_arg(py, Reduction::Mean, xs, axis, keepdims, "mean")
}

/// `dot_self(x)`: Σ xᵢ² of an array; ∂/∂xᵢ = 2xᵢ.
#[pyfunction]
fn dot_self(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "dot_self";
    replay(py, F, || Ok(vec![array_arg(x, F, "x")?.into()]), |x| {
        Ok(Res::S(match x[0].array() {
            Ax::V(Arr::V(v)) => Out::V(matrix::dot_self(&v)),
            Ax::M(Arr::V(m)) => Out::V(matrix::dot_self(&m)),
            Ax::V(Arr::D(d)) => Out::F(d.iter().map(|x| x * x).sum()),
            Ax::M(Arr::D(d)) => Out::F(d.iter().map(|x| x * x).sum()),
        }))
    })
}

/// `variance(x)`: the sample variance Σ (xᵢ − x̄)²/(n − 1) of an array (n ≥ 1).
#[pyfunction]
fn variance(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "variance";
    replay(py, F, || Ok(vec![array_arg(x, F, "x")?.into()]), |x| {
        Ok(Res::S(scalar_of!(x[0].array(), |x| matrix::variance(x).map_err(to_py)?)))
    })
}

/// `sd(x)`: the sample standard deviation √variance(x) of an array.
#[pyfunction]
fn sd(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "sd";
    replay(py, F, || Ok(vec![array_arg(x, F, "x")?.into()]), |x| {
        Ok(Res::S(scalar_of!(x[0].array(), |x| matrix::sd(x).map_err(to_py)?)))
    })
}

/// `prod(x, axis=None, keepdims=False)`: Π xᵢ of an array, over every element or along
/// ``axis``, one node; ∂/∂xᵢ = Π_{j≠i} xⱼ.
#[pyfunction]
#[pyo3(signature = (x, axis=None, keepdims=false))]
fn prod(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    reduce_arg(py, Reduction::Prod, x, axis, keepdims, "prod")
}

/// `softmax(v)` of a 1-D array: e^v / Σ e^v; the reverse pass is v̄ += s ∘ (ḡ − ⟨ḡ, s⟩).
#[pyfunction]
fn softmax(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "softmax";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::softmax(x));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `log_softmax(v)` of a 1-D array: v − log_sum_exp(v); v̄ += ḡ − softmax(v)·Σḡ.
#[pyfunction]
fn log_softmax(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "log_softmax";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::log_softmax(x));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `cumulative_sum(v)` of a 1-D array: cᵢ = v₀ + … + vᵢ.
#[pyfunction]
fn cumulative_sum(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "cumulative_sum";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::cumulative_sum(x));
        Ok(Res::V(finish(r, d)))
    })
}

/// `dot_product(a, b)`: Σ aᵢbᵢ of two 1-D arrays of equal length; ∂/∂a = b, ∂/∂b = a.
#[pyfunction]
fn dot_product(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "dot_product";
    let read = || Ok(vec![vector_arg(a, F, "a")?.into(), vector_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].vector(), x[1].vector(), |p, q| matrix::dot_product(p, q));
        Ok(Res::S(finish_scalar(r.map_err(to_py)?, d)))
    })
}

/// `squared_distance(a, b)`: Σ (aᵢ − bᵢ)² of two 1-D arrays of equal length.
#[pyfunction]
fn squared_distance(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "squared_distance";
    let read = || Ok(vec![vector_arg(a, F, "a")?.into(), vector_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].vector(), x[1].vector(), |p, q| matrix::squared_distance(p, q));
        Ok(Res::S(finish_scalar(r.map_err(to_py)?, d)))
    })
}

/// `distance(a, b)`: the Euclidean distance ‖a − b‖ of two 1-D arrays of equal length.
#[pyfunction]
fn distance(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "distance";
    let read = || Ok(vec![vector_arg(a, F, "a")?.into(), vector_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].vector(), x[1].vector(), |p, q| matrix::distance(p, q));
        Ok(Res::S(finish_scalar(r.map_err(to_py)?, d)))
    })
}

/// `multiply(a, b)`: Stan's multiply — the matrix product for two arrays (as ``a @ b``), the
/// product for a scalar and anything.
#[pyfunction]
fn multiply(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "multiply";
    let operands = record::declared(|| Ok::<_, PyErr>(vec![x_arg(a, F, "a")?, x_arg(b, F, "b")?]))?;
    let matrix_vector = matches!(&operands[..], [X::A(Ax::M(_)), X::A(Ax::V(_))]);
    let f = |x: &[&X]| match x {
        [X::A(x), X::A(y)] => matmul(x.clone(), y.clone()),
        [x, y] => elementwise(Op::Mul, (*x).clone(), (*y).clone()),
        _ => unreachable!("two operands"),
    };
    let form = move |x: &[Sc<'_>]| matmul_form(matrix_vector, &x[0], &x[1]);
    record::apply_form(F, &operands, f, form)?.into_py(py)
}

/// `a ∘ b` (elementwise product, as ``a * b``, with NumPy broadcasting); either may be a
/// scalar (Stan's ``elt_multiply`` of arrays, and of a scalar and an array).
#[pyfunction]
fn elt_multiply(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "elt_multiply";
    let read = || Ok(vec![elt_arg(a, F, "a")?, elt_arg(b, F, "b")?]);
    replay(py, F, read, |x| elementwise(Op::Mul, x[0].clone(), x[1].clone()))
}

/// `a ⊘ b` (elementwise quotient, as ``a / b``, with NumPy broadcasting); either may be a
/// scalar (Stan's ``elt_divide(matrix, matrix)``, ``elt_divide(real, matrix)`` = c ⊘ b and
/// ``elt_divide(matrix, real)``), one node.
#[pyfunction]
fn elt_divide(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "elt_divide";
    let read = || Ok(vec![elt_arg(a, F, "a")?, elt_arg(b, F, "b")?]);
    replay(py, F, read, |x| elementwise(Op::Div, x[0].clone(), x[1].clone()))
}

/// An argument of `elt_multiply`/`elt_divide`: a scalar, or an array (lists included).
fn elt_arg(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    match try_x(obj, function)? {
        Some(x) => Ok(x),
        None => Ok(X::A(array_arg(obj, function, name)?)),
    }
}

/// `transpose(a)`: a 2-D array's transpose (one node); a 1-D array itself (NumPy's ``.T``).
#[pyfunction]
fn transpose(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "transpose";
    replay(py, F, || Ok(vec![array_arg(a, F, "a")?.into()]), |x| {
        Ok(match x[0].array() {
            Ax::M(m) => {
                let (r, d) = arr1!(m, |x| matrix::transpose(x));
                Res::M(finish(r, d))
            }
            Ax::V(v) => Res::V(v),
        })
    })
}

/// `crossprod(a)`: aᵀa of a 2-D array.
#[pyfunction]
fn crossprod(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "crossprod";
    replay(py, F, || Ok(vec![matrix_arg(a, F, "a")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::crossprod(x));
        Ok(Res::M(finish(r, d)))
    })
}

/// `tcrossprod(a)`: a·aᵀ of a 2-D array.
#[pyfunction]
fn tcrossprod(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "tcrossprod";
    replay(py, F, || Ok(vec![matrix_arg(a, F, "a")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::tcrossprod(x));
        Ok(Res::M(finish(r, d)))
    })
}

/// `diagonal(a)`: the diagonal of a 2-D array as a 1-D array.
#[pyfunction]
fn diagonal(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "diagonal";
    replay(py, F, || Ok(vec![matrix_arg(a, F, "a")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::diagonal(x));
        Ok(Res::V(finish(r, d)))
    })
}

/// `diag_matrix(v)`: the square 2-D array with the 1-D array v on its diagonal.
#[pyfunction]
fn diag_matrix(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "diag_matrix";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::diag_matrix(x));
        Ok(Res::M(finish(r, d)))
    })
}

/// `v[i:i + n]` of a 1-D array as `$f(v, i, n)`-style slices: `head`, `tail`, `segment`.
macro_rules! vector_slice {
    ($name:ident($($n:ident),*) => $call:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        fn $name(py: Python<'_>, v: &Bound<'_, PyAny>, $($n: usize),*) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), move |x| {
                let (r, d) = arr1!(x[0].vector(), |x| $call(x, $($n),*));
                Ok(Res::V(finish(r.map_err(to_py)?, d)))
            })
        }
    };
}

vector_slice!(head(n) => matrix::head, "`head(v, n)`: the first n elements of a 1-D array.");
vector_slice!(tail(n) => matrix::tail, "`tail(v, n)`: the last n elements of a 1-D array.");
vector_slice!(
    segment(i, n) => matrix::segment,
    "`segment(v, i, n)`: the n elements from element i on (0-based, unlike Stan): v[i:i + n]."
);

/// `block(m, i, j, nrows, ncols)`: the nrows × ncols block of a 2-D array whose top-left
/// element is (i, j), 0-based (unlike Stan): m[i:i + nrows, j:j + ncols].
#[pyfunction]
fn block(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    i: usize,
    j: usize,
    nrows: usize,
    ncols: usize,
) -> PyResult<Py<PyAny>> {
    const F: &str = "block";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), move |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::block(x, i, j, nrows, ncols));
        Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })
}

/// `row(m, i)`: row i (0-based, unlike Stan) of a 2-D array, as a 1-D array.
#[pyfunction]
fn row(py: Python<'_>, m: &Bound<'_, PyAny>, i: usize) -> PyResult<Py<PyAny>> {
    const F: &str = "row";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), move |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::row(x, i));
        Ok(Res::V(from_row(finish(r.map_err(to_py)?, d))))
    })
}

/// `col(m, j)`: column j (0-based, unlike Stan) of a 2-D array, as a 1-D array.
#[pyfunction]
fn col(py: Python<'_>, m: &Bound<'_, PyAny>, j: usize) -> PyResult<Py<PyAny>> {
    const F: &str = "col";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), move |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::col(x, j));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `to_vector(a)`: the elements as a 1-D array in column-major order (Stan's order: a 2-D
/// `[[1, 2], [3, 4]]` gives `[1, 3, 2, 4]`).
#[pyfunction]
fn to_vector(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "to_vector";
    replay(py, F, || Ok(vec![array_arg(a, F, "a")?.into()]), |x| {
        let (r, d) = match x[0].array() {
            Ax::V(v) => arr1!(v, |x| matrix::to_vector(x)),
            Ax::M(m) => arr1!(m, |x| matrix::to_vector(x)),
        };
        Ok(Res::V(finish(r, d)))
    })
}

/// `rows_dot_self(m)`: Σⱼ mᵢⱼ² for each row of a 2-D array, as a 1-D array.
#[pyfunction]
fn rows_dot_self(py: Python<'_>, m: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "rows_dot_self";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::rows_dot_self(x));
        Ok(Res::V(finish(r, d)))
    })
}

/// `columns_dot_self(m)`: Σᵢ mᵢⱼ² for each column of a 2-D array, as a 1-D array.
#[pyfunction]
fn columns_dot_self(py: Python<'_>, m: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "columns_dot_self";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::columns_dot_self(x));
        Ok(Res::V(from_row(finish(r, d))))
    })
}

/// `rep_vector(x, n)`: a 1-D array of n copies of x (a float or a scalar Var).
#[pyfunction]
fn rep_vector(py: Python<'_>, x: &Bound<'_, PyAny>, n: usize) -> PyResult<Py<PyAny>> {
    const F: &str = "rep_vector";
    replay(py, F, || Ok(vec![arg(x, F, "x")?.into()]), move |x| {
        Ok(match x[0].scalar() {
            Arg::F(c) => Res::V(Arr::D(Array1::from_elem(n, c).into_shared())),
            Arg::V(v) => Res::V(Arr::V(matrix::rep_vector(v, n))),
        })
    })
}

/// `rep_matrix(x, m, n)`: an m × n 2-D array with every element x (a float or a scalar Var).
/// `rep_matrix(v, n)` of a 1-D array v (a column vector): the len(v) × n 2-D array whose every
/// column is v (one node; each vᵢ gets the sum of its copies' adjoints).
#[pyfunction]
#[pyo3(signature = (x, m, n = None))]
fn rep_matrix(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    m: usize,
    n: Option<usize>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "rep_matrix";
    if let Some(a) = record::declared(|| try_array(x, F))? {
        let v = match (a, n) {
            (Ax::V(v), None) => v,
            (a, _) => {
                return Err(PyTypeError::new_err(format!(
                    "rep_matrix: give rep_matrix(v, n) for a 1-D array v, not an array of \
                     shape {}{}",
                    shape_str(&a.shape()),
                    if n.is_some() { " with two sizes" } else { "" }
                )))
            }
        };
        return record::apply(F, &[v.into()], move |x| {
            let (r, d) = arr1!(x[0].vector(), |p| matrix::rep_matrix_vec(p, m));
            Ok(Res::M(finish(r, d)))
        })?
        .into_py(py);
    }
    let Some(n) = n else {
        return Err(PyTypeError::new_err(
            "rep_matrix: a scalar x needs both sizes: rep_matrix(x, m, n)",
        ));
    };
    replay(py, F, || Ok(vec![arg(x, F, "x")?.into()]), move |x| {
        Ok(match x[0].scalar() {
            Arg::F(c) => Res::M(Arr::D(ndarray::Array2::from_elem((m, n), c).into_shared())),
            Arg::V(v) => Res::M(Arr::V(matrix::rep_matrix(v, m, n))),
        })
    })
}

/// `sort_asc(v)`: the elements of a 1-D array in ascending order (NaN is an error).
#[pyfunction]
fn sort_asc(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "sort_asc";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::sort_asc(x));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `sort_desc(v)`: the elements of a 1-D array in descending order (NaN is an error).
#[pyfunction]
fn sort_desc(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "sort_desc";
    replay(py, F, || Ok(vec![vector_arg(v, F, "v")?.into()]), |x| {
        let (r, d) = arr1!(x[0].vector(), |x| matrix::sort_desc(x));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `quad_form(a, b)`: bᵀ·a·b for a square 2-D `a`; a 2-D `b` gives a 2-D array, a 1-D `b` a
/// scalar.
#[pyfunction]
fn quad_form(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    quad(py, a, b, "quad_form", false)
}

/// `quad_form_sym(a, b)`: bᵀ·a·b for a symmetric 2-D `a` (checked), made exactly symmetric.
#[pyfunction]
fn quad_form_sym(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    quad(py, a, b, "quad_form_sym", true)
}

fn quad(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    function: &'static str,
    sym: bool,
) -> PyResult<Py<PyAny>> {
    let read = || Ok(vec![matrix_arg(a, function, "a")?.into(), array_arg(b, function, "b")?.into()]);
    replay(py, function, read, move |x| Ok(match x[1].array() {
        Ax::M(bm) => {
            let m = x[0].matrix();
            let (r, d) = if sym {
                arr2!(m, bm, |x, y| matrix::quad_form_sym(x, y))
            } else {
                arr2!(m, bm, |x, y| matrix::quad_form(x, y))
            };
            Res::M(finish(r.map_err(to_py)?, d))
        }
        Ax::V(bv) => {
            let m = x[0].matrix();
            let (r, d) = if sym {
                arr2!(m, bv, |x, y| matrix::quad_form_sym(x, y))
            } else {
                arr2!(m, bv, |x, y| matrix::quad_form(x, y))
            };
            Res::S(finish_scalar(r.map_err(to_py)?, d))
        }
    }))
}

/// `quad_form_diag(m, v)`: diag(v)·m·diag(v) for a square 2-D `m` and a 1-D `v`.
#[pyfunction]
fn quad_form_diag(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "quad_form_diag";
    let read = || Ok(vec![matrix_arg(m, F, "m")?.into(), vector_arg(v, F, "v")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].matrix(), x[1].vector(), |x, y| matrix::quad_form_diag(x, y));
        Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })
}

/// `diag_pre_multiply(v, m)`: diag(v)·m (row i of m scaled by vᵢ).
#[pyfunction]
fn diag_pre_multiply(
    py: Python<'_>,
    v: &Bound<'_, PyAny>,
    m: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "diag_pre_multiply";
    let read = || Ok(vec![vector_arg(v, F, "v")?.into(), matrix_arg(m, F, "m")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].vector(), x[1].matrix(), |x, y| matrix::diag_pre_multiply(x, y));
        Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })
}

/// `diag_post_multiply(m, v)`: m·diag(v) (column j of m scaled by vⱼ).
#[pyfunction]
fn diag_post_multiply(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "diag_post_multiply";
    let read = || Ok(vec![matrix_arg(m, F, "m")?.into(), vector_arg(v, F, "v")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = arr2!(x[0].matrix(), x[1].vector(), |x, y| matrix::diag_post_multiply(x, y));
        Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })
}

/// `add(a, b)`: a + b elementwise (as ``a + b``): arrays with NumPy broadcasting, scalars.
#[pyfunction]
fn add(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "add";
    let read = || Ok(vec![x_arg(a, F, "a")?, x_arg(b, F, "b")?]);
    replay(py, F, read, |x| elementwise(Op::Add, x[0].clone(), x[1].clone()))
}

/// `subtract(a, b)`: a − b elementwise (as ``a - b``), with NumPy broadcasting.
#[pyfunction]
fn subtract(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "subtract";
    let read = || Ok(vec![x_arg(a, F, "a")?, x_arg(b, F, "b")?]);
    replay(py, F, read, |x| elementwise(Op::Sub, x[0].clone(), x[1].clone()))
}

/// `divide(a, b)`: a / b elementwise (as ``a / b``; Stan's ``divide(matrix, real)``), with
/// NumPy broadcasting.
#[pyfunction]
fn divide(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "divide";
    let read = || Ok(vec![x_arg(a, F, "a")?, x_arg(b, F, "b")?]);
    replay(py, F, read, |x| elementwise(Op::Div, x[0].clone(), x[1].clone()))
}

/// Two array arguments of one kind.
enum Pair {
    V(Arr<Vector>, Arr<Vector>),
    M(Arr<Matrix>, Arr<Matrix>),
}

/// Two arrays of one kind (both 1-D or both 2-D), else a `SizeError`.
fn same_kind(a: Ax, b: Ax, function: &'static str) -> PyResult<Pair> {
    match (a, b) {
        (Ax::V(a), Ax::V(b)) => Ok(Pair::V(a, b)),
        (Ax::M(a), Ax::M(b)) => Ok(Pair::M(a, b)),
        (a, b) => Err(size_error(format!(
            "{function}: the arguments must both be 1-D or both 2-D, not of shapes {} and {}",
            shape_str(&a.shape()),
            shape_str(&b.shape())
        ))),
    }
}

/// `columns_dot_product(a, b)`: Σᵢ aᵢⱼbᵢⱼ for each column j of two arrays of one shape (a
/// 1-D array is one column), as a 1-D array.
#[pyfunction]
fn columns_dot_product(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "columns_dot_product";
    let read = || Ok(vec![array_arg(a, F, "a")?.into(), array_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = match same_kind(x[0].array(), x[1].array(), F)? {
            Pair::V(x, y) => arr2!(x, y, |p, q| matrix::columns_dot_product(p, q)),
            Pair::M(x, y) => arr2!(x, y, |p, q| matrix::columns_dot_product(p, q)),
        };
        Ok(Res::V(from_row(finish(r.map_err(to_py)?, d))))
    })
}

/// `rows_dot_product(a, b)`: Σⱼ aᵢⱼbᵢⱼ for each row i of two arrays of one shape (a 1-D
/// array is a column: each row is one element), as a 1-D array.
#[pyfunction]
fn rows_dot_product(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "rows_dot_product";
    let read = || Ok(vec![array_arg(a, F, "a")?.into(), array_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
        let (r, d) = match same_kind(x[0].array(), x[1].array(), F)? {
            Pair::V(x, y) => arr2!(x, y, |p, q| matrix::rows_dot_product(p, q)),
            Pair::M(x, y) => arr2!(x, y, |p, q| matrix::rows_dot_product(p, q)),
        };
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `multiply_lower_tri_self_transpose(m)`: L·Lᵀ with L the lower triangle of the 2-D m.
#[pyfunction]
fn multiply_lower_tri_self_transpose(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "multiply_lower_tri_self_transpose";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::multiply_lower_tri_self_transpose(x));
        Ok(Res::M(finish(r, d)))
    })
}

/// `max(x, axis=None, keepdims=False)`: the largest element of an array or sequence (−∞ for an
/// empty one), over every element or along ``axis``, one node; ∂/∂xᵢ = 1 for the largest
/// element, shared equally among ties (as in Stan).
#[pyfunction]
#[pyo3(signature = (x, axis=None, keepdims=false))]
fn max(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    reduce_arg(py, Reduction::Max, x, axis, keepdims, "max")
}

/// `min(x, axis=None, keepdims=False)`: the smallest element of an array or sequence (+∞ for an
/// empty one), over every element or along ``axis``, one node; ∂/∂xᵢ = 1 for the smallest
/// element, shared equally among ties.
#[pyfunction]
#[pyo3(signature = (x, axis=None, keepdims=false))]
fn min(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Py<PyAny>> {
    reduce_arg(py, Reduction::Min, x, axis, keepdims, "min")
}

/// A scalar argument as a 1-element vector (data, or one gathering node for a Var).
fn one_element(x: Arg) -> PyResult<Arr<Vector>> {
    Ok(match x {
        Arg::F(c) => Arr::D(Array1::from_elem(1, c).into_shared()),
        Arg::V(v) => {
            let like: Vector = Array1::zeros(1).into_shared();
            Arr::V(Var::from_vars(&like, &[v]).map_err(to_py)?)
        }
    })
}

/// An argument of `append_row`: an array or a scalar.
fn array_or_scalar(obj: &Bound<'_, PyAny>, function: &'static str, name: &str) -> PyResult<X> {
    match try_x(obj, function)? {
        Some(X::S(s)) => Ok(X::S(s)),
        _ => Ok(X::A(array_arg(obj, function, name)?)),
    }
}

/// An operand of `append_row` as an array: a scalar as a 1-element vector.
fn as_array(x: &X) -> PyResult<Ax> {
    match x {
        X::S(s) => Ok(Ax::V(one_element(*s)?)),
        X::A(a) => Ok(a.clone()),
    }
}

/// `append_col(a, b)`: the columns of a followed by those of b (``np.hstack`` of columns); a
/// 1-D array is a column, so two 1-D arrays give an n × 2 array. The row counts must agree.
#[pyfunction]
fn append_col(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "append_col";
    let read = || Ok(vec![array_arg(a, F, "a")?.into(), array_arg(b, F, "b")?.into()]);
    replay(py, F, read, |x| {
    let (r, d) = match (x[0].array(), x[1].array()) {
        (Ax::M(x), Ax::M(y)) => arr2!(x, y, |p, q| matrix::append_col(p, q)),
        (Ax::M(x), Ax::V(y)) => arr2!(x, y, |p, q| matrix::append_col(p, q)),
        (Ax::V(x), Ax::M(y)) => arr2!(x, y, |p, q| matrix::append_col(p, q)),
        (Ax::V(x), Ax::V(y)) => arr2!(x, y, |p, q| matrix::append_col(p, q)),
    };
    Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })
}

/// `append_row(a, b)`: the rows of a followed by those of b. Two 1-D arrays (or a scalar and a
/// 1-D array) give their concatenation (Stan's vectors); with a 2-D array, a 1-D array is one
/// row (``np.vstack``). The column counts must agree.
#[pyfunction]
fn append_row(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "append_row";
    let read = || Ok(vec![array_or_scalar(a, F, "a")?, array_or_scalar(b, F, "b")?]);
    replay(py, F, read, |x| Ok(match (as_array(x[0])?, as_array(x[1])?) {
        (Ax::V(x), Ax::V(y)) => {
            let (r, d) = arr2!(x, y, |p, q| matrix::append_row(p, q));
            Res::V(finish(r.map_err(to_py)?, d))
        }
        (Ax::M(x), Ax::M(y)) => {
            let (r, d) = arr2!(x, y, |p, q| matrix::append_row(p, q));
            Res::M(finish(r.map_err(to_py)?, d))
        }
        (Ax::M(x), Ax::V(y)) => {
            let y = as_row(y);
            let (r, d) = arr2!(x, y, |p, q| matrix::append_row(p, q));
            Res::M(finish(r.map_err(to_py)?, d))
        }
        (Ax::V(x), Ax::M(y)) => {
            let x = as_row(x);
            let (r, d) = arr2!(x, y, |p, q| matrix::append_row(p, q));
            Res::M(finish(r.map_err(to_py)?, d))
        }
    }))
}

/// `to_matrix(a, m, n)`: the elements of a (read in column-major order, as Stan does) in an
/// m × n 2-D array filled column by column; without m and n, a 1-D array becomes one column
/// and a 2-D array stays as it is.
#[pyfunction]
#[pyo3(signature = (a, m = None, n = None))]
fn to_matrix(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    m: Option<usize>,
    n: Option<usize>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "to_matrix";
    let x = record::declared(|| array_arg(a, F, "a"))?;
    let (rows, cols) = match (m, n, &x) {
        (Some(m), Some(n), _) => (m, n),
        (None, None, Ax::V(v)) => (v.value().len(), 1),
        (None, None, Ax::M(v)) => v.value().dim(),
        _ => {
            return Err(PyTypeError::new_err(
                "to_matrix: give both m and n, or neither",
            ))
        }
    };
    record::apply(F, &[x.into()], move |x| {
        let (r, d) = match x[0].array() {
            Ax::V(v) => arr1!(v, |p| matrix::to_matrix(p, rows, cols)),
            Ax::M(v) => arr1!(v, |p| matrix::to_matrix(p, rows, cols)),
        };
        Ok(Res::M(finish(r.map_err(to_py)?, d)))
    })?
    .into_py(py)
}

/// `to_row_vector(a)`: the elements in column-major order (Stan's order) as a 1-D array (1-D
/// arrays have no orientation in Python, so this equals ``to_vector``).
#[pyfunction]
fn to_row_vector(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    const F: &str = "to_row_vector";
    replay(py, F, || Ok(vec![array_arg(a, F, "a")?.into()]), |x| {
        let (r, d) = match x[0].array() {
            Ax::V(v) => arr1!(v, |x| matrix::to_row_vector(x)),
            Ax::M(m) => arr1!(m, |x| matrix::to_row_vector(x)),
        };
        Ok(Res::V(from_row(finish(r, d))))
    })
}

/// `to_array_1d(a)`: the elements in column-major order (Stan's order) as a list: scalar Vars
/// that share the array Var's adjoint run (no node), or floats for data.
#[pyfunction]
fn to_array_1d(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<Vec<Py<PyAny>>> {
    let out: Vec<Out> = match array_arg(a, "to_array_1d", "a")? {
        Ax::V(Arr::V(v)) => matrix::to_array_1d(&v).into_iter().map(Out::V).collect(),
        Ax::M(Arr::V(m)) => matrix::to_array_1d(&m).into_iter().map(Out::V).collect(),
        Ax::V(Arr::D(d)) => d.iter().map(|&x| Out::F(x)).collect(),
        Ax::M(Arr::D(d)) => d.t().iter().map(|&x| Out::F(x)).collect(),
    };
    out.into_iter().map(|o| o.into_py(py)).collect()
}

/// `rep_row_vector(x, n)`: n copies of x as a 1-D array (as ``rep_vector``).
#[pyfunction]
fn rep_row_vector(py: Python<'_>, x: &Bound<'_, PyAny>, n: usize) -> PyResult<Py<PyAny>> {
    rep_vector(py, x, n)
}

/// `sub_col(m, i, j, nrows)`: the nrows elements of column j of a 2-D array from row i on
/// (0-based, unlike Stan): m[i:i + nrows, j], as a 1-D array.
#[pyfunction]
fn sub_col(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    i: usize,
    j: usize,
    nrows: usize,
) -> PyResult<Py<PyAny>> {
    const F: &str = "sub_col";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), move |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::sub_col(x, i, j, nrows));
        Ok(Res::V(finish(r.map_err(to_py)?, d)))
    })
}

/// `sub_row(m, i, j, ncols)`: the ncols elements of row i of a 2-D array from column j on
/// (0-based, unlike Stan): m[i, j:j + ncols], as a 1-D array.
#[pyfunction]
fn sub_row(
    py: Python<'_>,
    m: &Bound<'_, PyAny>,
    i: usize,
    j: usize,
    ncols: usize,
) -> PyResult<Py<PyAny>> {
    const F: &str = "sub_row";
    replay(py, F, || Ok(vec![matrix_arg(m, F, "m")?.into()]), move |x| {
        let (r, d) = arr1!(x[0].matrix(), |x| matrix::sub_row(x, i, j, ncols));
        Ok(Res::V(from_row(finish(r.map_err(to_py)?, d))))
    })
}

/// `sort_indices_asc(v)`: the indices (0-based, unlike Stan) that sort a 1-D array ascending;
/// ties keep their order.
#[pyfunction]
fn sort_indices_asc(v: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    Ok(match vector_arg(v, "sort_indices_asc", "v")? {
        Arr::V(x) => matrix::sort_indices_asc(&x),
        Arr::D(x) => matrix::sort_indices_asc(&x),
    })
}

/// `sort_indices_desc(v)`: the indices (0-based) that sort a 1-D array descending; ties keep
/// their order.
#[pyfunction]
fn sort_indices_desc(v: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    Ok(match vector_arg(v, "sort_indices_desc", "v")? {
        Arr::V(x) => matrix::sort_indices_desc(&x),
        Arr::D(x) => matrix::sort_indices_desc(&x),
    })
}

/// `rank(v, s)`: the number of elements of a 1-D array less than v[s] (s 0-based).
#[pyfunction]
fn rank(v: &Bound<'_, PyAny>, s: usize) -> PyResult<usize> {
    match vector_arg(v, "rank", "v")? {
        Arr::V(x) => matrix::rank(&x, s),
        Arr::D(x) => matrix::rank(&x, s),
    }
    .map_err(to_py)
}

/// The NumPy shape of an argument: a float or scalar Var has `[]`.
fn shape_of(x: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Vec<usize>> {
    match try_x(x, function)? {
        Some(X::S(_)) => Ok(vec![]),
        Some(X::A(a)) => Ok(a.shape()),
        None => Ok(array_arg(x, function, "x")?.shape()),
    }
}

/// `dims(x)`: the dimensions, as Stan gives them: `[]` for a scalar, `[n]` for a 1-D array,
/// `[rows, cols]` for a 2-D one.
#[pyfunction]
fn dims(x: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    shape_of(x, "dims")
}

/// `num_elements(x)`: the number of elements of an array (1 for a scalar).
#[pyfunction]
fn num_elements(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(shape_of(x, "num_elements")?.iter().product())
}

/// `rows(x)`: the number of rows: n for a 1-D array (a column vector), r for an r × c one.
#[pyfunction]
fn rows(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(array_arg(x, "rows", "x")?.shape()[0])
}

/// `cols(x)`: the number of columns: 1 for a 1-D array (a column vector), c for an r × c one.
#[pyfunction]
fn cols(x: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(*array_arg(x, "cols", "x")?.shape().get(1).unwrap_or(&1))
}

family! {
    functions: [
        mean,
        dot_self,
        variance,
        sd,
        prod,
        softmax,
        log_softmax,
        cumulative_sum,
        dot_product,
        squared_distance,
        distance,
        multiply,
        elt_multiply,
        elt_divide,
        transpose,
        crossprod,
        tcrossprod,
        diagonal,
        diag_matrix,
        head,
        tail,
        segment,
        block,
        row,
        col,
        to_vector,
        rows_dot_self,
        columns_dot_self,
        rep_vector,
        rep_matrix,
        sort_asc,
        sort_desc,
        quad_form,
        quad_form_sym,
        quad_form_diag,
        diag_pre_multiply,
        diag_post_multiply,
        add,
        subtract,
        divide,
        columns_dot_product,
        rows_dot_product,
        multiply_lower_tri_self_transpose,
        max,
        min,
        append_col,
        append_row,
        to_matrix,
        to_row_vector,
        to_array_1d,
        rep_row_vector,
        sub_col,
        sub_row,
        sort_indices_asc,
        sort_indices_desc,
        rank,
        dims,
        num_elements,
        rows,
        cols,
    ],
}
