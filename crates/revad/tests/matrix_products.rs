//! Products of the Stan Math paper's A.7 beyond `multiply` (columns/rows dot products, crossprod,
//! quadratic forms, diagonal products, multiply_lower_tri_self_transpose): every function against
//! finite differences and against the same computation on scalar variables (matvar), data-operand
//! variants, and every error message.
//!
//! Results are reduced with irregular weights (never a plain sum, whose all-ones adjoint is
//! symmetric and would hide a transposed `C̄`).

use ndarray::{array, Array1, Array2};
use revad::testing::{assert_close, check_gradient, value_of};
use revad::testing::{
    check_matvar, matrix_from as mat, row_vector_from as row, test_points as points,
    vector_from as vector, GradCheck,
};
use revad::{gradient, matrix, tape, Error, Matrix, RowVector, Storage, Var, Vector};

/// Stan Math's varmat/matvar agreement check with finite differences at the default settings.
fn agree(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, Some(GradCheck::default()));
}

/// [`agree`] without finite differences.
fn agree_no_fd(varmat: impl Fn(&[Var]) -> Var, matvar: impl Fn(&[Var]) -> Var, x: &[f64]) {
    check_matvar(varmat, matvar, x, None);
}

// ---------------------------------------------------------------------------------------------
// Helpers (as in tests/matrix.rs).

fn data(r: usize, c: usize, seed: u64) -> Matrix {
    Array2::from_shape_vec((r, c), points(r * c, seed))
        .unwrap()
        .into_shared()
}

/// Irregular weights for reducing a result of `n` elements.
fn weights(n: usize) -> Vec<f64> {
    points(n, 4242).iter().map(|w| w + 0.1).collect()
}

/// `Σ wₖcₖ` of a varmat result.
fn weigh<S: Storage>(c: &Var<S>) -> Var {
    let w = c.value().with_data(weights(c.len()));
    matrix::dot_product(c, &w).unwrap()
}

/// `Σ wₖcₖ` of a matvar result (the same weights).
fn weigh_s(c: &[Var]) -> Var {
    let w = weights(c.len());
    let terms: Vec<Var> = c.iter().zip(&w).map(|(x, w)| *x * *w).collect();
    revad::sum(&terms)
}

/// Scalar-variable matrix product of row-major `a` (r×k) and `b` (k×c).
fn s_mul(a: &[Var], r: usize, k: usize, b: &[Var], c: usize) -> Vec<Var> {
    let mut out = Vec::with_capacity(r * c);
    for i in 0..r {
        for j in 0..c {
            let terms: Vec<Var> = (0..k).map(|l| a[i * k + l] * b[l * c + j]).collect();
            out.push(revad::sum(&terms));
        }
    }
    out
}

/// Scalar-variable transpose of row-major `a` (r×c).
fn s_t(a: &[Var], r: usize, c: usize) -> Vec<Var> {
    let mut out = Vec::with_capacity(r * c);
    for j in 0..c {
        for i in 0..r {
            out.push(a[i * c + j]);
        }
    }
    out
}

/// Three irregular points of `n` coordinates.
fn several(n: usize) -> Vec<Vec<f64>> {
    [3, 29, 71].iter().map(|&s| points(n, s)).collect()
}

// ---------------------------------------------------------------------------------------------
// Column and row dot products.

#[test]
fn columns_and_rows_dot_product_of_matrices_agree_with_scalar_loops() {
    let (r, c) = (3, 4);
    for x in several(2 * r * c) {
        agree(
            |v: &[Var]| {
                let a = mat(r, c, &v[..r * c]);
                let b = mat(r, c, &v[r * c..]);
                let y = matrix::columns_dot_product(&a, &b).unwrap();
                assert_eq!(y.shape(), (1, c));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..c)
                    .map(|j| {
                        let t: Vec<Var> = (0..r)
                            .map(|i| v[i * c + j] * v[r * c + i * c + j])
                            .collect();
                        revad::sum(&t)
                    })
                    .collect();
                weigh_s(&y)
            },
            &x,
        );
        agree(
            |v: &[Var]| {
                let a = mat(r, c, &v[..r * c]);
                let b = mat(r, c, &v[r * c..]);
                let y = matrix::rows_dot_product(&a, &b).unwrap();
                assert_eq!(y.shape(), (r, 1));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..r)
                    .map(|i| {
                        let t: Vec<Var> = (0..c)
                            .map(|j| v[i * c + j] * v[r * c + i * c + j])
                            .collect();
                        revad::sum(&t)
                    })
                    .collect();
                weigh_s(&y)
            },
            &x,
        );
    }
}

#[test]
fn columns_and_rows_dot_self_agree_with_scalar_loops() {
    let (r, c) = (4, 3);
    for x in several(r * c) {
        agree(
            |v: &[Var]| {
                let y = matrix::columns_dot_self(&mat(r, c, v));
                assert_eq!(y.shape(), (1, c));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..c)
                    .map(|j| {
                        let t: Vec<Var> = (0..r).map(|i| v[i * c + j] * v[i * c + j]).collect();
                        revad::sum(&t)
                    })
                    .collect();
                weigh_s(&y)
            },
            &x,
        );
        agree(
            |v: &[Var]| {
                let y = matrix::rows_dot_self(&mat(r, c, v));
                assert_eq!(y.shape(), (r, 1));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..r)
                    .map(|i| {
                        let t: Vec<Var> = (0..c).map(|j| v[i * c + j] * v[i * c + j]).collect();
                        revad::sum(&t)
                    })
                    .collect();
                weigh_s(&y)
            },
            &x,
        );
    }
}

