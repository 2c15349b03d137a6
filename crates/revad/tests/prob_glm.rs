//! The GLM densities (`normal_id_glm_lpdf`, `bernoulli_logit_glm_lpmf`, `poisson_log_glm_lpmf`,
//! `neg_binomial_2_log_glm_lpmf`, `binomial_logit_glm_lpmf`, `ordered_logistic_glm_lpmf`,
//! `categorical_logit_glm_lpmf`): each against the same model written with `matrix::multiply`
//! and the univariate density (value and gradient), finite-difference gradients for every
//! data/variable mix of the operands, a row-vector `x`, lists of scalar variables, larger sizes
//! along random directions, `propto`, and every validation message.

use ndarray::{Array1, Array2};
use revad::matrix::{add, add_scalar, multiply};
use revad::prob::*;
use revad::testing::{
    assert_close, check_directional, check_gradient, matrix_from, row_vector_from, test_points,
    vector_from, GradCheck,
};
use revad::{gradient, tape, Matrix, RowVector, Var, Vector};

/// `f64` or `Var` as a `Var` (a constant for `f64`), so one closure serves every mix.
trait IntoVar {
    fn into_var(self) -> Var;
}
impl IntoVar for f64 {
    fn into_var(self) -> Var {
        Var::new(self)
    }
}
impl IntoVar for Var {
    fn into_var(self) -> Var {
        self
    }
}

/// Hands out consecutive runs of the variables of a closure's argument.
struct Cursor<'a> {
    v: &'a [Var],
    at: usize,
}
impl<'a> Cursor<'a> {
    fn new(v: &'a [Var]) -> Self {
        Cursor { v, at: 0 }
    }
    fn take(&mut self, n: usize) -> &'a [Var] {
        let s = &self.v[self.at..self.at + n];
        self.at += n;
        s
    }
}

/// Binds each operand to its variable form when its bit of `mask` is set, else to its data
/// form, so that `$body` is instantiated for every combination.
macro_rules! mix {
    ($mask:expr, [] $body:block) => { $body };
    ($mask:expr, [$name:ident: $bit:expr => $var:expr ; $data:expr, $($rest:tt)*] $body:block) => {
        if $mask & (1 << $bit) != 0 {
            let $name = $var;
            mix!($mask, [$($rest)*] $body)
        } else {
            let $name = $data;
            mix!($mask, [$($rest)*] $body)
        }
    };
}

fn vector(x: &[f64]) -> Vector {
    Array1::from_vec(x.to_vec()).into_shared()
}

fn matrix(r: usize, c: usize, x: &[f64]) -> Matrix {
    Array2::from_shape_vec((r, c), x.to_vec())
        .unwrap()
        .into_shared()
}

fn row(x: &[f64]) -> RowVector {
    RowVector(vector(x))
}

/// The variables' values of `mask`: the operands whose bit is set, in order.
fn point(mask: u32, operands: &[&[f64]]) -> Vec<f64> {
    operands
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .flat_map(|(_, o)| o.iter().copied())
        .collect()
}

/// For every mask of `operands.len()` bits: the value of `f(mask, ·)` equals `expected`, and
/// its gradient matches finite differences (with at least one variable).
#[track_caller]
fn check_mixes(operands: &[&[f64]], expected: f64, f: impl Fn(u32, &[Var]) -> Var) {
    for mask in 0..(1u32 << operands.len()) {
        let x = point(mask, operands);
        let (value, _) = gradient(|v| f(mask, v), &x);
        assert_close(value, expected, 1e-12);
        if mask != 0 {
            check_gradient(|v| f(mask, v), &[&x]);
        }
    }
}

/// The value and gradient of `glm` and `composed` agree at `x`.
#[track_caller]
fn check_agree(glm: impl Fn(&[Var]) -> Var, composed: impl Fn(&[Var]) -> Var, x: &[f64]) {
    let (v1, g1) = gradient(glm, x);
    let (v2, g2) = gradient(composed, x);
    assert_close(v1, v2, 1e-12);
    for (a, b) in g1.iter().zip(&g2) {
        assert_close(*a, *b, 1e-11);
    }
}

// Four observations, three predictors.
const N: usize = 4;
const K: usize = 3;
const X: [f64; 12] = [
    0.5, -1.2, 0.3, //
    1.1, 0.4, -0.7, //
    -0.3, 0.9, 1.5, //
    0.0, -0.6, 0.2,
];
const BETA: [f64; 3] = [0.7, -0.4, 0.25];
const ALPHA: [f64; 4] = [0.2, -0.1, 0.35, 0.05];

/// `ηᵢ = xᵢ·β + αᵢ` (α broadcast when it has one element).
fn eta(x: &[f64], beta: &[f64], alpha: &[f64]) -> Vec<f64> {
    let k = beta.len();
    (0..x.len() / k)
        .map(|i| {
            let a = if alpha.len() == 1 { alpha[0] } else { alpha[i] };
            (0..k).map(|j| x[i * k + j] * beta[j]).sum::<f64>() + a
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// normal_id_glm_lpdf

const Y: [f64; 4] = [0.9, -0.4, 1.7, 0.1];
const SIGMA: [f64; 4] = [0.8, 1.3, 0.6, 2.0];

fn normal_reference(alpha: &[f64], sigma: &[f64]) -> f64 {
    let mu = eta(&X, &BETA, alpha);
    (0..N)
        .map(|i| {
            let s = if sigma.len() == 1 { sigma[0] } else { sigma[i] };
            normal_lpdf(Y[i], mu[i], s, false).unwrap()
        })
        .sum()
}

#[test]
fn normal_id_glm_every_mix_vector_alpha_scalar_sigma() {
    let expected = normal_reference(&ALPHA, &[1.3]);
    check_mixes(&[&Y, &X, &ALPHA, &BETA, &[1.3]], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            y: 0 => &vector_from(c.take(N)); &vector(&Y),
            x: 1 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 2 => &vector_from(c.take(N)); &vector(&ALPHA),
            beta: 3 => &vector_from(c.take(K)); &vector(&BETA),
            sigma: 4 => c.take(1)[0]; 1.3,
        ] {
            normal_id_glm_lpdf(y, x, alpha, beta, sigma, false).unwrap().into_var()
        })
    });
}

