//! The density cases of the benchmarks (docs/benchmarks.md): the vectorised normal log density,
//! the linear regression y ~ normal(X·β, σ) and the non-centred hierarchical model.

use ndarray::{Array1, Array2};
use revad::{cauchy_lpdf, matrix, normal_lpdf, tape, Matrix, Var, Vector};

/// `n` observations in about (−2, 2).
pub fn data(n: usize, seed: u64) -> Vector {
    Array1::from_shape_fn(n, |i| {
        let h = (i as u64 + 1)
            .wrapping_mul(2654435761)
            .wrapping_add(seed * 97)
            % 4000;
        h as f64 / 1000.0 - 2.0
    })
    .into_shared()
}

/// normal_lpdf(x | μ, σ) on plain f64.
pub fn normal_f64(x: &Vector, mu: f64, sigma: f64) -> f64 {
    normal_lpdf(x, mu, sigma, false).expect("valid arguments")
}

/// The gradient of normal_lpdf(x | μ, σ) with x (a vector), μ and σ variables.
pub fn normal_gradient(x: &Vector, mu: f64, sigma: f64) -> (f64, Vector, f64, f64) {
    let _scope = tape::nested();
    let (vx, vm, vs) = (Var::array(x.clone()), Var::new(mu), Var::new(sigma));
    let lp = normal_lpdf(&vx, vm, vs, false).expect("valid arguments");
    lp.grad();
    (lp.value(), vx.adj(), vm.adj(), vs.adj())
}

/// A regression problem: X (n×10), y, and the point (β, σ).
pub fn regression(n: usize) -> (Matrix, Vector, Vector, f64) {
    let x = Array2::from_shape_fn((n, 10), |(i, j)| {
        (((i * 10 + j) as u64 + 1).wrapping_mul(2654435761) % 2000) as f64 / 1000.0 - 1.0
    })
    .into_shared();
    let beta = data(10, 3);
    let y = data(n, 5);
    (x, y, beta, 1.3)
}

/// log p(y | X, β, σ) on plain f64, X·β by the same kernel as the gradient (ndarray's `dot` is
/// about twice as slow for this shape, which would flatter the ratio).
pub fn regression_f64(x: &Matrix, y: &Vector, beta: &Vector, sigma: f64) -> f64 {
    let mu = matrix::multiply_values(x, beta).expect("conformable");
    normal_lpdf(y, &mu, sigma, false).expect("valid arguments")
}

/// The gradient with respect to β and σ.
pub fn regression_gradient(
    x: &Matrix,
    y: &Vector,
    beta: &Vector,
    sigma: f64,
) -> (f64, Vector, f64) {
    let _scope = tape::nested();
    let (vb, vs) = (Var::array(beta.clone()), Var::new(sigma));
    let mu: Var<Vector> = matrix::multiply(x, &vb).expect("conformable");
    let lp = normal_lpdf(y, &mu, vs, false).expect("valid arguments");
    lp.grad();
    (lp.value(), vb.adj(), vs.adj())
}

/// A hierarchical problem with `j` groups (eight schools, non-centred): observed effects y,
/// their standard errors σ, and the point (μ, log τ, θ̃).
pub fn hierarchical(j: usize) -> (Vector, Vector, f64, f64, Vector) {
    let y = data(j, 7).mapv(|v| 8.0 * v).into_shared();
    let sigma = data(j, 11).mapv(|v| 12.0 + 3.0 * v).into_shared();
    (y, sigma, 1.5, 0.7, data(j, 13))
}

/// The non-centred model's log density on plain f64, with τ = exp(log τ):
/// normal(μ | 0, 5) + cauchy(τ | 0, 5) + log τ + normal(θ̃ | 0, 1) + normal(y | μ + τθ̃, σ).
pub fn hierarchical_f64(y: &Vector, sigma: &Vector, mu: f64, log_tau: f64, eta: &Vector) -> f64 {
    let tau = log_tau.exp();
    let theta = eta.mapv(|e| mu + tau * e).into_shared();
    normal_lpdf(mu, 0.0, 5.0, false).expect("valid")
        + cauchy_lpdf(tau, 0.0, 5.0, false).expect("valid")
        + log_tau
        + normal_lpdf(eta, 0.0, 1.0, false).expect("valid")
        + normal_lpdf(y, &theta, sigma, false).expect("valid")
}