#[test]
fn dot_products_of_vectors_and_row_vectors_follow_stan() {
    // columns_dot_product(vector, vector) is one dot product; of row vectors, the elementwise
    // product. rows_dot_product the other way round.
    let n = 4;
    for x in several(2 * n) {
        agree(
            |v: &[Var]| {
                let (a, b) = (vector(&v[..n]), vector(&v[n..]));
                let cols = matrix::columns_dot_product(&a, &b).unwrap();
                assert_eq!(cols.shape(), (1, 1));
                let rows = matrix::rows_dot_product(&a, &b).unwrap();
                assert_eq!(rows.shape(), (n, 1));
                let cs = matrix::columns_dot_self(&a);
                let rs = matrix::rows_dot_self(&a);
                assert_eq!((cs.shape(), rs.shape()), ((1, 1), (n, 1)));
                weigh(&cols) + weigh(&rows) * 0.5 + weigh(&cs) * 0.25 - weigh(&rs)
            },
            |v: &[Var]| {
                let prod: Vec<Var> = (0..n).map(|i| v[i] * v[n + i]).collect();
                let sq: Vec<Var> = (0..n).map(|i| v[i] * v[i]).collect();
                weigh_s(&[revad::sum(&prod)])
                    + weigh_s(&prod) * 0.5
                    + weigh_s(&[revad::sum(&sq)]) * 0.25
                    - weigh_s(&sq)
            },
            &x,
        );
        agree(
            |v: &[Var]| {
                let (a, b) = (row(&v[..n]), row(&v[n..]));
                let cols = matrix::columns_dot_product(&a, &b).unwrap();
                assert_eq!(cols.shape(), (1, n));
                let rows = matrix::rows_dot_product(&a, &b).unwrap();
                assert_eq!(rows.shape(), (1, 1));
                let cs = matrix::columns_dot_self(&a);
                let rs = matrix::rows_dot_self(&a);
                assert_eq!((cs.shape(), rs.shape()), ((1, n), (1, 1)));
                weigh(&cols) + weigh(&rows) * 0.5 + weigh(&cs) * 0.25 - weigh(&rs)
            },
            |v: &[Var]| {
                let prod: Vec<Var> = (0..n).map(|i| v[i] * v[n + i]).collect();
                let sq: Vec<Var> = (0..n).map(|i| v[i] * v[i]).collect();
                weigh_s(&prod) + weigh_s(&[revad::sum(&prod)]) * 0.5 + weigh_s(&sq) * 0.25
                    - weigh_s(&[revad::sum(&sq)])
            },
            &x,
        );
    }
}