#[test]
fn normal_id_glm_every_mix_scalar_y_and_alpha_vector_sigma() {
    let y = 0.6;
    let mu = eta(&X, &BETA, &[0.15]);
    let expected: f64 = (0..N)
        .map(|i| normal_lpdf(y, mu[i], SIGMA[i], false).unwrap())
        .sum();
    check_mixes(&[&[y], &X, &[0.15], &BETA, &SIGMA], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            yv: 0 => c.take(1)[0]; y,
            x: 1 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 2 => c.take(1)[0]; 0.15,
            beta: 3 => &vector_from(c.take(K)); &vector(&BETA),
            sigma: 4 => &vector_from(c.take(N)); &vector(&SIGMA),
        ] {
            normal_id_glm_lpdf(yv, x, alpha, beta, sigma, false).unwrap().into_var()
        })
    });
}

#[test]
fn normal_id_glm_agrees_with_multiply_and_normal_lpdf() {
    let x0: Vec<f64> = [&Y[..], &X, &ALPHA, &BETA, &SIGMA].concat();
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        (
            vector_from(c.take(N)),
            matrix_from(N, K, c.take(N * K)),
            vector_from(c.take(N)),
            vector_from(c.take(K)),
            vector_from(c.take(N)),
        )
    };
    check_agree(
        |v| {
            let (y, x, a, b, s) = split(v);
            normal_id_glm_lpdf(&y, &x, &a, &b, &s, false).unwrap()
        },
        |v| {
            let (y, x, a, b, s) = split(v);
            let mu = add(&multiply(&x, &b).unwrap(), &a).unwrap();
            normal_lpdf(&y, &mu, &s, false).unwrap()
        },
        &x0,
    );
    // A scalar intercept and scale.
    let x1: Vec<f64> = [&Y[..], &X, &[0.3], &BETA, &[0.9]].concat();
    let split1 = |v: &[Var]| {
        let mut c = Cursor::new(v);
        (
            vector_from(c.take(N)),
            matrix_from(N, K, c.take(N * K)),
            c.take(1)[0],
            vector_from(c.take(K)),
            c.take(1)[0],
        )
    };
    check_agree(
        |v| {
            let (y, x, a, b, s) = split1(v);
            normal_id_glm_lpdf(&y, &x, a, &b, s, false).unwrap()
        },
        |v| {
            let (y, x, a, b, s) = split1(v);
            let mu = add_scalar(&multiply(&x, &b).unwrap(), a);
            normal_lpdf(&y, &mu, s, false).unwrap()
        },
        &x1,
    );
}

#[test]
fn normal_id_glm_data_only_is_f64_and_records_nothing() {
    let before = tape::stats().continuations;
    let lp: f64 =
        normal_id_glm_lpdf(&Y[..], &matrix(N, K, &X), &ALPHA[..], &BETA[..], 1.3, false).unwrap();
    assert_close(lp, normal_reference(&ALPHA, &[1.3]), 1e-13);
    assert_eq!(tape::stats().continuations, before);
}

#[test]
fn normal_id_glm_row_vector_x_serves_every_observation() {
    let xr = [0.5, -1.2, 0.3];
    let repeated: Vec<f64> = (0..N).flat_map(|_| xr).collect();
    let expected: f64 =
        normal_id_glm_lpdf(&Y[..], &matrix(N, K, &repeated), 0.2, &BETA[..], 1.1, false).unwrap();
    let direct: f64 = normal_id_glm_lpdf(&Y[..], &row(&xr), 0.2, &BETA[..], 1.1, false).unwrap();
    assert_close(direct, expected, 1e-13);
    check_mixes(&[&xr, &[0.2], &BETA], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &row_vector_from(c.take(K)); &row(&xr),
            alpha: 1 => c.take(1)[0]; 0.2,
            beta: 2 => &vector_from(c.take(K)); &vector(&BETA),
        ] {
            normal_id_glm_lpdf(&Y[..], x, alpha, beta, 1.1, false).unwrap().into_var()
        })
    });
    // x̅ of a row vector is the sum of the rows' adjoints of the repeated matrix.
    let x0: Vec<f64> = [&xr[..], &BETA].concat();
    let (_, g_row) = gradient(
        |v| {
            let x = row_vector_from(&v[..K]);
            normal_id_glm_lpdf(&Y[..], &x, 0.2, &v[K..], 1.1, false).unwrap()
        },
        &x0,
    );
    let xm: Vec<f64> = [&repeated[..], &BETA].concat();
    let (_, g_mat) = gradient(
        |v| {
            let x = matrix_from(N, K, &v[..N * K]);
            normal_id_glm_lpdf(&Y[..], &x, 0.2, &v[N * K..], 1.1, false).unwrap()
        },
        &xm,
    );
    for j in 0..K {
        let summed: f64 = (0..N).map(|i| g_mat[i * K + j]).sum();
        assert_close(g_row[j], summed, 1e-12);
        assert_close(g_row[K + j], g_mat[N * K + j], 1e-12);
    }
}

#[test]
fn normal_id_glm_lists_of_scalar_vars_and_a_scalar_beta() {
    // β, α and σ as lists of scalar variables (slots anywhere on the tape).
    let x0: Vec<f64> = [&BETA[..], &ALPHA, &SIGMA].concat();
    check_gradient(
        |v| {
            normal_id_glm_lpdf(
                &Y[..],
                &matrix(N, K, &X),
                &v[K..K + N],
                &v[..K],
                &v[K + N..],
                false,
            )
            .unwrap()
        },
        &[&x0],
    );
    // A scalar β is one weight for every column.
    let b: f64 = normal_id_glm_lpdf(&Y[..], &matrix(N, K, &X), 0.1, 0.3, 1.0, false).unwrap();
    let full: f64 =
        normal_id_glm_lpdf(&Y[..], &matrix(N, K, &X), 0.1, &[0.3; 3][..], 1.0, false).unwrap();
    assert_close(b, full, 1e-14);
    check_gradient(
        |v| normal_id_glm_lpdf(&Y[..], &matrix(N, K, &X), 0.1, v[0], 1.0, false).unwrap(),
        &[&[0.3], &[-1.0]],
    );
}

