//! Test helpers shared by every derivative test: a finite-difference gradient (Ridders'
//! extrapolation of central differences), a check that compares it with revad's gradient, and
//! the varmat/matvar agreement check of Stan Math's varmat design for array functions.

use ndarray::{Array1, Array2};

use crate::functional::gradient;
use crate::matrix;
use crate::tape;
use crate::var::{Matrix, RowVector, Storage, Var, Vector};

/// Tolerances and step of a derivative check.
#[derive(Clone, Copy, Debug)]
pub struct GradCheck {
    /// Allowed relative error, against the larger of the two derivatives.
    pub rel_tol: f64,
    /// Allowed absolute error.
    pub abs_tol: f64,
    /// First step of the extrapolation; by default `0.01·max(|xⱼ|, 0.01)`, halved until the
    /// function is finite on both sides (so points near a domain edge need no special care).
    pub step: Option<f64>,
}

impl Default for GradCheck {
    fn default() -> Self {
        GradCheck {
            rel_tol: 1e-7,
            abs_tol: 1e-8,
            step: None,
        }
    }
}

/// `f(x)` evaluated through the tape (in a nested scope that is recovered at once).
pub fn value_of(f: &impl Fn(&[Var]) -> Var, x: &[f64]) -> f64 {
    let _scope = tape::nested();
    let vars: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
    f(&vars).value()
}

/// ∂f/∂xⱼ by Ridders' method (Numerical Recipes `dfridr`): central differences with steps
/// `h, h/1.4, h/1.4², …` extrapolated to zero step. Returns the estimate and its error estimate.
pub fn finite_diff_partial(f: &impl Fn(&[Var]) -> Var, x: &[f64], j: usize, h: f64) -> (f64, f64) {
    const CON: f64 = 1.4;
    const CON2: f64 = CON * CON;
    const NTAB: usize = 12;
    let mut xp = x.to_vec();
    let mut central = |h: f64| {
        xp[j] = x[j] + h;
        let up = value_of(f, &xp);
        xp[j] = x[j] - h;
        let down = value_of(f, &xp);
        xp[j] = x[j];
        (up - down) / (2.0 * h)
    };
    let mut a = [[0.0f64; NTAB]; NTAB];
    let mut hh = h;
    a[0][0] = central(hh);
    let (mut ans, mut err) = (a[0][0], f64::INFINITY);
    for i in 1..NTAB {
        hh /= CON;
        a[0][i] = central(hh);
        let mut fac = CON2;
        for jj in 1..=i {
            a[jj][i] = (a[jj - 1][i] * fac - a[jj - 1][i - 1]) / (fac - 1.0);
            fac *= CON2;
            let errt = (a[jj][i] - a[jj - 1][i])
                .abs()
                .max((a[jj][i] - a[jj - 1][i - 1]).abs());
            if errt <= err {
                err = errt;
                ans = a[jj][i];
            }
        }
        if (a[i][i] - a[i - 1][i - 1]).abs() >= 2.0 * err {
            break;
        }
    }
    (ans, err)
}

/// The first step for coordinate `j`: shrunk until `f` is finite at `x ± h`.
fn first_step(f: &impl Fn(&[Var]) -> Var, x: &[f64], j: usize, step: Option<f64>) -> f64 {
    let mut h = step.unwrap_or(0.01 * x[j].abs().max(0.01));
    let mut xp = x.to_vec();
    for _ in 0..60 {
        xp[j] = x[j] + h;
        let up = value_of(f, &xp);
        xp[j] = x[j] - h;
        let down = value_of(f, &xp);
        if up.is_finite() && down.is_finite() {
            break;
        }
        h /= 2.0;
    }
    h
}

/// The finite-difference gradient of `f` at `x`.
pub fn finite_diff_gradient(f: &impl Fn(&[Var]) -> Var, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|j| finite_diff_partial(f, x, j, first_step(f, x, j, None)).0)
        .collect()
}