#[test]
fn dot_products_with_data_and_with_one_variable_twice() {
    let (r, c) = (3, 2);
    let d = data(r, c, 5);
    let x = points(r * c, 9);
    // data on either side: the gradient of the variable side equals that of the all-variable
    // computation restricted to it.
    let (_, g_all) = gradient(
        |v| {
            let a = mat(r, c, &v[..r * c]);
            let b = mat(r, c, &v[r * c..]);
            weigh(&matrix::columns_dot_product(&a, &b).unwrap())
                + weigh(&matrix::rows_dot_product(&a, &b).unwrap())
        },
        &[x.clone(), d.as_slice().to_vec()].concat(),
    );
    let var_data = |v: &[Var]| {
        let a = mat(r, c, v);
        weigh(&matrix::columns_dot_product(&a, &d).unwrap())
            + weigh(&matrix::rows_dot_product(&a, &d).unwrap())
    };
    let data_var = |v: &[Var]| {
        let a = mat(r, c, v);
        weigh(&matrix::columns_dot_product(&d, &a).unwrap())
            + weigh(&matrix::rows_dot_product(&d, &a).unwrap())
    };
    for f in [&var_data as &dyn Fn(&[Var]) -> Var, &data_var] {
        let (_, g) = gradient(f, &x);
        for (a, b) in g.iter().zip(&g_all[..r * c]) {
            assert_close(*a, *b, 1e-14);
        }
        check_gradient(f, &[&x, &points(r * c, 10)]);
    }
    // data with data: a constant
    tape::reset();
    let y = matrix::columns_dot_product(&d, &d).unwrap();
    let z = matrix::columns_dot_self(&d);
    assert_eq!(y.value(), z.value());
    // a·a is a·a's dot_self.
    agree(
        |v: &[Var]| {
            let a = mat(r, c, v);
            weigh(&matrix::columns_dot_product(&a, &a).unwrap())
                + weigh(&matrix::rows_dot_product(&a, &a).unwrap())
        },
        |v: &[Var]| {
            let a = mat(r, c, v);
            weigh(&matrix::columns_dot_self(&a)) + weigh(&matrix::rows_dot_self(&a))
        },
        &x,
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// crossprod, tcrossprod, multiply_lower_tri_self_transpose.

#[test]
fn crossprod_and_tcrossprod_agree_with_scalar_loops() {
    let (r, c) = (4, 3);
    for x in several(r * c) {
        agree(
            |v: &[Var]| {
                let y = matrix::crossprod(&mat(r, c, v));
                assert_eq!(y.shape(), (c, c));
                weigh(&y)
            },
            |v: &[Var]| weigh_s(&s_mul(&s_t(v, r, c), c, r, v, c)),
            &x,
        );
        agree(
            |v: &[Var]| {
                let y = matrix::tcrossprod(&mat(r, c, v));
                assert_eq!(y.shape(), (r, r));
                weigh(&y)
            },
            |v: &[Var]| weigh_s(&s_mul(v, r, c, &s_t(v, r, c), r)),
            &x,
        );
    }
}

#[test]
fn multiply_lower_tri_self_transpose_agrees_with_scalar_loops() {
    // square, tall and wide
    for (r, c) in [(3, 3), (4, 2), (2, 4)] {
        for x in several(r * c) {
            agree(
                |v: &[Var]| {
                    let y = matrix::multiply_lower_tri_self_transpose(&mat(r, c, v));
                    assert_eq!(y.shape(), (r, r));
                    weigh(&y)
                },
                |v: &[Var]| {
                    // cᵢⱼ = Σ_{k ≤ min(i, j), k < c} aᵢₖaⱼₖ
                    let mut y = Vec::new();
                    for i in 0..r {
                        for j in 0..r {
                            let t: Vec<Var> = (0..=i.min(j).min(c - 1))
                                .map(|k| v[i * c + k] * v[j * c + k])
                                .collect();
                            y.push(revad::sum(&t));
                        }
                    }
                    weigh_s(&y)
                },
                &x,
            );
        }
    }
    // the strict upper triangle gets no gradient
    let (r, c) = (3, 4);
    let (_, g) = gradient(
        |v| weigh(&matrix::multiply_lower_tri_self_transpose(&mat(r, c, v))),
        &points(r * c, 1),
    );
    for i in 0..r {
        for j in 0..c {
            assert_eq!(g[i * c + j] == 0.0, j > i, "({i}, {j})");
        }
    }
}

#[test]
fn self_products_are_exactly_symmetric_and_take_data() {
    tape::reset();
    let d = data(5, 7, 3);
    for y in [
        matrix::crossprod(&d),
        matrix::tcrossprod(&d),
        matrix::multiply_lower_tri_self_transpose(&d),
        matrix::tcrossprod(&Var::array(d.clone())),
    ] {
        let v = y.value();
        assert_eq!(v, &v.t().to_owned().into_shared());
    }
    let c = matrix::crossprod(&d);
    let expected = d.t().dot(&d);
    for (a, b) in c.value().iter().zip(expected.iter()) {
        assert_close(*a, *b, 1e-14);
    }
    // empty matrices
    let e = Array2::<f64>::zeros((0, 3)).into_shared();
    assert_eq!(matrix::crossprod(&e).shape(), (3, 3));
    assert_eq!(matrix::tcrossprod(&e).shape(), (0, 0));
    let ev = Var::array(Array2::<f64>::zeros((2, 0)).into_shared());
    let y = matrix::multiply_lower_tri_self_transpose(&ev);
    assert_eq!(y.value(), &Array2::<f64>::zeros((2, 2)).into_shared());
    matrix::sum(&y).grad();
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Quadratic forms.

/// Bᵀ A B with scalar variables, A n×n and B n×m.
fn s_quad(a: &[Var], b: &[Var], n: usize, m: usize) -> Vec<Var> {
    let ab = s_mul(a, n, n, b, m);
    s_mul(&s_t(b, n, m), m, n, &ab, m)
}

#[test]
fn quad_form_agrees_with_scalar_loops() {
    let (n, m) = (3, 2);
    for x in several(n * n + n * m) {
        agree(
            |v: &[Var]| {
                let a = mat(n, n, &v[..n * n]);
                let b = mat(n, m, &v[n * n..]);
                let y = matrix::quad_form(&a, &b).unwrap();
                assert_eq!(y.shape(), (m, m));
                weigh(&y)
            },
            |v: &[Var]| weigh_s(&s_quad(&v[..n * n], &v[n * n..], n, m)),
            &x,
        );
    }
    // vector B: a scalar
    for x in several(n * n + n) {
        agree(
            |v: &[Var]| {
                let a = mat(n, n, &v[..n * n]);
                let b = vector(&v[n * n..]);
                let y: Var = matrix::quad_form(&a, &b).unwrap();
                y * 1.5
            },
            |v: &[Var]| s_quad(&v[..n * n], &v[n * n..], n, 1)[0] * 1.5,
            &x,
        );
    }
    // A and B the same variable
    for x in several(n * n) {
        agree(
            |v: &[Var]| {
                let a = mat(n, n, v);
                weigh(&matrix::quad_form(&a, &a).unwrap())
            },
            |v: &[Var]| weigh_s(&s_quad(v, v, n, n)),
            &x,
        );
    }
}

#[test]
fn quad_form_with_data_on_either_side() {
    let (n, m) = (3, 4);
    let (ad, bd) = (data(n, n, 21), data(n, m, 22));
    let bvd: Vector = Array1::from(points(n, 23)).into_shared();
    for x in several(n * n + n * m) {
        let full = |v: &[Var]| {
            let a = mat(n, n, &v[..n * n]);
            let b = mat(n, m, &v[n * n..]);
            weigh(&matrix::quad_form(&a, &b).unwrap())
        };
        // var A, data B and data A, var B: the gradient is the all-variable one restricted.
        let xa = [&x[..n * n], bd.as_slice()].concat();
        let (va, ga) = gradient(full, &xa);
        let var_data = |v: &[Var]| weigh(&matrix::quad_form(&mat(n, n, v), &bd).unwrap());
        let (v1, g1) = gradient(var_data, &x[..n * n]);
        assert_close(v1, va, 1e-14);
        g1.iter()
            .zip(&ga[..n * n])
            .for_each(|(a, b)| assert_close(*a, *b, 1e-14));
        check_gradient(var_data, &[&x[..n * n]]);

        let xb = [ad.as_slice(), &x[n * n..]].concat();
        let (vb, gb) = gradient(full, &xb);
        let data_var = |v: &[Var]| weigh(&matrix::quad_form(&ad, &mat(n, m, v)).unwrap());
        let (v2, g2) = gradient(data_var, &x[n * n..]);
        assert_close(v2, vb, 1e-14);
        g2.iter()
            .zip(&gb[n * n..])
            .for_each(|(a, b)| assert_close(*a, *b, 1e-14));
        check_gradient(data_var, &[&x[n * n..]]);

        // vector data B
        check_gradient(
            |v: &[Var]| matrix::quad_form(&mat(n, n, v), &bvd).unwrap(),
            &[&x[..n * n]],
        );
        check_gradient(
            |v: &[Var]| matrix::quad_form(&ad, &vector(v)).unwrap(),
            &[&x[..n]],
        );
    }
    // all data: a constant with the right value
    tape::reset();
    let y = matrix::quad_form(&ad, &bd).unwrap();
    let expected = bd.t().dot(&ad.dot(&bd));
    for (a, b) in y.value().iter().zip(expected.iter()) {
        assert_close(*a, *b, 1e-14);
    }
    tape::reset();
}

/// An n×n symmetric matrix of scalar variables from its n(n+1)/2 lower-triangle parameters.
fn sym_from(p: &[Var], n: usize) -> Vec<Var> {
    let idx = |i: usize, j: usize| {
        let (i, j) = (i.max(j), i.min(j));
        i * (i + 1) / 2 + j
    };
    (0..n * n).map(|k| p[idx(k / n, k % n)]).collect()
}

/// The symmetric n×n matrix as the quad_form_sym tests use it: an irregular symmetric point.
fn sym_point(n: usize, seed: u64) -> Vec<f64> {
    let p = points(n * (n + 1) / 2, seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            a[i * n + j] = p[i * (i + 1) / 2 + j];
            a[j * n + i] = p[i * (i + 1) / 2 + j];
        }
    }
    a
}

#[test]
fn quad_form_sym_agrees_with_scalar_loops() {
    let (n, m) = (3, 2);
    let np = n * (n + 1) / 2;
    // Finite differences through a symmetric parametrisation of A (an independent step in one
    // element would make A asymmetric, which quad_form_sym refuses).
    for x in several(np + n * m) {
        agree(
            |v: &[Var]| {
                let a = mat(n, n, &sym_from(&v[..np], n));
                let b = mat(n, m, &v[np..]);
                let y = matrix::quad_form_sym(&a, &b).unwrap();
                assert_eq!(y.shape(), (m, m));
                weigh(&y)
            },
            |v: &[Var]| {
                let x = s_quad(&sym_from(&v[..np], n), &v[np..], n, m);
                let xt = s_t(&x, m, m);
                let c: Vec<Var> = x.iter().zip(&xt).map(|(p, q)| (*p + *q) * 0.5).collect();
                weigh_s(&c)
            },
            &x,
        );
    }
    // Every element of A its own variable, at symmetric points: the varmat gradient is the
    // matvar one element by element (Ā = BSBᵀ, symmetric).
    for s in [2, 5, 8] {
        let x = [sym_point(n, s), points(n * m, s + 1)].concat();
        agree_no_fd(
            |v: &[Var]| {
                let a = mat(n, n, &v[..n * n]);
                let b = mat(n, m, &v[n * n..]);
                weigh(&matrix::quad_form_sym(&a, &b).unwrap())
            },
            |v: &[Var]| {
                let x = s_quad(&v[..n * n], &v[n * n..], n, m);
                let xt = s_t(&x, m, m);
                let c: Vec<Var> = x.iter().zip(&xt).map(|(p, q)| (*p + *q) * 0.5).collect();
                weigh_s(&c)
            },
            &x,
        );
        // vector B: a scalar, bᵀAb
        let xv = [sym_point(n, s), points(n, s + 2)].concat();
        agree_no_fd(
            |v: &[Var]| {
                let y: Var =
                    matrix::quad_form_sym(&mat(n, n, &v[..n * n]), &vector(&v[n * n..])).unwrap();
                y
            },
            |v: &[Var]| s_quad(&v[..n * n], &v[n * n..], n, 1)[0],
            &xv,
        );
    }
    for x in several(np + n) {
        check_gradient(
            |v: &[Var]| {
                let a = mat(n, n, &sym_from(&v[..np], n));
                matrix::quad_form_sym(&a, &vector(&v[np..])).unwrap()
            },
            &[&x],
        );
    }
}

#[test]
fn quad_form_sym_symmetrises_and_takes_data() {
    tape::reset();
    let n = 4;
    // within the tolerance: accepted, and the result is exactly symmetric
    let mut a = Array2::from_shape_vec((n, n), sym_point(n, 31)).unwrap();
    a[[0, 3]] += 5e-9;
    let a = a.into_shared();
    let b = data(n, 3, 32);
    let y = matrix::quad_form_sym(&Var::array(a.clone()), &b).unwrap();
    assert_eq!(y.value(), &y.value().t().to_owned().into_shared());
    let plain = matrix::quad_form(&a, &b).unwrap();
    for (p, q) in y.value().iter().zip(plain.value().iter()) {
        assert_close(*p, *q, 1e-8);
    }
    tape::reset();
    // data A, var B and var A, data B match the all-variable gradient
    let ad = Array2::from_shape_vec((n, n), sym_point(n, 33))
        .unwrap()
        .into_shared();
    let x = points(n * 3, 34);
    let full = |v: &[Var]| {
        weigh(&matrix::quad_form_sym(&mat(n, n, &v[..n * n]), &mat(n, 3, &v[n * n..])).unwrap())
    };
    let (_, g_all) = gradient(full, &[ad.as_slice(), &x].concat());
    let data_var = |v: &[Var]| weigh(&matrix::quad_form_sym(&ad, &mat(n, 3, v)).unwrap());
    let (_, g) = gradient(data_var, &x);
    g.iter()
        .zip(&g_all[n * n..])
        .for_each(|(p, q)| assert_close(*p, *q, 1e-14));
    check_gradient(data_var, &[&x, &points(n * 3, 35)]);
    let var_data = |v: &[Var]| weigh(&matrix::quad_form_sym(&mat(n, n, v), &b).unwrap());
    let xa = ad.as_slice().to_vec();
    let (_, g) = gradient(var_data, &xa);
    let (_, g_all) = gradient(full, &[&xa[..], b.as_slice()].concat());
    g.iter()
        .zip(&g_all[..n * n])
        .for_each(|(p, q)| assert_close(*p, *q, 1e-14));
    tape::reset();
}

#[test]
fn larger_quad_form_passes_the_random_direction_check() {
    // ⟨∇f, t⟩ against the directional derivative of f(A, B) = Σ w ∘ (BᵀAB), 10×10, along a
    // fixed direction t. f is cubic along t, so the five-point stencil is exact up to rounding.
    let n = 10;
    let x = points(2 * n * n, 13);
    let t = points(2 * n * n, 19);
    let f = |v: &[Var]| {
        let a = mat(n, n, &v[..n * n]);
        let b = mat(n, n, &v[n * n..]);
        weigh(&matrix::quad_form(&a, &b).unwrap())
    };
    let (_, g) = gradient(f, &x);
    let lhs: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    let at = |s: f64| {
        let p: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + s * b).collect();
        value_of(&f, &p)
    };
    let h = 1e-2;
    let rhs = (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h);
    assert_close(lhs, rhs, 1e-9);
    // and the same for quad_form_sym through a symmetric direction and point
    let a0 = sym_point(n, 41);
    let ta = sym_point(n, 43);
    let x = [a0, points(n * n, 42)].concat();
    let t = [ta, points(n * n, 44)].concat();
    let f = |v: &[Var]| {
        let a = mat(n, n, &v[..n * n]);
        let b = mat(n, n, &v[n * n..]);
        weigh(&matrix::quad_form_sym(&a, &b).unwrap())
    };
    let (_, g) = gradient(f, &x);
    let lhs: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
    let at = |s: f64| {
        let p: Vec<f64> = x.iter().zip(&t).map(|(a, b)| a + s * b).collect();
        value_of(&f, &p)
    };
    let rhs = (-at(2.0 * h) + 8.0 * at(h) - 8.0 * at(-h) + at(-2.0 * h)) / (12.0 * h);
    assert_close(lhs, rhs, 1e-9);
}

// ---------------------------------------------------------------------------------------------
// Diagonal products.

#[test]
fn quad_form_diag_agrees_with_scalar_loops() {
    let n = 3;
    for x in several(n * n + n) {
        let matvar = |v: &[Var]| {
            let (m, d) = (&v[..n * n], &v[n * n..]);
            let c: Vec<Var> = (0..n * n).map(|k| d[k / n] * m[k] * d[k % n]).collect();
            weigh_s(&c)
        };
        agree(
            |v: &[Var]| {
                let y =
                    matrix::quad_form_diag(&mat(n, n, &v[..n * n]), &vector(&v[n * n..])).unwrap();
                assert_eq!(y.shape(), (n, n));
                weigh(&y)
            },
            matvar,
            &x,
        );
        agree(
            |v: &[Var]| {
                weigh(&matrix::quad_form_diag(&mat(n, n, &v[..n * n]), &row(&v[n * n..])).unwrap())
            },
            matvar,
            &x,
        );
    }
}

#[test]
fn diag_pre_and_post_multiply_agree_with_scalar_loops() {
    let (r, c) = (3, 4);
    for x in several(r * c + r.max(c)) {
        agree(
            |v: &[Var]| {
                let y = matrix::diag_pre_multiply(
                    &vector(&v[r * c..r * c + r]),
                    &mat(r, c, &v[..r * c]),
                )
                .unwrap();
                assert_eq!(y.shape(), (r, c));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..r * c).map(|k| v[r * c + k / c] * v[k]).collect();
                weigh_s(&y)
            },
            &x[..r * c + r],
        );
        agree(
            |v: &[Var]| {
                let y =
                    matrix::diag_post_multiply(&mat(r, c, &v[..r * c]), &row(&v[r * c..])).unwrap();
                assert_eq!(y.shape(), (r, c));
                weigh(&y)
            },
            |v: &[Var]| {
                let y: Vec<Var> = (0..r * c).map(|k| v[k] * v[r * c + k % c]).collect();
                weigh_s(&y)
            },
            &x[..r * c + c],
        );
    }
}

