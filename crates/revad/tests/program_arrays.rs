//! The array instructions of a program's scalar form against the tape: an array–scalar
//! operation or a density run on plain floats gives the value and every adjoint of the taped
//! function bit for bit (as a replay calls it: data shared, floats as constants), for every
//! combination of constant, scalar variable, array variable and data arguments, several
//! lengths and seeds; and a form declines (leaves the decision to the tape) where the taped
//! function checks its arguments.

use revad::matrix::{self, ArrayArrayOp, ArrayScalarOp};
use revad::prob::{
    beta_lpdf, beta_proportion_lpdf, cauchy_lpdf, chi_square_lpdf, double_exponential_lpdf,
    exp_mod_normal_lpdf, exponential_lpdf, frechet_lpdf, gamma_lpdf, gumbel_lpdf,
    inv_chi_square_lpdf, inv_gamma_lpdf, logistic_lpdf, loglogistic_lpdf, lognormal_lpdf,
    normal_lpdf, pareto_lpdf, pareto_type_2_lpdf, rayleigh_lpdf, scaled_inv_chi_square_lpdf,
    skew_double_exponential_lpdf, skew_normal_lpdf, student_t_lpdf, uniform_lpdf, von_mises_lpdf,
    weibull_lpdf, ConstArg, VarArg,
};
use revad::program::scalar::{
    Arg, ArrayInstr, ArrayMap, Density, Density2, Density4, Instr, ScalarProgram,
};
use revad::{tape, Var, Vector};

/// Equal bit for bit, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// A deterministic sequence in `[lo, hi)`.
fn values(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// How an argument is given.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Const,
    Scalar,
    Array,
    Data,
}

const KINDS: [Kind; 4] = [Kind::Const, Kind::Scalar, Kind::Array, Kind::Data];

/// An argument of a test: its kind and values (one for a scalar).
struct Input {
    kind: Kind,
    values: Vec<f64>,
}

/// An argument as the taped function takes it.
enum Taped {
    C(ConstArg<'static>),
    V(VarArg),
}

/// The value and the adjoints of every variable input of `f` on the tape, seeded with `seed`:
/// the inputs' variables are made in order, their adjoints returned in the same order as
/// [`flat`] lays them out.
fn taped(inputs: &[Input], seed: f64, mut f: impl FnMut(&[Taped]) -> Var) -> (f64, Vec<f64>) {
    let _scope = tape::nested();
    let mut scalars = Vec::new();
    let mut arrays = Vec::new();
    let args: Vec<Taped> = inputs
        .iter()
        .map(|x| match x.kind {
            Kind::Const => Taped::C(ConstArg::Scalar(x.values[0])),
            Kind::Data => Taped::C(ConstArg::Shared(Vector::from(x.values.clone()))),
            Kind::Scalar => {
                let v = Var::new(x.values[0]);
                scalars.push(v);
                Taped::V(VarArg::Scalar(v))
            }
            Kind::Array => {
                let v = Var::array(Vector::from(x.values.clone()));
                arrays.push(v.clone());
                Taped::V(VarArg::Array(v))
            }
        })
        .collect();
    let y = f(&args);
    (y * seed).grad();
    // In input order, as `flat` lays them out.
    let (mut s, mut a) = (scalars.iter(), arrays.iter());
    let mut adj = Vec::new();
    for x in inputs {
        match x.kind {
            Kind::Scalar => adj.push(s.next().unwrap().adj()),
            Kind::Array => adj.extend(a.next().unwrap().adj().iter()),
            _ => {}
        }
    }
    (y.value(), adj)
}

/// A program of one array instruction on `inputs` (variables and data laid out in order);
/// its value and the adjoints of the variable inputs, seeded with `seed`, or `None` when the
/// form declines.
fn flat(
    inputs: &[Input],
    seed: f64,
    instr: impl Fn(&[Arg]) -> ArrayInstr,
) -> Option<(f64, Vec<f64>, Vec<f64>)> {
    let mut n = 0u32;
    let mut layout = Vec::new();
    let args: Vec<Arg> = inputs
        .iter()
        .map(|x| {
            let len = x.values.len() as u32;
            let arg = match x.kind {
                Kind::Const => return Arg::Const(x.values[0]),
                Kind::Scalar => Arg::Var(n),
                Kind::Array => Arg::Run(n, len),
                Kind::Data => Arg::Data(n, len),
            };
            layout.push((n as usize, x));
            n += if x.kind == Kind::Scalar { 1 } else { len };
            arg
        })
        .collect();
    let mut p = ScalarProgram::new(n as usize);
    let (out, len) = p.push_array(instr(&args));
    let outputs: Vec<u32> = (out..out + len as u32).collect();
    p.set_outputs(&outputs, len == 1);
    let mut vals = Vec::new();
    for (_, x) in &layout {
        vals.extend_from_slice(
            &x.values[..if x.kind == Kind::Scalar {
                1
            } else {
                x.values.len()
            }],
        );
    }
    if !p.forward(&mut vals) {
        return None;
    }
    let mut adj = vec![0.0; vals.len()];
    // A scalar result seeded with `seed`; an array result's element i with seed·(i + 1).
    for (i, &o) in outputs.iter().enumerate() {
        adj[o as usize] = if len == 1 {
            seed
        } else {
            seed * (i + 1) as f64
        };
    }
    p.reverse(&vals, &mut adj);
    let results: Vec<f64> = outputs.iter().map(|&o| vals[o as usize]).collect();
    let mut grads = Vec::new();
    for (first, x) in &layout {
        match x.kind {
            Kind::Scalar => grads.push(adj[*first]),
            Kind::Array => grads.extend_from_slice(&adj[*first..first + x.values.len()]),
            _ => {}
        }
    }
    Some((results[0], grads, results))
}

/// Calls the density `$f` with the taped arguments `$a` in every constant/variable
/// combination (a result of constants alone is not a test case: `None`).
macro_rules! dispatch3 {
    ($f:ident, $a:expr, $propto:expr) => {{
        use Taped::{C, V};
        let r = match ($a[0].clone(), $a[1].clone(), $a[2].clone()) {
            (C(_), C(_), C(_)) => return None,
            (V(a), C(b), C(c)) => $f(a, b, c, $propto),
            (C(a), V(b), C(c)) => $f(a, b, c, $propto),
            (C(a), C(b), V(c)) => $f(a, b, c, $propto),
            (V(a), V(b), C(c)) => $f(a, b, c, $propto),
            (V(a), C(b), V(c)) => $f(a, b, c, $propto),
            (C(a), V(b), V(c)) => $f(a, b, c, $propto),
            (V(a), V(b), V(c)) => $f(a, b, c, $propto),
        };
        Some(r)
    }};
}

/// [`dispatch3`] for densities of two arguments.
macro_rules! dispatch2 {
    ($f:ident, $a:expr, $propto:expr) => {{
        use Taped::{C, V};
        let r = match ($a[0].clone(), $a[1].clone()) {
            (C(_), C(_)) => return None,
            (C(a), V(b)) => $f(a, b, $propto),
            (V(a), C(b)) => $f(a, b, $propto),
            (V(a), V(b)) => $f(a, b, $propto),
        };
        Some(r)
    }};
}

/// [`dispatch3`] for densities of four arguments.
macro_rules! dispatch4 {
    ($f:ident, $a:expr, $propto:expr) => {{
        use Taped::{C, V};
        let r = match ($a[0].clone(), $a[1].clone(), $a[2].clone(), $a[3].clone()) {
            (C(_), C(_), C(_), C(_)) => return None,
            (C(a), C(b), C(c), V(d)) => $f(a, b, c, d, $propto),
            (C(a), C(b), V(c), C(d)) => $f(a, b, c, d, $propto),
            (C(a), C(b), V(c), V(d)) => $f(a, b, c, d, $propto),
            (C(a), V(b), C(c), C(d)) => $f(a, b, c, d, $propto),
            (C(a), V(b), C(c), V(d)) => $f(a, b, c, d, $propto),
            (C(a), V(b), V(c), C(d)) => $f(a, b, c, d, $propto),
            (C(a), V(b), V(c), V(d)) => $f(a, b, c, d, $propto),
            (V(a), C(b), C(c), C(d)) => $f(a, b, c, d, $propto),
            (V(a), C(b), C(c), V(d)) => $f(a, b, c, d, $propto),
            (V(a), C(b), V(c), C(d)) => $f(a, b, c, d, $propto),
            (V(a), C(b), V(c), V(d)) => $f(a, b, c, d, $propto),
            (V(a), V(b), C(c), C(d)) => $f(a, b, c, d, $propto),
            (V(a), V(b), C(c), V(d)) => $f(a, b, c, d, $propto),
            (V(a), V(b), V(c), C(d)) => $f(a, b, c, d, $propto),
            (V(a), V(b), V(c), V(d)) => $f(a, b, c, d, $propto),
        };
        Some(r)
    }};
}

impl Clone for Taped {
    fn clone(&self) -> Taped {
        match self {
            Taped::C(c) => Taped::C(c.clone()),
            Taped::V(v) => Taped::V(v.clone()),
        }
    }
}

/// A density instruction of the form and the same density on the tape.
#[derive(Clone, Copy, Debug)]
enum Case {
    Three(Density),
    Two(Density2),
    Four(Density4),
}

impl Case {
    fn arity(self) -> usize {
        match self {
            Case::Two(_) => 2,
            Case::Three(_) => 3,
            Case::Four(_) => 4,
        }
    }