#[test]
fn normal_id_glm_propto_drops_exactly_the_constants() {
    let x = matrix(N, K, &X);
    let half_log_2pi = 0.5 * (2.0 * std::f64::consts::PI).ln();
    let log_sigma: f64 = SIGMA.iter().map(|s| s.ln()).sum();
    // β variable, σ data: N·½log 2π and Σ log σ dropped.
    let b = vector_from(&[Var::new(0.7), Var::new(-0.4), Var::new(0.25)]);
    let lp = normal_id_glm_lpdf(&Y[..], &x, &ALPHA[..], &b, &SIGMA[..], false).unwrap();
    let pp = normal_id_glm_lpdf(&Y[..], &x, &ALPHA[..], &b, &SIGMA[..], true).unwrap();
    assert_close(
        lp.value() - pp.value(),
        -(N as f64) * half_log_2pi - log_sigma,
        1e-13,
    );
    // σ variable: only N·½log 2π.
    let s = vector_from(&SIGMA.map(Var::new));
    let pp = normal_id_glm_lpdf(&Y[..], &x, &ALPHA[..], &BETA[..], &s, true).unwrap();
    assert_close(lp.value() - pp.value(), -(N as f64) * half_log_2pi, 1e-13);
    // Only data: 0.
    let z: f64 = normal_id_glm_lpdf(&Y[..], &x, &ALPHA[..], &BETA[..], &SIGMA[..], true).unwrap();
    assert_eq!(z, 0.0);
    tape::reset();
}

#[test]
fn normal_id_glm_larger_sizes_along_random_directions() {
    let (n, k) = (60, 7);
    let x0: Vec<f64> = [
        test_points(n, 1),
        test_points(n * k, 2).iter().map(|v| v * 0.3).collect(),
        test_points(n, 3),
        test_points(k, 4),
        test_points(n, 5).iter().map(|v| 1.0 + v.abs()).collect(),
    ]
    .concat();
    let f = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let y = vector_from(c.take(n));
        let x = matrix_from(n, k, c.take(n * k));
        let a = vector_from(c.take(n));
        let b = vector_from(c.take(k));
        let s = vector_from(c.take(n));
        normal_id_glm_lpdf(&y, &x, &a, &b, &s, false).unwrap()
    };
    check_directional(f, &x0, 3, GradCheck::default());
}

// ---------------------------------------------------------------------------------------------
// bernoulli_logit_glm_lpmf, poisson_log_glm_lpmf, binomial_logit_glm_lpmf: y integer; x, α, β

const YB: [i64; 4] = [1, 0, 0, 1];
const YP: [i64; 4] = [3, 0, 1, 7];
const TRIALS: [i64; 4] = [5, 2, 1, 9];

#[test]
fn bernoulli_logit_glm_every_mix_and_composed() {
    let mu = eta(&X, &BETA, &ALPHA);
    let expected: f64 = bernoulli_logit_lpmf(&YB[..], &mu[..], false).unwrap();
    check_mixes(&[&X, &ALPHA, &BETA], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 1 => &vector_from(c.take(N)); &vector(&ALPHA),
            beta: 2 => &vector_from(c.take(K)); &vector(&BETA),
        ] {
            bernoulli_logit_glm_lpmf(&YB[..], x, alpha, beta, false).unwrap().into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        let a = c.take(1)[0];
        (x, a, vector_from(c.take(K)))
    };
    check_agree(
        |v| {
            let (x, a, b) = split(v);
            bernoulli_logit_glm_lpmf(&YB[..], &x, a, &b, false).unwrap()
        },
        |v| {
            let (x, a, b) = split(v);
            let mu = add_scalar(&multiply(&x, &b).unwrap(), a);
            bernoulli_logit_lpmf(&YB[..], &mu, false).unwrap()
        },
        &[&X[..], &[0.3], &BETA].concat(),
    );
}

#[test]
fn bernoulli_logit_glm_far_tails_and_scalar_y_with_row_vector() {
    // |η| of hundreds: log inv_logit stays finite and accurate.
    let x = matrix(2, 1, &[300.0, -300.0]);
    let lp: f64 = bernoulli_logit_glm_lpmf(&[0i64, 0][..], &x, 0.0, &[1.0][..], false).unwrap();
    assert_close(lp, -300.0 - (-300f64).exp(), 1e-15);
    check_gradient(
        |v| bernoulli_logit_glm_lpmf(&[0i64, 1][..], &x, v[0], &v[1..], false).unwrap(),
        &[&[0.0, 0.1], &[0.5, -0.08]],
    );
    // A scalar y broadcasts over the rows of x; with a row vector x, N is y's size (1).
    let xr = [0.4, -0.2, 1.0];
    let one: f64 = bernoulli_logit_glm_lpmf(1i64, &row(&xr), 0.1, &BETA[..], false).unwrap();
    let e: f64 = 0.1 + 0.28 + 0.08 + 0.25;
    assert_close(one, -(1.0 + (-e).exp()).ln(), 1e-15);
    let all: f64 =
        bernoulli_logit_glm_lpmf(1i64, &matrix(N, K, &X), 0.1, &BETA[..], false).unwrap();
    let mu = eta(&X, &BETA, &[0.1]);
    assert_close(
        all,
        bernoulli_logit_lpmf(1i64, &mu[..], false).unwrap(),
        1e-14,
    );
}

