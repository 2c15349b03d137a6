//! Whole-matrix argument checks with Stan Math's messages (`check_square`,
//! `check_symmetric`, `check_not_nan`, `check_pos_definite`, size matches).

use ndarray::ArrayView2;

use crate::error::{Error, Result};

/// Stan's `CONSTRAINT_TOLERANCE`: the absolute tolerance of the symmetry check.
pub(crate) const SYMMETRY_TOLERANCE: f64 = 1e-8;

/// `a` is square; otherwise [`Error::Size`] naming its columns against its rows
/// ("cholesky_decompose: columns of m has size 3, but must have size 2").
pub(crate) fn square(
    function: &'static str,
    columns: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    let (r, c) = a.dim();
    size(function, columns, r, c)
}

pub(crate) use crate::error::check::size;

/// No element of `a` is NaN (Stan's `check_not_nan`): "f: m[2,1] is NaN, but must not be
/// NaN" (indices from 1, as Stan prints them).
pub(crate) fn not_nan(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    elementwise(function, argument, a, |x| !x.is_nan(), "not NaN")
}

/// Every element of `a` is finite (Stan's `check_finite`).
pub(crate) fn finite(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    elementwise(function, argument, a, f64::is_finite, "finite")
}

fn elementwise(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
    ok: impl Fn(f64) -> bool,
    requirement: &str,
) -> Result<()> {
    // Both requirements (not NaN, finite) hold for every element when the (SIMD) sum is
    // finite; the search for the first offender runs only when it is not.
    if let Some(s) = a.as_slice() {
        if crate::kernels::sum(s).is_finite() {
            return Ok(());
        }
    }
    match a.indexed_iter().find(|(_, &x)| !ok(x)) {
        None => Ok(()),
        Some(((i, j), &x)) => Err(element_error(
            function,
            argument,
            format!("[{},{}]", i + 1, j + 1),
            x,
            requirement,
        )),
    }
}

/// Every element of the vector `a` satisfies `ok` (Stan's element checks of a `std::vector`,
/// e.g. `check_positive_finite`): "f: length scale[2] is -1, but must be positive finite"
/// (indices from 1); `requirement` is "positive finite", "not NaN", ...
pub(crate) fn elements(
    function: &'static str,
    argument: &'static str,
    a: &[f64],
    ok: impl Fn(f64) -> bool,
    requirement: &str,
) -> Result<()> {
    match a.iter().position(|&x| !ok(x)) {
        None => Ok(()),
        Some(k) => Err(element_error(
            function,
            argument,
            format!("[{}]", k + 1),
            a[k],
            requirement,
        )),
    }
}

/// "argument[index] is x, but must (not) be ...".
fn element_error(
    function: &'static str,
    argument: &'static str,
    index: String,
    x: f64,
    requirement: &str,
) -> Error {
    let shown = if x.is_nan() {
        "NaN".to_string()
    } else {
        x.to_string()
    };
    let verb = match requirement.strip_prefix("not ") {
        Some(rest) => format!("must not be {rest}"),
        None => format!("must be {requirement}"),
    };
    Error::Matrix {
        function,
        argument,
        detail: format!("{index} is {shown}, but {verb}"),
    }
}

