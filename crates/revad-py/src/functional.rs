//! `gradient`, `jacobian`, the `Tape` context manager, `reset` and `tape_stats`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use revad::{tape, Matrix, Var, Vector};

use crate::array::{Arr, Ax, X};
use crate::errors::{self, to_py};
use crate::var::{thread_id, try_arg, Arg, PyVar};

/// The point `x` of a functional: one float, a sequence of floats (`f` gets a list of scalar
/// Vars), or a 1-D or 2-D NumPy array (`f` gets one array Var).
enum Point {
    Scalar(f64),
    Vector(Vec<f64>),
    Array1(Vec<f64>),
    Array2(usize, usize, Vec<f64>),
}

impl Point {
    fn read(x: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Point> {
        let type_error = || {
            let ty = x
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!(
                "{function}: x must be a float or a 1-D sequence of floats, not {ty}"
            ))
        };
        if x.is_instance_of::<PyString>()
            || x.is_instance_of::<PyBytes>()
            || x.cast::<PyVar>().is_ok()
        {
            return Err(type_error());
        }
        if x.cast::<numpy::PyUntypedArray>().is_ok() {
            return match crate::array::read_ndarray(x, function)? {
                Some(X::A(Ax::V(Arr::D(v)))) => Ok(Point::Array1(v.to_vec())),
                Some(X::A(Ax::M(Arr::D(m)))) => {
                    let (r, c) = m.dim();
                    Ok(Point::Array2(r, c, m.iter().copied().collect()))
                }
                Some(X::S(Arg::F(x))) => Ok(Point::Scalar(x)),
                _ => Err(type_error()),
            };
        }
        if x.hasattr("__len__")? {
            return x
                .extract::<Vec<f64>>()
                .map(Point::Vector)
                .map_err(|_| type_error());
        }
        x.extract::<f64>()
            .map(Point::Scalar)
            .map_err(|_| type_error())
    }

    fn values(&self) -> &[f64] {
        match self {
            Point::Scalar(x) => std::slice::from_ref(x),
            Point::Vector(v) | Point::Array1(v) | Point::Array2(_, _, v) => v,
        }
    }

    /// The input variables and the object `f` receives.
    fn make<'py>(&self, py: Python<'py>) -> PyResult<(Inputs, Bound<'py, PyAny>)> {
        match self {
            Point::Array1(v) => {
                let a = Var::array(Vector::from(v.clone()));
                let obj = Bound::new(py, PyVar::wrap_vector(&a))?.into_any();
                Ok((Inputs::Vector(a), obj))
            }
            Point::Array2(r, c, v) => {
                let m = Matrix::from_shape_vec((*r, *c), v.clone()).expect("shape");
                let a = Var::array(m);
                let obj = Bound::new(py, PyVar::wrap_matrix(&a))?.into_any();
                Ok((Inputs::Matrix(a), obj))
            }
            _ => {
                let vars: Vec<Var> = self.values().iter().map(|&x| Var::new(x)).collect();
                let inputs = self.inputs(py, &vars)?;
                Ok((Inputs::Scalars(vars), inputs))
            }
        }
    }

    /// The input variables as `f` receives them: a Var, or a list of scalar Vars.
    fn inputs<'py>(&self, py: Python<'py>, vars: &[Var]) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Point::Scalar(_) => Ok(Bound::new(py, PyVar::wrap(vars[0]))?.into_any()),
            _ => {
                let items = vars
                    .iter()
                    .map(|&v| Bound::new(py, PyVar::wrap(v)))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, items)?.into_any())
            }
        }
    }
}

/// The input variables of a functional: scalar Vars, or one array Var (whose adjoints are
/// read as one run).
enum Inputs {
    Scalars(Vec<Var>),
    Vector(Var<Vector>),
    Matrix(Var<Matrix>),
}

impl Inputs {
    fn len(&self) -> usize {
        match self {
            Inputs::Scalars(v) => v.len(),
            Inputs::Vector(v) => v.len(),
            Inputs::Matrix(m) => m.len(),
        }
    }

    /// Copies the adjoints into `g` (row-major for a matrix).
    fn adjoints_into(&self, g: &mut [f64]) -> PyResult<()> {
        match self {
            Inputs::Scalars(vars) => {
                for (gi, x) in g.iter_mut().zip(vars) {
                    *gi = x.try_adj().map_err(to_py)?;
                }
            }
            Inputs::Vector(v) => {
                let a = v.try_adj().map_err(to_py)?;
                g.copy_from_slice(revad::Storage::as_slice(&a));
            }
            Inputs::Matrix(m) => {
                let a = m.try_adj().map_err(to_py)?;
                g.copy_from_slice(revad::Storage::as_slice(&a));
            }
        }
        Ok(())
    }
}