#[test]
fn poisson_log_glm_every_mix_composed_and_propto() {
    let mu = eta(&X, &BETA, &ALPHA);
    let expected: f64 = poisson_log_lpmf(&YP[..], &mu[..], false).unwrap();
    check_mixes(&[&X, &ALPHA, &BETA], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 1 => &vector_from(c.take(N)); &vector(&ALPHA),
            beta: 2 => &vector_from(c.take(K)); &vector(&BETA),
        ] {
            poisson_log_glm_lpmf(&YP[..], x, alpha, beta, false).unwrap().into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        (x, vector_from(c.take(N)), vector_from(c.take(K)))
    };
    check_agree(
        |v| {
            let (x, a, b) = split(v);
            poisson_log_glm_lpmf(&YP[..], &x, &a, &b, false).unwrap()
        },
        |v| {
            let (x, a, b) = split(v);
            let mu = add(&multiply(&x, &b).unwrap(), &a).unwrap();
            poisson_log_lpmf(&YP[..], &mu, false).unwrap()
        },
        &[&X[..], &ALPHA, &BETA].concat(),
    );
    // propto drops Σ log yᵢ!.
    let a = Var::new(0.1);
    let lp = poisson_log_glm_lpmf(&YP[..], &matrix(N, K, &X), a, &BETA[..], false).unwrap();
    let pp = poisson_log_glm_lpmf(&YP[..], &matrix(N, K, &X), a, &BETA[..], true).unwrap();
    let log_fact: f64 = YP
        .iter()
        .map(|&y| revad::special::gamma::lgamma(y as f64 + 1.0))
        .sum();
    assert_close(lp.value() - pp.value(), -log_fact, 1e-13);
    let z: f64 = poisson_log_glm_lpmf(&YP[..], &matrix(N, K, &X), 0.1, &BETA[..], true).unwrap();
    assert_eq!(z, 0.0);
    tape::reset();
}

#[test]
fn binomial_logit_glm_every_mix_composed_and_propto() {
    let mu = eta(&X, &BETA, &ALPHA);
    let expected: f64 = binomial_logit_lpmf(&YP[..], &TRIALS[..], &mu[..], false).unwrap();
    check_mixes(&[&X, &ALPHA, &BETA], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 1 => &vector_from(c.take(N)); &vector(&ALPHA),
            beta: 2 => &vector_from(c.take(K)); &vector(&BETA),
        ] {
            binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], x, alpha, beta, false)
                .unwrap()
                .into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        (x, c.take(1)[0], vector_from(c.take(K)))
    };
    check_agree(
        |v| {
            let (x, a, b) = split(v);
            binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &x, a, &b, false).unwrap()
        },
        |v| {
            let (x, a, b) = split(v);
            let mu = add_scalar(&multiply(&x, &b).unwrap(), a);
            binomial_logit_lpmf(&YP[..], &TRIALS[..], &mu, false).unwrap()
        },
        &[&X[..], &[-0.2], &BETA].concat(),
    );
    // propto drops Σ log C(N, n).
    let a = Var::new(0.1);
    let x = matrix(N, K, &X);
    let lp = binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &x, a, &BETA[..], false).unwrap();
    let pp = binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &x, a, &BETA[..], true).unwrap();
    let coef: f64 = (0..N)
        .map(|i| revad::special::gamma::binomial_coefficient_log(TRIALS[i] as f64, YP[i] as f64))
        .sum();
    assert_close(lp.value() - pp.value(), coef, 1e-13);
    tape::reset();
    // A row vector x with scalar counts and a vector intercept: N = the intercept's size.
    let xr = [0.4, -0.2, 1.0];
    let got: f64 =
        binomial_logit_glm_lpmf(2i64, 5i64, &row(&xr), &ALPHA[..], &BETA[..], false).unwrap();
    let mu = eta(&[xr, xr, xr, xr].concat(), &BETA, &ALPHA);
    let want: f64 = binomial_logit_lpmf(2i64, 5i64, &mu[..], false).unwrap();
    assert_close(got, want, 1e-14);
    check_gradient(
        |v| {
            binomial_logit_glm_lpmf(
                2i64,
                5i64,
                &row_vector_from(&v[..K]),
                &ALPHA[..],
                &v[K..],
                false,
            )
            .unwrap()
        },
        &[&[&xr[..], &BETA].concat()],
    );
}

// ---------------------------------------------------------------------------------------------
// neg_binomial_2_log_glm_lpmf

const PHI: [f64; 4] = [1.5, 0.7, 12.0, 3.0];

#[test]
fn neg_binomial_2_log_glm_every_mix_and_composed() {
    let mu = eta(&X, &BETA, &ALPHA);
    let expected: f64 = neg_binomial_2_log_lpmf(&YP[..], &mu[..], &PHI[..], false).unwrap();
    check_mixes(&[&X, &ALPHA, &BETA, &PHI], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 1 => &vector_from(c.take(N)); &vector(&ALPHA),
            beta: 2 => &vector_from(c.take(K)); &vector(&BETA),
            phi: 3 => &vector_from(c.take(N)); &vector(&PHI),
        ] {
            neg_binomial_2_log_glm_lpmf(&YP[..], x, alpha, beta, phi, false)
                .unwrap()
                .into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        (x, c.take(1)[0], vector_from(c.take(K)), c.take(1)[0])
    };
    check_agree(
        |v| {
            let (x, a, b, p) = split(v);
            neg_binomial_2_log_glm_lpmf(&YP[..], &x, a, &b, p, false).unwrap()
        },
        |v| {
            let (x, a, b, p) = split(v);
            let mu = add_scalar(&multiply(&x, &b).unwrap(), a);
            neg_binomial_2_log_lpmf(&YP[..], &mu, p, false).unwrap()
        },
        &[&X[..], &[0.4], &BETA, &[2.5]].concat(),
    );
    // A large precision and |η| of tens stay finite.
    check_gradient(
        |v| {
            neg_binomial_2_log_glm_lpmf(&YP[..], &matrix(N, K, &X), v[0], &BETA[..], v[1], false)
                .unwrap()
        },
        &[&[20.0, 1e4], &[-15.0, 0.05]],
    );
}