#[test]
fn diagonal_products_with_data_on_either_side() {
    let n = 3;
    let md = data(n, n, 51);
    let vd: Vector = Array1::from(points(n, 52)).into_shared();
    let rd = RowVector(vd.clone());
    for x in several(n * n + n) {
        let (xm, xv) = (&x[..n * n], &x[n * n..]);
        type Op = fn(&Var<Matrix>, &Var<Vector>) -> Var<Matrix>;
        let ops: [Op; 3] = [
            |m, v| matrix::quad_form_diag(m, v).unwrap(),
            |m, v| matrix::diag_pre_multiply(v, m).unwrap(),
            |m, v| matrix::diag_post_multiply(m, v).unwrap(),
        ];
        for (i, op) in ops.into_iter().enumerate() {
            let full = |v: &[Var]| weigh(&op(&mat(n, n, &v[..n * n]), &vector(&v[n * n..])));
            // var matrix, data vector (and data row vector)
            let var_data = |v: &[Var]| {
                let m = mat(n, n, v);
                let y = match i {
                    0 => matrix::quad_form_diag(&m, &vd).unwrap(),
                    1 => matrix::diag_pre_multiply(&rd, &m).unwrap(),
                    _ => matrix::diag_post_multiply(&m, &vd).unwrap(),
                };
                weigh(&y)
            };
            let (_, g_all) = gradient(full, &[xm, vd.as_slice()].concat());
            let (_, g) = gradient(var_data, xm);
            g.iter()
                .zip(&g_all[..n * n])
                .for_each(|(p, q)| assert_close(*p, *q, 1e-14));
            check_gradient(var_data, &[xm]);
            // data matrix, var vector
            let data_var = |v: &[Var]| {
                let d = vector(v);
                let y = match i {
                    0 => matrix::quad_form_diag(&md, &d).unwrap(),
                    1 => matrix::diag_pre_multiply(&d, &md).unwrap(),
                    _ => matrix::diag_post_multiply(&md, &d).unwrap(),
                };
                weigh(&y)
            };
            let (_, g_all) = gradient(full, &[md.as_slice(), xv].concat());
            let (_, g) = gradient(data_var, xv);
            g.iter()
                .zip(&g_all[n * n..])
                .for_each(|(p, q)| assert_close(*p, *q, 1e-14));
            check_gradient(data_var, &[xv]);
        }
    }
    // values
    tape::reset();
    let m = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
    let v = array![10.0, -1.0].into_shared();
    let pre = matrix::diag_pre_multiply(&v, &m).unwrap();
    assert_eq!(
        pre.value(),
        &array![[10.0, 20.0], [-3.0, -4.0]].into_shared()
    );
    let post = matrix::diag_post_multiply(&m, &v).unwrap();
    assert_eq!(
        post.value(),
        &array![[10.0, -2.0], [30.0, -4.0]].into_shared()
    );
    let both = matrix::quad_form_diag(&m, &v).unwrap();
    assert_eq!(
        both.value(),
        &array![[100.0, -20.0], [-30.0, 4.0]].into_shared()
    );
    tape::reset();
}