/// Sweeps from `y` (a Var or a float returned by `f`) and writes the inputs' adjoints into `g`;
/// returns the value.
fn sweep(
    y: &Bound<'_, PyAny>,
    inputs: &Inputs,
    g: &mut [f64],
    function: &'static str,
) -> PyResult<f64> {
    match try_arg(y, function)? {
        Some(Arg::V(v)) => {
            v.try_grad().map_err(to_py)?;
            inputs.adjoints_into(g)?;
            Ok(v.value())
        }
        Some(Arg::F(c)) => {
            g.fill(0.0);
            Ok(c)
        }
        None => {
            let ty = y
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            Err(PyTypeError::new_err(format!(
                "{function}: f must return a float or a revad.Var, not {ty}"
            )))
        }
    }
}

/// The value and gradient of ``f`` at ``x``.
///
/// ``x`` is a float (``f`` receives a Var, the gradient is a float), a sequence of floats
/// (``f`` receives a list of scalar Vars, the gradient is a 1-D float64 array) or a 1-D or 2-D
/// NumPy array (``f`` receives one array Var, which also indexes and iterates like a sequence;
/// the gradient is a float64 array of the same shape). ``f`` runs in its own tape scope,
/// recovered afterwards; an exception raised by ``f`` propagates unchanged.
///
/// >>> import revad
/// >>> revad.gradient(lambda v: v[0] * revad.log(v[1]), [2.0, 4.0])[1]
/// array([1.38629436, 0.5       ])
#[pyfunction]
pub fn gradient<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    x: &Bound<'py, PyAny>,
) -> PyResult<(f64, Bound<'py, PyAny>)> {
    let point = Point::read(x, "gradient")?;
    let _scope = tape::nested();
    let (vars, inputs) = point.make(py)?;
    let y = f.call1((inputs,))?;
    let mut g = vec![0.0; vars.len()];
    let value = sweep(&y, &vars, &mut g, "gradient")?;
    let grad = match point {
        Point::Scalar(_) => g[0].into_pyobject(py)?.into_any(),
        Point::Vector(_) | Point::Array1(_) => PyArray1::from_vec(py, g).into_any(),
        Point::Array2(r, c, _) => PyArray1::from_vec(py, g).reshape([r, c])?.into_any(),
    };
    Ok((value, grad))
}

/// The values of ``f`` at ``x`` and its Jacobian ``J[i, j] = ∂fᵢ/∂xⱼ``.
///
/// ``f`` returns a sequence of Vars or floats (a 1-D array Var is one). Reverse-pass
/// continuations run once, so ``f`` is called once per output. ``x`` is passed as by
/// ``gradient``. For a float ``x`` the Jacobian is a vector of length m; for a 2-D NumPy ``x``
/// its columns follow the elements of ``x`` in row-major order.
///
/// >>> import revad
/// >>> revad.jacobian(lambda v: [v[0] * v[1], v[0] + 3 * v[1]], [2.0, 5.0])[1]
/// array([[5., 2.],
///        [1., 3.]])
#[pyfunction]
pub fn jacobian<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    x: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let point = Point::read(x, "jacobian")?;
    let n = point.values().len();
    let mut values: Vec<f64> = Vec::new();
    let mut rows: Vec<f64> = Vec::new();
    let mut i = 0;
    loop {
        let _scope = tape::nested();
        let (vars, inputs) = point.make(py)?;
        let ys = f.call1((inputs,))?;
        if ys.is_instance_of::<PyString>() || !ys.hasattr("__len__")? {
            let ty = ys
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            return Err(PyTypeError::new_err(format!(
                "jacobian: f must return a sequence of floats or revad.Vars, not {ty}"
            )));
        }
        let ys: Vec<Bound<'py, PyAny>> = ys.try_iter()?.collect::<PyResult<_>>()?;
        if i == 0 {
            values = ys
                .iter()
                .map(|y| match try_arg(y, "jacobian")? {
                    Some(a) => Ok(a.value()),
                    None => Err(PyTypeError::new_err(
                        "jacobian: f must return a sequence of floats or revad.Vars",
                    )),
                })
                .collect::<PyResult<_>>()?;
            rows = vec![0.0; values.len() * n];
        } else if ys.len() != values.len() {
            return Err(to_py(revad::Error::Size {
                function: "jacobian",
                what: "the output of f",
                expected: values.len(),
                found: ys.len(),
            }));
        }
        let Some(yi) = ys.get(i) else { break };
        sweep(yi, &vars, &mut rows[i * n..(i + 1) * n], "jacobian")?;
        i += 1;
        if i == values.len() {
            break;
        }
    }
    let m = values.len();
    let values_array = PyArray1::from_vec(py, values).into_any();
    let jac = match point {
        Point::Scalar(_) => PyArray1::from_vec(py, rows).into_any(),
        _ => PyArray2::from_vec2(
            py,
            &rows
                .chunks(n.max(1))
                .map(|r| r.to_vec())
                .collect::<Vec<_>>(),
        )
        .map(|a| a.into_any())
        .or_else(|_| {
            PyArray1::from_vec(py, rows)
                .reshape([m, n])
                .map(|a| a.into_any())
        })?,
    };
    Ok((values_array, jac))
}