    /// The instruction on `args`.
    fn instr(self, args: &[Arg], propto: bool) -> ArrayInstr {
        match self {
            Case::Three(density) => ArrayInstr::Density {
                density,
                args: [args[0], args[1], args[2]],
                propto,
            },
            Case::Two(density) => ArrayInstr::Density2 {
                density,
                args: [args[0], args[1]],
                propto,
            },
            Case::Four(density) => ArrayInstr::Density4 {
                density,
                args: [args[0], args[1], args[2], args[3]],
                propto,
            },
        }
    }
}

/// The density of `case` at `inputs` on the tape (`None`: constants alone, or an error).
fn taped_density(case: Case, inputs: &[Input], seed: f64, propto: bool) -> Option<(f64, Vec<f64>)> {
    let run = |a: &[Taped]| -> Option<revad::Result<Var>> {
        match case {
            Case::Three(Density::Normal) => dispatch3!(normal_lpdf, a, propto),
            Case::Three(Density::Cauchy) => dispatch3!(cauchy_lpdf, a, propto),
            Case::Three(Density::Beta) => dispatch3!(beta_lpdf, a, propto),
            Case::Three(Density::Logistic) => dispatch3!(logistic_lpdf, a, propto),
            Case::Three(Density::DoubleExponential) => {
                dispatch3!(double_exponential_lpdf, a, propto)
            }
            Case::Three(Density::Gumbel) => dispatch3!(gumbel_lpdf, a, propto),
            Case::Three(Density::Frechet) => dispatch3!(frechet_lpdf, a, propto),
            Case::Three(Density::Gamma) => dispatch3!(gamma_lpdf, a, propto),
            Case::Three(Density::Lognormal) => dispatch3!(lognormal_lpdf, a, propto),
            Case::Three(Density::InvGamma) => dispatch3!(inv_gamma_lpdf, a, propto),
            Case::Three(Density::Weibull) => dispatch3!(weibull_lpdf, a, propto),
            Case::Two(Density2::Exponential) => dispatch2!(exponential_lpdf, a, propto),
            Case::Two(Density2::ChiSquare) => dispatch2!(chi_square_lpdf, a, propto),
            Case::Two(Density2::InvChiSquare) => dispatch2!(inv_chi_square_lpdf, a, propto),
            Case::Four(Density4::StudentT) => dispatch4!(student_t_lpdf, a, propto),
            Case::Three(Density::VonMises) => dispatch3!(von_mises_lpdf, a, propto),
            Case::Three(Density::Loglogistic) => dispatch3!(loglogistic_lpdf, a, propto),
            Case::Three(Density::BetaProportion) => dispatch3!(beta_proportion_lpdf, a, propto),
            Case::Three(Density::Pareto) => dispatch3!(pareto_lpdf, a, propto),
            Case::Three(Density::ScaledInvChiSquare) => {
                dispatch3!(scaled_inv_chi_square_lpdf, a, propto)
            }
            Case::Three(Density::Uniform) => dispatch3!(uniform_lpdf, a, propto),
            Case::Four(Density4::ParetoType2) => dispatch4!(pareto_type_2_lpdf, a, propto),
            Case::Two(Density2::Rayleigh) => dispatch2!(rayleigh_lpdf, a, propto),
            Case::Four(Density4::SkewNormal) => dispatch4!(skew_normal_lpdf, a, propto),
            Case::Four(Density4::ExpModNormal) => dispatch4!(exp_mod_normal_lpdf, a, propto),
            Case::Four(Density4::SkewDoubleExponential) => {
                dispatch4!(skew_double_exponential_lpdf, a, propto)
            }
        }
    };
    let mut failed = false;
    let out = taped(inputs, seed, |a| match run(a) {
        Some(Ok(v)) => v,
        _ => {
            failed = true;
            Var::new(0.0)
        }
    });
    (!failed).then_some(out)
}

/// Every combination of argument kinds of a density at several lengths, with the values from
/// `make(k, len, seed)` for argument k.
fn check_density(density: Density, make: impl Fn(usize, usize, u64) -> Vec<f64>) {
    check_case(Case::Three(density), make)
}

/// [`check_density`] for any number of arguments.
fn check_case(case: Case, make: impl Fn(usize, usize, u64) -> Vec<f64>) {
    let arity = case.arity();
    let mut combos: Vec<Vec<Kind>> = vec![vec![]];
    for _ in 0..arity {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                KINDS.iter().map(move |&k| {
                    let mut c = c.clone();
                    c.push(k);
                    c
                })
            })
            .collect();
    }
    let mut compared = 0;
    for n in [1, 3, 8, 17, 40] {
        for (c, kinds) in combos.iter().enumerate() {
            if kinds.iter().all(|k| matches!(k, Kind::Const | Kind::Data)) {
                continue;
            }
            let inputs: Vec<Input> = kinds
                .iter()
                .enumerate()
                .map(|(k, &kind)| {
                    let len = if matches!(kind, Kind::Array | Kind::Data) {
                        n
                    } else {
                        1
                    };
                    Input {
                        kind,
                        values: make(k, len, (c * 7 + n) as u64),
                    }
                })
                .collect();
            for propto in [false, true] {
                for seed in [1.0, -2.5, 0.0] {
                    let t = taped_density(case, &inputs, seed, propto);
                    let f = flat(&inputs, seed, |args| case.instr(args, propto));
                    let (Some((tv, tg)), Some((fv, fg, _))) = (&t, &f) else {
                        // The form declines only where the tape checks (and here succeeds
                        // or fails); it never answers where the tape fails.
                        assert!(
                            f.is_none() || t.is_some(),
                            "{case:?} {kinds:?}: answered a failing call"
                        );
                        continue;
                    };
                    let what = format!("{case:?} {kinds:?} n={n} propto={propto} seed={seed}");
                    assert!(same(*fv, *tv), "{what}: value {fv} against {tv}");
                    assert_eq!(fg.len(), tg.len(), "{what}");
                    for (k, (a, b)) in fg.iter().zip(tg).enumerate() {
                        assert!(same(*a, *b), "{what}: adjoint {k} {a} against {b}");
                    }
                    compared += 1;
                }
            }
        }
    }
    // Most cases compared: the form declines only at the (few) failing ones.
    assert!(
        compared > 20 * combos.len(),
        "only {compared} cases compared"
    );
}

