//! `gradient`, `jacobian`, the `Tape` context manager, `reset` and `tape_stats`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use revad::tape;

use crate::convert::{try_arg, type_name};
use crate::point::{sweep, value_and_gradients, Argnums, Inputs, Point};
use crate::errors::{self, to_py};
use crate::family::family;
use crate::handle::thread_id;

/// The value and gradient of ``f`` at ``x``.
///
/// ``x`` is a float (``f`` receives a Var, the gradient is a float), a sequence of floats
/// (``f`` receives a list of scalar Vars, the gradient is a 1-D float64 array) or a 1-D or 2-D
/// NumPy array (``f`` receives one array Var, which also indexes and iterates like a sequence;
/// the gradient is a float64 array of the same shape). ``f`` runs in its own tape scope,
/// recovered afterwards; an exception raised by ``f`` propagates unchanged.
///
/// ``f`` must return a Var: a plain number (``float``, NumPy scalar) raises ``TypeError``,
/// because it cannot depend on ``x`` (a Var turned into a number inside ``f`` drops out of the
/// gradient); with ``allow_constant=True`` it is accepted and the gradient is 0.
///
/// >>> import revad
/// >>> revad.gradient(lambda v: v[0] * revad.log(v[1]), [2.0, 4.0])[1]
/// array([1.38629436, 0.5       ])
#[pyfunction]
#[pyo3(signature = (f, x, *, allow_constant = false))]
fn gradient<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    x: &Bound<'py, PyAny>,
    allow_constant: bool,
) -> PyResult<(f64, Bound<'py, PyAny>)> {
    let point = Point::read(x, "gradient")?;
    let result = {
        let _scope = tape::nested();
        let made = point.make(py)?;
        let y = f.call1((made.1.clone(),))?;
        value_and_gradients(
            py,
            &y,
            std::slice::from_ref(&made),
            true,
            "gradient",
            allow_constant,
        )
    };
    // The scope is over and its handles dropped: the point's memory is free for the next call
    // unless `f` kept a Var of it.
    point.recycle();
    result
}

/// ``f`` with its value and gradient: what ``revad.value_and_grad(f, argnums)`` returns.
///
/// Calling it with ``f``'s arguments records ``f`` on a scope of its own, with each argument
/// named by ``argnums`` made a variable (a float → a scalar Var, a list of floats → a list of
/// scalar Vars, a 1-D/2-D NumPy array or ``revad.Data`` → an array Var); the other positional
/// and keyword arguments are passed unchanged. It returns ``(value, grad)``: ``grad`` shaped
/// like the argument for an int ``argnums``, a tuple of those for a tuple, as JAX's
/// ``value_and_grad``. The scope is recovered afterwards, also when ``f`` raises.
///
/// >>> import revad
/// >>> g = revad.value_and_grad(lambda mu, y: revad.normal_lpdf(y, mu, 1.0), argnums=0)
/// >>> value, d_mu = g(0.5, [0.0, 1.0])
/// >>> round(d_mu, 12)
/// 0.0
#[pyclass(frozen, dict, name = "ValueAndGrad", module = "revad")]
pub struct PyValueAndGrad {
    f: Py<PyAny>,
    argnums: Argnums,
    allow_constant: bool,
}

#[pymethods]
impl PyValueAndGrad {
    #[new]
    #[pyo3(signature = (f, argnums = None, *, allow_constant = false))]
    fn py_new(
        f: Py<PyAny>,
        argnums: Option<&Bound<'_, PyAny>>,
        allow_constant: bool,
    ) -> PyResult<PyValueAndGrad> {
        let argnums = match argnums {
            Some(a) => Argnums::read(a)?,
            None => Argnums::One(0),
        };
        Ok(PyValueAndGrad {
            f,
            argnums,
            allow_constant,
        })
    }

    /// Whether ``f`` may return a plain number (its gradient is then 0).
    #[getter]
    fn allow_constant(&self) -> bool {
        self.allow_constant
    }

