//! The distributions of simplexes and counts: Dirichlet, Dirichlet-multinomial, multinomial
//! and multinomial-logit. Values against the closed forms written out with `lgamma` and, for
//! K = 2, against the beta, beta-binomial and binomial; gradients against finite differences
//! (θ kept on the simplex as a softmax, α positive as an exp) for every data/variable mix;
//! `propto`; broadcasting; Stan's error messages.

use ndarray::Array1;
use revad::prob::{
    beta_binomial_lpmf, beta_lpdf, binomial_lpmf, dirichlet_lpdf, dirichlet_multinomial_lpmf,
    multinomial_logit_lpmf, multinomial_lpmf, Vectors,
};
use revad::special::gamma::lgamma;
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, test_points, vector_from,
    GradCheck,
};
use revad::{matrix, tape, Var, Vector};

fn vector(x: &[f64]) -> Vector {
    Array1::from(x.to_vec()).into_shared()
}

/// A simplex of size k from `test_points` (a softmax).
fn simplex(k: usize, seed: u64) -> Vector {
    let x = test_points(k, seed);
    let m = x.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = x.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    vector(&e.iter().map(|v| v / s).collect::<Vec<_>>())
}

/// Positive values in (0.2, 4.2).
fn positive(k: usize, seed: u64) -> Vector {
    vector(
        &test_points(k, seed)
            .iter()
            .map(|x| 2.2 + x)
            .collect::<Vec<_>>(),
    )
}

/// Counts in 0..=4.
fn counts(k: usize, seed: u64) -> Vec<i64> {
    test_points(k, seed)
        .iter()
        .map(|x| ((x + 2.0) * 1.25) as i64)
        .collect()
}

/// log Dir(θ | α) written out.
fn dirichlet_ref(theta: &[f64], alpha: &[f64]) -> f64 {
    lgamma(alpha.iter().sum()) - alpha.iter().map(|&a| lgamma(a)).sum::<f64>()
        + theta
            .iter()
            .zip(alpha)
            .map(|(t, a)| (a - 1.0) * t.ln())
            .sum::<f64>()
}

/// log of the multinomial coefficient N!/∏ nₖ!.
fn log_coef(ns: &[i64]) -> f64 {
    let n: i64 = ns.iter().sum();
    lgamma(n as f64 + 1.0) - ns.iter().map(|&k| lgamma(k as f64 + 1.0)).sum::<f64>()
}

/// log DirMult(n | α) written out with Γ (the textbook form).
fn dirichlet_multinomial_ref(ns: &[i64], alpha: &[f64]) -> f64 {
    let a0: f64 = alpha.iter().sum();
    let n: i64 = ns.iter().sum();
    lgamma(a0) - lgamma(a0 + n as f64)
        + log_coef(ns)
        + ns.iter()
            .zip(alpha)
            .map(|(&k, &a)| lgamma(k as f64 + a) - lgamma(a))
            .sum::<f64>()
}

#[test]
fn dirichlet_values_match_the_closed_form() {
    for k in [1, 2, 5, 30] {
        let thetas: Vec<Vector> = (0..3).map(|s| simplex(k, 10 + s)).collect();
        let alphas: Vec<Vector> = (0..3).map(|s| positive(k, 20 + s)).collect();
        let want: f64 = (0..3)
            .map(|t| dirichlet_ref(thetas[t].as_slice().unwrap(), alphas[t].as_slice().unwrap()))
            .sum();
        let tol = 1e-12 * want.abs().max(1.0);
        assert_close(
            dirichlet_lpdf(&thetas, &alphas, false).unwrap().value(),
            want,
            tol,
        );
        // One α broadcast against an array of θ, one θ against an array of α.
        let want: f64 = (0..3)
            .map(|t| dirichlet_ref(thetas[t].as_slice().unwrap(), alphas[0].as_slice().unwrap()))
            .sum();
        assert_close(
            dirichlet_lpdf(&thetas, &alphas[0], false).unwrap().value(),
            want,
            tol,
        );
        let want: f64 = (0..3)
            .map(|t| dirichlet_ref(thetas[0].as_slice().unwrap(), alphas[t].as_slice().unwrap()))
            .sum();
        assert_close(
            dirichlet_lpdf(&thetas[0], &alphas, false).unwrap().value(),
            want,
            tol,
        );
        // A matrix with one simplex per row.
        let rows: Vec<f64> = thetas.iter().flat_map(|v| v.iter().copied()).collect();
        let m = data_matrix(3, k, &rows);
        assert_close(
            dirichlet_lpdf(&m, &alphas[0], false).unwrap().value(),
            dirichlet_lpdf(&thetas, &alphas[0], false).unwrap().value(),
            1e-13 * want.abs().max(1.0),
        );
    }
    // K = 2 is the beta distribution of θ₁ (density with respect to θ₁).
    for (t, a, b) in [(0.3, 2.0, 5.0), (0.9, 0.5, 0.5), (1e-3, 1.5, 40.0)] {
        let want: f64 = beta_lpdf(t, a, b, false).unwrap();
        let got = dirichlet_lpdf(&vector(&[t, 1.0 - t]), &vector(&[a, b]), false).unwrap();
        assert_close(got.value(), want, 1e-12);
    }
    // A zero probability: −∞ for α > 1, +∞ for α < 1, NaN for α = 1 (as Stan).
    let edge = vector(&[0.0, 1.0]);
    let lp = |a: f64| {
        dirichlet_lpdf(&edge, &vector(&[a, 2.0]), false)
            .unwrap()
            .value()
    };
    assert_eq!(lp(2.0), f64::NEG_INFINITY);
    assert_eq!(lp(0.5), f64::INFINITY);
    assert!(lp(1.0).is_nan());
    tape::reset();
}

