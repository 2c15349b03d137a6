//! Core calls that may run without the GIL, and their results as Python objects.
//!
//! A call whose operands are all data does not touch the tape's variables, so once its
//! arguments have been read out of their Python objects it needs nothing from Python: from a
//! size on ([`RELEASE_AT`]) it runs with the GIL released, on the calling thread, and other
//! Python threads run meanwhile. A call with a variable records on this thread's tape and
//! keeps the GIL (a `Var` is bound to its thread; the work stays on it in both cases).

use numpy::ToPyArray;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use revad::{Matrix, RowVector, Var, Vector};

use crate::args::{Arr, Out, Res};

/// Data-only calls of size `n` ≥ `RELEASE_AT` release the GIL, where `n` is the largest
/// dimension of the matrices (the number of points for a covariance function).
///
/// Measured with `scripts/gil_threshold.py` on release builds that always and never release
/// (x86-64, 2 cores, Python 3.11):
/// - Releasing and taking back an uncontended GIL costs about 0.1 µs a call: a quarter of a
///   call at n = 4, under 1% from n = 64, where the cheapest functions
///   (`cholesky_decompose`, `mdivide_left_spd`, `gp_exp_quad_cov`) take 10–12 µs and the
///   others 15 µs (`mdivide_left`) to 0.5 ms (`svd`).
/// - Beside a thread running Python code, a released call waits for the GIL to come back (up
///   to Python's switch interval, 5 ms): calls took 1.6–9 times as long as calls holding the
///   GIL, and the other thread ran at 60–130% of its speed alone instead of 50%. Below
///   n = 32, where calls take 1–5 µs, that trade gives the other thread a few µs a call.
/// - Threads that all call revad on data run in parallel once the GIL is released, as far as
///   free cores allow (the machine measured had none to spare: two threads ran as fast as
///   one with either build).
pub const RELEASE_AT: usize = 64;

/// Runs `f` (a core call on data moved out of Python objects) with the GIL released when its
/// size `n` reaches [`RELEASE_AT`], else with the GIL held.
///
/// `f` runs in a nested tape scope, ended when it returns: a core function of data gives its
/// result as a constant, a new variable on the tape, which the caller does not keep (it takes
/// the value), so the scope gives its slots back instead of letting every call on data grow
/// the tape by the size of its result until the next reset.
pub fn on_data<T: Send>(py: Python<'_>, n: usize, f: impl Send + FnOnce() -> T) -> T {
    let scoped = move || {
        let _scope = revad::tape::nested();
        f()
    };
    if n >= RELEASE_AT {
        py.detach(scoped)
    } else {
        scoped()
    }
}

/// The result of a core function: a `Var` of some kind, or a tuple of them.
pub trait Output: Sized {
    /// Its value as data (sendable across the GIL release).
    type Data: IntoData;
    /// The value, for a call on data only.
    fn data(self) -> Self::Data;
    /// The Python object of a recorded result: a Var, or a tuple of Vars.
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

/// A result's value as a Python object: a float or a new NumPy array (a tuple of them).
pub trait IntoData: Send + Sized {
    /// The Python object.
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>>;
}

impl Output for Var {
    type Data = f64;
    fn data(self) -> f64 {
        self.value()
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Out::V(self).into_py(py)
    }
}

impl IntoData for f64 {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Out::F(self).into_py(py)
    }
}

impl Output for Var<Vector> {
    type Data = Vector;
    fn data(self) -> Vector {
        self.value().clone()
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Res::V(Arr::V(self)).into_py(py)
    }
}

impl IntoData for Vector {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.to_pyarray(py).into_any().unbind())
    }
}

impl Output for Var<RowVector> {
    type Data = RowVector;
    fn data(self) -> RowVector {
        self.value().clone()
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let (value, key) = self.to_array_bits();
        Output::into_py(Var::<Vector>::from_array_bits(value.0, key), py)
    }
}

impl IntoData for RowVector {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.0.into_data(py)
    }
}

impl Output for Var<Matrix> {
    type Data = Matrix;
    fn data(self) -> Matrix {
        self.value().clone()
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Res::M(Arr::V(self)).into_py(py)
    }
}

impl IntoData for Matrix {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.to_pyarray(py).into_any().unbind())
    }
}