#[test]
fn normal_lpdf_matches_the_tape() {
    check_density(Density::Normal, |k, len, seed| match k {
        2 => values(len, seed + 3, 0.3, 4.0),
        _ => values(len, seed + k as u64, -3.0, 3.0),
    });
}

#[test]
fn cauchy_lpdf_matches_the_tape() {
    check_density(Density::Cauchy, |k, len, seed| match k {
        2 => values(len, seed + 3, 0.3, 4.0),
        // Wide values: both branches of the partials (|z| ≤ 1 and > 1).
        _ => values(len, seed + k as u64, -20.0, 20.0),
    });
}

#[test]
fn beta_lpdf_matches_the_tape() {
    check_density(Density::Beta, |k, len, seed| match k {
        // Shapes below and above 1, and exactly 1 (its terms are skipped).
        0 => values(len, seed, 0.02, 0.98),
        _ => {
            let mut v = values(len, seed + k as u64, 0.3, 4.0);
            v[0] = 1.0;
            v
        }
    });
}

#[test]
fn logistic_double_exponential_and_gumbel_lpdf_match_the_tape() {
    for density in [
        Density::Logistic,
        Density::DoubleExponential,
        Density::Gumbel,
    ] {
        check_density(density, |k, len, seed| match k {
            2 => values(len, seed + 3, 0.3, 4.0),
            // y = μ in the first element (the double exponential's kink).
            _ => {
                let mut v = values(len, seed + k as u64, -6.0, 6.0);
                v[0] = 0.5;
                v
            }
        });
    }
}

#[test]
fn frechet_lpdf_matches_the_tape() {
    check_density(Density::Frechet, |k, len, seed| match k {
        0 => values(len, seed, 0.1, 5.0),
        _ => values(len, seed + k as u64, 0.3, 4.0),
    });
}

#[test]
fn gamma_and_lognormal_lpdf_match_the_tape() {
    // Lengths up to 17 take log y element by element; 40 in one batched pass.
    for density in [Density::Gamma, Density::Lognormal] {
        check_density(density, |k, len, seed| match k {
            0 => values(len, seed, 0.05, 6.0),
            1 if density == Density::Lognormal => values(len, seed + 1, -2.0, 2.0),
            // A shape of exactly 1 (gamma skips its log y term).
            _ => {
                let mut v = values(len, seed + k as u64, 0.3, 4.0);
                v[0] = 1.0;
                v
            }
        });
    }
}

