//! The Gaussian dynamic linear model: values against the multivariate normal of the stacked
//! observations (their mean and covariance written out from the state recursion, the density
//! with nalgebra's Cholesky factor), the sequential (vector V) filter against the full one,
//! gradients against finite differences for every data/variable mix of the seven operands,
//! directional checks with 30 observations or 30 states, `propto`, Stan's error messages.

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector};
use ndarray::Array1;
use revad::matrix::Operand;
use revad::prob::gaussian_dlm_obs_lpdf;
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, matrix_from, spd_from,
    test_points, vector_from, GradCheck,
};
use revad::{tape, Matrix, Var, Vector};

const LOG_TWO_PI: f64 = 1.837_877_066_409_345_5;

fn vector(x: &[f64]) -> Vector {
    Array1::from(x.to_vec()).into_shared()
}

fn na(a: &Matrix) -> DMatrix<f64> {
    DMatrix::from_row_slice(a.nrows(), a.ncols(), a.as_slice().unwrap())
}

/// A k×k SPD matrix XXᵀ/k + I/2 from `test_points`.
fn spd(k: usize, seed: u64) -> Matrix {
    let x = data_matrix(k, k, &test_points(k * k, seed));
    let mut a = x.dot(&x.t()) / k as f64;
    for i in 0..k {
        a[[i, i]] += 0.5;
    }
    a.into_shared()
}

/// The system of a test case: y (r×T), F (n×r), G (n×n), V (r×r), W, m0, C0.
struct System {
    y: Matrix,
    f: Matrix,
    g: Matrix,
    v: Matrix,
    w: Matrix,
    m0: Vector,
    c0: Matrix,
}

fn system(r: usize, n: usize, t: usize, seed: u64) -> System {
    let scale = 1.0 / (n as f64).sqrt();
    System {
        y: data_matrix(r, t, &test_points(r * t, seed)),
        f: data_matrix(n, r, &test_points(n * r, seed + 1)),
        g: data_matrix(
            n,
            n,
            &test_points(n * n, seed + 2)
                .iter()
                .map(|x| 0.4 * x * scale)
                .collect::<Vec<_>>(),
        ),
        v: spd(r, seed + 3),
        w: spd(n, seed + 4),
        m0: vector(&test_points(n, seed + 5)),
        c0: spd(n, seed + 6),
    }
}

/// log N(vec y | μ, Σ) of the stacked observations: E yₜ = FᵀGᵗm₀, Cov(yₜ, yₛ) =
/// FᵀGᵗ⁻ˢPₛF + δₜₛV for t ≥ s, Pₛ = GPₛ₋₁Gᵀ + W, P₀ = C₀.
fn reference(s: &System) -> f64 {
    let (y, f, g, v, w, c0) = (na(&s.y), na(&s.f), na(&s.g), na(&s.v), na(&s.w), na(&s.c0));
    let (r, t_len) = y.shape();
    let m0 = DVector::from_column_slice(s.m0.as_slice().unwrap());
    let mut p = Vec::new();
    let mut mean = Vec::new();
    let (mut pt, mut mt) = (c0, m0);
    for _ in 0..t_len {
        pt = &g * &pt * g.transpose() + &w;
        mt = &g * &mt;
        p.push(pt.clone());
        mean.push(f.transpose() * &mt);
    }
    let big = r * t_len;
    let mut sigma = DMatrix::zeros(big, big);
    let mut mu = DVector::zeros(big);
    for (t, mean_t) in mean.iter().enumerate() {
        mu.rows_mut(t * r, r).copy_from(mean_t);
        for (s_, p_s) in p.iter().enumerate().take(t + 1) {
            let mut gp = p_s.clone();
            for _ in s_..t {
                gp = &g * gp;
            }
            let mut block = f.transpose() * gp * &f;
            if s_ == t {
                block += &v;
            }
            sigma.view_mut((t * r, s_ * r), (r, r)).copy_from(&block);
            sigma
                .view_mut((s_ * r, t * r), (r, r))
                .copy_from(&block.transpose());
        }
    }
    let mut yy = DVector::zeros(big);
    for t in 0..t_len {
        for j in 0..r {
            yy[t * r + j] = y[(j, t)];
        }
    }
    let chol = sigma.cholesky().expect("positive definite");
    let d = yy - mu;
    let z = chol.l().solve_lower_triangular(&d).unwrap();
    let log_det: f64 = 2.0 * chol.l().diagonal().iter().map(|x| x.ln()).sum::<f64>();
    -0.5 * (big as f64 * LOG_TWO_PI + log_det + z.dot(&z))
}