// ---------------------------------------------------------------------------------------------
// Errors.

fn msg<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    let e = r.unwrap_err();
    assert!(
        matches!(e, Error::Size { .. } | Error::Domain { .. }),
        "{e:?}"
    );
    e.to_string()
}

#[test]
fn dot_product_family_reports_mismatched_shapes() {
    tape::reset();
    let a = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let taller = Array2::<f64>::zeros((3, 3)).into_shared();
    let narrower = Var::array(Array2::<f64>::zeros((2, 2)).into_shared());
    let transposed = Array2::<f64>::zeros((3, 2)).into_shared();
    assert_eq!(
        msg(matrix::columns_dot_product(&a, &taller)),
        "columns_dot_product: the rows of the second argument has size 3, but must have size 2"
    );
    assert_eq!(
        msg(matrix::columns_dot_product(&a, &narrower)),
        "columns_dot_product: the columns of the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        msg(matrix::rows_dot_product(&taller, &a)),
        "rows_dot_product: the rows of the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        msg(matrix::rows_dot_product(&a, &transposed)),
        "rows_dot_product: the rows of the second argument has size 3, but must have size 2"
    );
    assert_eq!(
        msg(matrix::rows_dot_product(&a, &narrower)),
        "rows_dot_product: the columns of the second argument has size 2, but must have size 3"
    );
    let u = Var::array(Array1::<f64>::zeros(3).into_shared());
    let w: Vector = Array1::<f64>::zeros(4).into_shared();
    assert_eq!(
        msg(matrix::columns_dot_product(&u, &w)),
        "columns_dot_product: the rows of the second argument has size 4, but must have size 3"
    );
    let ru = RowVector(Array1::<f64>::zeros(3).into_shared());
    let rw = Var::array(RowVector(Array1::<f64>::zeros(2).into_shared()));
    assert_eq!(
        msg(matrix::rows_dot_product(&ru, &rw)),
        "rows_dot_product: the columns of the second argument has size 2, but must have size 3"
    );
    tape::reset();
}