#[test]
fn densities_decline_where_the_tape_checks() {
    let bad = [
        // σ ≤ 0, σ infinite, μ infinite, y NaN, and Σz² overflowing.
        [0.5, 0.0, -1.0],
        [0.5, 0.0, f64::INFINITY],
        [0.5, f64::INFINITY, 1.0],
        [f64::NAN, 0.0, 1.0],
        [1e300, -1e300, 1e-300],
    ];
    let mut all: Vec<Case> = [
        Density::Normal,
        Density::Cauchy,
        Density::Beta,
        Density::Logistic,
        Density::DoubleExponential,
        Density::Gumbel,
        Density::Frechet,
        Density::Gamma,
        Density::Lognormal,
        Density::InvGamma,
        Density::Weibull,
        Density::VonMises,
        Density::Loglogistic,
        Density::BetaProportion,
        Density::Pareto,
        Density::ScaledInvChiSquare,
        Density::Uniform,
    ]
    .map(Case::Three)
    .to_vec();
    all.extend([
        Case::Two(Density2::Exponential),
        Case::Two(Density2::Rayleigh),
        Case::Four(Density4::StudentT),
        Case::Four(Density4::SkewNormal),
        Case::Four(Density4::ExpModNormal),
        Case::Four(Density4::SkewDoubleExponential),
        Case::Four(Density4::ParetoType2),
    ]);
    for case in all {
        // The rows as (y, μ, σ): y and σ for two arguments; ν = 3 (and then ν = −1) before μ
        // for four.
        let mut rows: Vec<Vec<f64>> = bad
            .iter()
            .map(|[y, m, s]| match case.arity() {
                2 => vec![*y, *s],
                3 => vec![*y, *m, *s],
                _ => vec![*y, 3.0, *m, *s],
            })
            .collect();
        if case.arity() == 4 {
            rows.push(vec![0.5, -1.0, 0.0, 1.0]);
        }
        // A valid row in the same layout, for containers with one bad element in the middle.
        let good = match case.arity() {
            2 => vec![0.5, 1.0],
            3 => vec![0.5, 0.0, 1.0],
            _ => vec![0.5, 3.0, 0.0, 1.0],
        };
        for vals in &rows {
            for (n, mixed) in [(1, false), (5, false), (5, true)] {
                let inputs: Vec<Input> = vals
                    .iter()
                    .zip(&good)
                    .map(|(&v, &ok)| Input {
                        kind: if n == 1 { Kind::Scalar } else { Kind::Array },
                        values: match mixed {
                            true => vec![ok, ok, v, ok, ok],
                            false => vec![v; n],
                        },
                    })
                    .collect();
                let f = flat(&inputs, 1.0, |args| case.instr(args, false));
                let t = taped_density(case, &inputs, 1.0, false);
                match (&f, &t) {
                    // A call the tape rejects is never answered by the form.
                    (Some(_), None) => panic!("{case:?} at {vals:?}: answered a failing call"),
                    (Some((fv, _, _)), Some((tv, _))) => assert!(same(*fv, *tv)),
                    _ => {}
                }
            }
        }
        // Containers of different lengths: a size error on the tape, declined by the form.
        let mut inputs = vec![
            Input {
                kind: Kind::Array,
                values: vec![0.1, 0.2],
            },
            Input {
                kind: Kind::Array,
                values: vec![0.1, 0.2, 0.3],
            },
        ];
        while inputs.len() < case.arity() {
            inputs.push(Input {
                kind: Kind::Const,
                values: vec![1.0],
            });
        }
        let f = flat(&inputs, 1.0, |args| case.instr(args, false));
        assert!(f.is_none() && taped_density(case, &inputs, 1.0, false).is_none());
    }
}

#[test]
fn inv_gamma_and_weibull_lpdf_match_the_tape() {
    for density in [Density::InvGamma, Density::Weibull] {
        check_density(density, |k, len, seed| match k {
            0 => values(len, seed, 0.05, 6.0),
            // A shape of exactly 1 (the Weibull skips its log y term).
            _ => {
                let mut v = values(len, seed + k as u64, 0.3, 4.0);
                v[0] = 1.0;
                v
            }
        });
        // y outside the support (a density of 0): the form declines, the tape decides.
        for y in [-0.5, 0.0] {
            let inputs = [
                Input {
                    kind: Kind::Array,
                    values: vec![1.0, y, 2.0],
                },
                Input {
                    kind: Kind::Scalar,
                    values: vec![1.5],
                },
                Input {
                    kind: Kind::Const,
                    values: vec![2.0],
                },
            ];
            let f = flat(&inputs, 1.0, |args| Case::Three(density).instr(args, false));
            let t = taped_density(Case::Three(density), &inputs, 1.0, false);
            let zero = density == Density::InvGamma || y < 0.0;
            assert_eq!(f.is_none(), zero, "{density:?} at y = {y}");
            if zero {
                assert_eq!(t.expect("the tape's result").0, f64::NEG_INFINITY);
            }
        }
    }
}

#[test]
fn von_mises_loglogistic_and_beta_proportion_lpdf_match_the_tape() {
    // κ from small to large (the Bessel function's two regimes), y = μ in the first element.
    check_density(Density::VonMises, |k, len, seed| match k {
        2 => values(len, seed + 2, 0.05, 40.0),
        _ => {
            let mut v = values(len, seed + k as u64, -3.0, 3.0);
            v[0] = 0.5;
            v
        }
    });
    check_density(Density::Loglogistic, |k, len, seed| match k {
        0 => values(len, seed, 0.05, 6.0),
        _ => values(len, seed + k as u64, 0.3, 4.0),
    });
    // μκ and (1 − μ)κ of exactly 1 in the first element (their log terms are skipped).
    check_density(Density::BetaProportion, |k, len, seed| match k {
        0 => values(len, seed, 0.02, 0.98),
        1 => {
            let mut v = values(len, seed + 1, 0.05, 0.95);
            v[0] = 0.5;
            v
        }
        _ => {
            let mut v = values(len, seed + 2, 0.5, 20.0);
            v[0] = 2.0;
            v
        }
    });
}

#[test]
fn densities_with_a_support_match_the_tape() {
    // y above y_min: y from 2 to 6, y_min from 0.5 to 1.9.
    check_density(Density::Pareto, |k, len, seed| match k {
        0 => values(len, seed, 2.0, 6.0),
        1 => values(len, seed + 1, 0.5, 1.9),
        _ => values(len, seed + 2, 0.3, 4.0),
    });
    check_density(Density::ScaledInvChiSquare, |k, len, seed| match k {
        0 => values(len, seed, 0.05, 6.0),
        _ => values(len, seed + k as u64, 0.3, 8.0),
    });
    // y ≥ α and y ≤ β: y from 1 to 2, α from −1 to 0.9, β from 2.1 to 4.
    check_density(Density::Uniform, |k, len, seed| match k {
        0 => values(len, seed, 1.0, 2.0),
        1 => values(len, seed + 1, -1.0, 0.9),
        _ => values(len, seed + 2, 2.1, 4.0),
    });
    // y ≥ μ: y from 2 to 6, μ from −1 to 1.9.
    check_case(Case::Four(Density4::ParetoType2), |k, len, seed| match k {
        0 => values(len, seed, 2.0, 6.0),
        1 => values(len, seed + 1, -1.0, 1.9),
        _ => values(len, seed + k as u64, 0.3, 4.0),
    });
    // Outside the support (a density of 0, −∞): the form declines, the tape decides.
    let input = |kind, values: Vec<f64>| Input { kind, values };
    for (case, rows) in [
        (
            Density::Pareto,
            [
                vec![3.0, 0.5, 2.5],
                vec![1.0, 1.0, 1.0],
                vec![1.0, 2.0, 0.9],
            ],
        ),
        (
            Density::ScaledInvChiSquare,
            [
                vec![1.0, 0.0, 2.0],
                vec![2.0, 3.0, 2.0],
                vec![1.0, 1.0, 1.0],
            ],
        ),
        (
            Density::Uniform,
            [
                vec![0.5, 2.5, 1.0],
                vec![0.0, 0.0, 0.0],
                vec![2.0, 2.0, 2.0],
            ],
        ),
    ] {
        let inputs = [
            input(Kind::Array, rows[0].clone()),
            input(Kind::Array, rows[1].clone()),
            input(Kind::Array, rows[2].clone()),
        ];
        let f = flat(&inputs, 1.0, |args| Case::Three(case).instr(args, false));
        let t = taped_density(Case::Three(case), &inputs, 1.0, false);
        assert!(f.is_none(), "{case:?}: answered outside the support");
        assert_eq!(t.map(|(v, _)| v), Some(f64::NEG_INFINITY), "{case:?}");
    }
}

