//! The checks of the unconstraining transforms, with Stan Math's messages (`check_simplex`,
//! `check_ordered`, `check_unit_vector`, `check_sum_to_zero`, `check_cholesky_factor`, ...).
//!
//! Values that Stan prints through a C++ stream are printed as that stream does (`%g`: six
//! significant digits, ten for the sums Stan prints with `precision(10)`); bounds in the
//! messages of the scalar checks are printed as [`Error::Domain`] prints every value.

use std::borrow::Cow;

use ndarray::ArrayView2;

use crate::error::{Error, Result};
use crate::linalg::check as mcheck;

/// Stan's `CONSTRAINT_TOLERANCE`.
pub(crate) const TOLERANCE: f64 = 1e-8;

/// `x` to `digits` significant digits as C++'s default stream formatting prints it (`%g`):
/// fixed notation for exponents from −5 to `digits − 1`, trailing zeros removed.
pub(crate) fn significant(x: f64, digits: usize) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let sci = format!("{:.*e}", digits - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -5 || exp >= digits as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        let decimals = (digits as i32 - 1 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    }
}

/// `a > b`, false for NaN.
#[inline]
pub(crate) fn greater(a: f64, b: f64) -> bool {
    a > b
}

/// `a ≥ b`, false for NaN.
#[inline]
pub(crate) fn greater_eq(a: f64, b: f64) -> bool {
    a >= b
}