/// `a` is square and symmetric to [`SYMMETRY_TOLERANCE`] (Stan's `check_symmetric`):
/// "f: m is not symmetric. m[1,2] = 1, but m[2,1] = 2".
pub(crate) fn symmetric(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    let n = a.nrows();
    if let Some(s) = a.as_slice() {
        if symmetric_within(s, n) {
            return Ok(());
        }
    }
    for i in 0..n {
        for j in (i + 1)..n {
            let (x, y) = (a[[i, j]], a[[j, i]]);
            // NaN entries fail too (a NaN difference is not within the tolerance).
            let within = (x - y).abs() <= SYMMETRY_TOLERANCE;
            if !within {
                return Err(Error::Matrix {
                    function,
                    argument,
                    detail: format!(
                        "is not symmetric. {argument}[{},{}] = {x}, but {argument}[{},{}] = {y}",
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Whether the row-major n×n `s` is symmetric to [`SYMMETRY_TOLERANCE`] (NaN fails): each row
/// right of the diagonal against the column below it, whose cache lines the next row reuses.
fn symmetric_within(s: &[f64], n: usize) -> bool {
    let mut ok = true;
    for i in 0..n.saturating_sub(1) {
        let row = &s[i * n + i + 1..(i + 1) * n];
        let column = s[(i + 1) * n + i..].iter().step_by(n);
        for (&x, &y) in row.iter().zip(column) {
            ok &= (x - y).abs() <= SYMMETRY_TOLERANCE;
        }
    }
    ok
}

/// The error of a Cholesky factorisation that failed (Stan's `check_pos_definite` on a
/// factorisation): "cholesky_decompose: Matrix m is not positive definite" for a matrix
/// named by a symbol; an argument named in words ("Covariance matrix", capitalised as Stan's
/// densities name theirs) is not prefixed: "multi_normal_lpdf: Covariance matrix is not
/// positive definite".
pub(crate) fn not_positive_definite(function: &'static str, argument: &str) -> Error {
    let named_in_words =
        argument.starts_with(|c: char| c.is_ascii_uppercase()) && argument.contains(' ');
    Error::Matrix {
        function,
        argument: if named_in_words { "" } else { "Matrix" },
        detail: format!("{argument} is not positive definite"),
    }
}

/// `a` has only zeros above its diagonal (Stan's `check_lower_triangular`): "chol2inv: L is
/// not lower triangular; L[1,2]=2", the first offender column by column.
pub(crate) fn lower_triangular(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
) -> Result<()> {
    let (r, c) = a.dim();
    for j in 1..c {
        for i in 0..j.min(r) {
            let x = a[[i, j]];
            if x != 0.0 {
                return Err(Error::Matrix {
                    function,
                    argument,
                    detail: format!(
                        "is not lower triangular; {argument}[{},{}]={x}",
                        i + 1,
                        j + 1
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Stan's `check_cholesky_factor`: at most as many columns as rows ("f: columns and rows of
/// Cholesky factor is 3, but must be less than or equal to 2"), at least one column ("columns
/// of Cholesky factor is 0, but must be positive"), then, if `square` (revad's addition for a
/// density, where Stan accepts a tall factor and reads past its last column), square ("rows of
/// Cholesky factor has size 3, but must have size 2"), lower triangular ([`lower_triangular`])
/// and a positive diagonal ("f: L[2] is -1, but must be positive", indices from 1). An M×N
/// factor of a covariance matrix (the transform's) is not square.
pub(crate) fn cholesky_factor(
    function: &'static str,
    argument: &'static str,
    a: &ArrayView2<f64>,
    square: bool,
) -> Result<()> {
    let (r, c) = a.dim();
    let int = |x: usize| i64::try_from(x).unwrap_or(i64::MAX);
    crate::error::require_int_with(
        c <= r,
        function,
        "columns and rows of Cholesky factor",
        int(c),
        || format!("less than or equal to {r}"),
    )?;
    crate::error::require_int(
        c > 0,
        function,
        "columns of Cholesky factor",
        int(c),
        "positive",
    )?;
    if square {
        size(function, "rows of Cholesky factor", c, r)?;
    }
    lower_triangular(function, argument, a)?;
    // NaN fails too.
    match (0..c).find(|&i| a[[i, i]].partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)) {
        None => Ok(()),
        Some(i) => Err(element_error(
            function,
            argument,
            format!("[{}]", i + 1),
            a[[i, i]],
            "positive",
        )),
    }
}

/// The error of Stan's `check_ldlt_factor` for the symmetric n×n `a` (row-major, its lower
/// triangle read) once its Cholesky factorisation has failed: "f: LDLT_Factor of random
/// variable is not positive definite.  last conditional variance is -0.5." The value is the
/// last pivot of the LDLT factorisation as Eigen computes it (each step takes the remaining
/// diagonal element of largest magnitude as pivot), recomputed here on this cold path only.
pub(crate) fn ldlt_not_positive_definite(
    function: &'static str,
    argument: &'static str,
    a: &[f64],
    n: usize,
) -> Error {
    let last = last_ldlt_pivot(a, n);
    let shown = if last.is_nan() {
        "NaN".to_string()
    } else {
        last.to_string()
    };
    Error::Matrix {
        function,
        argument,
        detail: format!("is not positive definite.  last conditional variance is {shown}."),
    }
}

/// The last diagonal element of `D` in `PAPᵀ = LDLᵀ`, with Eigen's left-looking LDLT and its
/// pivoting (the largest remaining diagonal element of `A` in magnitude; the diagonal of the
/// columns not yet reached is `A`'s own). A pivot below the smallest normal number divides
/// nothing, as in Eigen.
fn last_ldlt_pivot(a: &[f64], n: usize) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    // The symmetric matrix from its lower triangle, permuted as pivots are taken; the rows of
    // `l` (its first k columns) are permuted with it.
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            m[i * n + j] = a[i * n + j];
            m[j * n + i] = a[i * n + j];
        }
    }
    let mut l = vec![0.0; n * n];
    let mut d = vec![0.0; n];
    for k in 0..n {
        let mut p = k;
        for i in k + 1..n {
            if m[i * n + i].abs() > m[p * n + p].abs() {
                p = i;
            }
        }
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
            for i in 0..n {
                m.swap(i * n + k, i * n + p);
            }
            for j in 0..k {
                l.swap(k * n + j, p * n + j);
            }
        }
        let dk = m[k * n + k]
            - (0..k)
                .map(|j| l[k * n + j] * l[k * n + j] * d[j])
                .sum::<f64>();
        d[k] = dk;
        let valid = dk.abs() > f64::MIN_POSITIVE;
        for i in k + 1..n {
            let v = m[i * n + k]
                - (0..k)
                    .map(|j| l[i * n + j] * l[k * n + j] * d[j])
                    .sum::<f64>();
            l[i * n + k] = if valid { v / dk } else { v };
        }
    }
    d[n - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn messages_follow_stan() {
        let a = array![[1.0, 1.0], [2.0, 1.0]];
        let e = symmetric("cholesky_decompose", "m", &a.view()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cholesky_decompose: m is not symmetric. m[1,2] = 1, but m[2,1] = 2"
        );
        let b = array![[1.0, f64::NAN]];
        let e = not_nan("inverse", "m", &b.view()).unwrap_err();
        assert_eq!(e.to_string(), "inverse: m[1,2] is NaN, but must not be NaN");
        let e = square("inverse", "columns of m", &b.view()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "inverse: columns of m has size 2, but must have size 1"
        );
        assert!(symmetric("f", "m", &array![[1.0, 1.0 + 1e-9], [1.0, 2.0]].view()).is_ok());
        assert!(finite("f", "m", &array![[1.0, f64::INFINITY]].view()).is_err());
        let e = elements("f", "v", &[1.0, -1.0], |x| x > 0.0, "positive").unwrap_err();
        assert_eq!(e.to_string(), "f: v[2] is -1, but must be positive");
    }
}