#[test]
fn rayleigh_skew_normal_exp_mod_normal_and_skew_double_exponential_lpdf_match_the_tape() {
    check_case(Case::Two(Density2::Rayleigh), |k, len, seed| match k {
        0 => values(len, seed, 0.05, 6.0),
        _ => values(len, seed + 1, 0.3, 4.0),
    });
    // Arguments in order: y, a location, a scale, a shape (skew normal's α any sign; the
    // exponentially modified normal's rate λ > 0; the skew double exponential's τ in (0, 1)).
    for density in [
        Density4::SkewNormal,
        Density4::ExpModNormal,
        Density4::SkewDoubleExponential,
    ] {
        check_case(Case::Four(density), |k, len, seed| match (k, density) {
            (2, _) => values(len, seed + 2, 0.3, 4.0),
            (3, Density4::SkewNormal) => values(len, seed + 3, -4.0, 4.0),
            (3, Density4::ExpModNormal) => values(len, seed + 3, 0.2, 3.0),
            (3, _) => values(len, seed + 3, 0.05, 0.95),
            // y = μ in the first element (the skew double exponential's kink).
            _ => {
                let mut v = values(len, seed + k as u64, -6.0, 6.0);
                v[0] = 0.5;
                v
            }
        });
    }
}

#[test]
fn two_and_four_argument_densities_match_the_tape() {
    check_case(Case::Two(Density2::Exponential), |k, len, seed| match k {
        0 => values(len, seed, 0.0, 6.0),
        _ => values(len, seed + 1, 0.3, 4.0),
    });
    for density in [Density2::ChiSquare, Density2::InvChiSquare] {
        check_case(Case::Two(density), |k, len, seed| match k {
            0 => values(len, seed, 0.05, 8.0),
            // ν = 2 in the first element (ν/2 = 1: the chi-square skips its log y term).
            _ => {
                let mut v = values(len, seed + 1, 0.3, 12.0);
                v[0] = 2.0;
                v
            }
        });
    }
    check_case(Case::Four(Density4::StudentT), |k, len, seed| match k {
        // ν from below 1 to large; y = μ in the first element (z = 0).
        1 => values(len, seed + 1, 0.5, 30.0),
        3 => values(len, seed + 3, 0.3, 4.0),
        _ => {
            let mut v = values(len, seed + k as u64, -8.0, 8.0);
            v[0] = 0.25;
            v
        }
    });
}

#[test]
fn array_scalar_operations_match_the_tape() {
    let ops = [
        ArrayScalarOp::Add,
        ArrayScalarOp::Subtract,
        ArrayScalarOp::ScalarSubtract,
        ArrayScalarOp::Multiply,
        ArrayScalarOp::Divide,
        ArrayScalarOp::ScalarDivide,
    ];
    let scalars = [1.7, -0.4, 0.0, f64::INFINITY, f64::NAN];
    for op in ops {
        for n in [1, 3, 4, 9] {
            for (a_kind, s_kind) in [
                (Kind::Array, Kind::Scalar),
                (Kind::Array, Kind::Const),
                (Kind::Data, Kind::Scalar),
            ] {
                for &s in &scalars {
                    let mut a = values(n, n as u64, -2.0, 2.0);
                    a[0] = if n > 2 { 0.0 } else { a[0] };
                    let inputs = [
                        Input {
                            kind: a_kind,
                            values: a.clone(),
                        },
                        Input {
                            kind: s_kind,
                            values: vec![s],
                        },
                    ];
                    for seed in [1.0, -0.5] {
                        let f = flat(&inputs, seed, |args| ArrayInstr::WithScalar {
                            op,
                            a: args[0],
                            s: args[1],
                        })
                        .expect("array–scalar operations never decline");
                        // The tape: the same function, its result's element i seeded with
                        // seed·(i + 1) through a dot product with constants.
                        let seen = std::cell::RefCell::new(Vec::new());
                        let (_, tg) = taped(&inputs, 1.0, |t| {
                            let y = match (&t[0], &t[1]) {
                                (Taped::V(VarArg::Array(a)), Taped::V(VarArg::Scalar(s))) => {
                                    apply(op, a, *s)
                                }
                                (Taped::V(VarArg::Array(a)), Taped::C(ConstArg::Scalar(s))) => {
                                    apply(op, a, *s)
                                }
                                (Taped::C(ConstArg::Shared(a)), Taped::V(VarArg::Scalar(s))) => {
                                    apply(op, a, *s)
                                }
                                _ => unreachable!(),
                            };
                            seen.borrow_mut().extend(y.value().iter().copied());
                            let w: Vector =
                                (1..=n).map(|i| seed * i as f64).collect::<Vec<_>>().into();
                            first_then_dot(&y, &w)
                        });
                        let what = format!("{op:?} {a_kind:?}×{s_kind:?} n={n} s={s} seed={seed}");
                        for (k, (x, y)) in f.2.iter().zip(seen.borrow().iter()).enumerate() {
                            assert!(same(*x, *y), "{what}: value {k} {x} against {y}");
                        }
                        assert_eq!(f.1.len(), tg.len(), "{what}");
                        for (k, (x, y)) in f.1.iter().zip(&tg).enumerate() {
                            assert!(same(*x, *y), "{what}: adjoint {k} {x} against {y}");
                        }
                    }
                }
            }
        }
    }
}

/// `op` of an array and a scalar on the tape.
fn apply<R: revad::Real>(op: ArrayScalarOp, a: &impl matrix::Operand<Vector>, s: R) -> Var<Vector> {
    match op {
        ArrayScalarOp::Add => matrix::add_scalar(a, s),
        ArrayScalarOp::Subtract => matrix::subtract_scalar(a, s),
        ArrayScalarOp::ScalarSubtract => matrix::scalar_subtract(s, a),
        ArrayScalarOp::Multiply => matrix::multiply_scalar(a, s),
        ArrayScalarOp::Divide => matrix::divide(a, s),
        ArrayScalarOp::ScalarDivide => matrix::scalar_elt_divide(s, a),
    }
}

