//! The normal distribution: `normal_lpdf`, `normal_cdf`, `normal_lcdf`, `normal_lccdf`.
//!
//! With `z = (y − μ)/σ`:
//!
//! | function | value per element | ∂/∂y | ∂/∂μ | ∂/∂σ |
//! |---|---|---|---|---|
//! | `normal_lpdf` | −½log(2π) − log σ − ½z² | −z/σ | z/σ | (z² − 1)/σ |
//! | `normal_lcdf` | log Φ(z) | r/σ | −r/σ | −r z/σ, with r = φ(z)/Φ(z) |
//! | `normal_lccdf` | log Φ(−z) | −q/σ | q/σ | q z/σ, with q = φ(−z)/Φ(−z) |
//! | `normal_cdf` | Π Φ(zᵢ) | F·r/σ | −F·r/σ | −F·r z/σ |
//!
//! The tails use `log Φ` and `φ/Φ` computed through `erfcx`, accurate far below −37 where Φ
//! itself underflows.

use super::args::{
    any_empty, check_all, common_size, Keys, Lane, OperandsAndPartials, Out, Partial, ProbArg,
    ProbOutput,
};
use crate::error::{check, require, Result};
use crate::scalar::Real;
use crate::special::log_exp::sum_log;
use crate::special::normal::{log_Phi, log_Phi_deriv};
use crate::tape::{self, Adjoints};
use crate::var::Storage;

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Stan's argument checks of the normal distribution.
fn check_args<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: &Y,
    mu: &M,
    sigma: &S,
) -> Result<usize> {
    check_all(y, |v| check::not_nan(function, "Random variable", v))?;
    check_all(mu, |v| {
        require(v.is_finite(), function, "Location parameter", v, "finite")
    })?;
    check_all(sigma, |v| {
        require(
            v > 0.0 && v.is_finite(),
            function,
            "Scale parameter",
            v,
            "positive finite",
        )
    })?;
    common_size(
        function,
        &[
            ("Random variable", y.size()),
            ("Location parameter", mu.size()),
            ("Scale parameter", sigma.size()),
        ],
    )
}

/// `Σᵢ log normal(yᵢ | μᵢ, σᵢ)`; with `propto`, the terms constant given which arguments are
/// variables are dropped (−½log(2π) always, −log σ when σ is constant).
///
/// Errors (Stan's messages): `y` NaN, `mu` not finite, `sigma` not positive finite, or
/// containers of different sizes.
///
/// ```
/// use revad::prob::normal_lpdf;
/// use revad::Var;
/// let y = [0.3, -1.2, 2.0];
/// let mu = Var::new(0.5);
/// let lp = normal_lpdf(&y[..], mu, 1.5, false).unwrap();
/// lp.grad();
/// let expect: f64 = y.iter().map(|v| (v - 0.5) / (1.5 * 1.5)).sum();
/// assert!((mu.adj() - expect).abs() < 1e-15);
/// revad::tape::reset();
/// // All constants: a plain f64, nothing recorded.
/// let c: f64 = normal_lpdf(1.0, 0.0, 1.0, false).unwrap();
/// assert!((c - (-0.5 - 0.5 * (2.0 * std::f64::consts::PI).ln())).abs() < 1e-15);
/// ```
pub fn normal_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    const F: &str = "normal_lpdf";
    let n = check_args(F, &y, &mu, &sigma)?;
    let any_var = Y::IS_VAR || M::IS_VAR || S::IS_VAR;
    if any_empty(&[y.size(), mu.size(), sigma.size()]) || (propto && !any_var) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    if sigma.size().is_none() {
        if let (Some(ys), Some(ms)) = (Lane::of(&y), Lane::of(&mu)) {
            return Ok(normal_lpdf_scalar_sigma(&y, &mu, &sigma, ys, ms, n, propto));
        }
    }
    let (mut dy, mut dmu, mut dsigma) = (Partial::of(&y), Partial::of(&mu), Partial::of(&sigma));
    let mut lp = 0.0;
    for i in 0..n {
        let (yv, m, s) = (y.val(i), mu.val(i), sigma.val(i));
        let inv_s = 1.0 / s;
        let z = (yv - m) * inv_s;
        lp -= 0.5 * z * z;
        let dz = z * inv_s;
        dy.add(&y, i, -dz);
        dmu.add(&mu, i, dz);
        dsigma.add(&sigma, i, (z * z - 1.0) * inv_s);
    }
    if !propto {
        lp -= n as f64 * HALF_LOG_TWO_PI;
    }
    if !propto || S::IS_VAR {
        // Σ log σᵢ with one logarithm per 16 values (or n·log σ for a scalar).
        lp -= match (sigma.size(), sigma.values()) {
            (None, _) => n as f64 * sigma.val(0).ln(),
            (Some(_), Some(v)) => sum_log(v.iter().copied()),
            (Some(_), None) => sum_log((0..n).map(|i| sigma.val(i))),
        };
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(&y, dy.into_vec());
    ops.add_owned(&mu, dmu.into_vec());
    ops.add_owned(&sigma, dsigma.into_vec());
    Ok(ops.build(lp))
}