fn diagonal(v: &Matrix) -> Vector {
    vector(&(0..v.nrows()).map(|i| v[[i, i]]).collect::<Vec<_>>())
}

fn dlm(s: &System, propto: bool) -> f64 {
    gaussian_dlm_obs_lpdf(&s.y, &s.f, &s.g, &s.v, &s.w, &s.m0, &s.c0, propto)
        .unwrap()
        .value()
}

fn dlm_diag(s: &System, propto: bool) -> f64 {
    let v = diagonal(&s.v);
    gaussian_dlm_obs_lpdf(&s.y, &s.f, &s.g, &v, &s.w, &s.m0, &s.c0, propto)
        .unwrap()
        .value()
}

#[test]
fn values_match_the_stacked_multivariate_normal() {
    for (r, n, t) in [
        (1, 1, 1),
        (1, 1, 4),
        (2, 3, 4),
        (3, 2, 5),
        (5, 1, 2),
        (1, 5, 3),
    ] {
        let mut s = system(r, n, t, 7);
        let want = reference(&s);
        assert_close(dlm(&s, false), want, 1e-11 * want.abs().max(1.0));
        // The vector form is the filter of a diagonal V.
        let v = diagonal(&s.v);
        s.v = data_matrix(r, r, &vec![0.0; r * r]);
        for j in 0..r {
            s.v[[j, j]] = v[j];
        }
        let want = reference(&s);
        assert_close(dlm(&s, false), want, 1e-11 * want.abs().max(1.0));
        assert_close(dlm_diag(&s, false), want, 1e-11 * want.abs().max(1.0));
    }
    // Singular but semi-definite W and C0 (a state that does not move) are allowed.
    let mut s = system(2, 2, 3, 9);
    s.w = data_matrix(2, 2, &[1.0, 1.0, 1.0, 1.0]);
    s.c0 = data_matrix(2, 2, &[0.0; 4]);
    let want = reference(&s);
    assert_close(dlm(&s, false), want, 1e-11 * want.abs());
    tape::reset();
}

/// A matrix operand that is data or a variable, chosen at run time.
enum Either {
    Data(Matrix),
    Var(Var<Matrix>),
}

impl Operand<Matrix> for Either {
    fn value(&self) -> Cow<'_, Matrix> {
        match self {
            Either::Data(m) => m.value(),
            Either::Var(v) => Operand::value(v),
        }
    }
    fn key(&self) -> Option<u64> {
        match self {
            Either::Data(m) => m.key(),
            Either::Var(v) => Operand::key(v),
        }
    }
}

/// A vector operand that is data or a variable.
enum EitherV {
    Data(Vector),
    Var(Var<Vector>),
}

impl Operand<Vector> for EitherV {
    fn value(&self) -> Cow<'_, Vector> {
        match self {
            EitherV::Data(m) => m.value(),
            EitherV::Var(v) => Operand::value(v),
        }
    }
    fn key(&self) -> Option<u64> {
        match self {
            EitherV::Data(m) => m.key(),
            EitherV::Var(v) => Operand::key(v),
        }
    }
}

/// The operands' parameters, in order: y, F, G, V (X of XXᵀ + I, or log variances), W (X of
/// XXᵀ + I), m0, C0 (X of XXᵀ + I).
fn sizes(r: usize, n: usize, t: usize, diag: bool) -> [usize; 7] {
    [
        r * t,
        n * r,
        n * n,
        if diag { r } else { r * r },
        n * n,
        n,
        n * n,
    ]
}

