//! The table of a family of bindings: the functions and classes that one file adds to the
//! module, listed once at the end of that file.

/// `family! { functions: [f, g, ...], classes: [C, ...], }` (either list may be left out)
/// defines the family's `register(m)`, which adds each `#[pyfunction]` and `#[pyclass]` to the
/// module in the order given (the order of the module's `__all__`).
///
/// A family's `#[pyfunction]`s are private to its file, so one missing from the table is dead
/// code, which the build refuses (`cargo clippy -- -D warnings`).
macro_rules! family {
    (
        $(functions: [$($function:ident),* $(,)?],)?
        $(classes: [$($class:ty),* $(,)?],)?
    ) => {
        /// Adds this family's functions and classes to the module.
        pub fn register(
            m: &pyo3::Bound<'_, pyo3::types::PyModule>,
        ) -> pyo3::PyResult<()> {
            use pyo3::types::PyModuleMethods;
            $($(m.add_function(pyo3::wrap_pyfunction!($function, m)?)?;)*)?
            $($(m.add_class::<$class>()?;)*)?
            Ok(())
        }
    };
}
pub(crate) use family;