thread_local! {
    /// The nested scopes opened by `with revad.Tape():` on this thread, with their depths.
    static SCOPES: RefCell<Vec<(usize, tape::NestedScope)>> = const { RefCell::new(Vec::new()) };
}

/// A tape scope as a context manager: ``with revad.Tape():`` records into a fresh nested
/// scope, and leaving the block ends it (every Var made inside becomes stale). Blocks nest.
///
/// >>> import revad
/// >>> with revad.Tape():
/// ...     mu, sigma = revad.Var(0.5), revad.Var(1.2)
/// ...     z = (1.3 - mu) / sigma
/// ...     lp = -0.5 * z * z - revad.log(sigma)
/// ...     lp.grad()
/// ...     round(mu.adj, 6)
/// 0.555556
// Frozen, so that a `with` block takes no borrow flag (two atomic read-modify-writes): the open
// block's depth is an atomic, read and written (plain loads and stores) only on the thread that
// made the Tape.
#[pyclass(frozen, name = "Tape", module = "revad")]
pub struct PyTape {
    /// The depth of the scope the open block made (at least 2), or 0 when not open.
    depth: AtomicUsize,
    thread: u64,
}

#[pymethods]
impl PyTape {
    #[new]
    fn py_new() -> PyTape {
        PyTape {
            depth: AtomicUsize::new(0),
            thread: thread_id(),
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        let this = slf.get();
        if this.thread != thread_id() {
            return Err(errors::thread_error(
                "Tape: this Tape belongs to another thread; make one on this thread",
            ));
        }
        if this.depth.load(Ordering::Relaxed) != 0 {
            return Err(errors::tape_error("Tape: this Tape block is already open"));
        }
        let scope = tape::nested();
        let depth = tape::depth();
        SCOPES.with(|s| s.borrow_mut().push((depth, scope)));
        this.depth.store(depth, Ordering::Relaxed);
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        if self.thread != thread_id() {
            return Err(errors::thread_error(
                "Tape: this Tape belongs to another thread; end it on the thread that opened it",
            ));
        }
        let depth = self.depth.load(Ordering::Relaxed);
        if depth == 0 {
            return Err(errors::tape_error("Tape: this Tape block is not open"));
        }
        self.depth.store(0, Ordering::Relaxed);
        // Ends this scope and any inner one left open, innermost first (the stack's depths
        // increase), each guard dropped outside the borrow of the stack.
        while let Some((_, scope)) = SCOPES.with(|s| {
            let mut s = s.borrow_mut();
            match s.last() {
                Some((d, _)) if *d >= depth => s.pop(),
                _ => None,
            }
        }) {
            drop(scope);
        }
        Ok(false)
    }
}

/// Empties this thread's default tape: every Var made outside a ``Tape`` block becomes stale,
/// and the memory is kept for the next computation.
#[pyfunction]
pub fn reset() -> PyResult<()> {
    if SCOPES.with(|s| !s.borrow().is_empty()) || tape::depth() > 1 {
        return Err(errors::tape_error(
            "reset: a revad.Tape block is still open; reset() ends the default tape, leave the \
             block first",
        ));
    }
    tape::try_reset().map_err(to_py)
}

/// Memory statistics of this thread's tape: bytes_reserved, bytes_used, continuations,
/// variables, depth.
#[pyfunction]
pub fn tape_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let s = tape::stats();
    let d = PyDict::new(py);
    d.set_item("bytes_reserved", s.bytes_reserved)?;
    d.set_item("bytes_used", s.bytes_used)?;
    d.set_item("continuations", s.continuations)?;
    d.set_item("variables", s.variables)?;
    d.set_item("depth", s.depth)?;
    Ok(d)
}