#[test]
fn dirichlet_multinomial_values_match_the_closed_form() {
    for k in [1, 2, 5, 30] {
        let ns = counts(k, 3);
        let alpha = positive(k, 4);
        let want = dirichlet_multinomial_ref(&ns, alpha.as_slice().unwrap());
        let got = dirichlet_multinomial_lpmf(&ns, &alpha, false).unwrap();
        assert_close(got.value(), want, 1e-11 * want.abs().max(1.0));
    }
    // K = 2 is the beta-binomial.
    for (n, big_n, a, b) in [(3i64, 10i64, 2.0, 5.0), (0, 4, 0.5, 0.7), (7, 7, 1e3, 2.0)] {
        let want: f64 = beta_binomial_lpmf(n, big_n, a, b, false).unwrap();
        let got = dirichlet_multinomial_lpmf(&[n, big_n - n], &vector(&[a, b]), false).unwrap();
        assert_close(got.value(), want, 1e-11);
    }
    // No counts: probability 1.
    let got = dirichlet_multinomial_lpmf(&[0, 0, 0], &positive(3, 1), false).unwrap();
    assert_eq!(got.value(), 0.0);
    // Large α approaches the multinomial with θ = α/α₀.
    let theta = [0.2, 0.3, 0.5];
    let big: Vec<f64> = theta.iter().map(|t| t * 1e9).collect();
    let ns = [3, 1, 4];
    let want = multinomial_lpmf(&ns, &vector(&theta), false)
        .unwrap()
        .value();
    let got = dirichlet_multinomial_lpmf(&ns, &vector(&big), false).unwrap();
    assert_close(got.value(), want, 1e-7);
}

#[test]
fn multinomial_values_match_the_closed_form() {
    for k in [1, 2, 5, 30] {
        let ns = counts(k, 5);
        let theta = simplex(k, 6);
        let t = theta.as_slice().unwrap();
        let want = log_coef(&ns)
            + ns.iter()
                .zip(t)
                .map(|(&n, &p)| n as f64 * p.ln())
                .sum::<f64>();
        let got = multinomial_lpmf(&ns, &theta, false).unwrap();
        assert_close(got.value(), want, 1e-12 * want.abs().max(1.0));
        // The logit form: the same with θ = softmax(γ), γ = log θ + c.
        let gamma = vector(&t.iter().map(|p| p.ln() + 0.7).collect::<Vec<_>>());
        let got = multinomial_logit_lpmf(&ns, &gamma, false).unwrap();
        assert_close(got.value(), want, 1e-12 * want.abs().max(1.0));
    }
    // K = 2 is the binomial.
    for (n, big_n, p) in [(3i64, 10i64, 0.2), (0, 5, 0.9), (6, 6, 0.5)] {
        let want: f64 = binomial_lpmf(n, big_n, p, false).unwrap();
        let got = multinomial_lpmf(&[n, big_n - n], &vector(&[p, 1.0 - p]), false).unwrap();
        assert_close(got.value(), want, 1e-13);
    }
    // A zero count against a zero probability contributes nothing.
    let got = multinomial_lpmf(&[2, 0], &vector(&[1.0, 0.0]), false).unwrap();
    assert_eq!(got.value(), 0.0);
    tape::reset();
}

/// θ = softmax(x) as a vector variable.
fn softmax_of(x: &[Var]) -> Var<Vector> {
    matrix::softmax(&vector_from(x)).unwrap()
}

