//! The normal distribution: values against SciPy, gradients against finite differences for
//! every mix of constant/variable and scalar/container arguments, `propto`, validation.

use ndarray::Array1;
use revad::prob::{normal_cdf, normal_lccdf, normal_lcdf, normal_lpdf, ConstArg};
use revad::testing::{assert_close, check_gradient, check_gradient_with, vector_from, GradCheck};
use revad::{tape, Var, Vector};

const LOG_SQRT_TWO_PI: f64 = 0.918_938_533_204_672_8;

#[test]
fn values_match_scipy() {
    // scipy.stats.norm 1.17.1
    let y = [0.3, -1.2, 2.0];
    assert_close(
        normal_lpdf(&y[..], 0.5, 1.5, false).unwrap(),
        -5.124322035049622,
        1e-15,
    );
    assert_close(
        normal_lcdf(-40.0, 0.0, 1.0).unwrap(),
        -804.6084420137539,
        1e-14,
    );
    assert_close(
        normal_lccdf(40.0, 0.0, 1.0).unwrap(),
        -804.6084420137539,
        1e-14,
    );
    assert_close(
        normal_lcdf(1.3, 0.2, 0.7).unwrap(),
        -0.059794131567608634,
        1e-14,
    );
    assert_close(
        normal_lccdf(1.3, 0.2, 0.7).unwrap(),
        -2.8465958549603263,
        1e-14,
    );
    assert_close(
        normal_cdf(&[1.3, -0.4][..], 0.2, 0.7).unwrap(),
        0.18432522301444848,
        1e-14,
    );
    assert_close(
        normal_lpdf(1e-300, 0.0, 1e-300, false).unwrap(),
        689.356589365009,
        1e-14,
    );
}

#[test]
fn propto_drops_exactly_the_constant_terms() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let (mu, sigma) = (Var::new(0.5), 1.5);
    let full = normal_lpdf(&y[..], mu, sigma, false).unwrap().value();
    let prop = normal_lpdf(&y[..], mu, sigma, true).unwrap().value();
    // σ constant: −½log(2π) and −log σ per element are dropped.
    assert_close(full - prop, -3.0 * (LOG_SQRT_TWO_PI + 1.5f64.ln()), 1e-14);
    let s = Var::new(1.5);
    let prop_s = normal_lpdf(&y[..], mu, s, true).unwrap().value();
    assert_close(full - prop_s, -3.0 * LOG_SQRT_TWO_PI, 1e-14);
    // All constant with propto: nothing is left.
    let c: f64 = normal_lpdf(&y[..], 0.5, 1.5, true).unwrap();
    assert_eq!(c, 0.0);
    tape::reset();
}

#[test]
fn gradients_for_every_mix_of_arguments() {
    let pts: &[&[f64]] = &[&[0.3, 0.5, 1.5], &[-2.0, 1.0, 0.2], &[10.0, -3.0, 7.0]];
    check_gradient(|v| normal_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| normal_lpdf(v[0], 0.4, v[2], true).unwrap(), pts);
    check_gradient(|v| normal_lpdf(1.1, v[1], 2.0, false).unwrap(), pts);
    check_gradient(|v| normal_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| normal_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| normal_cdf(v[0], v[1], v[2]).unwrap(), pts);
    // containers of variables with broadcast scalars, slices and array variables
    let x: &[f64] = &[0.3, -1.2, 2.0, 0.5, 1.5];
    check_gradient(|v| normal_lpdf(&v[..3], v[3], v[4], false).unwrap(), &[x]);
    check_gradient(
        |v| normal_lpdf(&vector_from(&v[..3]), v[3], v[4], false).unwrap(),
        &[x],
    );
    check_gradient(|v| normal_lcdf(&v[..3], v[3], v[4]).unwrap(), &[x]);
    check_gradient(|v| normal_cdf(&v[..3], v[3], v[4]).unwrap(), &[x]);
    // vectorised location and scale against data y
    let y = [0.1, 0.7, -0.4];
    check_gradient(
        |v| normal_lpdf(&y[..], &v[..3], &v[3..], false).unwrap(),
        &[&[0.0, 0.5, -1.0, 1.0, 2.0, 0.5]],
    );
}