/// `Σ wᵢ yᵢ`: seeds `y`'s element i with `wᵢ` (times the outer seed, 1).
fn first_then_dot(y: &Var<Vector>, w: &Vector) -> Var {
    matrix::dot_product(y, w).expect("same lengths")
}

#[test]
fn a_hierarchical_model_runs_as_on_the_tape() {
    // Eight schools, non-centred: inputs μ, log τ, η (8); data y, σ (8 each).
    let (j, y, sigma) = (8usize, values(8, 11, -10.0, 25.0), values(8, 12, 9.0, 18.0));
    let mut p = ScalarProgram::new(2 + 3 * j);
    let (mu, lt, eta) = (0u32, 1u32, Arg::Run(2, j as u32));
    let (yd, sd) = (
        Arg::Data(2 + j as u32, j as u32),
        Arg::Data(2 + 2 * j as u32, j as u32),
    );
    let exp = revad::program::scalar::Elementary::named("exp").unwrap();
    let tau = p.push(revad::program::scalar::Instr::Unary(lt, exp));
    let density = |p: &mut ScalarProgram, d, args| {
        p.push_array(ArrayInstr::Density {
            density: d,
            args,
            propto: false,
        })
        .0
    };
    let a = density(
        &mut p,
        Density::Normal,
        [Arg::Var(mu), Arg::Const(0.0), Arg::Const(5.0)],
    );
    let b = density(
        &mut p,
        Density::Cauchy,
        [Arg::Var(tau), Arg::Const(0.0), Arg::Const(5.0)],
    );
    let ab = p.push(revad::program::scalar::Instr::Add(a, b));
    let abl = p.push(revad::program::scalar::Instr::Add(ab, lt));
    let c = density(
        &mut p,
        Density::Normal,
        [eta, Arg::Const(0.0), Arg::Const(1.0)],
    );
    let abc = p.push(revad::program::scalar::Instr::Add(abl, c));
    let (te, _) = p.push_array(ArrayInstr::WithScalar {
        op: ArrayScalarOp::Multiply,
        a: eta,
        s: Arg::Var(tau),
    });
    let (theta, _) = p.push_array(ArrayInstr::WithScalar {
        op: ArrayScalarOp::Add,
        a: Arg::Run(te, j as u32),
        s: Arg::Var(mu),
    });
    let d = density(&mut p, Density::Normal, [yd, Arg::Run(theta, j as u32), sd]);
    let lp = p.push(revad::program::scalar::Instr::Add(abc, d));
    p.set_outputs(&[lp], true);

    // The value and gradient by the form at (μ, log τ, η).
    let run = |x: &[f64]| -> (f64, Vec<f64>) {
        let mut vals = x.to_vec();
        vals.extend_from_slice(&y);
        vals.extend_from_slice(&sigma);
        assert!(p.forward(&mut vals));
        let mut adj = vec![0.0; vals.len()];
        adj[lp as usize] = 1.0;
        p.reverse(&vals, &mut adj);
        (vals[lp as usize], adj[..2 + j].to_vec())
    };
    for trial in 0..20u64 {
        let x = values(2 + j, 100 + trial, -1.5, 1.5);
        let (value, adj) = run(&x);
        // The tape, as a replay runs it.
        let _scope = tape::nested();
        let (mu, lt) = (Var::new(x[0]), Var::new(x[1]));
        let eta = Var::array(Vector::from(x[2..].to_vec()));
        let tau = revad::exp(lt);
        let lp_t = normal_lpdf(
            VarArg::Scalar(mu),
            ConstArg::Scalar(0.0),
            ConstArg::Scalar(5.0),
            false,
        )
        .unwrap()
            + cauchy_lpdf(
                VarArg::Scalar(tau),
                ConstArg::Scalar(0.0),
                ConstArg::Scalar(5.0),
                false,
            )
            .unwrap()
            + lt
            + normal_lpdf(
                VarArg::Array(eta.clone()),
                ConstArg::Scalar(0.0),
                ConstArg::Scalar(1.0),
                false,
            )
            .unwrap();
        let theta = matrix::add_scalar(&matrix::multiply_scalar(&eta, tau), mu);
        let lp_t = lp_t
            + normal_lpdf(
                ConstArg::Shared(Vector::from(y.clone())),
                VarArg::Array(theta),
                ConstArg::Shared(Vector::from(sigma.clone())),
                false,
            )
            .unwrap();
        lp_t.grad();
        assert!(same(value, lp_t.value()), "value");
        assert!(same(adj[0], mu.adj()) && same(adj[1], lt.adj()), "μ, log τ");
        for (k, g) in eta.adj().iter().enumerate() {
            assert!(same(adj[2 + k], *g), "η[{k}]");
        }
    }
    // And the gradient against finite differences.
    for trial in 0..3u64 {
        let x = values(2 + j, 200 + trial, -1.0, 1.0);
        let (_, g) = run(&x);
        for k in 0..x.len() {
            let h = 1e-6;
            let (mut up, mut down) = (x.clone(), x.clone());
            up[k] += h;
            down[k] -= h;
            let fd = (run(&up).0 - run(&down).0) / (2.0 * h);
            assert!(
                (fd - g[k]).abs() <= 1e-6 * (1.0 + g[k].abs()),
                "∂/∂x{k}: {fd} against {}",
                g[k]
            );
        }
    }
}

/// `op` of two arrays on the tape.
fn apply_pair(
    op: ArrayArrayOp,
    a: &impl matrix::Operand<Vector>,
    b: &impl matrix::Operand<Vector>,
) -> Var<Vector> {
    match op {
        ArrayArrayOp::Add => matrix::add(a, b),
        ArrayArrayOp::Subtract => matrix::subtract(a, b),
        ArrayArrayOp::Multiply => matrix::elt_multiply(a, b),
        ArrayArrayOp::Divide => matrix::elt_divide(a, b),
    }
    .expect("one shape")
}