/// α = exp(x) as a vector variable.
fn exp_of(x: &[Var]) -> Var<Vector> {
    vector_from(&x.iter().map(|&v| revad::exp(v)).collect::<Vec<_>>())
}

#[test]
fn gradients_match_finite_differences() {
    for k in [1, 2, 5] {
        let x = test_points(3 * k + k, 7);
        // An array of three simplexes against one α.
        check_gradient(
            |v| {
                let thetas: Vec<Var<Vector>> = v[..3 * k].chunks(k).map(softmax_of).collect();
                dirichlet_lpdf(&thetas, &exp_of(&v[3 * k..]), false).unwrap()
            },
            &[&x],
        );
        // One θ against an array of α, propto.
        let y = test_points(k + 2 * k, 8);
        check_gradient(
            |v| {
                let alphas: Vec<Var<Vector>> = v[k..].chunks(k).map(exp_of).collect();
                dirichlet_lpdf(&softmax_of(&v[..k]), &alphas, true).unwrap()
            },
            &[&y],
        );
        let ns = counts(k, 9);
        let a = test_points(k, 10);
        check_gradient(
            |v| dirichlet_multinomial_lpmf(&ns, &exp_of(v), false).unwrap(),
            &[&a],
        );
        check_gradient(
            |v| multinomial_lpmf(&ns, &softmax_of(v), false).unwrap(),
            &[&a],
        );
        check_gradient(
            |v| multinomial_logit_lpmf(&ns, &vector_from(v), false).unwrap(),
            &[&a],
        );
    }
    // Near the edges: a tiny probability, tiny and huge α.
    let x = [-12.0, 0.0, 1.0];
    let ns = [0, 3, 1];
    check_gradient(
        |v| multinomial_lpmf(&ns, &softmax_of(v), false).unwrap(),
        &[&x],
    );
    check_gradient(
        |v| dirichlet_lpdf(&softmax_of(v), &vector(&[0.3, 2.0, 1.0]), false).unwrap(),
        &[&x],
    );
    for a in [[-6.0, 0.0, 1.0], [9.0, 8.0, 10.0]] {
        check_gradient(
            |v| dirichlet_multinomial_lpmf(&ns, &exp_of(v), false).unwrap(),
            &[&a],
        );
    }
}

/// Every data/variable mix of (θ, α) for the Dirichlet, with arrays and broadcasting; the
/// one-operand functions with their operand data.
#[test]
fn every_mix_of_data_and_variables() {
    let k = 4;
    let thetas: Vec<Vector> = (0..3).map(|s| simplex(k, 30 + s)).collect();
    let alpha = positive(k, 34);
    let tx: Vec<f64> = thetas
        .iter()
        .flat_map(|t| t.iter().map(|p| p.ln()).collect::<Vec<_>>())
        .collect();
    let ax: Vec<f64> = alpha.iter().map(|a| a.ln()).collect();
    for mask in 0..4u32 {
        let var = |bit: u32| mask & (1 << bit) != 0;
        let f = |v: &[Var]| {
            let mut at = 0;
            let mut take = |len: usize, var: bool| {
                let s = &v[at..at + if var { len } else { 0 }];
                at += s.len();
                s.to_vec()
            };
            let tv = take(3 * k, var(0));
            let av = take(k, var(1));
            let t_var: Vec<Var<Vector>> = tv.chunks(k).map(softmax_of).collect();
            let a_var = if av.is_empty() {
                Var::array(alpha.clone())
            } else {
                exp_of(&av)
            };
            let theta: &dyn Vectors = if var(0) { &t_var } else { &thetas };
            let lp = if var(1) {
                dirichlet_lpdf(theta, &a_var, false)
            } else {
                dirichlet_lpdf(theta, &alpha, false)
            };
            lp.unwrap() + v.iter().fold(Var::new(0.0), |a, &b| a + b * 0.0)
        };
        let mut x = Vec::new();
        if var(0) {
            x.extend(&tx);
        }
        if var(1) {
            x.extend(&ax);
        }
        let want: f64 = thetas
            .iter()
            .map(|t| dirichlet_ref(t.as_slice().unwrap(), alpha.as_slice().unwrap()))
            .sum();
        if x.is_empty() {
            assert_close(f(&[]).value(), want, 1e-12);
            continue;
        }
        assert_close(revad::gradient(f, &x).0, want, 1e-12);
        check_gradient(f, &[&x]);
    }
    // Data operands record nothing and give the value.
    let ns = [1, 0, 2, 1];
    let d = dirichlet_multinomial_lpmf(&ns, &alpha, false).unwrap();
    let m = multinomial_lpmf(&ns, &thetas[0], false).unwrap();
    let l = multinomial_logit_lpmf(&ns, &alpha, false).unwrap();
    assert!(d.value().is_finite() && m.value().is_finite() && l.value().is_finite());
    tape::reset();
}

