//! The `revad.Var` class: its constructor, properties and Python methods (what a handle holds
//! is in `handle.rs`).
//!
//! The arithmetic operators are one table (`operators!` below): each row names an operator and
//! its reflected form, and both call [`operator`], which takes a scalar pair on a fast path and
//! everything else (arrays, NumPy operands, broadcasting) through `ops`.

use std::sync::Arc;

use numpy::PyArrayMethods;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple};
use revad::matrix::Reduction;
use revad::Var;
use revad::program::scalar::Instr;

use crate::args::{shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{adj_array, arg, read_ndarray, try_x, x_arg};
use crate::errors;
use crate::family::family;
use crate::handle::{read, write, PyVar, Val};
use crate::index;
use crate::record::{self, Form, Sc};
use crate::ops::{elementwise, matmul_form, matmul_x, same_shape, Op};
use crate::shape;

/// What a binary operator does with its two operands.
#[derive(Clone, Copy)]
enum Binary {
    /// Elementwise, with NumPy's broadcasting.
    Elementwise(Op),
    /// `@`, with NumPy's rules for 1-D and 2-D operands.
    MatMul,
}

/// A binary operator's result (`other op this` when `reflected`), or `NotImplemented` when the
/// other operand is not a number, a Var, a NumPy array or a `revad.Data`.
fn operator(
    py: Python<'_>,
    this: &PyVar,
    other: &Bound<'_, PyAny>,
    function: &'static str,
    reflected: bool,
    how: Binary,
) -> PyResult<Py<PyAny>> {
    let Some((a, b)) = record::declared(|| operands(this, other, function, reflected, how))?
    else {
        return Ok(py.NotImplemented());
    };
    let same = same_shape(&a, &b);
    let args = [a, b];
    match how {
        Binary::Elementwise(op) => record::apply_form(
            function,
            &args,
            move |x| match x {
                // Scalar op scalar (a float or a scalar Var), the common case, without the
                // array machinery.
                [X::S(a), X::S(b)] => Ok(Res::S(op.scalar(*a, *b))),
                [a, b] => elementwise(op, (*a).clone(), (*b).clone()),
                _ => unreachable!("two operands"),
            },
            |x| op.form(&x[0], &x[1], same),
        ),
        Binary::MatMul => {
            let matrix_vector = matches!(&args, [X::A(Ax::M(_)), X::A(Ax::V(_))]);
            record::apply_form(
                function,
                &args,
                |x| matmul_x(x[0].clone(), x[1].clone()),
                move |x| matmul_form(matrix_vector, &x[0], &x[1]),
            )
        }
    }?
    .into_py(py)
}

/// The operands of a binary operator, in order (`other`, `this` when `reflected`), or `None`
/// when the other operand is not a number, a Var, a NumPy array or a `revad.Data`.
fn operands(
    this: &PyVar,
    other: &Bound<'_, PyAny>,
    function: &'static str,
    reflected: bool,
    how: Binary,
) -> PyResult<Option<(X, X)>> {
    let a = this.x(function)?;
    let mut b = None;
    if let (Binary::Elementwise(_), X::S(_)) = (how, &a) {
        if let Ok(o) = other.cast::<PyVar>() {
            let o = o.get();
            if let Val::S(value) = o.val {
                o.check_thread(function)?;
                b = Some(X::S(Arg::V(o.live_scalar(value, function)?)));
            }
        } else if let Ok(x) = other.cast::<PyFloat>() {
            b = Some(X::S(Arg::F(x.value())));
        }
    }
    let b = match b {
        Some(b) => b,
        None => match try_x(other, function)? {
            Some(b) => b,
            None => return Ok(None),
        },
    };
    Ok(Some(if reflected { (b, a) } else { (a, b) }))
}

/// `#[pymethods] impl PyVar` with the methods given after the table, plus two methods per row of
/// the table: `fn op(self, other)` and `fn rop(self, other)` (`other op self`), both through
/// [`operator`]. A row ending in `, modulo` takes the third argument of `pow(a, b, m)`, which
/// only `None` may fill (`NotImplemented` otherwise, as for floats).
macro_rules! operators {
    (
        [$($op:ident, $rop:ident => $how:expr $(, $modulo:ident)?;)*]
        $($methods:tt)*
    ) => {
        #[pymethods]
        impl PyVar {
            $($methods)*

            $(
                fn $op(
                    &self,
                    py: Python<'_>,
                    other: &Bound<'_, PyAny>,
                    $($modulo: Option<&Bound<'_, PyAny>>,)?
                ) -> PyResult<Py<PyAny>> {
                    $(if $modulo.is_some_and(|m| !m.is_none()) {
                        return Ok(py.NotImplemented());
                    })?
                    operator(py, self, other, stringify!($op), false, $how)
                }

                fn $rop(
                    &self,
                    py: Python<'_>,
                    other: &Bound<'_, PyAny>,
                    $($modulo: Option<&Bound<'_, PyAny>>,)?
                ) -> PyResult<Py<PyAny>> {
                    $(if $modulo.is_some_and(|m| !m.is_none()) {
                        return Ok(py.NotImplemented());
                    })?
                    operator(py, self, other, stringify!($rop), true, $how)
                }
            )*
        }
    };
}

operators! {
    [
        __add__, __radd__ => Binary::Elementwise(Op::Add);
        __sub__, __rsub__ => Binary::Elementwise(Op::Sub);
        __mul__, __rmul__ => Binary::Elementwise(Op::Mul);
        __truediv__, __rtruediv__ => Binary::Elementwise(Op::Div);
        __pow__, __rpow__ => Binary::Elementwise(Op::Pow), modulo;
        __matmul__, __rmatmul__ => Binary::MatMul;
    ]

    #[new]
    fn py_new(value: &Bound<'_, PyAny>) -> PyResult<PyVar> {
        // The common cases first: a float, a NumPy array, a Var.
        if let Ok(x) = value.cast::<PyFloat>() {
            return Ok(PyVar::wrap(Var::new(x.value())));
        }
        if let Some(a) = read_ndarray(value, "Var")? {
            return Ok(match a {
                X::S(Arg::F(x)) => PyVar::wrap(Var::new(x)),
                X::A(Ax::V(Arr::D(d))) => PyVar::wrap_vector(&Var::array(d)),
                X::A(Ax::M(Arr::D(d))) => PyVar::wrap_matrix(&Var::array(d)),
                _ => unreachable!("a NumPy array is data"),
            });
        }
        if let Ok(v) = value.cast::<PyVar>() {
            return Ok(match v.get().x("Var")? {
                X::S(Arg::V(v)) => PyVar::wrap(v),
                X::A(Ax::V(Arr::V(v))) => PyVar::wrap_vector(&v),
                X::A(Ax::M(Arr::V(v))) => PyVar::wrap_matrix(&v),
                _ => unreachable!("a Var is a variable"),
            });
        }
        match arg(value, "Var", "value")? {
            Arg::F(x) => Ok(PyVar::wrap(Var::new(x))),
            Arg::V(v) => Ok(PyVar::wrap(v)),
        }
    }

    /// NumPy's ufunc protocol: ``np.exp(v)``, ``np.add(a, v)``, ``a + v`` for a NumPy ``a``,
    /// ``np.maximum(v, 0)``, ``np.add.reduce(v, axis=0)``, ... compute with revad's functions
    /// and return Vars (one node each); comparisons and predicates (``np.less``,
    /// ``np.isnan``) give NumPy arrays of the values'. A ufunc revad has no counterpart for
    /// raises ``TypeError`` naming what to use (see ``revad._numpy``).
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__(
        &self,
        py: Python<'_>,
        ufunc: &Bound<'_, PyAny>,
        method: &str,
        inputs: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        // Arithmetic, the common case, without Python: `array op Var` lands here.
        if method == "__call__" && inputs.len() == 2 && kwargs.is_none_or(|k| k.is_empty()) {
            let op = match ufunc.getattr("__name__")?.extract::<String>()?.as_str() {
                "add" => Some(Op::Add),
                "subtract" => Some(Op::Sub),
                "multiply" => Some(Op::Mul),
                "divide" | "true_divide" => Some(Op::Div),
                "power" => Some(Op::Pow),
                _ => None,
            };
            if let Some(op) = op {
                const F: &str = "__array_ufunc__";
                let (a, b) = record::declared(|| -> PyResult<_> {
                    Ok((try_x(&inputs.get_item(0)?, F)?, try_x(&inputs.get_item(1)?, F)?))
                })?;
                if let (Some(a), Some(b)) = (a, b) {
                    let same = same_shape(&a, &b);
                    return record::apply_form(
                        F,
                        &[a, b],
                        move |x| elementwise(op, x[0].clone(), x[1].clone()),
                        |x| op.form(&x[0], &x[1], same),
                    )?
                    .into_py(py);
                }
            }
        }
        let kwargs = match kwargs {
            Some(k) => k.clone(),
            None => PyDict::new(py),
        };
        Ok(py
            .import("revad._numpy")?
            .getattr("array_ufunc")?
            .call1((ufunc, method, inputs, kwargs))?
            .unbind())
    }

    /// NumPy's function protocol: ``np.sum(v, axis=0)``, ``np.reshape(v, (2, -1))``,
    /// ``np.concatenate([v, w])``, ``np.where(c, v, 0.0)``, ``np.linalg.det(m)``, ... call
    /// revad's functions and return Vars (one node each); a NumPy function revad has no
    /// counterpart for raises ``TypeError`` naming what to use (see ``revad._numpy``).
    fn __array_function__(
        &self,
        py: Python<'_>,
        func: &Bound<'_, PyAny>,
        types: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        kwargs: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        Ok(py
            .import("revad._numpy")?
            .getattr("array_function")?
            .call1((func, types, args, kwargs))?
            .unbind())
    }

    /// ``np.asarray(v)``: an array Var refuses (``TypeError``), because the NumPy array would
    /// drop its gradient; use ``v.value`` for the values, or NumPy's functions on the Var
    /// itself (they dispatch to revad). A scalar Var gives a 0-d object array holding the Var,
    /// so that ``np.array([x, y])`` of scalar Vars stays an array of Vars.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        if this.is_array() {
            return Err(PyTypeError::new_err(format!(
                "np.asarray() of an array revad.Var of shape {} would drop its gradient; use \
                 .value for a NumPy array of the values (no gradient), or call NumPy's \
                 functions on the Var itself (np.exp(v), np.sum(v, axis=0), np.stack([v, w]), \
                 ... dispatch to revad and keep the gradient)",
                shape_str(&this.shape_vec())
            )));
        }
        let _ = copy;
        let np = py.import("numpy")?;
        let a = np.call_method1("empty", ((), "object"))?;
        a.set_item((), slf)?;
        match dtype.filter(|d| !d.is_none()) {
            Some(t) => a.call_method1("astype", (t,)),
            None => Ok(a),
        }
    }

    /// The value, with the float-leak warning ``RevadWarning`` while a gradient is being
    /// recorded (inside ``revad.gradient``, ``value_and_grad``, ``jacobian`` or a ``Tape``
    /// block, before ``grad()``): the number no longer depends on anything. ``v.value`` reads
    /// it without a warning.
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        match self.val {
            Val::S(x) => self.leak_value(py, x, "float()"),
            _ => Err(PyTypeError::new_err(format!(
                "only a scalar revad.Var converts to float, not one of shape {}",
                shape_str(&self.shape_vec())
            ))),
        }
    }

    /// ``int(v)``: the value truncated, with the float-leak warning as ``float(v)``.
    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.val {
            Val::S(x) => {
                let x = self.leak_value(py, x, "int()")?;
                PyFloat::new(py, x).call_method0("__int__")
            }
            _ => Err(PyTypeError::new_err(format!(
                "only a scalar revad.Var converts to int, not one of shape {}",
                shape_str(&self.shape_vec())
            ))),
        }
    }

    /// ``v.item()``: the value of a scalar Var or of a one-element array Var as a float;
    /// ``v.item(k)``: element ``k`` (row-major). With the float-leak warning as ``float(v)``.
    #[pyo3(signature = (*args))]
    fn item(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<f64> {
        let x = match (self.x("item")?, args.len()) {
            (X::S(a), 0) => a.value(),
            (X::A(a), 0) => {
                let n: usize = a.shape().iter().product();
                if n != 1 {
                    return Err(PyValueError::new_err(
                        "can only convert an array of size 1 to a Python scalar",
                    ));
                }
                first_value(&a)
            }
            (X::A(a), 1) => {
                let n: usize = a.shape().iter().product();
                let k: isize = args.get_item(0)?.extract()?;
                let j = if k < 0 { k + n as isize } else { k };
                if j < 0 || j as usize >= n {
                    return Err(PyIndexError::new_err(format!(
                        "index {k} is out of bounds for size {n}"
                    )));
                }
                nth_value(&a, j as usize)
            }
            _ => {
                return Err(PyValueError::new_err(
                    "item: takes no index for a scalar Var, one flat index for an array Var",
                ))
            }
        };
        self.leak_value(py, x, ".item()")
    }

    /// ``v.sum(axis=None, keepdims=False)``: NumPy's sum, over every axis or those named (an
    /// int or a tuple), as one node.
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn sum(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce_method(slf, Reduction::Sum, axis, keepdims, "sum")
    }

    /// ``v.mean(axis=None, keepdims=False)``: NumPy's mean, as one node.
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn mean(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce_method(slf, Reduction::Mean, axis, keepdims, "mean")
    }

    /// ``v.prod(axis=None, keepdims=False)``: NumPy's product, as one node.
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn prod(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce_method(slf, Reduction::Prod, axis, keepdims, "prod")
    }

    /// ``v.max(axis=None, keepdims=False)``: NumPy's maximum over axes, as one node (ties
    /// share the adjoint equally).
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn max(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce_method(slf, Reduction::Max, axis, keepdims, "max")
    }

    /// ``v.min(axis=None, keepdims=False)``: NumPy's minimum over axes, as one node.
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn min(
        slf: &Bound<'_, Self>,
        axis: Option<&Bound<'_, PyAny>>,
        keepdims: bool,
    ) -> PyResult<Py<PyAny>> {
        reduce_method(slf, Reduction::Min, axis, keepdims, "min")
    }

    /// ``v.reshape(2, 3)``, ``v.reshape((2, -1))``: the elements in C (row-major) order in a
    /// new shape of at most 2 dimensions (one ``-1`` is inferred), as one node whose result has
    /// its own adjoints (assigning into it leaves ``v`` as it was).
    #[pyo3(signature = (*shape, order="C"))]
    fn reshape(&self, py: Python<'_>, shape: &Bound<'_, PyTuple>, order: &str) -> PyResult<Py<PyAny>> {
        c_order("reshape", order)?;
        let shape: Vec<isize> = match shape.len() {
            1 if !shape.get_item(0)?.is_instance_of::<PyInt>() => shape.get_item(0)?.extract()?,
            _ => shape.extract()?,
        };
        self.method(py, "reshape", move |x| shape::reshape(x[0].clone(), &shape))
    }

    /// ``v.ravel()``: the elements in C (row-major) order as a 1-D Var (one node).
    #[pyo3(signature = (order="C"))]
    fn ravel(&self, py: Python<'_>, order: &str) -> PyResult<Py<PyAny>> {
        c_order("ravel", order)?;
        self.method(py, "ravel", |x| shape::reshape(x[0].clone(), &[-1]))
    }

    /// ``v.flatten()``: as ``v.ravel()``.
    #[pyo3(signature = (order="C"))]
    fn flatten(&self, py: Python<'_>, order: &str) -> PyResult<Py<PyAny>> {
        c_order("flatten", order)?;
        self.method(py, "flatten", |x| shape::reshape(x[0].clone(), &[-1]))
    }

    /// ``v.squeeze(axis=None)``: the axes of length 1 (or those named) removed (one node).
    #[pyo3(signature = (axis=None))]
    fn squeeze(&self, py: Python<'_>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let axes = shape::read_axes(axis, self.shape_vec().len(), "squeeze")?;
        self.method(py, "squeeze", move |x| shape::squeeze(x[0].clone(), axes.clone()))
    }

    /// ``v.transpose()``: as ``v.T``.
    #[pyo3(signature = (*axes))]
    fn transpose<'py>(
        slf: Bound<'py, Self>,
        axes: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ndim = slf.get().shape_vec().len();
        let axes: Vec<isize> = match axes.len() {
            1 if !axes.get_item(0)?.is_none() => axes.get_item(0)?.extract()?,
            _ if axes.is_empty() || axes.get_item(0)?.is_none() => Vec::new(),
            _ => axes.extract()?,
        };
        if !axes.is_empty() {
            let norm: Vec<usize> = axes
                .iter()
                .map(|&a| shape::axis_index(slf.py(), a, ndim))
                .collect::<PyResult<_>>()?;
            let mut sorted = norm.clone();
            sorted.sort_unstable();
            if sorted != (0..ndim).collect::<Vec<_>>() {
                return Err(PyValueError::new_err("axes don't match array"));
            }
            if norm.windows(2).all(|w| w[0] < w[1]) {
                return Ok(slf.into_any());
            }
        }
        PyVar::transposed(slf)
    }

    /// ``v.dot(w)``: as ``v @ w``.
    fn dot(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let (a, b) = record::declared(|| -> PyResult<(X, X)> {
            Ok((self.x("dot")?, x_arg(other, "dot", "other")?))
        })?;
        record::apply("dot", &[a, b], |x| matmul_x(x[0].clone(), x[1].clone()))?.into_py(py)
    }

    /// The value: a float, or a new float64 NumPy array for an array Var.
    #[getter]
    fn value(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.value_obj(py)
    }

    /// The adjoint: ∂(the Var ``grad()`` was called on)/∂(this Var); a float64 NumPy array
    /// shaped like the value for an array Var.
    #[getter]
    fn adj(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self.x("adj")? {
            X::S(Arg::V(v)) => v
                .try_adj()
                .map_err(errors::to_py)?
                .into_pyobject(py)?
                .into_any()
                .unbind(),
            X::A(Ax::V(Arr::V(v))) => adj_array(py, v.try_adj().map_err(errors::to_py)?),
            X::A(Ax::M(Arr::V(v))) => adj_array(py, v.try_adj().map_err(errors::to_py)?),
            _ => unreachable!("a Var is a variable"),
        })
    }

    /// The shape, as NumPy gives it: ``()``, ``(n,)`` or ``(rows, cols)``.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.shape_vec())
    }

    /// The number of dimensions: 0, 1 or 2.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape_vec().len()
    }

    /// The number of elements (1 for a scalar).
    #[getter]
    fn size(&self) -> usize {
        self.shape_vec().iter().product()
    }

    /// The transpose: a matrix's transpose (one node); a 1-D array or a scalar itself.
    #[getter(T)]
    fn transposed(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let py = slf.py();
        match record::declared(|| slf.get().x("T"))? {
            m @ X::A(Ax::M(Arr::V(_))) => Ok(record::apply("T", &[m], |x| match &x[0] {
                X::A(Ax::M(Arr::V(m))) => Ok(Res::M(Arr::V(revad::matrix::transpose(m)))),
                _ => unreachable!("a matrix Var"),
            })?
            .into_py(py)?
            .into_bound(py)),
            _ => Ok(slf.into_any()),
        }
    }

    /// Vars compare by value, so they are not hashable (like NumPy arrays).
    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("unhashable type: 'revad.Var'"))
    }

    /// Computes the gradient of this Var: afterwards every input's ``.adj`` holds ∂self/∂input.
    /// A tape scope is swept once; ``revad.reset()`` or a new ``revad.Tape()`` starts over.
    fn grad(&self) -> PyResult<()> {
        if self.is_array() {
            return Err(PyTypeError::new_err(format!(
                "grad: needs a scalar Var, not an array Var of shape {}; reduce it first, \
                 e.g. y.sum().grad()",
                shape_str(&self.shape_vec())
            )));
        }
        self.var("grad")?.try_grad().map_err(errors::to_py)
    }

    fn __bool__(&self) -> PyResult<bool> {
        match self.val {
            Val::S(x) => {
                // A branch on the value: a guard while recording.
                let seen = x != 0.0;
                if record::recording() {
                    let v = record::declared(|| self.x("__bool__"))?;
                    record::guard(
                        &[v],
                        Arc::new(move |a: &[&X]| match &a[0] {
                            X::S(v) => (v.value() != 0.0) == seen,
                            _ => false,
                        }),
                    );
                }
                Ok(seen)
            }
            _ => Err(errors::size_error(
                "the truth value of an array revad.Var is ambiguous; compare its .value",
            )),
        }
    }

    fn __len__(&self) -> PyResult<usize> {
        match &self.val {
            Val::S(_) => Err(PyTypeError::new_err("len() of a scalar revad.Var")),
            Val::V(v) => Ok(read(v).len()),
            Val::M(m) => Ok(read(m).nrows()),
        }
    }

    /// ``v[i]`` (a scalar Var sharing the adjoint run), ``v[a:b]``, ``m[i]`` (a row),
    /// ``m[i, j]``, ``m[a:b, c:d]``.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let a = record::declared(|| self.x("__getitem__"))?;
        if !self.is_array() {
            return Err(PyTypeError::new_err(
                "a scalar revad.Var is not subscriptable",
            ));
        }
        // Shared with the recorded operation; the positions only while recording.
        let sel = Arc::new(index::select(key, &self.shape_vec())?);
        let taken = sel.clone();
        record::apply_form(
            "__getitem__",
            &[a],
            move |x| match &x[0] {
                X::A(Ax::V(Arr::V(v))) => index::take_selection(v, &taken),
                X::A(Ax::M(Arr::V(m))) => index::take_selection(m, &taken),
                _ => unreachable!("an array Var"),
            },
            |x| match (sel.element(), sel.positions()) {
                (Some(k), _) => x[0].element(k).map(Form::Alias),
                (None, Some(ps)) => ps
                    .iter()
                    .map(|&p| x[0].element(p))
                    .collect::<Option<Vec<u32>>>()
                    .map(Form::Copies),
                (None, None) => None,
            },
        )?
        .into_py(py)
    }

    /// Assignment in place: ``v[i] = x``, ``v[a:b] = w``, ``m[i, j] = x``, ``m[i] = row``,
    /// ``m[i, :] = row``, ``m[:, j] = col``, ``m[a:b, c:d] = block`` (steps allowed). The value
    /// is a float or scalar Var (written to every selected element), or an array Var, NumPy
    /// array or sequence of the selection's shape (or one that broadcasts to it, as in NumPy);
    /// otherwise ``ValueError``. The Var keeps its adjoint run (Stan Math's varmat design): the gradient flows
    /// to the assigned values, and the overwritten elements' ``.adj`` holds only what the
    /// operations before the assignment contributed. Results computed before, and other
    /// handles to the old value (``Var(v)``, slices), keep the old values.
    fn __setitem__(&self, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let shape = self.shape_vec();
        match (self.x("__setitem__")?, &self.val) {
            (X::A(Ax::V(Arr::V(mut v))), Val::V(l)) => {
                index::setitem(&mut v, &shape, key, value)?;
                write(l, v.value().clone());
            }
            (X::A(Ax::M(Arr::V(mut m))), Val::M(l)) => {
                index::setitem(&mut m, &shape, key, value)?;
                write(l, m.value().clone());
            }
            _ => {
                return Err(PyTypeError::new_err(
                    "a scalar revad.Var does not support item assignment",
                ))
            }
        }
        Ok(())
    }

    /// Iterates over the elements of a 1-D array Var (scalar Vars) or the rows of a 2-D one.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // Each element (or row) is one declared operation, so that a recording follows it.
        let a = record::declared(|| self.x("__iter__"))?;
        let items: Vec<Py<PyAny>> = match &a {
            X::A(Ax::V(Arr::V(v))) => (0..v.len())
                .map(|k| {
                    record::apply_form(
                        "__iter__",
                        std::slice::from_ref(&a),
                        move |x| match x[0] {
                            X::A(Ax::V(Arr::V(v))) => Ok(Res::S(Out::V(v.element(k)))),
                            _ => unreachable!("a vector Var"),
                        },
                        |x| x[0].element(k).map(Form::Alias),
                    )?
                    .into_py(py)
                })
                .collect::<PyResult<_>>()?,
            X::A(Ax::M(Arr::V(m))) => {
                let c = m.shape().1;
                (0..m.shape().0)
                    .map(|i| {
                        record::apply_form(
                            "__iter__",
                            std::slice::from_ref(&a),
                            move |x| match x[0] {
                                X::A(Ax::M(Arr::V(m))) => {
                                    let r = revad::matrix::row(m, i).map_err(errors::to_py)?;
                                    let (val, key) = r.to_array_bits();
                                    Ok(Res::V(Arr::V(Var::from_array_bits(val.0, key))))
                                }
                                _ => unreachable!("a matrix Var"),
                            },
                            |x| {
                                (i * c..(i + 1) * c)
                                    .map(|p| x[0].element(p))
                                    .collect::<Option<Vec<u32>>>()
                                    .map(Form::Copies)
                            },
                        )?
                        .into_py(py)
                    })
                    .collect::<PyResult<_>>()?
            }
            _ => return Err(PyTypeError::new_err("iteration over a scalar revad.Var")),
        };
        PyList::new(py, items)?
            .as_any()
            .try_iter()
            .map(|i| i.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match &self.val {
            Val::S(x) => format!("Var({})", float_repr(*x)),
            _ => format!("Var({})", self.value_obj(py)?.bind(py).repr()?),
        })
    }

    fn __neg__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let a = record::declared(|| self.x("__neg__"))?;
        record::apply_form(
            "__neg__",
            &[a],
            |x| match &x[0] {
                X::S(Arg::V(v)) => Ok(Res::S(Out::V(-*v))),
                a => elementwise(Op::Mul, (*a).clone(), X::S(Arg::F(-1.0))),
            },
            |x| match x[0] {
                Sc::Slot(a) => Some(Form::Instr(Instr::Neg(a))),
                _ => None,
            },
        )?
        .into_py(py)
    }
    fn __pos__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().x("__pos__")?;
        Ok(slf)
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let a = record::declared(|| self.x("__abs__"))?;
        record::apply("__abs__", &[a], |x| {
            Ok(match &x[0] {
                X::S(Arg::V(v)) => Res::S(Out::V(revad::abs(*v))),
                X::A(Ax::V(Arr::V(v))) => Res::V(Arr::V(revad::matrix::abs(v))),
                X::A(Ax::M(Arr::V(m))) => Res::M(Arr::V(revad::matrix::abs(m))),
                _ => unreachable!("a Var is a variable"),
            })
        })?
        .into_py(py)
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let cmp: fn(f64, f64) -> bool = match op {
            CompareOp::Lt => |a, b| a < b,
            CompareOp::Le => |a, b| a <= b,
            CompareOp::Eq => |a, b| a == b,
            CompareOp::Ne => |a, b| a != b,
            CompareOp::Gt => |a, b| a > b,
            CompareOp::Ge => |a, b| a >= b,
        };
        let Some((a, b)) = record::declared(|| -> PyResult<Option<(X, X)>> {
            let a = self.x("comparison")?;
            Ok(try_x(other, "comparison")?.map(|b| (a, b)))
        })?
        else {
            return Ok(py.NotImplemented());
        };
        // By value, elementwise with NumPy's broadcasting for arrays. While recording, the
        // outcome is a guard: a replay where it comes out differently records again.
        let Some((seen, shape)) = record::compare(&a, &b, cmp) else {
            return Err(errors::size_error(format!(
                "comparison: shapes {} and {} do not broadcast",
                shape_str(&crate::ops::shape_of(&a)),
                shape_str(&crate::ops::shape_of(&b))
            )));
        };
        let value: Py<PyAny> = if shape.is_empty() {
            PyBool::new(py, seen[0]).to_owned().into_any().unbind()
        } else {
            let flat = numpy::PyArray1::from_vec(py, seen.clone());
            flat.reshape(shape.clone())?.into_any().unbind()
        };
        if record::recording() {
            // Decided later: by Python (a guard) or by `where`/`if_else` (on each replay).
            let cond = record::PyCond::new(a, b, cmp, seen, shape, value);
            return Ok(Py::new(py, cond)?.into_any());
        }
        Ok(value)
    }
}