fn params(r: usize, n: usize, t: usize, diag: bool, seed: u64) -> Vec<Vec<f64>> {
    let scale = 0.5 / (n as f64).sqrt();
    sizes(r, n, t, diag)
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let x = test_points(len, seed + i as u64);
            match i {
                2 => x.iter().map(|v| v * scale).collect(),
                3 | 4 | 6 => x.iter().map(|v| v * 0.3).collect(),
                _ => x,
            }
        })
        .collect()
}

/// The density with operand i a variable (its parameters taken from `v` in order) when bit i
/// of `mask` is set, data (from `p`) otherwise.
fn dlm_of(r: usize, n: usize, t: usize, diag: bool, mask: u32, p: &[Vec<f64>], v: &[Var]) -> Var {
    let mut at = 0;
    let mut part = |i: usize| -> Vec<Var> {
        if mask & (1 << i) != 0 {
            let s = v[at..at + p[i].len()].to_vec();
            at += p[i].len();
            s
        } else {
            p[i].iter().map(|&x| Var::new(x)).collect()
        }
    };
    let parts: Vec<Vec<Var>> = (0..7).map(&mut part).collect();
    let is_var = |i: usize| mask & (1 << i) != 0;
    let mat = |i: usize, built: Var<Matrix>| {
        if is_var(i) {
            Either::Var(built)
        } else {
            Either::Data(built.value().clone())
        }
    };
    let y = mat(0, matrix_from(r, t, &parts[0]));
    let f = mat(1, matrix_from(n, r, &parts[1]));
    let g = mat(2, matrix_from(n, n, &parts[2]));
    let w = mat(4, spd_from(n, &parts[4]));
    let m0 = if is_var(5) {
        EitherV::Var(vector_from(&parts[5]))
    } else {
        EitherV::Data(vector(&p[5]))
    };
    let c0 = mat(6, spd_from(n, &parts[6]));
    let lp = if diag {
        let vars: Vec<Var> = parts[3].iter().map(|&x| revad::exp(x)).collect();
        let vv = vector_from(&vars);
        if is_var(3) {
            gaussian_dlm_obs_lpdf(&y, &f, &g, &vv, &w, &m0, &c0, false)
        } else {
            let vd = vv.value().clone();
            gaussian_dlm_obs_lpdf(&y, &f, &g, &vd, &w, &m0, &c0, false)
        }
    } else {
        let vm = mat(3, spd_from(r, &parts[3]));
        gaussian_dlm_obs_lpdf(&y, &f, &g, &vm, &w, &m0, &c0, false)
    };
    lp.unwrap() + v.iter().fold(Var::new(0.0), |a, &b| a + b * 0.0)
}

/// Every data/variable mix of (y, F, G, V, W, m0, C0), matrix and vector V.
#[test]
fn every_mix_of_data_and_variables() {
    let (r, n, t) = (2, 2, 3);
    for diag in [false, true] {
        let p = params(r, n, t, diag, 11);
        for mask in 1..128u32 {
            let x: Vec<f64> = (0..7)
                .filter(|i| mask & (1 << i) != 0)
                .flat_map(|i| p[i].iter().copied())
                .collect();
            check_gradient(|v| dlm_of(r, n, t, diag, mask, &p, v), &[&x]);
        }
        // All data: a constant with the same value.
        let xs: Vec<Var> = p.concat().iter().map(|&x| Var::new(x)).collect();
        let all = dlm_of(r, n, t, diag, 127, &p, &xs);
        let none = dlm_of(r, n, t, diag, 0, &p, &[]);
        assert_close(none.value(), all.value(), 1e-13 * all.value().abs());
    }
    tape::reset();
}

/// All seven operands variables, at other shapes (one state, one observation, more of each).
#[test]
fn gradients_match_finite_differences() {
    for (r, n, t) in [(1, 1, 1), (1, 1, 5), (3, 1, 2), (1, 3, 3), (3, 2, 4)] {
        for diag in [false, true] {
            let p = params(r, n, t, diag, 13);
            let x = p.concat();
            check_gradient(|v| dlm_of(r, n, t, diag, 127, &p, v), &[&x]);
        }
    }
}