#[test]
fn directional_checks_at_k_30() {
    let k = 30;
    let x = test_points(4 * k, 11);
    let ns = counts(k, 12);
    let f = |v: &[Var]| {
        let thetas: Vec<Var<Vector>> = v[..3 * k].chunks(k).map(softmax_of).collect();
        let alpha = exp_of(&v[3 * k..]);
        dirichlet_lpdf(&thetas, &alpha, false).unwrap()
            + dirichlet_multinomial_lpmf(&ns, &alpha, false).unwrap()
            + multinomial_lpmf(&ns, &thetas[1], false).unwrap()
            + multinomial_logit_lpmf(&ns, &vector_from(&v[..k]), false).unwrap()
    };
    check_directional(
        f,
        &x,
        3,
        GradCheck {
            rel_tol: 1e-6,
            ..Default::default()
        },
    );
}

#[test]
fn propto_drops_exactly_the_constant_terms() {
    let k = 5;
    let thetas: Vec<Vector> = (0..2).map(|s| simplex(k, 40 + s)).collect();
    let alpha = positive(k, 42);
    let a = alpha.as_slice().unwrap();
    let ns = counts(k, 43);
    let diff = |full: revad::Result<Var>, part: revad::Result<Var>| {
        full.unwrap().value() - part.unwrap().value()
    };
    let norm = lgamma(a.iter().sum()) - a.iter().map(|&x| lgamma(x)).sum::<f64>();
    // θ a variable, α data: the normalising terms go.
    let tv: Vec<Var<Vector>> = thetas.iter().map(|t| Var::array(t.clone())).collect();
    assert_close(
        diff(
            dirichlet_lpdf(&tv, &alpha, false),
            dirichlet_lpdf(&tv, &alpha, true),
        ),
        2.0 * norm,
        1e-12,
    );
    // α a variable: nothing goes.
    let av = Var::array(alpha.clone());
    assert_close(
        diff(
            dirichlet_lpdf(&thetas, &av, false),
            dirichlet_lpdf(&thetas, &av, true),
        ),
        0.0,
        1e-12,
    );
    // Everything data: 0.
    assert_eq!(dirichlet_lpdf(&thetas, &alpha, true).unwrap().value(), 0.0);
    // The counts' terms: log N − Σ log nₖ for the Dirichlet-multinomial, the multinomial
    // coefficient for the multinomials.
    let total: i64 = ns.iter().sum();
    let dm = (total as f64).ln()
        - ns.iter()
            .filter(|&&n| n > 0)
            .map(|&n| (n as f64).ln())
            .sum::<f64>();
    assert_close(
        diff(
            dirichlet_multinomial_lpmf(&ns, &av, false),
            dirichlet_multinomial_lpmf(&ns, &av, true),
        ),
        dm,
        1e-12,
    );
    let t0 = Var::array(thetas[0].clone());
    assert_close(
        diff(
            multinomial_lpmf(&ns, &t0, false),
            multinomial_lpmf(&ns, &t0, true),
        ),
        log_coef(&ns),
        1e-12,
    );
    assert_close(
        diff(
            multinomial_logit_lpmf(&ns, &av, false),
            multinomial_logit_lpmf(&ns, &av, true),
        ),
        log_coef(&ns),
        1e-12,
    );
    for lp in [
        dirichlet_multinomial_lpmf(&ns, &alpha, true),
        multinomial_lpmf(&ns, &thetas[0], true),
        multinomial_logit_lpmf(&ns, &alpha, true),
    ] {
        assert_eq!(lp.unwrap().value(), 0.0);
    }
    tape::reset();
}