/// A value as [`Error::Domain`] shows it (`-1`, `0.5`, `1e300`, `NaN`, `inf`).
pub(crate) fn shown(x: f64) -> String {
    let a = x.abs();
    if x.is_nan() {
        "NaN".into()
    } else if !x.is_finite() || a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Where an element sits in its argument: nowhere (a scalar), `[i]` or `[i,j]` (from 1).
#[derive(Clone, Copy, Debug)]
pub(crate) enum At {
    /// The argument is a scalar.
    Scalar,
    /// Element `k` (from 0) of an array of `cols` columns (1 for a vector).
    Element { k: usize, rows: usize, cols: usize },
}

impl At {
    /// `[i]` for a vector, `[i,j]` for a matrix (from 1), nothing for a scalar.
    fn suffix(self) -> String {
        match self {
            At::Scalar => String::new(),
            At::Element { k, rows, cols } if rows == 1 || cols == 1 => format!("[{}]", k + 1),
            At::Element { k, cols, .. } => format!("[{},{}]", k / cols + 1, k % cols + 1),
        }
    }
}

/// "f: name is x, but must be requirement" (or "f: name[i] is x, ..." for an element).
pub(crate) fn element_error(
    function: &'static str,
    argument: &'static str,
    at: At,
    x: f64,
    requirement: String,
) -> Error {
    match at {
        At::Scalar => Error::Domain {
            function,
            argument,
            value: x,
            requirement: Cow::Owned(requirement),
        },
        at => {
            let verb = match requirement.strip_prefix("not ") {
                Some(rest) => format!("must not be {rest}"),
                None => format!("must be {requirement}"),
            };
            Error::Matrix {
                function,
                argument,
                detail: format!("{} is {}, but {verb}", at.suffix(), shown(x)),
            }
        }
    }
}

fn fail(function: &'static str, argument: &'static str, detail: String) -> Error {
    Error::Matrix {
        function,
        argument,
        detail,
    }
}

/// Stan's `check_nonzero_size`: "f: name has size 0, but must have a non-zero size".
pub(crate) fn nonzero_size(function: &'static str, name: &'static str, len: usize) -> Result<()> {
    if len == 0 {
        return Err(fail(
            function,
            name,
            "has size 0, but must have a non-zero size".into(),
        ));
    }
    Ok(())
}

/// Stan's `check_simplex`: not empty, sums to 1 within 1e-8 ("f: name is not a valid simplex.
/// sum(name) = 0.9, but should be 1", the sum to 10 significant digits), no negative or NaN
/// element ("f: name is not a valid simplex. name[2] = -0.1, but should be greater than or
/// equal to 0").
pub(crate) fn simplex(function: &'static str, name: &'static str, x: &[f64]) -> Result<()> {
    nonzero_size(function, name, x.len())?;
    let sum: f64 = x.iter().sum();
    // NaN fails too.
    let within = (1.0 - sum).abs() <= TOLERANCE;
    if !within {
        return Err(fail(
            function,
            name,
            format!(
                "is not a valid simplex. sum({name}) = {}, but should be 1",
                significant(sum, 10)
            ),
        ));
    }
    if let Some(i) = x.iter().position(|&v| v.is_nan() || v < 0.0) {
        return Err(fail(
            function,
            name,
            format!(
                "is not a valid simplex. {name}[{}] = {}, but should be greater than or equal \
                 to 0",
                i + 1,
                significant(x[i], 6)
            ),
        ));
    }
    Ok(())
}

/// Stan's `check_ordered`: "f: name is not a valid ordered vector. The element at 2 is 1, but
/// should be greater than the previous element, 3" (NaN fails).
pub(crate) fn ordered(function: &'static str, name: &'static str, y: &[f64]) -> Result<()> {
    for n in 1..y.len() {
        if !greater(y[n], y[n - 1]) {
            return Err(fail(
                function,
                name,
                format!(
                    "is not a valid ordered vector. The element at {} is {}, but should be \
                     greater than the previous element, {}",
                    n + 1,
                    significant(y[n], 6),
                    significant(y[n - 1], 6)
                ),
            ));
        }
    }
    Ok(())
}

/// Stan's `check_positive_ordered`: the first element not negative ("f: name is not a valid
/// positive_ordered vector. The element at 1 is -1, but should be positive." — Stan spells it
/// "postive"), then [`ordered`].
pub(crate) fn positive_ordered(
    function: &'static str,
    name: &'static str,
    y: &[f64],
) -> Result<()> {
    if let Some(&y0) = y.first() {
        if y0 < 0.0 {
            return Err(fail(
                function,
                name,
                format!(
                    "is not a valid positive_ordered vector. The element at 1 is {}, but should \
                     be positive.",
                    significant(y0, 6)
                ),
            ));
        }
    }
    ordered(function, name, y)
}

/// Stan's `check_unit_vector`: not empty, and the sum of squares within 1e-8 of 1 ("f: name is
/// not a valid unit vector. The sum of the squares of the elements should be 1, but is 1.25").
pub(crate) fn unit_vector(function: &'static str, name: &'static str, x: &[f64]) -> Result<()> {
    nonzero_size(function, name, x.len())?;
    let ssq: f64 = x.iter().map(|v| v * v).sum();
    // NaN fails too.
    let within = (1.0 - ssq).abs() <= TOLERANCE;
    if !within {
        return Err(fail(
            function,
            name,
            format!(
                "is not a valid unit vector. The sum of the squares of the elements should be \
                 1, but is {}",
                significant(ssq, 6)
            ),
        ));
    }
    Ok(())
}

/// "f: name does not sum to zero. sum(what) = s, but should be 0" (the sum to 10 significant
/// digits), unless `|s| ≤ 1e-8`.
fn sums_to_zero(function: &'static str, name: &'static str, what: &str, s: f64) -> Result<()> {
    // NaN fails too.
    let within = s.abs() <= TOLERANCE;
    if !within {
        return Err(fail(
            function,
            name,
            format!(
                "does not sum to zero. sum({what}) = {}, but should be 0",
                significant(s, 10)
            ),
        ));
    }
    Ok(())
}

/// Stan's `check_sum_to_zero` on a vector: not empty, and the sum within 1e-8 of 0 ("f: name
/// does not sum to zero. sum(name) = 0.5, but should be 0").
pub(crate) fn sum_to_zero(function: &'static str, name: &'static str, z: &[f64]) -> Result<()> {
    nonzero_size(function, name, z.len())?;
    sums_to_zero(function, name, name, z.iter().sum())
}

/// Stan's `check_sum_to_zero` on a row-major r×c matrix (not empty, the sum of all elements
/// within 1e-8 of 0), then, beyond Stan, each row and each column ("f: name does not sum to
/// zero. sum(name[2,:]) = 0.5, but should be 0", "... sum(name[:,3]) = ..."): a matrix whose
/// rows or columns do not sum to zero is not the value of any free matrix.
pub(crate) fn sum_to_zero_matrix(
    function: &'static str,
    name: &'static str,
    z: &[f64],
    rows: usize,
    cols: usize,
) -> Result<()> {
    nonzero_size(function, name, z.len())?;
    sums_to_zero(function, name, name, z.iter().sum())?;
    for i in 0..rows {
        let s = z[i * cols..(i + 1) * cols].iter().sum();
        sums_to_zero(function, name, &format!("{name}[{},:]", i + 1), s)?;
    }
    for j in 0..cols {
        let s = z[j..].iter().step_by(cols).sum();
        sums_to_zero(function, name, &format!("{name}[:,{}]", j + 1), s)?;
    }
    Ok(())
}

/// Stan's `check_stochastic_column` on a row-major r×c matrix: not empty; in each column no
/// negative or NaN element ("f: name is not a valid column stochastic matrix. name[2, 1] =
/// -0.1, but should be greater than or equal to 0"; Stan prints the row index twice) and a sum
/// within 1e-8 of 1 ("f: name is not a valid column stochastic matrix. sum(name[:, 2]) = 0.9,
/// but should be 1").
pub(crate) fn stochastic_column(
    function: &'static str,
    name: &'static str,
    x: &[f64],
    rows: usize,
    cols: usize,
) -> Result<()> {
    nonzero_size(function, name, x.len())?;
    for j in 0..cols {
        let mut sum = 0.0;
        for i in 0..rows {
            let v = x[i * cols + j];
            if !greater_eq(v, 0.0) {
                return Err(fail(
                    function,
                    name,
                    format!(
                        "is not a valid column stochastic matrix. {name}[{}, {}] = {}, but \
                         should be greater than or equal to 0",
                        i + 1,
                        j + 1,
                        significant(v, 6)
                    ),
                ));
            }
            sum += v;
        }
        // NaN fails too.
        let within = (1.0 - sum).abs() <= TOLERANCE;
        if !within {
            return Err(fail(
                function,
                name,
                format!(
                    "is not a valid column stochastic matrix. sum({name}[:, {}]) = {}, but \
                     should be 1",
                    j + 1,
                    significant(sum, 10)
                ),
            ));
        }
    }
    Ok(())
}

/// Stan's `check_stochastic_row` on a row-major r×c matrix, as [`stochastic_column`] by rows
/// ("... is not a valid row stochastic matrix. sum(name[2,:]) = 0.9, but should be 1").
pub(crate) fn stochastic_row(
    function: &'static str,
    name: &'static str,
    x: &[f64],
    rows: usize,
    cols: usize,
) -> Result<()> {
    nonzero_size(function, name, x.len())?;
    for i in 0..rows {
        let row = &x[i * cols..(i + 1) * cols];
        if let Some(j) = row.iter().position(|&v| !greater_eq(v, 0.0)) {
            return Err(fail(
                function,
                name,
                format!(
                    "is not a valid row stochastic matrix. {name}[{}, {}] = {}, but should be \
                     greater than or equal to 0",
                    i + 1,
                    j + 1,
                    significant(row[j], 6)
                ),
            ));
        }
        let sum: f64 = row.iter().sum();
        // NaN fails too.
        let within = (1.0 - sum).abs() <= TOLERANCE;
        if !within {
            return Err(fail(
                function,
                name,
                format!(
                    "is not a valid row stochastic matrix. sum({name}[{},:]) = {}, but should be \
                     1",
                    i + 1,
                    significant(sum, 10)
                ),
            ));
        }
    }
    Ok(())
}

/// Stan's `check_cholesky_factor_corr` on a K×K factor: square ([`Error::Size`]: "f: columns
/// of y has size 3, but must have size 2"), lower triangular, each diagonal element positive
/// ("f: y is -1, but must be positive") and each row a unit vector ("f: y is not a valid unit
/// vector. The sum of the squares of the elements should be 1, but is 1.25").
pub(crate) fn cholesky_factor_corr(
    function: &'static str,
    name: &'static str,
    columns: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    mcheck::square(function, columns, a)?;
    mcheck::lower_triangular(function, name, a)?;
    let k = a.nrows();
    for i in 0..k {
        let d = a[[i, i]];
        if !greater(d, 0.0) {
            return Err(element_error(
                function,
                name,
                At::Scalar,
                d,
                "positive".into(),
            ));
        }
    }
    for i in 0..k {
        let row: Vec<f64> = a.row(i).to_vec();
        unit_vector(function, name, &row)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_a_cpp_stream_does() {
        assert_eq!(significant(0.1, 6), "0.1");
        assert_eq!(significant(1.0 / 3.0, 6), "0.333333");
        assert_eq!(significant(1234567.0, 6), "1.23457e+06");
        assert_eq!(significant(1e-7, 6), "1e-07");
        assert_eq!(significant(-2.5, 10), "-2.5");
        assert_eq!(shown(1e300), "1e300");
        assert_eq!(shown(-0.5), "-0.5");
    }
}
