//! The Python layer of revad: `revad._revad`, re-exported by the `revad` package.
//!
//! Thin by design: handles (`Var`, `Data`, `Tape`), conversions of arguments and results, and
//! the mapping of core errors to Python exceptions. Every call checks its handles (thread, tape
//! scope) before it reaches the core, so no Rust panic crosses into Python.
//!
//! The modules form layers; each uses only the ones above it in this list, never one below
//! (`tests/test_architecture.py` fails on a cycle):
//!
//! - `errors`: the Python exceptions and the mapping of core errors to them;
//! - `args`: arguments and results as Rust values (a float or scalar Var, an array Var or data);
//! - `handle`: what a `revad.Var` and a `revad.Data` hold, and the checked way to the core;
//! - `convert`: Python object → argument, result → Python object;
//! - `ops`: NumPy-style arithmetic and `@` on arguments; `index`: indexing and assignment;
//!   `shape`: NumPy's reductions along axes, reshaping, joining and `where` on arguments;
//! - `gil`: core calls on data with the GIL released, and core results as Python objects
//!   (`call!`);
//! - `family`: the `family!` table that makes a family's `register`;
//! - the families, which use the modules above and never each other: `var` and `data` (the
//!   classes), `scalar`, `matrix`, `linalg`, `gp`, `prob`, `multivariate`,
//!   `matrix_densities`, `glm`, `functional`, `transform`, `arrays`, `ode`, `jit`, `model`;
//! - this file, which registers the families.
//!
//! To add a family of functions (say `linalg`): write `src/linalg.rs`, whose functions are
//! private `#[pyfunction]`s that read their arguments through `convert` (`matrix_arg`,
//! `vector_arg`, `array_arg`, `x_arg`, `arg`: NumPy arrays, `revad.Data`, array Vars and lists
//! are all accepted there), call the core once through `arr1!`/`arr2!` (which also tell whether
//! every operand was data) and return a `Res` or `Out`, as `quad_form_diag` in `matrix.rs` does;
//! end the file with `family! { functions: [...], }` and add `linalg` to the list in `families!`
//! below. Write the functions' stubs in `python/revad/_revad.pyi` (with their names in its
//! `__all__`; the package's `__init__.pyi` re-exports them): `tests/test_stubs.py` fails on a
//! function without one.

use pyo3::prelude::*;

/// The module's Rust allocations (array values, adjoints, partials, arrays handed to NumPy)
/// come from mimalloc: glibc's malloc returns multi-megabyte blocks to the system on every
/// free and takes page faults again on the next call, which cost 10× the arithmetic of a
/// density over 1e6 values.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod args;
mod convert;
mod errors;
mod family;
mod gil;
mod handle;
mod index;
mod ops;
mod point;
mod pool;
mod record;
mod shape;

/// Declares each family's module and registers it, in order (the order of the module's
/// `__all__`).
macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(mod $family;)*

        /// revad's compiled core.
        #[pymodule]
        fn _revad(m: &Bound<'_, PyModule>) -> PyResult<()> {
            errors::register(m)?;
            $($family::register(m)?;)*
            Ok(())
        }
    };
}

families! {
    scalar,
    matrix,
    linalg,
    gp,
    prob,
    multivariate,
    matrix_densities,
    glm,
    var,
    data,
    functional,
    // Stan's constraining transforms.
    transform,
    arrays,
    ode,
    // Record once, replay in Rust.
    jit,
    // The per-call path of revad.Model.
    model,
}
