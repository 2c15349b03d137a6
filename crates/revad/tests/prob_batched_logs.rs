//! The densities that take the logarithms of a long container argument in one SIMD pass
//! (lognormal and gamma: log y; Poisson: log λ) against the same density summed element by
//! element (scalar calls, libm's `ln`): values and gradients within a few ulps, the −∞ cases
//! and the errors unchanged.

use revad::testing::{assert_close, vector_from};
use revad::{gamma_lpdf, gradient, lognormal_lpdf, poisson_lpmf, Var};

/// Long enough for the batched path.
const N: usize = 40;

/// `N` positive values spread over several binades, (0.01, 50).
fn positives() -> Vec<f64> {
    (0..N)
        .map(|i| 0.01 * 1.23f64.powi(i as i32) + 0.001 * i as f64)
        .collect()
}

/// Compares two (value, gradient) pairs within `tol` (relative).
#[track_caller]
fn same(a: (f64, Vec<f64>), b: (f64, Vec<f64>), tol: f64) {
    assert_close(a.0, b.0, tol);
    assert_eq!(a.1.len(), b.1.len());
    for (x, y) in a.1.iter().zip(&b.1) {
        assert_close(*x, *y, tol);
    }
}

#[test]
fn lognormal_batched_matches_elementwise() {
    let y = positives();
    for propto in [false, true] {
        // y data, μ and σ variables
        let batched = gradient(
            |v| lognormal_lpdf(&y[..], v[0], v[1], propto).unwrap(),
            &[0.3, 1.7],
        );
        let each = gradient(
            |v| {
                let terms = y
                    .iter()
                    .map(|&yi| lognormal_lpdf(yi, v[0], v[1], propto).unwrap());
                terms.fold(Var::new(0.0), |a, t| a + t)
            },
            &[0.3, 1.7],
        );
        same(batched, each, 1e-14);
        // y a vector variable, μ, σ data
        let batched = gradient(
            |v| lognormal_lpdf(&vector_from(v), -0.4, 0.9, propto).unwrap(),
            &y,
        );
        let each = gradient(
            |v| {
                let terms = v
                    .iter()
                    .map(|&yi| lognormal_lpdf(yi, -0.4, 0.9, propto).unwrap());
                terms.fold(Var::new(0.0), |a, t| a + t)
            },
            &y,
        );
        same(batched, each, 1e-14);
    }
    // f64 only
    let v: f64 = lognormal_lpdf(&y[..], 0.3, 1.7, false).unwrap();
    let e: f64 = y
        .iter()
        .map(|&yi| lognormal_lpdf(yi, 0.3, 1.7, false).unwrap())
        .sum();
    assert_close(v, e, 1e-14);
    // a zero among many: −∞, as for a short container
    let mut z = y.clone();
    z[33] = 0.0;
    let v: f64 = lognormal_lpdf(&z[..], 0.3, 1.7, false).unwrap();
    assert_eq!(v, f64::NEG_INFINITY);
    // a negative element is still reported by the check, before any logarithm
    z[35] = -1.0;
    let long = lognormal_lpdf(&z[..], 0.3, 1.7, false)
        .unwrap_err()
        .to_string();
    let short = lognormal_lpdf(&z[30..], 0.3, 1.7, false)
        .unwrap_err()
        .to_string();
    assert_eq!(long, short);
    assert!(long.contains("Random variable is -1"), "{long}");
}

#[test]
fn gamma_batched_matches_elementwise() {
    let y = positives();
    for propto in [false, true] {
        let batched = gradient(
            |v| gamma_lpdf(&y[..], v[0], v[1], propto).unwrap(),
            &[2.5, 1.3],
        );
        let each = gradient(
            |v| {
                let terms = y
                    .iter()
                    .map(|&yi| gamma_lpdf(yi, v[0], v[1], propto).unwrap());
                terms.fold(Var::new(0.0), |a, t| a + t)
            },
            &[2.5, 1.3],
        );
        same(batched, each, 1e-14);
        let batched = gradient(
            |v| gamma_lpdf(&vector_from(v), 0.7, 2.0, propto).unwrap(),
            &y,
        );
        let each = gradient(
            |v| {
                let terms = v
                    .iter()
                    .map(|&yi| gamma_lpdf(yi, 0.7, 2.0, propto).unwrap());
                terms.fold(Var::new(0.0), |a, t| a + t)
            },
            &y,
        );
        same(batched, each, 1e-14);
    }
    let v: f64 = gamma_lpdf(&y[..], 2.5, 1.3, false).unwrap();
    let e: f64 = y
        .iter()
        .map(|&yi| gamma_lpdf(yi, 2.5, 1.3, false).unwrap())
        .sum();
    assert_close(v, e, 1e-14);
    let mut z = y.clone();
    z[39] = 0.0;
    let long = gamma_lpdf(&z[..], 2.5, 1.3, false).unwrap_err().to_string();
    let short = gamma_lpdf(&z[30..], 2.5, 1.3, false)
        .unwrap_err()
        .to_string();
    assert_eq!(long, short);
    assert!(long.contains("Random variable is 0"), "{long}");
}

#[test]
fn poisson_batched_matches_elementwise() {
    let lambda = positives();
    let n: Vec<i64> = (0..N as i64).map(|i| (i * 7) % 11).collect();
    for propto in [false, true] {
        let batched = gradient(
            |v| poisson_lpmf(&n, &vector_from(v), propto).unwrap(),
            &lambda,
        );
        let each = gradient(
            |v| {
                let terms = n
                    .iter()
                    .zip(v)
                    .map(|(&k, &l)| poisson_lpmf(k, l, propto).unwrap());
                terms.fold(Var::new(0.0), |a, t| a + t)
            },
            &lambda,
        );
        same(batched, each, 1e-14);
    }
    let v: f64 = poisson_lpmf(&n, &lambda[..], false).unwrap();
    let e: f64 = n
        .iter()
        .zip(&lambda)
        .map(|(&k, &l)| poisson_lpmf(k, l, false).unwrap())
        .sum();
    assert_close(v, e, 1e-14);
    // λ = 0 with n = 0 contributes 0 (and ∂λ = −1), as for a short container
    let mut l0 = lambda.clone();
    l0[0] = 0.0;
    assert_eq!(n[0], 0);
    let batched = gradient(|v| poisson_lpmf(&n, &vector_from(v), false).unwrap(), &l0);
    let each = gradient(
        |v| {
            let terms = n
                .iter()
                .zip(v)
                .map(|(&k, &l)| poisson_lpmf(k, l, false).unwrap());
            terms.fold(Var::new(0.0), |a, t| a + t)
        },
        &l0,
    );
    assert_eq!(batched.1[0], -1.0);
    same(batched, each, 1e-14);
    // λ = 0 with n > 0, or λ = ∞: −∞
    l0[1] = 0.0;
    assert!(n[1] > 0);
    assert_eq!(poisson_lpmf(&n, &l0[..], false).unwrap(), f64::NEG_INFINITY);
    let mut inf = lambda.clone();
    inf[36] = f64::INFINITY;
    assert_eq!(
        poisson_lpmf(&n, &inf[..], false).unwrap(),
        f64::NEG_INFINITY
    );
    // a negative λ is reported by the check
    inf[36] = -2.0;
    let long = poisson_lpmf(&n, &inf[..], false).unwrap_err().to_string();
    let short = poisson_lpmf(&n[30..], &inf[30..], false)
        .unwrap_err()
        .to_string();
    assert_eq!(long, short);
    assert!(long.contains("Rate parameter is -2"), "{long}");
}
