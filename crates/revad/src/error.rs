//! The error type of every fallible revad function.
//!
//! Messages follow Stan Math: which function, which argument, the offending value and the
//! requirement, e.g. `gamma_p: first argument is -1, but must be positive`.

use std::borrow::Cow;
use std::fmt;

/// Why a revad function refused its input or could not finish.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// An argument lies outside the function's domain.
    Domain {
        /// The function that checked it, by its Stan name.
        function: &'static str,
        /// Which argument, in words ("first argument", "Scale parameter", ...).
        argument: &'static str,
        /// The value it had.
        value: f64,
        /// What it must be ("positive", "in [0, 1]", ...).
        requirement: Cow<'static, str>,
    },
    /// An integer argument (an order, a count) lies outside the function's domain.
    DomainInt {
        /// The function that checked it.
        function: &'static str,
        /// Which argument.
        argument: &'static str,
        /// The value it had.
        value: i64,
        /// What it must be.
        requirement: Cow<'static, str>,
    },
    /// Two arguments that must agree in size do not.
    Size {
        /// The function that checked it.
        function: &'static str,
        /// What was compared, in words.
        what: &'static str,
        /// The size that was expected.
        expected: usize,
        /// The size that was found.
        found: usize,
    },
    /// A variable was used after the tape scope that made it was reset or ended.
    StaleVar {
        /// What was attempted.
        function: &'static str,
    },
    /// The tape refused an operation (a second sweep of one scope, a reset with a nested
    /// scope open, ...).
    Tape {
        /// What was attempted.
        function: &'static str,
        /// Why it was refused.
        message: &'static str,
    },
    /// A matrix argument fails a whole-matrix requirement (symmetric, positive definite,
    /// not singular, ...): Stan's messages such as
    /// `cholesky_decompose: Matrix m is not symmetric. m[1,2] = 1, but m[2,1] = 2`.
    Matrix {
        /// The function that checked it.
        function: &'static str,
        /// Which argument ("Matrix m", "first argument", ...); empty when `detail` names it.
        argument: &'static str,
        /// What is wrong, starting with a verb (`is not symmetric. m[1,2] = 1, but ...`).
        detail: String,
    },
    /// An iterative algorithm did not reach its tolerance.
    NoConvergence {
        /// The function that gave up.
        function: &'static str,
        /// How far it got.
        detail: String,
    },
}

/// A value as an error message shows it: `-1`, `0.5`, `1e300`, `2.5e-12`, `NaN`, `inf`.
struct Shown(f64);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let a = x.abs();
        if !x.is_finite() || a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

impl Error {
    /// Whether a sampler meeting this error at a point it proposed should reject the point (a
    /// divergence) and go on, as Stan treats a domain error: true for an argument outside its
    /// domain (a scale that underflowed to 0, a matrix no longer positive definite) and for an
    /// iterative algorithm that did not converge there; false for the errors that are bugs
    /// whatever the point (sizes, stale variables, tape misuse).
    ///
    /// ```
    /// let e = revad::normal_lpdf(0.0, 0.0, -1.0, false).unwrap_err();
    /// assert!(e.is_recoverable());
    /// ```
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            Error::Domain { .. }
                | Error::DomainInt { .. }
                | Error::Matrix { .. }
                | Error::NoConvergence { .. }
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Domain {
                function,
                argument,
                value,
                requirement,
            } => match (requirement.strip_prefix("not "), Shown(*value)) {
                (Some(negated), value) => write!(
                    f,
                    "{function}: {argument} is {value}, but must not be {negated}"
                ),
                (None, value) => write!(
                    f,
                    "{function}: {argument} is {value}, but must be {requirement}"
                ),
            },
            Error::DomainInt {
                function,
                argument,
                value,
                requirement,
            } => write!(
                f,
                "{function}: {argument} is {value}, but must be {requirement}"
            ),
            Error::Size {
                function,
                what,
                expected,
                found,
            } => write!(
                f,
                "{function}: {what} has size {found}, but must have size {expected}"
            ),
            Error::StaleVar { function } => write!(
                f,
                "{function}: this Var is stale: the tape scope that made it was reset or ended"
            ),
            Error::Tape { function, message } => write!(f, "{function}: {message}"),
            Error::Matrix {
                function,
                argument,
                detail,
            } if detail.starts_with('[') || argument.is_empty() => {
                write!(f, "{function}: {argument}{detail}")
            }
            Error::Matrix {
                function,
                argument,
                detail,
            } => write!(f, "{function}: {argument} {detail}"),
            Error::NoConvergence { function, detail } => {
                write!(f, "{function}: did not converge ({detail})")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Fails with [`Error::Domain`] unless `ok`.
#[inline]
pub(crate) fn require(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: f64,
    requirement: &'static str,
) -> Result<()> {
    domain(ok, function, argument, value, || Cow::Borrowed(requirement))
}

/// [`require`] with a requirement that depends on other arguments (Stan prints the bound:
/// "greater than 1.5"), formatted only on failure.
#[inline]
pub(crate) fn require_with(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: f64,
    requirement: impl FnOnce() -> String,
) -> Result<()> {
    domain(ok, function, argument, value, || Cow::Owned(requirement()))
}

/// Fails with [`Error::DomainInt`] unless `ok`.
#[inline]
pub(crate) fn require_int(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: i64,
    requirement: &'static str,
) -> Result<()> {
    domain_int(ok, function, argument, value, || Cow::Borrowed(requirement))
}

/// [`require_int`] with a requirement that depends on other arguments ("in the interval
/// [0, 3]"), formatted only on failure.
#[inline]
pub(crate) fn require_int_with(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: i64,
    requirement: impl FnOnce() -> String,
) -> Result<()> {
    domain_int(ok, function, argument, value, || Cow::Owned(requirement()))
}

#[inline]
fn domain(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: f64,
    requirement: impl FnOnce() -> Cow<'static, str>,
) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::Domain {
        function,
        argument,
        value,
        requirement: requirement(),
    })
}