#[test]
fn array_array_operations_and_sums_match_the_tape() {
    let ops = [
        ArrayArrayOp::Add,
        ArrayArrayOp::Subtract,
        ArrayArrayOp::Multiply,
        ArrayArrayOp::Divide,
    ];
    for op in ops {
        for n in [1, 4, 9] {
            let (mut x, y) = (values(n, 3, -2.0, 2.0), values(n, 4, -2.0, 2.0));
            x[0] = 0.0;
            // Two variables, a variable and data in either order, and one variable twice (in
            // case 4 after a later use of x, so the pair adds into adjoints that hold a value);
            // the result summed (the `Sum` instruction) after a product with weights.
            for case in 0..5 {
                let w: Vec<f64> = (1..=n).map(|i| 0.5 * i as f64).collect();
                // The form: inputs x (0..n), y (n..2n), w (data, 2n..3n).
                let mut p = ScalarProgram::new(3 * n);
                let (xa, ya, wd) = (
                    Arg::Run(0, n as u32),
                    Arg::Run(n as u32, n as u32),
                    Arg::Data(2 * n as u32, n as u32),
                );
                let (a, b) = match case {
                    0 => (xa, ya),
                    1 => (xa, Arg::Data(n as u32, n as u32)),
                    2 => (Arg::Data(0, n as u32), ya),
                    _ => (xa, xa),
                };
                let (c, _) = p.push_array(ArrayInstr::WithArray { op, a, b });
                let (cw, _) = p.push_array(ArrayInstr::WithArray {
                    op: ArrayArrayOp::Multiply,
                    a: Arg::Run(c, n as u32),
                    b: wd,
                });
                let (mut s, _) = p.push_array(ArrayInstr::Sum(Arg::Run(cw, n as u32)));
                if case == 4 {
                    let (xw, _) = p.push_array(ArrayInstr::WithArray {
                        op: ArrayArrayOp::Multiply,
                        a: xa,
                        b: wd,
                    });
                    let (s2, _) = p.push_array(ArrayInstr::Sum(Arg::Run(xw, n as u32)));
                    s = p.push(Instr::Add(s, s2));
                }
                p.set_outputs(&[s], true);
                let mut vals = [x.clone(), y.clone(), w.clone()].concat();
                assert!(p.forward(&mut vals));
                let mut adj = vec![0.0; vals.len()];
                adj[s as usize] = -1.5;
                p.reverse(&vals, &mut adj);
                // The tape.
                let _scope = tape::nested();
                let (xv, yv) = (
                    Var::array(Vector::from(x.clone())),
                    Var::array(Vector::from(y.clone())),
                );
                let (xd, yd, wv) = (
                    Vector::from(x.clone()),
                    Vector::from(y.clone()),
                    Vector::from(w.clone()),
                );
                let c_t = match case {
                    0 => apply_pair(op, &xv, &yv),
                    1 => apply_pair(op, &xv, &yd),
                    2 => apply_pair(op, &xd, &yv),
                    _ => apply_pair(op, &xv, &xv),
                };
                let mut s_t = matrix::sum(&matrix::elt_multiply(&c_t, &wv).unwrap());
                if case == 4 {
                    s_t += matrix::sum(&matrix::elt_multiply(&xv, &wv).unwrap());
                }
                (s_t * -1.5).grad();
                let what = format!("{op:?} case {case} n={n}");
                assert!(same(vals[s as usize], s_t.value()), "{what}: value");
                for (k, t) in xv.adj().iter().chain(yv.adj().iter()).enumerate() {
                    assert!(
                        same(adj[k], *t),
                        "{what}: adjoint {k} {} against {t}",
                        adj[k]
                    );
                }
            }
        }
    }
}

/// An elementwise function of an array variable on the tape.
type Elementwise = fn(&Var<Vector>) -> Var<Vector>;