/// `normal_lpdf` with a scalar σ and y, μ scalars or contiguous values: log σ and 1/σ once,
/// four independent sums (the loop is not bound by one addition's latency), the containers'
/// partials in a second, vectorised pass, the scalars' from Σz and Σz².
fn normal_lpdf_scalar_sigma<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: &Y,
    mu: &M,
    sigma: &S,
    ys: Lane<'_>,
    ms: Lane<'_>,
    n: usize,
    propto: bool,
) -> Out<(Y, M, S)>
where
    (Y, M, S): ProbOutput,
{
    let s = sigma.val(0);
    let inv_s = 1.0 / s;
    let (sum_z, sum_z2) = match (ys, ms) {
        (Lane::Many(a), Lane::One(m)) => lane_sums(a, |yi| (yi - m) * inv_s),
        (Lane::One(yv), Lane::Many(b)) => lane_sums(b, |mi| (yv - mi) * inv_s),
        (Lane::Many(a), Lane::Many(b)) => lane_sums2(a, b, |yi, mi| (yi - mi) * inv_s),
        (Lane::One(yv), Lane::One(m)) => {
            let z = (yv - m) * inv_s;
            (z, z * z)
        }
    };
    let nf = n as f64;
    let mut lp = -0.5 * sum_z2;
    if !propto {
        lp -= nf * HALF_LOG_TWO_PI;
    }
    if !propto || S::IS_VAR {
        lp -= nf * s.ln();
    }
    let y_each = Y::IS_VAR && y.size().is_some();
    let mu_each = M::IS_VAR && mu.size().is_some();
    let inv_s2 = inv_s * inv_s;
    // y an array variable, μ a scalar: no partials stored at all; the sweep reads y's values
    // (shared with the variable, no copy) and adds ḡ·(μ − yᵢ)/σ² to its adjoint run.
    if let (true, false, Lane::One(m), Some(values), Some(first)) =
        (y_each, mu_each, ms, y.shared_values(), y.run())
    {
        let mut keys = Keys::new();
        y.keys(&mut keys);
        mu.keys(&mut keys);
        sigma.keys(&mut keys);
        let d_mu = M::IS_VAR.then(|| (mu.slot(0), sum_z * inv_s));
        let d_sigma = S::IS_VAR.then(|| (sigma.slot(0), (sum_z2 - nf) * inv_s));
        return <Out<(Y, M, S)>>::from_value_or(lp, || {
            tape::record_keyed(lp, &keys, move |out| {
                move |adj: &mut Adjoints| {
                    let g = adj[out];
                    for (slot, d) in d_mu.into_iter().chain(d_sigma) {
                        adj[slot] += g * d;
                    }
                    let c = g * inv_s2;
                    for (a, &yi) in adj.run(first, n).iter_mut().zip(values.as_slice()) {
                        *a += c * (m - yi);
                    }
                }
            })
        });
    }
    // ∂/∂yᵢ = (μᵢ − yᵢ)/σ² = −∂/∂μᵢ, in a second pass the compiler vectorises.
    let dy: Vec<f64> = if y_each || mu_each {
        match (ys, ms) {
            (Lane::Many(a), Lane::One(m)) => a.iter().map(|&yi| (m - yi) * inv_s2).collect(),
            (Lane::One(yv), Lane::Many(b)) => b.iter().map(|&mi| (mi - yv) * inv_s2).collect(),
            (Lane::Many(a), Lane::Many(b)) => a
                .iter()
                .zip(b)
                .map(|(&yi, &mi)| (mi - yi) * inv_s2)
                .collect(),
            (Lane::One(_), Lane::One(_)) => vec![-sum_z * inv_s],
        }
    } else {
        Vec::new()
    };
    let dmu: Vec<f64> = if mu_each {
        dy.iter().map(|d| -d).collect()
    } else {
        vec![sum_z * inv_s]
    };
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(y, if y_each { dy } else { vec![-sum_z * inv_s] });
    ops.add_owned(mu, dmu);
    ops.add_owned(sigma, vec![(sum_z2 - nf) * inv_s]);
    ops.build(lp)
}

