//! The Python layer of revad: `revad._revad`, re-exported by the `revad` package.
//!
//! Thin by design: handles (`Var`, `Tape`), conversions of arguments and results, and the
//! mapping of core errors to Python exceptions. Every call checks its handles (thread, tape
//! scope) before it reaches the core, so no Rust panic crosses into Python.

use pyo3::prelude::*;

/// The module's Rust allocations (array values, adjoints, partials, arrays handed to NumPy)
/// come from mimalloc: glibc's malloc returns multi-megabyte blocks to the system on every
/// free and takes page faults again on the next call, which cost 10× the arithmetic of a
/// density over 1e6 values.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod array;
mod data;
mod errors;
mod functional;
mod functions;
mod matfun;
mod prob;
mod var;

/// revad's compiled core.
#[pymodule]
fn _revad(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    functions::register(m)?;
    matfun::register(m)?;
    prob::register(m)?;
    m.add_class::<var::PyVar>()?;
    m.add_class::<data::PyData>()?;
    m.add_class::<functional::PyTape>()?;
    m.add_class::<functional::PyValueAndGrad>()?;
    m.add_function(wrap_pyfunction!(functional::gradient, m)?)?;
    m.add_function(wrap_pyfunction!(functional::jacobian, m)?)?;
    m.add_function(wrap_pyfunction!(functional::reset, m)?)?;
    m.add_function(wrap_pyfunction!(functional::tape_stats, m)?)?;
    Ok(())
}