#[test]
fn elementwise_functions_match_the_tape() {
    // Every elementwise function with a flat form, on points inside and at the edges of its
    // domain (zero, negative, huge, infinite, NaN), seeded per element.
    let points = [
        0.3,
        -0.7,
        0.0,
        -0.0,
        1.5,
        -2.5,
        40.0,
        -40.0,
        1e-300,
        1e300,
        0.999,
        -1.0,
        1.0,
        2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let taped: [(&str, Elementwise); 40] = [
        ("exp", matrix::exp),
        ("expm1", matrix::expm1),
        ("log", matrix::log),
        ("log1p", matrix::log1p),
        ("tanh", matrix::tanh),
        ("inv_logit", matrix::inv_logit),
        ("log_inv_logit", matrix::log_inv_logit),
        ("log1m_inv_logit", matrix::log1m_inv_logit),
        ("log1p_exp", matrix::log1p_exp),
        ("exp2", matrix::exp2),
        ("log2", matrix::log2),
        ("log10", matrix::log10),
        ("square", matrix::square),
        ("sqrt", matrix::sqrt),
        ("cbrt", matrix::cbrt),
        ("inv", matrix::inv),
        ("inv_sqrt", matrix::inv_sqrt),
        ("inv_square", matrix::inv_square),
        ("sin", matrix::sin),
        ("cos", matrix::cos),
        ("tan", matrix::tan),
        ("asin", matrix::asin),
        ("acos", matrix::acos),
        ("atan", matrix::atan),
        ("sinh", matrix::sinh),
        ("cosh", matrix::cosh),
        ("asinh", matrix::asinh),
        ("acosh", matrix::acosh),
        ("atanh", matrix::atanh),
        ("erf", matrix::erf),
        ("erfc", matrix::erfc),
        ("Phi_approx", matrix::Phi_approx),
        ("lgamma", matrix::lgamma),
        ("digamma", matrix::digamma),
        ("trigamma", matrix::trigamma),
        ("logit", matrix::logit),
        ("log1m_exp", matrix::log1m_exp),
        ("inv_cloglog", matrix::inv_cloglog),
        ("fabs", matrix::fabs),
        ("abs", matrix::abs),
    ];
    for (name, f) in taped {
        let map = ArrayMap::named(name).unwrap_or_else(|| panic!("{name} has a flat form"));
        assert_eq!(map.name(), name);
        // Lengths around the SIMD blocks: the points repeated.
        for n in [1, 5, 17, 40] {
            let x: Vec<f64> = (0..n).map(|i| points[i % points.len()]).collect();
            let seeds: Vec<f64> = (0..n)
                .map(|i| if i % 3 == 2 { 0.0 } else { 0.5 + i as f64 })
                .collect();
            let mut p = ScalarProgram::new(n);
            let (c, len) = p.push_array(ArrayInstr::Map(map, Arg::Run(0, n as u32)));
            let outs: Vec<u32> = (c..c + len as u32).collect();
            p.set_outputs(&outs, false);
            let mut vals = x.clone();
            assert!(p.forward(&mut vals));
            let mut adj = vec![0.0; vals.len()];
            for (o, s) in outs.iter().zip(&seeds) {
                adj[*o as usize] = *s;
            }
            p.reverse(&vals, &mut adj);
            let _scope = tape::nested();
            let xv = Var::array(Vector::from(x.clone()));
            let y = f(&xv);
            let w = Vector::from(seeds.clone());
            // Seeds through a dot product with constants: the result's element i gets wᵢ.
            matrix::dot_product(&y, &w).unwrap().grad();
            for i in 0..n {
                let what = format!("{name} n={n} at {}", x[i]);
                assert!(same(vals[c as usize + i], y.value()[i]), "{what}: value");
                assert!(
                    same(adj[i], xv.adj()[i]),
                    "{what}: adjoint {} against {}",
                    adj[i],
                    xv.adj()[i]
                );
            }
        }
    }
    assert!(ArrayMap::named("Phi").is_none() && ArrayMap::named("floor").is_none());
}

#[test]
#[should_panic(expected = "operands of the wrong shape")]
fn arrays_of_different_lengths_are_refused() {
    let mut p = ScalarProgram::new(5);
    p.push_array(ArrayInstr::WithArray {
        op: ArrayArrayOp::Add,
        a: Arg::Run(0, 2),
        b: Arg::Run(2, 3),
    });
}

#[test]
#[should_panic(expected = "operands of the wrong shape")]
fn a_scalar_is_not_an_array_operand() {
    let mut p = ScalarProgram::new(2);
    p.push_array(ArrayInstr::Sum(Arg::Var(0)));
}

#[test]
fn std_normal_lpdf_matches_the_tape() {
    use revad::prob::std_normal_lpdf;
    let points = [0.3, -1.7, 0.0, -0.0, 40.0, 1e200, f64::INFINITY];
    for n in [0, 1, 3, 8, 17] {
        for propto in [false, true] {
            for seed in [1.0, -2.5, 0.0] {
                // n = 0: a scalar variable, at each point; else an array of the points.
                let cases: Vec<Vec<f64>> = match n {
                    0 => points.iter().map(|&p| vec![p]).collect(),
                    _ => vec![(0..n).map(|i| points[i % points.len()]).collect()],
                };
                for x in cases {
                    let mut p = ScalarProgram::new(x.len());
                    let y = if n == 0 {
                        Arg::Var(0)
                    } else {
                        Arg::Run(0, n as u32)
                    };
                    let (lp, _) = p.push_array(ArrayInstr::StdNormal { y, propto });
                    p.set_outputs(&[lp], true);
                    let mut vals = x.clone();
                    assert!(p.forward(&mut vals));
                    let mut adj = vec![0.0; vals.len()];
                    adj[lp as usize] = seed;
                    p.reverse(&vals, &mut adj);
                    let _scope = tape::nested();
                    let (t, grads): (Var, Vec<f64>) = if n == 0 {
                        let v = Var::new(x[0]);
                        let t = std_normal_lpdf(VarArg::Scalar(v), propto).unwrap();
                        (t * seed).grad();
                        (t, vec![v.adj()])
                    } else {
                        let v = Var::array(Vector::from(x.clone()));
                        let t = std_normal_lpdf(VarArg::Array(v.clone()), propto).unwrap();
                        (t * seed).grad();
                        (t, v.adj().to_vec())
                    };
                    let what = format!("n={n} propto={propto} seed={seed} at {x:?}");
                    assert!(same(vals[lp as usize], t.value()), "{what}: value");
                    for (k, g) in grads.iter().enumerate() {
                        assert!(
                            same(adj[k], *g),
                            "{what}: adjoint {k} {} against {g}",
                            adj[k]
                        );
                    }
                }
            }
        }
    }
    // A NaN: the tape checks; the form declines.
    let mut p = ScalarProgram::new(1);
    p.push_array(ArrayInstr::StdNormal {
        y: Arg::Var(0),
        propto: false,
    });
    assert!(!p.forward(&mut vec![f64::NAN]));
}

#[test]
fn matrix_vector_products_match_the_tape() {
    use revad::Matrix;
    // (rows, columns): a column, a row, around the kernels' four-row and vector blocks.
    for (r, k) in [(1, 1), (1, 7), (5, 1), (4, 8), (9, 3), (13, 17)] {
        let av = values(r * k, (r * 31 + k) as u64, -2.0, 2.0);
        let bv = values(k, (r + k * 7) as u64, -3.0, 3.0);
        // Which of A and b are variables: A, b, or both.
        for (a_var, b_var) in [(true, false), (false, true), (true, true)] {
            for seed in [1.0, -2.5, 0.0] {
                // On the tape: matrix::multiply, its result dotted with 1, 2, …, r (seeding the
                // product's adjoints as `flat` does).
                let _scope = tape::nested();
                let a_mat: Matrix = ndarray::Array2::from_shape_vec((r, k), av.clone())
                    .expect("shape")
                    .into_shared();
                let b_vec = Vector::from(bv.clone());
                let (a_v, b_v) = (Var::array(a_mat.clone()), Var::array(b_vec.clone()));
                let y: Var<Vector> = match (a_var, b_var) {
                    (true, false) => matrix::multiply(&a_v, &b_vec),
                    (false, true) => matrix::multiply(&a_mat, &b_v),
                    _ => matrix::multiply(&a_v, &b_v),
                }
                .expect("shapes agree");
                let weights = Vector::from((1..=r).map(|i| i as f64).collect::<Vec<_>>());
                (matrix::dot_product(&y, &weights).expect("lengths") * seed).grad();
                let mut tg: Vec<f64> = Vec::new();
                if a_var {
                    tg.extend(a_v.adj().iter());
                }
                if b_var {
                    tg.extend(b_v.adj().iter());
                }
                let ty = y.value().to_vec();
                drop(_scope);
                let inputs = [
                    Input {
                        kind: if a_var { Kind::Array } else { Kind::Data },
                        values: av.clone(),
                    },
                    Input {
                        kind: if b_var { Kind::Array } else { Kind::Data },
                        values: bv.clone(),
                    },
                ];
                let (_, fg, fy) = flat(&inputs, seed, |args| ArrayInstr::MatVec {
                    a: args[0],
                    b: args[1],
                })
                .expect("no checks to decline");
                let what = format!("{r}x{k} a_var={a_var} b_var={b_var} seed={seed}");
                assert!(
                    fy.iter().zip(&ty).all(|(a, b)| same(*a, *b)),
                    "{what}: values"
                );
                assert_eq!(fg.len(), tg.len(), "{what}");
                for (i, (a, b)) in fg.iter().zip(&tg).enumerate() {
                    assert!(same(*a, *b), "{what}: adjoint {i} {a} against {b}");
                }
            }
        }
    }
}

#[test]
#[should_panic(expected = "operands of the wrong shape")]
fn a_matrix_vector_product_needs_a_whole_number_of_rows() {
    let mut p = ScalarProgram::new(7);
    p.push_array(ArrayInstr::MatVec {
        a: Arg::Run(0, 5),
        b: Arg::Run(5, 2),
    });
}