/// The directional check with 30 observations or 30 states, every operand a variable.
#[test]
fn directional_checks_at_larger_sizes() {
    for (r, n, t) in [(30, 3, 3), (3, 30, 3), (5, 5, 6)] {
        for diag in [false, true] {
            let p = params(r, n, t, diag, 17);
            let x = p.concat();
            check_directional(
                |v| dlm_of(r, n, t, diag, 127, &p, v),
                &x,
                2,
                GradCheck {
                    rel_tol: 1e-6,
                    ..Default::default()
                },
            );
        }
    }
}

#[test]
fn propto_drops_exactly_the_constant_term() {
    let (r, n, t) = (3, 2, 4);
    let s = system(r, n, t, 19);
    let yv = Var::array(s.y.clone());
    let vd = diagonal(&s.v);
    let full = gaussian_dlm_obs_lpdf(&yv, &s.f, &s.g, &s.v, &s.w, &s.m0, &s.c0, false).unwrap();
    let part = gaussian_dlm_obs_lpdf(&yv, &s.f, &s.g, &s.v, &s.w, &s.m0, &s.c0, true).unwrap();
    assert_close(
        full.value() - part.value(),
        -0.5 * (r * t) as f64 * LOG_TWO_PI,
        1e-12,
    );
    let full = gaussian_dlm_obs_lpdf(&yv, &s.f, &s.g, &vd, &s.w, &s.m0, &s.c0, false).unwrap();
    let part = gaussian_dlm_obs_lpdf(&yv, &s.f, &s.g, &vd, &s.w, &s.m0, &s.c0, true).unwrap();
    assert_close(
        full.value() - part.value(),
        -0.5 * (r * t) as f64 * LOG_TWO_PI,
        1e-12,
    );
    assert_eq!(dlm(&s, true), 0.0);
    assert_eq!(dlm_diag(&s, true), 0.0);
    tape::reset();
}