/// Compares revad's gradient of `f` at `x` with finite differences; `Err` describes the
/// first mismatch.
pub fn compare_gradient(
    f: impl Fn(&[Var]) -> Var,
    x: &[f64],
    opts: GradCheck,
) -> Result<(), String> {
    let (fx, g) = gradient(&f, x);
    if !fx.is_finite() {
        return Err(format!("f({x:?}) = {fx} is not finite"));
    }
    for (j, &gj) in g.iter().enumerate() {
        let h = first_step(&f, x, j, opts.step);
        let (fd, est) = finite_diff_partial(&f, x, j, h);
        let tol = opts.abs_tol + opts.rel_tol * fd.abs().max(gj.abs());
        let diff = (gj - fd).abs();
        if diff > tol || diff.is_nan() {
            return Err(format!(
                "∂f/∂x[{j}] at x = {x:?}: revad {gj:e}, finite differences {fd:e} (error \
                 estimate {est:e}, tolerance {tol:e})"
            ));
        }
    }
    Ok(())
}

/// Asserts that revad's gradient of `f` matches finite differences at every point.
///
/// ```
/// use revad::testing::check_gradient;
/// check_gradient(|v| v[0] * v[1] + revad::sum(v), &[&[1.0, 2.0], &[-3.0, 0.5]]);
/// ```
#[track_caller]
pub fn check_gradient(f: impl Fn(&[Var]) -> Var, points: &[&[f64]]) {
    check_gradient_with(f, points, GradCheck::default())
}

/// [`check_gradient`] with explicit tolerances and step.
#[track_caller]
pub fn check_gradient_with(f: impl Fn(&[Var]) -> Var, points: &[&[f64]], opts: GradCheck) {
    for x in points {
        if let Err(e) = compare_gradient(&f, x, opts) {
            panic!("gradient check failed: {e}");
        }
    }
}

/// Asserts `|a − b| ≤ tol·max(1, |b|)` (relative away from zero, absolute near it); equal
/// infinities and two NaNs also pass, opposite infinities do not.
#[track_caller]
pub fn assert_close(a: f64, b: f64, tol: f64) {
    let ok = a == b
        || (a.is_nan() && b.is_nan())
        || (a.is_finite() && b.is_finite() && (a - b).abs() <= tol * b.abs().max(1.0));
    assert!(
        ok,
        "{a:e} differs from {b:e} by more than {tol:e} (relative)"
    );
}

/// Asserts that an array (varmat) function and the same computation on scalar variables
/// (matvar) agree in value (to 1e-13) and gradient (to 1e-12) at `x`, then checks the varmat
/// gradient against finite differences with `fd` (`None`: no finite differences, for points
/// where the function refuses nearby inputs). Stan Math's `test_ad_matvar`.
///
/// ```
/// use revad::testing::{check_matvar, vector_from};
/// use revad::{matrix, Var};
/// check_matvar(
///     |v: &[Var]| matrix::dot_self(&vector_from(v)),
///     |v: &[Var]| v[0] * v[0] + v[1] * v[1],
///     &[0.5, -2.0],
///     Some(Default::default()),
/// );
/// ```
#[track_caller]
pub fn check_matvar(
    varmat: impl Fn(&[Var]) -> Var,
    matvar: impl Fn(&[Var]) -> Var,
    x: &[f64],
    fd: Option<GradCheck>,
) {
    let (v1, g1) = gradient(&varmat, x);
    let (v2, g2) = gradient(&matvar, x);
    assert_close(v1, v2, 1e-13);
    assert_eq!(g1.len(), g2.len());
    for (a, b) in g1.iter().zip(&g2) {
        assert_close(*a, *b, 1e-12);
    }
    if let Some(opts) = fd {
        check_gradient_with(varmat, &[x], opts);
    }
}

/// An `r×c` matrix variable (row-major) made from scalar variables (one node).
pub fn matrix_from(r: usize, c: usize, x: &[Var]) -> Var<Matrix> {
    let like = Array2::<f64>::zeros((r, c)).into_shared();
    Var::from_vars(&like, x).expect("r·c scalar variables")
}

/// A vector variable made from scalar variables (one node).
pub fn vector_from(x: &[Var]) -> Var<Vector> {
    let like = Array1::<f64>::zeros(x.len()).into_shared();
    Var::from_vars(&like, x).expect("same length")
}

/// A row-vector variable made from scalar variables (one node).
pub fn row_vector_from(x: &[Var]) -> Var<RowVector> {
    let like = RowVector(Array1::<f64>::zeros(x.len()).into_shared());
    Var::from_vars(&like, x).expect("same length")
}