#[inline]
fn domain_int(
    ok: bool,
    function: &'static str,
    argument: &'static str,
    value: i64,
    requirement: impl FnOnce() -> Cow<'static, str>,
) -> Result<()> {
    if ok {
        return Ok(());
    }
    Err(Error::DomainInt {
        function,
        argument,
        value,
        requirement: requirement(),
    })
}

/// Argument checks in one style, named after Stan's `check_*` functions.
pub(crate) mod check {
    use super::{require, require_int_with, Result};

    /// An index or size as the `i64` of [`super::Error::DomainInt`] (saturating).
    fn int(x: usize) -> i64 {
        i64::try_from(x).unwrap_or(i64::MAX)
    }

    /// `end ≤ len` (the end of a half-open range, a size); the message prints `len`.
    #[inline]
    pub fn at_most(
        function: &'static str,
        argument: &'static str,
        end: usize,
        len: usize,
        requirement: &'static str,
    ) -> Result<()> {
        require_int_with(end <= len, function, argument, int(end), || {
            format!("{requirement} ({len})")
        })
    }

    /// `index < len`; the message prints `len`.
    #[inline]
    pub fn less_than(
        function: &'static str,
        argument: &'static str,
        index: usize,
        len: usize,
        requirement: &'static str,
    ) -> Result<()> {
        require_int_with(index < len, function, argument, int(index), || {
            format!("{requirement} ({len})")
        })
    }

    /// `found == expected` (two sizes that must match); otherwise [`super::Error::Size`]:
    /// "f: rows of b has size 3, but must have size 2".
    #[inline]
    pub fn size(
        function: &'static str,
        what: &'static str,
        expected: usize,
        found: usize,
    ) -> Result<()> {
        if expected == found {
            return Ok(());
        }
        Err(super::Error::Size {
            function,
            what,
            expected,
            found,
        })
    }

    /// `x` is not NaN.
    #[inline]
    pub fn not_nan(function: &'static str, argument: &'static str, x: f64) -> Result<()> {
        require(!x.is_nan(), function, argument, x, "not NaN")
    }

    /// `x > 0`.
    #[inline]
    pub fn positive(function: &'static str, argument: &'static str, x: f64) -> Result<()> {
        require(x > 0.0, function, argument, x, "positive")
    }

    /// `x ≥ 0`.
    #[inline]
    pub fn nonnegative(function: &'static str, argument: &'static str, x: f64) -> Result<()> {
        require(x >= 0.0, function, argument, x, "nonnegative")
    }

    /// `lo ≤ x ≤ hi`.
    #[inline]
    pub fn bounded(
        function: &'static str,
        argument: &'static str,
        x: f64,
        lo: f64,
        hi: f64,
        requirement: &'static str,
    ) -> Result<()> {
        require(x >= lo && x <= hi, function, argument, x, requirement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_function_argument_value_and_requirement() {
        let e = check::positive("gamma_p", "first argument", -1.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "gamma_p: first argument is -1, but must be positive"
        );
        let e = require_int(false, "bessel_first_kind", "order", -2, "nonnegative").unwrap_err();
        assert_eq!(
            e.to_string(),
            "bessel_first_kind: order is -2, but must be nonnegative"
        );
        let e = check::positive("f", "x", -1e300).unwrap_err();
        assert_eq!(e.to_string(), "f: x is -1e300, but must be positive");
        let e = check::positive("f", "x", -2.5e-12).unwrap_err();
        assert_eq!(e.to_string(), "f: x is -2.5e-12, but must be positive");
        let e = Error::Size {
            function: "jacobian",
            what: "output",
            expected: 3,
            found: 2,
        };
        assert_eq!(
            e.to_string(),
            "jacobian: output has size 2, but must have size 3"
        );
        assert!(check::bounded("inv_Phi", "p", 0.5, 0.0, 1.0, "in [0, 1]").is_ok());
        let e = check::not_nan("Phi", "x", f64::NAN).unwrap_err();
        assert_eq!(e.to_string(), "Phi: x is NaN, but must not be NaN");
        assert!(check::nonnegative("f", "x", 0.0).is_ok());
    }
}