#[test]
fn tails_have_finite_accurate_gradients() {
    // d/dy log Φ(y) → −y far in the lower tail (Mills ratio); finite where Φ underflows.
    let (v, g) = revad::gradient(|v| normal_lcdf(v[0], 0.0, 1.0).unwrap(), &[-40.0]);
    assert!(v.is_finite());
    // mpmath: npdf(-40)/ncdf(-40) at 40 digits
    assert_close(g[0], 40.024_968_847_207_26, 1e-13);
    let opts = GradCheck {
        step: Some(1e-3),
        ..GradCheck::default()
    };
    check_gradient_with(
        |v| normal_lccdf(v[0], 0.0, 1.0).unwrap(),
        &[&[30.0], &[-5.0]],
        opts,
    );
}

#[test]
fn one_node_per_call_and_the_same_result_for_every_container_kind() {
    tape::reset();
    let ys = [Var::new(0.3), Var::new(-1.2), Var::new(2.0)];
    let before = tape::stats().continuations;
    let a = normal_lpdf(&ys[..], 0.5, 1.5, false).unwrap();
    assert_eq!(tape::stats().continuations, before + 1);
    // array variables for y and mu, a scalar variable sigma: still one record
    let (vy, vm) = (
        Var::array(Array1::from(vec![0.3, -1.2, 2.0]).into_shared()),
        Var::array(Array1::from(vec![0.5, 0.1, -0.2]).into_shared()),
    );
    let s = Var::new(1.5);
    let before = tape::stats().continuations;
    let lp = normal_lpdf(&vy, &vm, s, false).unwrap();
    assert_eq!(tape::stats().continuations, before + 1);
    lp.grad();
    let z: Vec<f64> = [(0.3, 0.5), (-1.2, 0.1), (2.0, -0.2)]
        .iter()
        .map(|(y, m)| (y - m) / 1.5)
        .collect();
    for (i, zi) in z.iter().enumerate() {
        assert_close(vy.adj()[i], -zi / 1.5, 1e-15);
        assert_close(vm.adj()[i], zi / 1.5, 1e-15);
    }
    assert_close(s.adj(), z.iter().map(|z| (z * z - 1.0) / 1.5).sum(), 1e-15);
    tape::reset();
    let data: Vector = Array1::from(vec![0.3, -1.2, 2.0]).into_shared();
    let b: f64 = normal_lpdf(&data, 0.5, 1.5, false).unwrap();
    let c: f64 = normal_lpdf(&vec![0.3, -1.2, 2.0], 0.5, 1.5, false).unwrap();
    // The list of scalar variables takes the general loop, the others the lanes of the
    // scalar-σ loop: equal up to the order of summation.
    assert_close(a.value(), b, 1e-15);
    assert_eq!(b, c);
    tape::reset();
}