#[test]
fn bad_input_gets_stans_messages() {
    let e = |r: revad::Result<Var>| r.map(|v| v.value()).expect_err("an error").to_string();
    let theta = vector(&[0.2, 0.3, 0.5]);
    let alpha = vector(&[1.0, 2.0, 3.0]);
    // Dirichlet.
    assert_eq!(
        e(dirichlet_lpdf(&theta, &vector(&[1.0, 2.0]), false)),
        "dirichlet_lpdf: prior sample sizes has size 2, but must have size 3"
    );
    assert_eq!(
        e(dirichlet_lpdf(&theta, &vector(&[1.0, 0.0, 3.0]), false)),
        "dirichlet_lpdf: prior sample sizes[2] is 0, but must be positive"
    );
    assert_eq!(
        e(dirichlet_lpdf(&vector(&[0.2, 0.3, 0.4]), &alpha, false)),
        "dirichlet_lpdf: probabilities is not a valid simplex. sum(probabilities) = 0.9, but \
         should be 1"
    );
    assert_eq!(
        e(dirichlet_lpdf(&vector(&[0.6, -0.1, 0.5]), &alpha, false)),
        "dirichlet_lpdf: probabilities is not a valid simplex. probabilities[2] = -0.1, but \
         should be greater than or equal to 0"
    );
    assert_eq!(
        e(dirichlet_lpdf(&vector(&[]), &vector(&[]), false)),
        "dirichlet_lpdf: probabilities has size 0, but must have a non-zero size"
    );
    // The second simplex of an array is checked, with its own index.
    let two = vec![theta.clone(), vector(&[0.5, 0.5, 0.1])];
    assert_eq!(
        e(dirichlet_lpdf(&two, &alpha, false)),
        "dirichlet_lpdf: probabilities is not a valid simplex. sum(probabilities) = 1.1, but \
         should be 1"
    );
    let three = vec![alpha.clone(), alpha.clone(), alpha.clone()];
    assert_eq!(
        e(dirichlet_lpdf(&two, &three, false)),
        "dirichlet_lpdf: number of vectors of prior sample sizes has size 3, but must have size 2"
    );
    let ragged = vec![theta.clone(), vector(&[1.0])];
    assert_eq!(
        e(dirichlet_lpdf(&ragged, &alpha, false)),
        "dirichlet_lpdf: Size of one of the vectors has size 1, but must have size 3"
    );
    // Within the tolerance of 1e-8 is a simplex.
    assert!(dirichlet_lpdf(&vector(&[0.5, 0.5 + 5e-9]), &vector(&[1.0, 1.0]), false).is_ok());
    // Dirichlet-multinomial.
    assert_eq!(
        e(dirichlet_multinomial_lpmf(&[1, 2], &alpha, false)),
        "dirichlet_multinomial_lpmf: rows of prior size parameter has size 3, but must have size 2"
    );
    assert_eq!(
        e(dirichlet_multinomial_lpmf(&[1, -2, 0], &alpha, false)),
        "dirichlet_multinomial_lpmf: Number of trials variable[2] is -2, but must be nonnegative"
    );
    assert_eq!(
        e(dirichlet_multinomial_lpmf(
            &[1, 2, 0],
            &vector(&[1.0, f64::INFINITY, 1.0]),
            false
        )),
        "dirichlet_multinomial_lpmf: Prior size parameter[2] is inf, but must be positive finite"
    );
    assert_eq!(
        e(dirichlet_multinomial_lpmf(
            &[1, 2, 0],
            &vector(&[1.0, 1.0, -1.0]),
            false
        )),
        "dirichlet_multinomial_lpmf: Prior size parameter[3] is -1, but must be positive finite"
    );
    // Multinomial.
    assert_eq!(
        e(multinomial_lpmf(&[1, 2], &theta, false)),
        "multinomial_lpmf: rows of probabilities parameter has size 3, but must have size 2"
    );
    assert_eq!(
        e(multinomial_lpmf(&[-1, 2, 0], &theta, false)),
        "multinomial_lpmf: Number of trials variable[1] is -1, but must be nonnegative"
    );
    assert_eq!(
        e(multinomial_lpmf(
            &[1, 2, 0],
            &vector(&[0.5, 0.5, 1e-7]),
            false
        )),
        "multinomial_lpmf: Probabilities parameter is not a valid simplex. sum(Probabilities \
         parameter) = 1.0000001, but should be 1"
    );
    assert_eq!(
        e(multinomial_lpmf(
            &[1, 2, 0],
            &vector(&[0.5, f64::NAN, 0.5]),
            false
        )),
        "multinomial_lpmf: Probabilities parameter is not a valid simplex. sum(Probabilities \
         parameter) = NaN, but should be 1"
    );
    // Multinomial-logit.
    assert_eq!(
        e(multinomial_logit_lpmf(&[1, 2], &alpha, false)),
        "multinomial_logit_lpmf: rows of log-probabilities parameter has size 3, but must have \
         size 2"
    );
    assert_eq!(
        e(multinomial_logit_lpmf(&[0, 0, -3], &alpha, false)),
        "multinomial_logit_lpmf: Number of trials variable[3] is -3, but must be nonnegative"
    );
    assert_eq!(
        e(multinomial_logit_lpmf(
            &[1, 2, 0],
            &vector(&[1.0, f64::NEG_INFINITY, 0.0]),
            false
        )),
        "multinomial_logit_lpmf: log-probabilities parameter[2] is -inf, but must be finite"
    );
}