impl PyVar {
    /// A method of one operand (this Var), declared for replay: `f` of the checked handle.
    fn method<F: record::Operation>(
        &self,
        py: Python<'_>,
        function: &'static str,
        f: F,
    ) -> PyResult<Py<PyAny>> {
        let x = record::declared(|| self.x(function))?;
        record::apply(function, &[x], move |x| f(x))?.into_py(py)
    }
}

/// A reduction method (`sum`, `mean`, ...) with NumPy's `axis` and `keepdims`; a scalar Var
/// over every axis is itself.
fn reduce_method(
    slf: &Bound<'_, PyVar>,
    how: Reduction,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    function: &'static str,
) -> PyResult<Py<PyAny>> {
    let this = slf.get();
    let axes = shape::read_axes(axis, this.shape_vec().len(), function)?;
    let x = record::declared(|| this.x(function))?;
    if matches!(x, X::S(_)) {
        return Ok(slf.clone().into_any().unbind());
    }
    record::apply(function, &[x], move |x| {
        shape::reduce(how, x[0].clone(), axes.clone(), keepdims)
    })?
    .into_py(slf.py())
}

/// Only C (row-major) order: revad's arrays are row-major.
fn c_order(function: &str, order: &str) -> PyResult<()> {
    if order == "C" {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "{function}: revad reads and writes arrays in C (row-major) order only, not order={order:?}"
    )))
}

/// The first element of an array operand.
fn first_value(a: &Ax) -> f64 {
    nth_value(a, 0)
}

/// Element `k` (row-major) of an array operand.
fn nth_value(a: &Ax, k: usize) -> f64 {
    match a {
        Ax::V(v) => v.value()[k],
        Ax::M(m) => {
            let c = m.value().ncols();
            m.value()[(k / c, k % c)]
        }
    }
}

/// Python's `repr` of a float.
fn float_repr(x: f64) -> String {
    Python::attach(|py| {
        pyo3::types::PyFloat::new(py, x)
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| x.to_string())
    })
}

family! {
    classes: [PyVar],
}