#[test]
fn neg_binomial_2_log_glm_propto_drops_stans_terms() {
    let x = matrix(N, K, &X);
    let log_fact: f64 = YP
        .iter()
        .map(|&y| revad::special::gamma::lgamma(y as f64 + 1.0))
        .sum();
    let phi_terms: f64 = (0..N)
        .map(|i| {
            let (p, y) = (PHI[i], YP[i] as f64);
            p * p.ln() + revad::special::gamma::lgamma(y + p) - revad::special::gamma::lgamma(p)
        })
        .sum();
    let mu = eta(&X, &BETA, &ALPHA);
    let y_eta: f64 = (0..N).map(|i| YP[i] as f64 * mu[i]).sum();
    // β variable, φ data: ln y!, φ log φ + ln Γ(y + φ) − ln Γ(φ) dropped.
    let b = vector_from(&BETA.map(Var::new));
    let lp = neg_binomial_2_log_glm_lpmf(&YP[..], &x, &ALPHA[..], &b, &PHI[..], false).unwrap();
    let pp = neg_binomial_2_log_glm_lpmf(&YP[..], &x, &ALPHA[..], &b, &PHI[..], true).unwrap();
    assert_close(lp.value() - pp.value(), -log_fact + phi_terms, 1e-12);
    // φ variable, the linear predictor data: ln y! and y·η dropped.
    let p = vector_from(&PHI.map(Var::new));
    let pp = neg_binomial_2_log_glm_lpmf(&YP[..], &x, &ALPHA[..], &BETA[..], &p, true).unwrap();
    assert_close(lp.value() - pp.value(), -log_fact + y_eta, 1e-12);
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// ordered_logistic_glm_lpmf

const YO: [i64; 4] = [1, 4, 2, 3];
const CUTS: [f64; 3] = [-0.8, 0.1, 0.9];

#[test]
fn ordered_logistic_glm_every_mix_and_composed() {
    let loc = eta(&X, &BETA, &[0.0]);
    let expected: f64 = ordered_logistic_lpmf(&YO[..], &loc[..], &CUTS[..], false).unwrap();
    check_mixes(&[&X, &BETA, &CUTS], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            beta: 1 => &vector_from(c.take(K)); &vector(&BETA),
            cuts: 2 => &vector_from(c.take(3)); &vector(&CUTS),
        ] {
            ordered_logistic_glm_lpmf(&YO[..], x, beta, cuts, false).unwrap().into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        (x, vector_from(c.take(K)), vector_from(c.take(3)))
    };
    check_agree(
        |v| {
            let (x, b, cu) = split(v);
            ordered_logistic_glm_lpmf(&YO[..], &x, &b, &cu, false).unwrap()
        },
        |v| {
            let (x, b, cu) = split(v);
            let loc = multiply(&x, &b).unwrap();
            ordered_logistic_lpmf(&YO[..], &loc, &cu, false).unwrap()
        },
        &[&X[..], &BETA, &CUTS].concat(),
    );
    // A scalar outcome, a row vector x, one cut-point (two classes).
    check_gradient(
        |v| {
            ordered_logistic_glm_lpmf(
                2i64,
                &row_vector_from(&v[..K]),
                &v[K..2 * K],
                v[2 * K],
                false,
            )
            .unwrap()
        },
        &[&[0.5, -0.1, 0.3, 0.7, -0.4, 0.25, 0.2]],
    );
    // No cut-points: one class, 0.
    let empty: [f64; 0] = [];
    let z: f64 =
        ordered_logistic_glm_lpmf(1i64, &matrix(N, K, &X), &BETA[..], &empty[..], false).unwrap();
    assert_eq!(z, 0.0);
}

// ---------------------------------------------------------------------------------------------
// categorical_logit_glm_lpmf

const C: usize = 3;
const YC: [i64; 4] = [3, 1, 2, 3];
const BETA_C: [f64; 9] = [0.4, -0.3, 0.0, 0.1, 0.2, -0.5, -0.6, 0.35, 0.15];
const ALPHA_C: [f64; 3] = [0.1, 0.0, -0.2];

fn categorical_reference(x: &[f64], rows: usize) -> f64 {
    (0..YC.len())
        .map(|i| {
            let r = if rows == 1 { 0 } else { i };
            let eta: Vec<f64> = (0..C)
                .map(|c| {
                    ALPHA_C[c]
                        + (0..K)
                            .map(|k| x[r * K + k] * BETA_C[k * C + c])
                            .sum::<f64>()
                })
                .collect();
            categorical_logit_lpmf(YC[i], &eta[..], false).unwrap()
        })
        .sum()
}

#[test]
fn categorical_logit_glm_every_mix_and_composed() {
    let expected = categorical_reference(&X, N);
    check_mixes(&[&X, &ALPHA_C, &BETA_C], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &matrix_from(N, K, c.take(N * K)); &matrix(N, K, &X),
            alpha: 1 => &vector_from(c.take(C)); &vector(&ALPHA_C),
            beta: 2 => &matrix_from(K, C, c.take(K * C)); &matrix(K, C, &BETA_C),
        ] {
            categorical_logit_glm_lpmf(&YC[..], x, alpha, beta, false).unwrap().into_var()
        })
    });
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(N, K, c.take(N * K));
        let a = c.take(C).to_vec();
        (x, a, matrix_from(K, C, c.take(K * C)))
    };
    check_agree(
        |v| {
            let (x, a, b) = split(v);
            categorical_logit_glm_lpmf(&YC[..], &x, &a[..], &b, false).unwrap()
        },
        |v| {
            let (x, a, b) = split(v);
            let lin = multiply(&x, &b).unwrap().to_vars();
            let mut lp = Var::new(0.0);
            for i in 0..N {
                let eta: Vec<Var> = (0..C).map(|c| lin[i * C + c] + a[c]).collect();
                lp += categorical_logit_lpmf(YC[i], &eta[..], false).unwrap();
            }
            lp
        },
        &[&X[..], &ALPHA_C, &BETA_C].concat(),
    );
}

#[test]
fn categorical_logit_glm_row_vector_x() {
    let xr = [0.5, -1.2, 0.3];
    let expected = categorical_reference(&xr, 1);
    check_mixes(&[&xr, &ALPHA_C, &BETA_C], expected, |mask, v| {
        let mut c = Cursor::new(v);
        mix!(mask, [
            x: 0 => &row_vector_from(c.take(K)); &row(&xr),
            alpha: 1 => &vector_from(c.take(C)); &vector(&ALPHA_C),
            beta: 2 => &matrix_from(K, C, c.take(K * C)); &matrix(K, C, &BETA_C),
        ] {
            categorical_logit_glm_lpmf(&YC[..], x, alpha, beta, false).unwrap().into_var()
        })
    });
}