#[test]
fn validation_follows_stan() {
    let msg = |r: revad::Result<f64>| r.unwrap_err().to_string();
    assert_eq!(
        msg(normal_lpdf(f64::NAN, 0.0, 1.0, false)),
        "normal_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(normal_lpdf(0.0, f64::INFINITY, 1.0, false)),
        "normal_lpdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(normal_lpdf(0.0, 0.0, 0.0, false)),
        "normal_lpdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(normal_lcdf(0.0, 0.0, -1.0)),
        "normal_lcdf: Scale parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(normal_lpdf(
            &[1.0, 2.0][..],
            &[0.0, 1.0, 2.0][..],
            1.0,
            false
        )),
        "normal_lpdf: Location parameter has size 3, but must have size 2"
    );
    // Containers with a scalar σ are checked through the sums: the same errors, in Stan's order
    // (y before μ before σ), for data and for variables, and infinite y is not an error.
    let y_nan = [1.0, f64::NAN, 2.0];
    let nan_msg = "normal_lpdf: Random variable is NaN, but must not be NaN";
    assert_eq!(msg(normal_lpdf(&y_nan[..], 0.0, 1.0, false)), nan_msg);
    assert_eq!(msg(normal_lpdf(&y_nan[..], 0.0, -1.0, false)), nan_msg);
    // With propto and only constants nothing is computed, but the elements are still checked.
    assert_eq!(msg(normal_lpdf(&y_nan[..], 0.0, 1.0, true)), nan_msg);
    assert_eq!(
        msg(normal_lpdf(0.5, &y_nan[..], 1.0, true)),
        "normal_lpdf: Location parameter is NaN, but must be finite"
    );
    assert_eq!(
        msg(normal_lpdf(&y_nan[..], f64::INFINITY, 1.0, false)),
        nan_msg
    );
    let vy = Var::array(Array1::from(y_nan.to_vec()).into_shared());
    let r = normal_lpdf(&vy, Var::new(0.0), Var::new(1.0), false);
    assert_eq!(r.unwrap_err().to_string(), nan_msg);
    tape::reset();
    assert_eq!(
        msg(normal_lpdf(
            &[0.5, 1.0][..],
            &[0.0, f64::NEG_INFINITY][..],
            1.0,
            false
        )),
        "normal_lpdf: Location parameter is -inf, but must be finite"
    );
    assert_eq!(
        msg(normal_lpdf(1.0, &[0.0, f64::NAN][..], 2.0, false)),
        "normal_lpdf: Location parameter is NaN, but must be finite"
    );
    assert_eq!(
        normal_lpdf(&[0.0, f64::INFINITY][..], 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    // Finite values whose Σz² overflows are not an error either.
    assert_eq!(
        normal_lpdf(&[1e200, -1e200][..], 0.0, 1e-200, false).unwrap(),
        f64::NEG_INFINITY
    );
    // Empty containers: 0 (and 1 for the CDF), as Stan.
    let empty: &[f64] = &[];
    assert_eq!(normal_lpdf(empty, 0.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(normal_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
}

#[test]
fn long_containers_keep_their_partials_in_the_node() {
    // From 1024 partials on, the node owns them instead of copying them into the arena: the
    // sweep must give the same adjoints, and a node that never runs must be freed at reset.
    let n = 3000;
    let y: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
    for sweep in [true, false] {
        let vy = Var::array(Array1::from(y.clone()).into_shared());
        let (m, s) = (Var::new(0.4), Var::new(1.7));
        let lp = normal_lpdf(&vy, m, s, false).unwrap();
        if sweep {
            lp.grad();
            let adj = vy.adj();
            let mut sum_z = 0.0;
            for (i, yi) in y.iter().enumerate() {
                let z = (yi - 0.4) / 1.7;
                sum_z += z;
                assert_close(adj[i], -z / 1.7, 1e-14);
            }
            assert_close(m.adj(), sum_z / 1.7, 1e-12);
        }
        tape::reset();
    }
}

#[test]
fn the_scalar_sigma_loop_agrees_with_the_general_loop() {
    // y and μ each a scalar or a container, each constant or variable, σ a scalar variable: the
    // contiguous-values loop (Lane) against the general one (forced by lists of scalar
    // variables, whose values are scattered), in value and every adjoint.
    let ys = [0.3, -1.2, 2.0, 0.7, -0.1];
    let ms = [0.5, 0.1, -0.2, 1.0, 0.0];
    for (y_vec, mu_vec) in [(true, false), (false, true), (true, true), (false, false)] {
        for propto in [false, true] {
            let y_list: Vec<Var> = ys.iter().map(|&v| Var::new(v)).collect();
            let mu_list: Vec<Var> = ms.iter().map(|&v| Var::new(v)).collect();
            let (y0, m0, s) = (Var::new(ys[0]), Var::new(ms[0]), Var::new(1.3));
            let general = match (y_vec, mu_vec) {
                (true, false) => normal_lpdf(&y_list, m0, s, propto),
                (false, true) => normal_lpdf(y0, &mu_list, s, propto),
                (true, true) => normal_lpdf(&y_list, &mu_list, s, propto),
                (false, false) => normal_lpdf(y0, m0, s, propto),
            }
            .unwrap();
            general.grad();
            let want_y: Vec<f64> = if y_vec {
                y_list.iter().map(|v| v.adj()).collect()
            } else {
                vec![y0.adj()]
            };
            let want_mu: Vec<f64> = if mu_vec {
                mu_list.iter().map(|v| v.adj()).collect()
            } else {
                vec![m0.adj()]
            };
            let want_s = s.adj();
            tape::reset();

            let vy = Var::array(Array1::from(ys.to_vec()).into_shared());
            let vm = Var::array(Array1::from(ms.to_vec()).into_shared());
            let (y0, m0, s) = (Var::new(ys[0]), Var::new(ms[0]), Var::new(1.3));
            let fast = match (y_vec, mu_vec) {
                (true, false) => normal_lpdf(&vy, m0, s, propto),
                (false, true) => normal_lpdf(y0, &vm, s, propto),
                (true, true) => normal_lpdf(&vy, &vm, s, propto),
                (false, false) => normal_lpdf(y0, m0, s, propto),
            }
            .unwrap();
            assert_close(fast.value(), general.value(), 1e-14);
            fast.grad();
            let got_y: Vec<f64> = if y_vec {
                vy.adj().to_vec()
            } else {
                vec![y0.adj()]
            };
            let got_mu: Vec<f64> = if mu_vec {
                vm.adj().to_vec()
            } else {
                vec![m0.adj()]
            };
            for (g, w) in got_y.iter().zip(&want_y).chain(got_mu.iter().zip(&want_mu)) {
                assert_close(*g, *w, 1e-14);
            }
            assert_close(s.adj(), want_s, 1e-14);
            tape::reset();

            // Data containers take the same loop; the value matches the general one.
            let data_y = Array1::from(ys.to_vec()).into_shared();
            let mu_list: Vec<Var> = ms.iter().map(|&v| Var::new(v)).collect();
            let vm = Var::array(Array1::from(ms.to_vec()).into_shared());
            let c: Var = normal_lpdf(&data_y, &mu_list, Var::new(1.3), propto).unwrap();
            let d: Var = normal_lpdf(&data_y, &vm, Var::new(1.3), propto).unwrap();
            assert_close(c.value(), d.value(), 1e-14);
            tape::reset();
        }
    }
}

#[test]
fn array_arguments_without_stored_partials_match_the_closed_form() {
    // Scalar σ with y or μ an array variable: the node keeps the values (shared, no copy) and
    // the sweep computes ∂/∂yᵢ = (μᵢ − yᵢ)/σ² = −∂/∂μᵢ, ∂/∂σ = Σ(zᵢ² − 1)/σ. Every mix of a
    // data vector, a slice, an array variable and scalars, against the closed form.
    let ys = [0.3, -1.2, 2.0, 0.7, -0.1, 3.5, -2.2, 0.05, 1.1];
    let ms = [0.5, 0.1, -0.2, 1.0, 0.0, 2.9, -1.0, 0.3, 0.9];
    let s = 1.7;
    let dy = |i: usize, m: &[f64]| (m[i.min(m.len() - 1)] - ys[i]) / (s * s);
    let ds = |m: &[f64]| -> f64 {
        (0..ys.len())
            .map(|i| ((ys[i] - m[i.min(m.len() - 1)]) / s).powi(2) - 1.0)
            .sum::<f64>()
            / s
    };
    let yd = Array1::from(ys.to_vec()).into_shared();
    let md = Array1::from(ms.to_vec()).into_shared();

    // y data vector, μ array variable, σ variable.
    let (vm, vs) = (Var::array(md.clone()), Var::new(s));
    normal_lpdf(&yd, &vm, vs, false).unwrap().grad();
    for (i, g) in vm.adj().iter().enumerate() {
        assert_close(*g, -dy(i, &ms), 1e-14);
    }
    assert_close(vs.adj(), ds(&ms), 1e-14);
    tape::reset();

    // y a shared constant (ConstArg::Shared, what Python's revad.Data passes), μ an array
    // variable: the same as a borrowed slice, in value and gradient.
    let vm = Var::array(md.clone());
    let shared = normal_lpdf(ConstArg::Shared(yd.clone()), &vm, s, false).unwrap();
    shared.grad();
    let got: Vec<f64> = vm.adj().to_vec();
    tape::reset();
    let vm = Var::array(md.clone());
    let borrowed = normal_lpdf(ConstArg::Slice(&ys), &vm, s, false).unwrap();
    borrowed.grad();
    assert_close(shared.value(), borrowed.value(), 1e-15);
    for (g, w) in got.iter().zip(vm.adj().iter()) {
        assert_close(*g, *w, 1e-15);
    }
    tape::reset();

    // y array variable, μ data vector or slice, σ constant.
    let vy = Var::array(yd.clone());
    normal_lpdf(&vy, &md, s, false).unwrap().grad();
    for (i, g) in vy.adj().iter().enumerate() {
        assert_close(*g, dy(i, &ms), 1e-14);
    }
    tape::reset();
    let vy = Var::array(yd.clone());
    normal_lpdf(&vy, &ms[..], s, false).unwrap().grad();
    for (i, g) in vy.adj().iter().enumerate() {
        assert_close(*g, dy(i, &ms), 1e-14);
    }
    tape::reset();

    // A constant scalar y with an array μ; a scalar variable y with an array μ.
    let want: Vec<f64> = ms.iter().map(|m| (0.4 - m) / (s * s)).collect();
    let vm = Var::array(md.clone());
    normal_lpdf(0.4, &vm, s, true).unwrap().grad();
    for (g, w) in vm.adj().iter().zip(&want) {
        assert_close(*g, *w, 1e-14);
    }
    tape::reset();
    let (vm, y0) = (Var::array(md.clone()), Var::new(0.4));
    normal_lpdf(y0, &vm, s, true).unwrap().grad();
    for (g, w) in vm.adj().iter().zip(&want) {
        assert_close(*g, *w, 1e-14);
    }
    assert_close(y0.adj(), -want.iter().sum::<f64>(), 1e-14);
    tape::reset();

    // The same array variable as y and μ: the two contributions cancel, σ sees z = 0.
    let (v, vs) = (Var::array(yd.clone()), Var::new(s));
    let lp = normal_lpdf(&v, &v, vs, false).unwrap();
    lp.grad();
    assert!(v.adj().iter().all(|&g| g == 0.0));
    assert_close(vs.adj(), -(ys.len() as f64) / s, 1e-14);
    assert_close(
        lp.value(),
        -(ys.len() as f64) * (s.ln() + LOG_SQRT_TWO_PI),
        1e-14,
    );
    tape::reset();
}

#[test]
fn data_in_any_memory_layout() {
    // Strided, reversed and column-major data give the same value and gradient as the same
    // values in standard layout (they are read element by element instead of as a slice).
    use ndarray::{s, Array2, ShapeBuilder};
    use revad::{Matrix, RowVector};
    let base = Array1::from_iter((0..12).map(|i| (i as f64 * 0.7).sin())).into_shared();
    let strided: Vector = base.clone().slice_move(s![..;3]);
    let reversed: Vector = base.clone().slice_move(s![..;-1]);
    let standard_strided = Array1::from(strided.to_vec()).into_shared();
    let standard_reversed = Array1::from(reversed.to_vec()).into_shared();
    let fortran: Matrix = {
        let mut m = Array2::<f64>::zeros((3, 4).f());
        m.iter_mut()
            .enumerate()
            .for_each(|(k, x)| *x = (k as f64 * 0.3).cos());
        m.into_shared()
    };
    let row_major = Array2::from_shape_vec((3, 4), fortran.iter().copied().collect())
        .unwrap()
        .into_shared();
    for propto in [false, true] {
        let pairs: [(&Vector, &Vector); 2] = [
            (&strided, &standard_strided),
            (&reversed, &standard_reversed),
        ];
        for (odd, plain) in pairs {
            let (m1, s1) = (Var::new(0.2), Var::new(1.3));
            let a = normal_lpdf(odd, m1, s1, propto).unwrap();
            a.grad();
            let got = (a.value(), m1.adj(), s1.adj());
            tape::reset();
            let (m2, s2) = (Var::new(0.2), Var::new(1.3));
            let b = normal_lpdf(plain, m2, s2, propto).unwrap();
            b.grad();
            assert_close(got.0, b.value(), 1e-14);
            assert_close(got.1, m2.adj(), 1e-14);
            assert_close(got.2, s2.adj(), 1e-14);
            tape::reset();
            // As the location of an array variable (the partial-free path reads shared values).
            let vy = Var::array(plain.clone());
            let c = normal_lpdf(&vy, odd, 0.9, propto).unwrap();
            c.grad();
            let g_odd = vy.adj();
            tape::reset();
            let vy = Var::array(plain.clone());
            let d = normal_lpdf(&vy, plain, 0.9, propto).unwrap();
            d.grad();
            assert_close(c.value(), d.value(), 1e-14);
            for (g, w) in g_odd.iter().zip(vy.adj().iter()) {
                assert_close(*g, *w, 1e-14);
            }
            tape::reset();
        }
        let row = RowVector(reversed.clone());
        let plain_row = RowVector(standard_reversed.clone());
        let (r1, r2): (f64, f64) = (
            normal_lpdf(&row, 0.1, 2.0, propto).unwrap(),
            normal_lpdf(&plain_row, 0.1, 2.0, propto).unwrap(),
        );
        assert_close(r1, r2, 1e-14);
        let (f1, f2): (f64, f64) = (
            normal_lpdf(&fortran, 0.1, 2.0, propto).unwrap(),
            normal_lpdf(&row_major, 0.1, 2.0, propto).unwrap(),
        );
        assert_close(f1, f2, 1e-14);
    }
}

/// One argument of the vector-σ tests: a scalar or a container, constant or variable.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Const,
    ConstVec,
    Scalar,
    Array,
}

#[test]
fn the_vector_sigma_loop_matches_the_closed_form() {
    // σ a contiguous container (data or an array variable), y and μ each a scalar or a
    // container, constant or variable: the SIMD pass against the closed form per element,
    // z = (y − μ)/σ, lp = Σ −½z² − ½log(2π) − log σ, ∂y = −z/σ, ∂μ = z/σ, ∂σ = (z² − 1)/σ.
    // Lengths around the vector widths and the four-vector blocks, propto on and off.
    let kinds = [Kind::Const, Kind::ConstVec, Kind::Scalar, Kind::Array];
    for n in [1, 3, 4, 7, 8, 9, 16, 31, 33, 67] {
        let ys: Vec<f64> = (0..n).map(|i| (i as f64 * 0.91).sin() * 3.0).collect();
        let ms: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).cos()).collect();
        let ss: Vec<f64> = (0..n)
            .map(|i| 0.05 + (i as f64 * 0.53).sin().abs() * 4.0)
            .collect();
        for (yk, mk, s_var, propto) in kinds.iter().flat_map(|&yk| {
            kinds.iter().flat_map(move |&mk| {
                [(false, false), (false, true), (true, false), (true, true)]
                    .map(|(s, p)| (yk, mk, s, p))
            })
        }) {
            let y_at = |i: usize| match yk {
                Kind::Const | Kind::Scalar => ys[0],
                _ => ys[i],
            };
            let m_at = |i: usize| match mk {
                Kind::Const | Kind::Scalar => ms[0],
                _ => ms[i],
            };
            let (mut want, mut dy, mut dm) = (0.0, vec![0.0; n], vec![0.0; n]);
            let mut ds = vec![0.0; n];
            for i in 0..n {
                let z = (y_at(i) - m_at(i)) / ss[i];
                want -= 0.5 * z * z;
                if !propto {
                    want -= LOG_SQRT_TWO_PI;
                }
                if !propto || s_var {
                    want -= ss[i].ln();
                }
                (dy[i], dm[i], ds[i]) = (-z / ss[i], z / ss[i], (z * z - 1.0) / ss[i]);
            }
            let var = |k: Kind| matches!(k, Kind::Scalar | Kind::Array);
            if propto && !(var(yk) || var(mk) || s_var) {
                want = 0.0; // nothing depends on a variable
            }
            let vec = |v: &[f64]| Array1::from(v.to_vec()).into_shared();
            let (vy, vm, vs) = (
                Var::array(vec(&ys)),
                Var::array(vec(&ms)),
                Var::array(vec(&ss)),
            );
            let (y0, m0) = (Var::new(ys[0]), Var::new(ms[0]));
            let (cy, cm, cs) = (vec(&ys), vec(&ms), vec(&ss));
            // Every combination: the density with σ a variable or data, swept when it is a Var.
            macro_rules! call {
                ($y:expr, $m:expr) => {{
                    use revad::Real;
                    if s_var {
                        let lp = normal_lpdf($y, $m, &vs, propto).unwrap();
                        lp.grad();
                        lp.value()
                    } else {
                        let lp = normal_lpdf($y, $m, &cs, propto).unwrap();
                        if let Some(v) = lp.to_var() {
                            v.grad();
                        }
                        lp.value()
                    }
                }};
            }
            let got = match (yk, mk) {
                (Kind::Const, Kind::Const) => call!(ys[0], ms[0]),
                (Kind::Const, Kind::ConstVec) => call!(ys[0], &cm),
                (Kind::Const, Kind::Scalar) => call!(ys[0], m0),
                (Kind::Const, Kind::Array) => call!(ys[0], &vm),
                (Kind::ConstVec, Kind::Const) => call!(&cy, ms[0]),
                (Kind::ConstVec, Kind::ConstVec) => call!(&cy, &cm),
                (Kind::ConstVec, Kind::Scalar) => call!(&cy, m0),
                (Kind::ConstVec, Kind::Array) => call!(&cy, &vm),
                (Kind::Scalar, Kind::Const) => call!(y0, ms[0]),
                (Kind::Scalar, Kind::ConstVec) => call!(y0, &cm),
                (Kind::Scalar, Kind::Scalar) => call!(y0, m0),
                (Kind::Scalar, Kind::Array) => call!(y0, &vm),
                (Kind::Array, Kind::Const) => call!(&vy, ms[0]),
                (Kind::Array, Kind::ConstVec) => call!(&vy, &cm),
                (Kind::Array, Kind::Scalar) => call!(&vy, m0),
                (Kind::Array, Kind::Array) => call!(&vy, &vm),
            };
            let case = format!("n={n} y={yk:?} mu={mk:?} sigma var={s_var} propto={propto}");
            assert!(
                (got - want).abs() <= 1e-13 * want.abs().max(1.0),
                "{case}: {got} vs {want}"
            );
            let close = |g: f64, w: f64, what: &str| {
                assert!(
                    (g - w).abs() <= 1e-13 * w.abs().max(1.0),
                    "{case}: {what} {g} vs {w}"
                );
            };
            let sum = |d: &[f64]| d.iter().sum::<f64>();
            match yk {
                Kind::Array => (0..n).for_each(|i| close(vy.adj()[i], dy[i], "dy")),
                Kind::Scalar => close(y0.adj(), sum(&dy), "dy"),
                _ => {}
            }
            match mk {
                Kind::Array => (0..n).for_each(|i| close(vm.adj()[i], dm[i], "dmu")),
                Kind::Scalar => close(m0.adj(), sum(&dm), "dmu"),
                _ => {}
            }
            if s_var {
                (0..n).for_each(|i| close(vs.adj()[i], ds[i], "dsigma"));
            }
            tape::reset();
        }
    }
}

#[test]
fn vector_sigma_validation_follows_stan() {
    // A container σ is checked in the SIMD pass: a bad element anywhere (in a full vector or
    // the tail) gives Stan's message, in Stan's order (y before μ before σ).
    let msg = |r: revad::Result<f64>| r.unwrap_err().to_string();
    let y: Vec<f64> = (0..21).map(|i| i as f64 * 0.1).collect();
    let sigma_msg =
        |v: &str| format!("normal_lpdf: Scale parameter is {v}, but must be positive finite");
    for k in [0, 5, 9, 16, 20] {
        for (bad, shown) in [
            (0.0, "0"),
            (-1.5, "-1.5"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "NaN"),
        ] {
            let mut s = vec![1.3; 21];
            s[k] = bad;
            assert_eq!(
                msg(normal_lpdf(&y[..], 0.2, &s[..], false)),
                sigma_msg(shown)
            );
            assert_eq!(
                msg(normal_lpdf(0.4, &y[..], &s[..], true)),
                sigma_msg(shown)
            );
            let vs = Var::array(Array1::from(s.clone()).into_shared());
            let r = normal_lpdf(&y[..], Var::new(0.2), &vs, false);
            assert_eq!(r.unwrap_err().to_string(), sigma_msg(shown));
            tape::reset();
            let mut y_nan = y.clone();
            y_nan[(k + 3) % 21] = f64::NAN;
            assert_eq!(
                msg(normal_lpdf(&y_nan[..], 0.2, &s[..], false)),
                "normal_lpdf: Random variable is NaN, but must not be NaN"
            );
            assert_eq!(
                msg(normal_lpdf(&y[..], f64::NEG_INFINITY, &s[..], false)),
                "normal_lpdf: Location parameter is -inf, but must be finite"
            );
        }
    }
    // The smallest positive σ passes; an infinite y is −∞, not an error.
    let s = [f64::MIN_POSITIVE; 21];
    assert!(normal_lpdf(&y[..], 0.0, &s[..], false).is_ok());
    let mut y_inf = y.clone();
    y_inf[12] = f64::INFINITY;
    assert_eq!(
        normal_lpdf(&y_inf[..], 0.0, &vec![2.0; 21][..], false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        msg(normal_lpdf(&y[..], 0.0, &[1.0, 2.0][..], false)),
        "normal_lpdf: Scale parameter has size 2, but must have size 21"
    );
}

#[test]
fn vector_sigma_gradients_against_finite_differences() {
    // y data, μ and σ array variables (the hierarchical likelihood), at ordinary points, small
    // σ and large z; and every argument a variable.
    let y = [0.1, 0.7, -0.4, 2.5, -3.0, 0.0, 1.2, 0.9, -0.6];
    let pts: &[&[f64]] = &[
        &[
            0.0, 0.5, -1.0, 1.0, 2.0, 0.5, 0.3, -0.2, 0.8, 1.0, 2.0, 0.5, 0.7, 1.1, 3.0, 0.9, 1.4,
            2.2,
        ],
        &[
            0.1, 0.6, -0.3, 2.4, -2.9, 0.1, 1.1, 1.0, -0.5, 0.05, 0.1, 0.2, 0.08, 0.3, 0.15, 0.12,
            0.09, 0.2,
        ],
        &[
            9.0, -8.0, 7.5, -6.0, 5.0, 4.0, -3.0, 2.0, 1.0, 0.5, 0.4, 0.6, 0.3, 0.2, 0.7, 0.5, 0.9,
            0.4,
        ],
    ];
    check_gradient(
        |v| {
            let (mu, s) = (vector_from(&v[..9]), vector_from(&v[9..]));
            normal_lpdf(&y[..], &mu, &s, false).unwrap()
        },
        pts,
    );
    check_gradient(
        |v| normal_lpdf(&vector_from(&v[..9]), v[9], &vector_from(&v[9..]), true).unwrap(),
        pts,
    );
}