/// `Σₖ cₖ yₖ` with fixed irregular weights `c` (from [`test_points`] with `seed`): turns an
/// array-valued function into the scalar `⟨f(x), c⟩` that [`check_directional`] checks, so
/// that the check compares `⟨J·t, c⟩` with `⟨t, Jᵀ·c⟩`.
pub fn weighted_sum<S: Storage>(y: &Var<S>, seed: u64) -> Var {
    let c = y.value().with_data(test_points(y.len(), seed));
    matrix::dot_product(y, &c).expect("same length")
}

/// Asserts that revad's gradient of `f` at `x`, projected on `dirs` random directions `t`,
/// matches the finite-difference derivative of `s ↦ f(x + s·t)` at 0 (Ridders' method).
/// One finite difference per direction, so it scales to functions of thousands of inputs
/// (a 130×130 matrix); with [`weighted_sum`] it is the check `⟨J·t, c⟩ = ⟨t, Jᵀ·c⟩`.
///
/// ```
/// use revad::testing::{check_directional, matrix_from, weighted_sum};
/// use revad::{matrix, Var};
/// let f = |v: &[Var]| weighted_sum(&matrix::crossprod(&matrix_from(2, 2, v)), 7);
/// check_directional(f, &[1.0, 2.0, -0.5, 3.0], 3, Default::default());
/// ```
#[track_caller]
pub fn check_directional(f: impl Fn(&[Var]) -> Var, x: &[f64], dirs: usize, opts: GradCheck) {
    let (fx, g) = gradient(&f, x);
    assert!(fx.is_finite(), "f(x) = {fx} is not finite");
    for d in 0..dirs {
        let t = test_points(x.len(), 1000 + 17 * d as u64);
        let along = |s: &[Var]| {
            let moved: Vec<Var> = x.iter().zip(&t).map(|(&xi, &ti)| s[0] * ti + xi).collect();
            f(&moved)
        };
        let h = first_step(&along, &[0.0], 0, opts.step.or(Some(1e-2)));
        let (fd, est) = finite_diff_partial(&along, &[0.0], 0, h);
        let ad: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
        let tol = opts.abs_tol + opts.rel_tol * fd.abs().max(ad.abs());
        let diff = (ad - fd).abs();
        assert!(
            diff <= tol,
            "directional check failed along direction {d}: revad ⟨∇f, t⟩ = {ad:e}, finite \
             differences {fd:e} (error estimate {est:e}, tolerance {tol:e})"
        );
    }
}

/// `n` fixed, irregular values in about (−2, 2), different for each `seed`.
pub fn test_points(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i as u64 + 1) * 2654435761 + seed) % 1000) as f64 / 250.0 - 2.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "differs")]
    fn assert_close_refuses_opposite_infinities() {
        assert_close(f64::INFINITY, f64::NEG_INFINITY, 1e-8);
    }

    #[test]
    fn ridders_recovers_a_known_derivative() {
        let f = |v: &[Var]| v[0] * v[0] * v[0];
        let (d, err) = finite_diff_partial(&f, &[2.0], 0, 0.1);
        assert_close(d, 12.0, 1e-10);
        assert!(err < 1e-8);
    }

    #[test]
    fn a_wrong_gradient_is_caught() {
        // A closure with a deliberately wrong reverse pass: d/dx x² reported as x.
        let wrong = |v: &[Var]| {
            let (s, x) = (v[0].slot(), v[0].value());
            tape::callback_var(x * x, [v[0]], move |out, adj| adj[s] += adj[out] * x)
        };
        assert!(compare_gradient(wrong, &[3.0], GradCheck::default()).is_err());
        assert!(compare_gradient(|v| v[0] * v[0], &[3.0], GradCheck::default()).is_ok());
    }

    #[test]
    #[should_panic(expected = "gradient check failed")]
    fn check_gradient_panics_on_mismatch() {
        let wrong = |v: &[Var]| {
            let s = v[0].slot();
            tape::callback_var(2.0 * v[0].value(), [v[0]], move |out, adj| {
                adj[s] += adj[out]
            })
        };
        check_gradient(wrong, &[&[1.0]]);
    }

    #[test]
    fn first_step_shrinks_near_a_domain_edge() {
        // √x at 1e-6: the default step would cross zero.
        let f = |v: &[Var]| {
            let (s, x) = (v[0].slot(), v[0].value());
            tape::callback_var(x.sqrt(), [v[0]], move |out, adj| {
                adj[s] += adj[out] * 0.5 / x.sqrt()
            })
        };
        check_gradient(f, &[&[1e-6], &[4.0]]);
    }
}