#[test]
fn quadratic_forms_report_bad_arguments() {
    tape::reset();
    let wide = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let sq = Var::array(Array2::<f64>::zeros((3, 3)).into_shared());
    let b2 = Array2::<f64>::zeros((2, 2)).into_shared();
    let v2: Vector = Array1::<f64>::zeros(2).into_shared();
    let b3 = Var::array(Array2::<f64>::zeros((3, 2)).into_shared());
    assert_eq!(
        msg(matrix::quad_form(&wide, &b3)),
        "quad_form: the columns of the first argument (square) has size 3, but must have size 2"
    );
    assert_eq!(
        msg(matrix::quad_form(&sq, &b2)),
        "quad_form: the rows of the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        msg(matrix::quad_form(&sq, &v2)),
        "quad_form: the rows of the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        msg(matrix::quad_form_sym(&wide, &b3)),
        "quad_form_sym: the columns of the first argument (square) has size 3, but must have size 2"
    );
    assert_eq!(
        msg(matrix::quad_form_sym(&sq, &v2)),
        "quad_form_sym: the rows of the second argument has size 2, but must have size 3"
    );
    // asymmetry beyond Stan's tolerance 1e-8, as data or variable
    let asym = array![[1.0, 2.0, 0.0], [2.5, 1.0, 0.0], [0.0, 0.0, 1.0]].into_shared();
    assert_eq!(
        msg(matrix::quad_form_sym(&asym, &b3)),
        "quad_form_sym: the asymmetry |A[i,j] − A[j,i]| of the first argument is 0.5, but must \
         be at most 1e-8"
    );
    let mut nan = asym.to_owned();
    nan[[0, 1]] = 2.5;
    nan[[2, 1]] = f64::NAN;
    let nan = Var::array(nan.into_shared());
    assert_eq!(
        msg(matrix::quad_form_sym(&nan, &b3)),
        "quad_form_sym: the asymmetry |A[i,j] − A[j,i]| of the first argument is NaN, but must \
         be at most 1e-8"
    );
    let mut slightly = array![[1.0, 2.0], [2.0, 1.0]];
    slightly[[1, 0]] += 2e-8;
    assert!(matches!(
        matrix::quad_form_sym(&slightly.into_shared(), &v2),
        Err(Error::Domain {
            function: "quad_form_sym",
            ..
        })
    ));
    tape::reset();
}