/// The gradient of the hierarchical log density with respect to μ, log τ and θ̃.
pub fn hierarchical_gradient(
    y: &Vector,
    sigma: &Vector,
    mu: f64,
    log_tau: f64,
    eta: &Vector,
) -> (f64, f64, f64, Vector) {
    let _scope = tape::nested();
    let (vm, vlt, ve) = (Var::new(mu), Var::new(log_tau), Var::array(eta.clone()));
    let tau = revad::exp(vlt);
    let theta = matrix::add_scalar(&matrix::multiply_scalar(&ve, tau), vm);
    let lp = normal_lpdf(vm, 0.0, 5.0, false).expect("valid")
        + cauchy_lpdf(tau, 0.0, 5.0, false).expect("valid")
        + vlt
        + normal_lpdf(&ve, 0.0, 1.0, false).expect("valid")
        + normal_lpdf(y, &theta, sigma, false).expect("valid");
    lp.grad();
    (lp.value(), vm.adj(), vlt.adj(), ve.adj())
}

#[cfg(test)]
mod tests {
    use super::*;
    use revad::testing::{assert_close, finite_diff_gradient};

    /// Central differences of an f64 function of a flat point.
    fn fd(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
        let g = |v: &[Var]| Var::new(f(&v.iter().map(|v| v.value()).collect::<Vec<_>>()));
        finite_diff_gradient(&g, x)
    }

    #[test]
    fn benchmark_gradients_match_finite_differences() {
        let x = data(5, 1);
        let (lp, dx, dm, ds) = normal_gradient(&x, 0.3, 1.2);
        assert_close(lp, normal_f64(&x, 0.3, 1.2), 1e-14);
        let mut point: Vec<f64> = x.to_vec();
        point.extend([0.3, 1.2]);
        let want = fd(
            |p| normal_f64(&Array1::from(p[..5].to_vec()).into_shared(), p[5], p[6]),
            &point,
        );
        let got: Vec<f64> = dx.iter().copied().chain([dm, ds]).collect();
        for (g, w) in got.iter().zip(&want) {
            assert_close(*g, *w, 1e-7);
        }

        let (xm, y, beta, sigma) = regression(7);
        let (lp, db, ds) = regression_gradient(&xm, &y, &beta, sigma);
        assert_close(lp, regression_f64(&xm, &y, &beta, sigma), 1e-13);
        let mut point: Vec<f64> = beta.to_vec();
        point.push(sigma);
        let want = fd(
            |p| {
                regression_f64(
                    &xm,
                    &y,
                    &Array1::from(p[..10].to_vec()).into_shared(),
                    p[10],
                )
            },
            &point,
        );
        let got: Vec<f64> = db.iter().copied().chain([ds]).collect();
        for (g, w) in got.iter().zip(&want) {
            assert_close(*g, *w, 1e-7);
        }

        let (y, s, mu, log_tau, eta) = hierarchical(4);
        let (lp, dm, dt, de) = hierarchical_gradient(&y, &s, mu, log_tau, &eta);
        assert_close(lp, hierarchical_f64(&y, &s, mu, log_tau, &eta), 1e-13);
        let mut point = vec![mu, log_tau];
        point.extend(eta.iter());
        let want = fd(
            |p| {
                hierarchical_f64(
                    &y,
                    &s,
                    p[0],
                    p[1],
                    &Array1::from(p[2..].to_vec()).into_shared(),
                )
            },
            &point,
        );
        let got: Vec<f64> = [dm, dt].into_iter().chain(de.iter().copied()).collect();
        for (g, w) in got.iter().zip(&want) {
            assert_close(*g, *w, 1e-7);
        }
    }
}
