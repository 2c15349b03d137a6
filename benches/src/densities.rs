//! The density cases of `shared/BENCHMARKS.md`: the vectorised normal log density and the
//! linear regression y ~ normal(X·β, σ).

use ndarray::{Array1, Array2};
use revad::{matrix, normal_lpdf, tape, Matrix, Var, Vector};

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

/// log p(y | X, β, σ) on plain f64.
pub fn regression_f64(x: &Matrix, y: &Vector, beta: &Vector, sigma: f64) -> f64 {
    let mu = x.dot(beta).into_shared();
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