impl<A: Output, B: Output> Output for (A, B) {
    type Data = (A::Data, B::Data);
    fn data(self) -> Self::Data {
        (self.0.data(), self.1.data())
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = [self.0.into_py(py)?, self.1.into_py(py)?];
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
}

impl<A: IntoData, B: IntoData> IntoData for (A, B) {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = [self.0.into_data(py)?, self.1.into_data(py)?];
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
}

impl<A: Output, B: Output, C: Output> Output for (A, B, C) {
    type Data = (A::Data, B::Data, C::Data);
    fn data(self) -> Self::Data {
        (self.0.data(), self.1.data(), self.2.data())
    }
    fn into_py(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = [
            self.0.into_py(py)?,
            self.1.into_py(py)?,
            self.2.into_py(py)?,
        ];
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
}

impl<A: IntoData, B: IntoData, C: IntoData> IntoData for (A, B, C) {
    fn into_data(self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let items = [
            self.0.into_data(py)?,
            self.1.into_data(py)?,
            self.2.into_data(py)?,
        ];
        Ok(PyTuple::new(py, items)?.into_any().unbind())
    }
}

/// `call!(py, n, [a, b, ...] => body)`: the Python result of `body`, a core call
/// (`revad::Result<impl Output>`) on the array operands `a, b, ...` (each an [`Arr`]).
///
/// When every operand is data, `body` runs on their values (`&Matrix`, `&Vector`, ...) through
/// [`on_data`] (the GIL released from size `n` on) and gives data; otherwise on the operands
/// themselves (`&Arr<_>`, each passed to the core as it is), recording one node.
macro_rules! call {
    ($py:expr, $n:expr, [$($x:ident),+ $(,)?] => $body:expr) => {{
        #[allow(unused_parens)]
        match ($(&$x,)+) {
            ($($crate::args::Arr::D($x),)+) => {
                let ($($x,)+) = ($($x.clone(),)+);
                let data = $crate::gil::on_data($py, $n, move || {
                    $(let $x = &$x;)+
                    ($body).map($crate::gil::Output::data)
                });
                $crate::gil::IntoData::into_data(data.map_err($crate::errors::to_py)?, $py)
            }
            _ => {
                $(let $x = &$x;)+
                $crate::gil::Output::into_py(($body).map_err($crate::errors::to_py)?, $py)
            }
        }
    }};
}
pub(crate) use call;

/// A core result that is one value (a scalar, vector or matrix `Var`): what a function
/// declared for replay gives as its [`Res`].
pub trait IntoRes: Output {
    /// The recorded result.
    fn into_res(self) -> Res;
    /// The result's value, for a call on data only.
    fn data_res(data: Self::Data) -> Res;
}

impl IntoRes for Var {
    fn into_res(self) -> Res {
        Res::S(Out::V(self))
    }
    fn data_res(data: f64) -> Res {
        Res::S(Out::F(data))
    }
}

impl IntoRes for Var<Vector> {
    fn into_res(self) -> Res {
        Res::V(Arr::V(self))
    }
    fn data_res(data: Vector) -> Res {
        Res::V(Arr::D(data))
    }
}

impl IntoRes for Var<RowVector> {
    fn into_res(self) -> Res {
        let (value, key) = self.to_array_bits();
        Res::V(Arr::V(Var::from_array_bits(value.0, key)))
    }
    fn data_res(data: RowVector) -> Res {
        Res::V(Arr::D(data.0))
    }
}

impl IntoRes for Var<Matrix> {
    fn into_res(self) -> Res {
        Res::M(Arr::V(self))
    }
    fn data_res(data: Matrix) -> Res {
        Res::M(Arr::D(data))
    }
}

/// The [`Res`] of `f`, a core call, inside a declared function's closure: its value as data
/// when `data_only` (computed in a nested tape scope, as [`on_data`] does, so that calls on
/// data do not grow the tape), else the recorded result.
pub fn res_of<T: IntoRes>(data_only: bool, f: impl FnOnce() -> revad::Result<T>) -> PyResult<Res> {
    if data_only {
        let _scope = revad::tape::nested();
        f().map(|v| T::data_res(v.data()))
    } else {
        f().map(IntoRes::into_res)
    }
    .map_err(crate::errors::to_py)
}

/// [`res_of`] for a core call giving two values from one node (a constrained value and its
/// log-Jacobian, say): both as data when `data_only`, else both recorded.
pub fn pair_res_of<A: IntoRes, B: IntoRes>(
    data_only: bool,
    f: impl FnOnce() -> revad::Result<(A, B)>,
) -> PyResult<(Res, Res)> {
    if data_only {
        let _scope = revad::tape::nested();
        f().map(|(a, b)| (A::data_res(a.data()), B::data_res(b.data())))
    } else {
        f().map(|(a, b)| (a.into_res(), b.into_res()))
    }
    .map_err(crate::errors::to_py)
}