#[test]
fn diagonal_products_report_mismatched_sizes() {
    tape::reset();
    let wide = Var::array(Array2::<f64>::zeros((2, 3)).into_shared());
    let sq: Matrix = Array2::<f64>::zeros((3, 3)).into_shared();
    let v2 = Var::array(Array1::<f64>::zeros(2).into_shared());
    let r4 = RowVector(Array1::<f64>::zeros(4).into_shared());
    assert_eq!(
        msg(matrix::quad_form_diag(&wide, &v2)),
        "quad_form_diag: the columns of the first argument (square) has size 3, but must have \
         size 2"
    );
    assert_eq!(
        msg(matrix::quad_form_diag(&sq, &v2)),
        "quad_form_diag: the second argument has size 2, but must have size 3"
    );
    assert_eq!(
        msg(matrix::diag_pre_multiply(&r4, &wide)),
        "diag_pre_multiply: the first argument has size 4, but must have size 2"
    );
    assert_eq!(
        msg(matrix::diag_post_multiply(&wide, &v2)),
        "diag_post_multiply: the second argument has size 2, but must have size 3"
    );
    // the matching sizes pass
    assert!(matrix::diag_pre_multiply(&v2, &wide).is_ok());
    assert!(matrix::diag_post_multiply(
        &sq,
        &r4.0.slice(ndarray::s![..3]).to_owned().into_shared()
    )
    .is_ok());
    tape::reset();
}