#[test]
fn glm_larger_sizes_along_random_directions() {
    let (n, k) = (50, 6);
    let x0: Vec<f64> = [
        test_points(n * k, 2)
            .iter()
            .map(|v| v * 0.3)
            .collect::<Vec<_>>(),
        test_points(k, 4),
        test_points(n, 3),
    ]
    .concat();
    let y: Vec<i64> = (0..n).map(|i| (i * 7 % 5) as i64).collect();
    let split = |v: &[Var]| {
        let mut c = Cursor::new(v);
        let x = matrix_from(n, k, c.take(n * k));
        (x, vector_from(c.take(k)), vector_from(c.take(n)))
    };
    let bern: Vec<i64> = y.iter().map(|v| v % 2).collect();
    check_directional(
        |v| {
            let (x, b, a) = split(v);
            bernoulli_logit_glm_lpmf(&bern[..], &x, &a, &b, false).unwrap()
        },
        &x0,
        3,
        GradCheck::default(),
    );
    check_directional(
        |v| {
            let (x, b, a) = split(v);
            poisson_log_glm_lpmf(&y[..], &x, &a, &b, false).unwrap()
        },
        &x0,
        3,
        GradCheck::default(),
    );
    let classes: Vec<i64> = y.iter().map(|v| v + 1).collect();
    let cuts = [-1.5, -0.5, 0.5, 1.5];
    check_directional(
        |v| {
            let (x, b, _) = split(v);
            ordered_logistic_glm_lpmf(&classes[..], &x, &b, &cuts[..], false).unwrap()
        },
        &x0,
        3,
        GradCheck::default(),
    );
}

// ---------------------------------------------------------------------------------------------
// Errors

/// The message of a call that must fail.
fn message<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.expect_err("the call must fail").to_string()
}

#[test]
fn normal_id_glm_errors() {
    const F: &str = "normal_id_glm_lpdf";
    let x = matrix(N, K, &X);
    let cases: Vec<(String, &str)> = vec![
        (
            message(normal_id_glm_lpdf(&Y[..3], &x, 0.0, &BETA[..], 1.0, false)),
            "Vector of dependent variables has size 3, but must have size 4",
        ),
        (
            message(normal_id_glm_lpdf(&Y[..], &x, 0.0, &BETA[..2], 1.0, false)),
            "Weight vector has size 2, but must have size 3",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &x,
                0.0,
                &BETA[..],
                &SIGMA[..2],
                false,
            )),
            "Vector of scale parameters has size 2, but must have size 4",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &x,
                &ALPHA[..3],
                &BETA[..],
                1.0,
                false,
            )),
            "Vector of intercepts has size 3, but must have size 4",
        ),
        (
            message(normal_id_glm_lpdf(&Y[..], &x, 0.0, &BETA[..], -1.0, false)),
            "Scale vector is -1, but must be positive finite",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &x,
                0.0,
                &BETA[..],
                f64::INFINITY,
                false,
            )),
            "Scale vector is inf, but must be positive finite",
        ),
        (
            message(normal_id_glm_lpdf(
                &[0.0, f64::NAN, 0.0, 0.0][..],
                &x,
                0.0,
                &BETA[..],
                1.0,
                false,
            )),
            "Vector of dependent variables is NaN, but must be finite",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &x,
                0.0,
                &[0.0, f64::INFINITY, 0.0][..],
                1.0,
                false,
            )),
            "Weight vector is inf, but must be finite",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &x,
                f64::NEG_INFINITY,
                &BETA[..],
                1.0,
                false,
            )),
            "Intercept is -inf, but must be finite",
        ),
        (
            message(normal_id_glm_lpdf(
                &Y[..],
                &matrix(N, K, &[&X[..11], &[f64::NAN]].concat()),
                0.0,
                &BETA[..],
                1.0,
                false,
            )),
            "Matrix of independent variables is NaN, but must be finite",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, format!("{F}: {want}"));
    }
    // A row-vector x takes its N from y: a vector intercept of another size fails.
    assert_eq!(
        message(normal_id_glm_lpdf(
            &Y[..],
            &row(&BETA),
            &ALPHA[..2],
            &BETA[..],
            1.0,
            false
        )),
        format!("{F}: Vector of intercepts has size 2, but must have size 4")
    );
}