#[test]
fn bad_input_gets_stans_messages() {
    let s = system(2, 3, 4, 23);
    let vd = diagonal(&s.v);
    let e = |r: revad::Result<Var>| r.map(|v| v.value()).expect_err("an error").to_string();
    let with = |change: &dyn Fn(&mut System)| {
        let mut c = System {
            y: s.y.clone(),
            f: s.f.clone(),
            g: s.g.clone(),
            v: s.v.clone(),
            w: s.w.clone(),
            m0: s.m0.clone(),
            c0: s.c0.clone(),
        };
        change(&mut c);
        let full = gaussian_dlm_obs_lpdf(&c.y, &c.f, &c.g, &c.v, &c.w, &c.m0, &c.c0, false);
        let v = if c.v.nrows() == c.v.ncols() && c.v.nrows() == vd.len() {
            vd.clone()
        } else {
            diagonal(&c.v)
        };
        let diag = gaussian_dlm_obs_lpdf(&c.y, &c.f, &c.g, &v, &c.w, &c.m0, &c.c0, false);
        (
            e(full),
            diag.map(|v| v.value()).err().map(|x| x.to_string()),
        )
    };
    let msg = |m: &str| format!("gaussian_dlm_obs_lpdf: {m}");
    let (full, diag) = with(&|c| c.f = data_matrix(3, 3, &[0.5; 9]));
    assert_eq!(full, msg("columns of F has size 3, but must have size 2"));
    assert_eq!(diag, Some(full));
    let (full, _) = with(&|c| c.f = data_matrix(2, 2, &[0.5; 4]));
    assert_eq!(full, msg("rows of F has size 2, but must have size 3"));
    let (full, _) = with(&|c| c.v = spd(3, 1));
    assert_eq!(full, msg("rows of V has size 3, but must have size 2"));
    let (full, _) = with(&|c| c.w = spd(2, 1));
    assert_eq!(full, msg("rows of W has size 2, but must have size 3"));
    let (full, _) = with(&|c| c.m0 = vector(&[0.0; 2]));
    assert_eq!(full, msg("size of m0 has size 2, but must have size 3"));
    let (full, _) = with(&|c| c.c0 = spd(2, 1));
    assert_eq!(full, msg("rows of C0 has size 2, but must have size 3"));
    let (full, _) = with(&|c| c.g = data_matrix(3, 2, &[0.1; 6]));
    assert_eq!(full, msg("columns of G has size 2, but must have size 3"));
    let (full, diag) = with(&|c| c.y[[0, 1]] = f64::INFINITY);
    assert_eq!(full, msg("y[1,2] is inf, but must be finite"));
    assert_eq!(diag, Some(full));
    let (full, _) = with(&|c| c.f[[2, 0]] = f64::NAN);
    assert_eq!(full, msg("F[3,1] is NaN, but must be finite"));
    let (full, _) = with(&|c| c.g[[0, 0]] = f64::NEG_INFINITY);
    assert_eq!(full, msg("G[1,1] is -inf, but must be finite"));
    let (full, _) = with(&|c| c.v[[1, 1]] = f64::INFINITY);
    assert_eq!(full, msg("V[2,2] is inf, but must be finite"));
    let (full, _) = with(&|c| c.v = data_matrix(2, 2, &[1.0, 2.0, 2.0, 1.0]));
    assert_eq!(full, msg("V is not positive semi-definite."));
    let (full, _) = with(&|c| c.v = data_matrix(2, 2, &[1.0, 0.5, 0.0, 1.0]));
    assert_eq!(
        full,
        msg("V is not symmetric. V[1,2] = 0.5, but V[2,1] = 0")
    );
    let (full, diag) = with(&|c| c.w[[0, 0]] = -5.0);
    assert_eq!(full, msg("W is not positive semi-definite."));
    assert_eq!(diag, Some(full));
    let (full, _) = with(&|c| c.m0[1] = f64::NAN);
    assert_eq!(full, msg("m0[2] is NaN, but must be finite"));
    let (full, diag) = with(&|c| c.c0[[2, 2]] = -1.0);
    assert_eq!(full, msg("C0 is not positive semi-definite."));
    assert_eq!(diag, Some(full));
    let (full, _) = with(&|c| c.c0[[2, 2]] = f64::NAN);
    assert_eq!(full, msg("C0[3,3] is NaN, but must not be NaN"));
    // The vector V: its size, sign and finiteness.
    let v_of = |v: &[f64]| {
        e(gaussian_dlm_obs_lpdf(
            &s.y,
            &s.f,
            &s.g,
            &vector(v),
            &s.w,
            &s.m0,
            &s.c0,
            false,
        ))
    };
    assert_eq!(
        v_of(&[1.0, 1.0, 1.0]),
        msg("size of V has size 3, but must have size 2")
    );
    assert_eq!(
        v_of(&[1.0, -1.0]),
        msg("V[2] is -1, but must be nonnegative")
    );
    assert_eq!(
        v_of(&[f64::INFINITY, 1.0]),
        msg("V[1] is inf, but must be finite")
    );
    // A zero variance with a zero prediction variance at the first step.
    let zero_f = data_matrix(3, 2, &[0.0; 6]);
    assert_eq!(
        e(gaussian_dlm_obs_lpdf(
            &s.y,
            &zero_f,
            &s.g,
            &vector(&[1.0, 0.0]),
            &s.w,
            &s.m0,
            &s.c0,
            false
        )),
        msg("Q0 is 0, but must be positive")
    );
    // A singular S in the matrix form.
    assert_eq!(
        e(gaussian_dlm_obs_lpdf(
            &s.y,
            &zero_f,
            &s.g,
            &data_matrix(2, 2, &[1.0, 0.0, 0.0, 0.0]),
            &s.w,
            &s.m0,
            &s.c0,
            false
        )),
        msg("Matrix S is not positive definite")
    );
    // No times: 0.
    let none = data_matrix(2, 0, &[]);
    assert_eq!(
        gaussian_dlm_obs_lpdf(&none, &s.f, &s.g, &s.v, &s.w, &s.m0, &s.c0, false)
            .unwrap()
            .value(),
        0.0
    );
}