#[test]
fn products_above_the_gemm_threshold_agree_with_scalar_loops() {
    // Shapes whose products (forward and reverse) take the gemm kernel (m·n·k ≥ 16³), value and
    // gradient against scalar loops to 1e-13 / 1e-12.
    let (r, c) = (40, 30);
    let x = points(r * c, 5);
    agree_no_fd(
        |v: &[Var]| weigh(&matrix::crossprod(&mat(r, c, v))),
        |v: &[Var]| weigh_s(&s_mul(&s_t(v, r, c), c, r, v, c)),
        &x,
    );
    agree_no_fd(
        |v: &[Var]| weigh(&matrix::tcrossprod(&mat(c, r, v))),
        |v: &[Var]| weigh_s(&s_mul(v, c, r, &s_t(v, c, r), c)),
        &x,
    );
    let n = 30;
    agree_no_fd(
        |v: &[Var]| weigh(&matrix::multiply_lower_tri_self_transpose(&mat(n, n, v))),
        |v: &[Var]| {
            let l: Vec<Var> = (0..n * n)
                .map(|q| if q % n > q / n { v[q] * 0.0 } else { v[q] })
                .collect();
            weigh_s(&s_mul(&l, n, n, &s_t(&l, n, n), n))
        },
        &points(n * n, 6),
    );
    let (n, m) = (20, 16);
    agree_no_fd(
        |v: &[Var]| {
            let a = mat(n, n, &v[..n * n]);
            weigh(&matrix::quad_form(&a, &mat(n, m, &v[n * n..])).unwrap())
        },
        |v: &[Var]| weigh_s(&s_quad(&v[..n * n], &v[n * n..], n, m)),
        &points(n * n + n * m, 7),
    );
    agree_no_fd(
        |v: &[Var]| {
            let a = mat(n, n, &v[..n * n]);
            weigh(&matrix::quad_form_sym(&a, &mat(n, m, &v[n * n..])).unwrap())
        },
        |v: &[Var]| {
            let x = s_quad(&v[..n * n], &v[n * n..], n, m);
            let xt = s_t(&x, m, m);
            let c: Vec<Var> = x.iter().zip(&xt).map(|(p, q)| (*p + *q) * 0.5).collect();
            weigh_s(&c)
        },
        &[sym_point(n, 8), points(n * m, 9)].concat(),
    );
}

/// Matrix·vector with rows as long as one, two and five vectors of every instruction set
/// (the SIMD kernels' full chunks and overlapping last chunk) and row counts off the blocks of
/// four: variable on either side or both, against scalar loops and finite differences; and
/// `multiply_values` of data against the recorded product.
#[test]
fn long_row_matrix_vector_products_agree_with_scalar_loops() {
    for (r, k) in [(7, 9), (13, 10), (5, 16), (6, 17), (3, 40)] {
        let n = r * k + k;
        let w = weights(r);
        let weigh_v = |y: &Var<Vector>| {
            matrix::dot_product(y, &Array1::from(w.clone()).into_shared()).unwrap()
        };
        let weigh_s = |ys: &[Var]| {
            revad::sum(
                &ys.iter()
                    .zip(&w)
                    .map(|(y, &wi)| *y * wi)
                    .collect::<Vec<_>>(),
            )
        };
        let x = points(n, 77 + k as u64);
        // both variables
        agree(
            |v| weigh_v(&matrix::multiply(&mat(r, k, &v[..r * k]), &vector(&v[r * k..])).unwrap()),
            |v| weigh_s(&s_mul(&v[..r * k], r, k, &v[r * k..], 1)),
            &x,
        );
        // data matrix, variable vector (the regression's X·β), and the reverse
        let a = data(r, k, 9);
        let a_vars = |_: &[Var]| -> Vec<Var> { a.iter().map(|&x| Var::new(x)).collect() };
        agree(
            |v| weigh_v(&matrix::multiply(&a, &vector(&v[r * k..])).unwrap()),
            |v| weigh_s(&s_mul(&a_vars(v), r, k, &v[r * k..], 1)),
            &x,
        );
        let b: Vector = Array1::from(points(k, 10)).into_shared();
        let b_vars = |_: &[Var]| -> Vec<Var> { b.iter().map(|&x| Var::new(x)).collect() };
        agree(
            |v| weigh_v(&matrix::multiply(&mat(r, k, &v[..r * k]), &b).unwrap()),
            |v| weigh_s(&s_mul(&v[..r * k], r, k, &b_vars(v), 1)),
            &x,
        );
        tape::reset();
        let y = matrix::multiply_values(&a, &b).unwrap();
        let recorded = matrix::multiply(&a, &Var::array(b.clone())).unwrap();
        for (p, q) in y.iter().zip(recorded.value()) {
            assert_close(*p, *q, 1e-15);
        }
        for (i, p) in y.iter().enumerate() {
            let want: f64 = (0..k).map(|j| a[(i, j)] * b[j]).sum();
            assert_close(*p, want, 1e-13);
        }
        tape::reset();
    }
    let wrong = matrix::multiply_values(&data(3, 4, 1), &Array1::from(vec![1.0; 5]).into_shared());
    assert!(matches!(
        wrong,
        Err(Error::Size {
            function: "multiply",
            ..
        })
    ));
}