#[test]
fn integer_glm_errors() {
    let x = matrix(N, K, &X);
    let bad_x = matrix(N, K, &[&X[..5], &[f64::INFINITY], &X[6..]].concat());
    let checks: Vec<(String, &str)> = vec![
        (
            message(bernoulli_logit_glm_lpmf(&YB[..3], &x, 0.0, &BETA[..], false)),
            "bernoulli_logit_glm_lpmf: Vector of dependent variables has size 3, but must have size 4",
        ),
        (
            message(bernoulli_logit_glm_lpmf(&YB[..], &x, 0.0, &BETA[..1], false)),
            "bernoulli_logit_glm_lpmf: Weight vector has size 1, but must have size 3",
        ),
        (
            message(bernoulli_logit_glm_lpmf(&YB[..], &x, &ALPHA[..1], &BETA[..], false)),
            "bernoulli_logit_glm_lpmf: Vector of intercepts has size 1, but must have size 4",
        ),
        (
            message(bernoulli_logit_glm_lpmf(&[0i64, 2, 1, 0][..], &x, 0.0, &BETA[..], false)),
            "bernoulli_logit_glm_lpmf: Vector of dependent variables is 2, but must be in the interval [0, 1]",
        ),
        (
            message(bernoulli_logit_glm_lpmf(&YB[..], &x, 0.0, &[f64::NAN, 0.0, 0.0][..], false)),
            "bernoulli_logit_glm_lpmf: Weight vector is NaN, but must be finite",
        ),
        (
            message(bernoulli_logit_glm_lpmf(&YB[..], &x, f64::INFINITY, &BETA[..], false)),
            "bernoulli_logit_glm_lpmf: Intercept is inf, but must be finite",
        ),
        (
            // η₂ = +∞ with y₂ = 0: sη = −∞.
            message(bernoulli_logit_glm_lpmf(&YB[..], &bad_x, 0.0, &BETA[..], false)),
            "bernoulli_logit_glm_lpmf: Matrix of independent variables is -inf, but must be finite",
        ),
        (
            message(poisson_log_glm_lpmf(&YP[..], &x, 0.0, &BETA[..2], false)),
            "poisson_log_glm_lpmf: Weight vector has size 2, but must have size 3",
        ),
        (
            message(poisson_log_glm_lpmf(&[1i64, -1, 0, 0][..], &x, 0.0, &BETA[..], false)),
            "poisson_log_glm_lpmf: Vector of dependent variables is -1, but must be nonnegative",
        ),
        (
            message(poisson_log_glm_lpmf(&YP[..], &x, f64::NAN, &BETA[..], false)),
            "poisson_log_glm_lpmf: Intercept is NaN, but must be finite",
        ),
        (
            message(poisson_log_glm_lpmf(&YP[..], &bad_x, 0.0, &BETA[..], false)),
            "poisson_log_glm_lpmf: Matrix of independent variables is inf, but must be finite",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&YP[..], &x, 0.0, &BETA[..], &PHI[..3], false)),
            "neg_binomial_2_log_glm_lpmf: Vector of precision parameters has size 3, but must have size 4",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&YP[..], &x, 0.0, &[0.0, f64::INFINITY, 0.0][..], 1.0, false)),
            "neg_binomial_2_log_glm_lpmf: Weight vector is inf, but must be finite",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&YP[..], &x, f64::NAN, &BETA[..], 1.0, false)),
            "neg_binomial_2_log_glm_lpmf: Intercept is NaN, but must be finite",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&[0i64, -2, 0, 0][..], &x, 0.0, &BETA[..], 1.0, false)),
            "neg_binomial_2_log_glm_lpmf: Failures variables is -2, but must be nonnegative",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&YP[..], &x, 0.0, &BETA[..], 0.0, false)),
            "neg_binomial_2_log_glm_lpmf: Precision parameter is 0, but must be positive finite",
        ),
        (
            message(neg_binomial_2_log_glm_lpmf(&YP[..], &bad_x, 0.0, &BETA[..], 1.0, false)),
            "neg_binomial_2_log_glm_lpmf: Matrix of independent variables is inf, but must be finite",
        ),
        (
            message(binomial_logit_glm_lpmf(&YP[..3], &TRIALS[..], &x, 0.0, &BETA[..], false)),
            "binomial_logit_glm_lpmf: Successes variable has size 3, but must have size 4",
        ),
        (
            message(binomial_logit_glm_lpmf(&YP[..], &TRIALS[..3], &x, 0.0, &BETA[..], false)),
            "binomial_logit_glm_lpmf: Population size parameter has size 3, but must have size 4",
        ),
        (
            message(binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &x, &ALPHA[..2], &BETA[..], false)),
            "binomial_logit_glm_lpmf: Vector of intercepts has size 2, but must have size 4",
        ),
        (
            message(binomial_logit_glm_lpmf(&[3i64, 3, 0, 0][..], &TRIALS[..], &x, 0.0, &BETA[..], false)),
            "binomial_logit_glm_lpmf: Successes variable is 3, but must be in the interval [0, 2]",
        ),
        (
            message(binomial_logit_glm_lpmf(&[0i64, 0, 0, 0][..], &[1i64, -1, 1, 1][..], &x, 0.0, &BETA[..], false)),
            "binomial_logit_glm_lpmf: Successes variable is 0, but must be in the interval [0, -1]",
        ),
        (
            message(binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &bad_x, 0.0, &BETA[..], false)),
            "binomial_logit_glm_lpmf: Matrix of independent variables is inf, but must be finite",
        ),
        (
            message(ordered_logistic_glm_lpmf(&YO[..], &x, &BETA[..], &[0.5, 0.5, 1.0][..], false)),
            "ordered_logistic_glm_lpmf: Cut-points is 0.5, but must be greater than the previous element (an ordered vector)",
        ),
        (
            message(ordered_logistic_glm_lpmf(&[1i64, 5, 1, 1][..], &x, &BETA[..], &CUTS[..], false)),
            "ordered_logistic_glm_lpmf: Vector of dependent variables is 5, but must be in the interval [1, 4]",
        ),
        (
            message(ordered_logistic_glm_lpmf(&[1i64, 2, 3, 1][..], &x, &BETA[..], &[-1.0, f64::INFINITY][..], false)),
            "ordered_logistic_glm_lpmf: Final cut-point is inf, but must be finite",
        ),
        (
            message(ordered_logistic_glm_lpmf(&[1i64, 2, 1, 1][..], &x, &BETA[..], f64::NEG_INFINITY, false)),
            "ordered_logistic_glm_lpmf: First cut-point is -inf, but must be finite",
        ),
        (
            message(ordered_logistic_glm_lpmf(&YO[..], &x, &[0.0, f64::NAN, 0.0][..], &CUTS[..], false)),
            "ordered_logistic_glm_lpmf: Weight vector is NaN, but must be finite",
        ),
        (
            message(ordered_logistic_glm_lpmf(&YO[..], &bad_x, &BETA[..], &CUTS[..], false)),
            "ordered_logistic_glm_lpmf: Matrix of independent variables is inf, but must be finite",
        ),
        (
            message(ordered_logistic_glm_lpmf(&YO[..2], &x, &BETA[..], &CUTS[..], false)),
            "ordered_logistic_glm_lpmf: Vector of dependent variables has size 2, but must have size 4",
        ),
    ];
    for (got, want) in checks {
        assert_eq!(got, want);
    }
}