/// `(Σ zᵢ, Σ zᵢ²)` with `zᵢ = z(aᵢ)`, in four lanes of sums.
#[inline(always)]
fn lane_sums(a: &[f64], z: impl Fn(f64) -> f64) -> (f64, f64) {
    let (mut s1, mut s2) = ([0.0; 4], [0.0; 4]);
    let mut chunks = a.chunks_exact(4);
    for c in &mut chunks {
        for k in 0..4 {
            let zk = z(c[k]);
            s1[k] += zk;
            s2[k] += zk * zk;
        }
    }
    for &x in chunks.remainder() {
        let zk = z(x);
        s1[0] += zk;
        s2[0] += zk * zk;
    }
    (
        (s1[0] + s1[1]) + (s1[2] + s1[3]),
        (s2[0] + s2[1]) + (s2[2] + s2[3]),
    )
}

/// [`lane_sums`] of two equally long containers, `zᵢ = z(aᵢ, bᵢ)`.
#[inline(always)]
fn lane_sums2(a: &[f64], b: &[f64], z: impl Fn(f64, f64) -> f64) -> (f64, f64) {
    let (mut s1, mut s2) = ([0.0; 4], [0.0; 4]);
    let (mut ca, mut cb) = (a.chunks_exact(4), b.chunks_exact(4));
    for (x, y) in (&mut ca).zip(&mut cb) {
        for k in 0..4 {
            let zk = z(x[k], y[k]);
            s1[k] += zk;
            s2[k] += zk * zk;
        }
    }
    for (&x, &y) in ca.remainder().iter().zip(cb.remainder()) {
        let zk = z(x, y);
        s1[0] += zk;
        s2[0] += zk * zk;
    }
    (
        (s1[0] + s1[1]) + (s1[2] + s1[3]),
        (s2[0] + s2[1]) + (s2[2] + s2[3]),
    )
}

/// The shared loop of the log CDFs: `Σ log Φ(sign·zᵢ)` and its partials.
fn normal_log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    sigma: S,
    sign: f64,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let n = check_args(function, &y, &mu, &sigma)?;
    if any_empty(&[y.size(), mu.size(), sigma.size()]) {
        return Ok(OperandsAndPartials::new().build(0.0));
    }
    let (mut dy, mut dmu, mut dsigma) = (Partial::of(&y), Partial::of(&mu), Partial::of(&sigma));
    let mut total = 0.0;
    for i in 0..n {
        let (yv, m, s) = (y.val(i), mu.val(i), sigma.val(i));
        let z = (yv - m) / s;
        total += log_Phi(sign * z);
        // d/dz log Φ(sign·z) = sign·φ(z)/Φ(sign·z)
        let r = sign * log_Phi_deriv(sign * z);
        dy.add(&y, i, r / s);
        dmu.add(&mu, i, -r / s);
        dsigma.add(&sigma, i, -r * z / s);
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(&y, dy.into_vec());
    ops.add_owned(&mu, dmu.into_vec());
    ops.add_owned(&sigma, dsigma.into_vec());
    Ok(ops.build(total))
}

/// `Σᵢ log Φ((yᵢ − μᵢ)/σᵢ)`, the log of the normal CDF, accurate far into the lower tail.
pub fn normal_lcdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    normal_log_cdf_impl("normal_lcdf", y, mu, sigma, 1.0)
}

/// `Σᵢ log(1 − Φ((yᵢ − μᵢ)/σᵢ))`, the log of the complementary CDF, accurate far into the
/// upper tail.
pub fn normal_lccdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    normal_log_cdf_impl("normal_lccdf", y, mu, sigma, -1.0)
}

/// `Πᵢ Φ((yᵢ − μᵢ)/σᵢ)`, the normal CDF (a product over the elements, as in Stan).
pub fn normal_cdf<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    const F: &str = "normal_cdf";
    let n = check_args(F, &y, &mu, &sigma)?;
    if any_empty(&[y.size(), mu.size(), sigma.size()]) {
        return Ok(OperandsAndPartials::new().build(1.0));
    }
    let mut log_cdf = 0.0;
    let mut r = Vec::with_capacity(n);
    for i in 0..n {
        let z = (y.val(i) - mu.val(i)) / sigma.val(i);
        log_cdf += log_Phi(z);
        r.push((log_Phi_deriv(z), z));
    }
    let cdf = log_cdf.exp();
    let (mut dy, mut dmu, mut dsigma) = (Partial::of(&y), Partial::of(&mu), Partial::of(&sigma));
    for (i, &(ri, z)) in r.iter().enumerate() {
        let s = sigma.val(i);
        let d = cdf * ri / s;
        dy.add(&y, i, d);
        dmu.add(&mu, i, -d);
        dsigma.add(&sigma, i, -d * z);
    }
    let mut ops = OperandsAndPartials::new();
    ops.add_owned(&y, dy.into_vec());
    ops.add_owned(&mu, dmu.into_vec());
    ops.add_owned(&sigma, dsigma.into_vec());
    Ok(ops.build(cdf))
}