    /// The function differentiated.
    #[getter]
    fn fun(&self, py: Python<'_>) -> Py<PyAny> {
        self.f.clone_ref(py)
    }

    /// The positional arguments differentiated: an int or a tuple of ints.
    #[getter]
    fn argnums<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match &self.argnums {
            Argnums::One(k) => k.into_pyobject(py)?.into_any(),
            Argnums::Many(ks) => PyTuple::new(py, ks)?.into_any(),
        })
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<(f64, Bound<'py, PyAny>)> {
        const F: &str = "value_and_grad";
        let positions = self.argnums.positions(args.len())?;
        let mut points: Vec<Point> = Vec::with_capacity(positions.len());
        let result = (|| {
            let _scope = tape::nested();
            // Each differentiated argument read and made a variable (no collections moved by
            // value: they cost more than the tape's work for a small model).
            let mut made: Vec<(Inputs, Bound<'py, PyAny>)> = Vec::with_capacity(positions.len());
            for &i in &positions {
                let point = Point::read(&args.get_item(i)?, F)?;
                made.push(point.make(py)?);
                points.push(point);
            }
            let call_args = PyTuple::new(
                py,
                args.iter()
                    .enumerate()
                    .map(|(i, a)| match positions.iter().position(|&p| p == i) {
                        Some(k) => made[k].1.clone(),
                        None => a,
                    }),
            )?;
            let y = self.f.bind(py).call(call_args, kwargs)?;
            let one = matches!(self.argnums, Argnums::One(_));
            value_and_gradients(py, &y, &made, one, F, self.allow_constant)
        })();
        // The scope is over: the points' memory is free for the next call unless `f` kept it.
        points.into_iter().for_each(Point::recycle);
        result
    }
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
fn jacobian<'py>(
    py: Python<'py>,
    f: &Bound<'py, PyAny>,
    x: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let point = Point::read(x, "jacobian")?;
    let n = point.len();
    let mut values: Vec<f64> = Vec::new();
    let mut rows: Vec<f64> = Vec::new();
    let mut i = 0;
    loop {
        let _scope = tape::nested();
        let (vars, inputs) = point.make(py)?;
        let ys = f.call1((inputs,))?;
        if ys.is_instance_of::<PyString>() || !ys.hasattr("__len__")? {
            let ty = type_name(&ys);
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

    // Three named parameters, not `*args`: CPython passes them by vectorcall, so no tuple is
    // built on every block.
    #[pyo3(signature = (_exc_type, _exc_value, _traceback, /))]
    fn __exit__(
        &self,
        _exc_type: &Bound<'_, PyAny>,
        _exc_value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
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
fn reset() -> PyResult<()> {
    if SCOPES.with(|s| !s.borrow().is_empty()) || tape::depth() > 1 {
        return Err(errors::tape_error(
            "reset: a revad.Tape block is still open; reset() ends the default tape, leave the \
             block first",
        ));
    }
    tape::try_reset().map_err(to_py)
}

/// Empties this thread's default tape, as ``revad.reset()``, and gives its memory back to the
/// system (``reset()`` keeps it for the next computation): for the end of a long computation,
/// or after one much larger than the next ones will be.
#[pyfunction]
fn free_memory() -> PyResult<()> {
    reset()?;
    tape::free_memory();
    Ok(())
}

/// Memory statistics of this thread's tape: bytes_reserved, bytes_used, continuations (records:
/// one per operation, a running sum or product of Vars one in all), variables, depth.
#[pyfunction]
fn tape_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let s = tape::stats();
    let d = PyDict::new(py);
    d.set_item("bytes_reserved", s.bytes_reserved)?;
    d.set_item("bytes_used", s.bytes_used)?;
    d.set_item("continuations", s.continuations)?;
    d.set_item("variables", s.variables)?;
    d.set_item("depth", s.depth)?;
    Ok(d)
}

family! {
    functions: [gradient, jacobian, reset, tape_stats, free_memory],
    classes: [PyTape, PyValueAndGrad],
}