#[test]
fn categorical_logit_glm_errors() {
    const F: &str = "categorical_logit_glm_lpmf";
    let (x, beta) = (matrix(N, K, &X), matrix(K, C, &BETA_C));
    let cases: Vec<(String, &str)> = vec![
        (
            message(categorical_logit_glm_lpmf(
                &YC[..2],
                &x,
                &ALPHA_C[..],
                &beta,
                false,
            )),
            "Vector of dependent variables has size 2, but must have size 4",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &YC[..],
                &x,
                &ALPHA_C[..2],
                &beta,
                false,
            )),
            "Intercept vector has size 2, but must have size 3",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &YC[..],
                &x,
                &ALPHA_C[..],
                &matrix(2, C, &BETA_C[..6]),
                false,
            )),
            "beta.rows() has size 2, but must have size 3",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &[1i64, 4, 1, 1][..],
                &x,
                &ALPHA_C[..],
                &beta,
                false,
            )),
            "categorical outcome out of support is 4, but must be in the interval [1, 3]",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &[1i64, 0, 1, 1][..],
                &x,
                &ALPHA_C[..],
                &beta,
                false,
            )),
            "categorical outcome out of support is 0, but must be in the interval [1, 3]",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &YC[..],
                &x,
                &ALPHA_C[..],
                &matrix(K, C, &[&BETA_C[..8], &[f64::NAN]].concat()),
                false,
            )),
            "Weight vector is NaN, but must be finite",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &YC[..],
                &x,
                &[0.0, f64::INFINITY, 0.0][..],
                &beta,
                false,
            )),
            "Intercept is inf, but must be finite",
        ),
        (
            message(categorical_logit_glm_lpmf(
                &YC[..],
                &matrix(N, K, &[&X[..5], &[f64::INFINITY], &X[6..]].concat()),
                &ALPHA_C[..],
                &beta,
                false,
            )),
            "Matrix of independent variables is inf, but must be finite",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, format!("{F}: {want}"));
    }
    // One class: 0, whatever the outcomes' values.
    let z: f64 =
        categorical_logit_glm_lpmf(&[7i64][..], &row(&BETA), 0.0, &matrix(K, 1, &BETA), false)
            .unwrap();
    assert_eq!(z, 0.0);
}

#[test]
fn empty_observations_give_zero() {
    let none: [f64; 0] = [];
    let nint: [i64; 0] = [];
    let x = matrix(0, K, &[]);
    let a: f64 = normal_id_glm_lpdf(&none[..], &x, 0.0, &BETA[..], 1.0, false).unwrap();
    let b: f64 = bernoulli_logit_glm_lpmf(&nint[..], &x, 0.0, &BETA[..], false).unwrap();
    let c: f64 = poisson_log_glm_lpmf(&nint[..], &x, 0.0, &BETA[..], false).unwrap();
    let d: f64 = neg_binomial_2_log_glm_lpmf(&nint[..], &x, 0.0, &BETA[..], 1.0, false).unwrap();
    let e: f64 = binomial_logit_glm_lpmf(&nint[..], &nint[..], &x, 0.0, &BETA[..], false).unwrap();
    let f: f64 = ordered_logistic_glm_lpmf(&nint[..], &x, &BETA[..], &CUTS[..], false).unwrap();
    let g: f64 =
        categorical_logit_glm_lpmf(&nint[..], &x, &ALPHA_C[..], &matrix(K, C, &BETA_C), false)
            .unwrap();
    assert_eq!([a, b, c, d, e, f, g], [0.0; 7]);
}

#[test]
fn densities_without_constants_ignore_propto_and_data_only_propto_is_zero() {
    let x = matrix(N, K, &X);
    let b = vector_from(&BETA.map(Var::new));
    let pairs = [
        (
            bernoulli_logit_glm_lpmf(&YB[..], &x, 0.1, &b, false).unwrap(),
            bernoulli_logit_glm_lpmf(&YB[..], &x, 0.1, &b, true).unwrap(),
        ),
        (
            ordered_logistic_glm_lpmf(&YO[..], &x, &b, &CUTS[..], false).unwrap(),
            ordered_logistic_glm_lpmf(&YO[..], &x, &b, &CUTS[..], true).unwrap(),
        ),
    ];
    for (lp, pp) in pairs {
        assert_eq!(lp.value(), pp.value());
    }
    let a = vector_from(&ALPHA_C.map(Var::new));
    let beta = matrix(K, C, &BETA_C);
    let lp = categorical_logit_glm_lpmf(&YC[..], &x, &a, &beta, false).unwrap();
    let pp = categorical_logit_glm_lpmf(&YC[..], &x, &a, &beta, true).unwrap();
    assert_eq!(lp.value(), pp.value());
    let zeros: [f64; 6] = [
        bernoulli_logit_glm_lpmf(&YB[..], &x, 0.1, &BETA[..], true).unwrap(),
        poisson_log_glm_lpmf(&YP[..], &x, 0.1, &BETA[..], true).unwrap(),
        neg_binomial_2_log_glm_lpmf(&YP[..], &x, 0.1, &BETA[..], 2.0, true).unwrap(),
        binomial_logit_glm_lpmf(&YP[..], &TRIALS[..], &x, 0.1, &BETA[..], true).unwrap(),
        ordered_logistic_glm_lpmf(&YO[..], &x, &BETA[..], &CUTS[..], true).unwrap(),
        categorical_logit_glm_lpmf(&YC[..], &x, &ALPHA_C[..], &beta, true).unwrap(),
    ];
    assert_eq!(zeros, [0.0; 6]);
    tape::reset();
}

#[test]
fn a_column_major_design_matrix_is_read_in_its_logical_order() {
    use ndarray::ShapeBuilder;
    let column_major: Vec<f64> = (0..K)
        .flat_map(|j| (0..N).map(move |i| X[i * K + j]))
        .collect();
    let xf = Array2::from_shape_vec((N, K).f(), column_major)
        .unwrap()
        .into_shared();
    assert!(!xf.is_standard_layout());
    let want: f64 =
        normal_id_glm_lpdf(&Y[..], &matrix(N, K, &X), &ALPHA[..], &BETA[..], 1.3, false).unwrap();
    let got: f64 = normal_id_glm_lpdf(&Y[..], &xf, &ALPHA[..], &BETA[..], 1.3, false).unwrap();
    assert_close(got, want, 1e-14);
    let beta = matrix(K, C, &BETA_C);
    let want: f64 =
        categorical_logit_glm_lpmf(&YC[..], &matrix(N, K, &X), &ALPHA_C[..], &beta, false).unwrap();
    let got: f64 = categorical_logit_glm_lpmf(&YC[..], &xf, &ALPHA_C[..], &beta, false).unwrap();
    assert_close(got, want, 1e-14);
}
