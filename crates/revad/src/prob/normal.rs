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

use super::args::{Flat, Keys, Lane, OperandsAndPartials, Out, ProbArg, ProbOutput};
use super::elements::{Form, Rule, Table};
use crate::error::Result;
use crate::kernels;
use crate::scalar::Real;
use crate::special::log_exp::{sum_log, sum_log_slice};
use crate::special::normal::{log_Phi, log_Phi_deriv};
use crate::tape::{self, AdjointStore, Adjoints, Slot};
use crate::var::{Storage, Vector};

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// Stan's checks of the normal distribution's arguments.
const ARGS: Table<3> = Table::new([
    ("Random variable", Rule::NotNan),
    ("Location parameter", Rule::Finite),
    ("Scale parameter", Rule::PositiveFinite),
]);

/// [`ARGS`]' checks (the fast paths' fallback where the sums show something is off).
fn check_args<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: &Y,
    mu: &M,
    sigma: &S,
) -> Result<()>
where
    (Y, M, S): ProbOutput,
{
    ARGS.check(function, (), (y, mu, sigma)).map(|_| ())
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
    let lanes = Lane::of(&y).zip(Lane::of(&mu)).zip(Lane::of(&sigma));
    let Some(((ys, ms), ss)) = lanes else {
        // Some argument's elements are scattered (a list of scalar variables).
        return normal_lpdf_scattered(y, mu, sigma, propto);
    };
    // With y, μ, σ scalars or contiguous, only the sizes and a scalar σ are checked here: a NaN
    // y or a non-finite μ makes Σz² non-finite, and a container σ is checked in the SIMD pass;
    // only then are the elements checked (in Stan's order, so the same error is reported). One
    // pass over the data instead of four.
    let n = match scalars_valid(ys, ms, ss) {
        true => ARGS.size(F, &(), &(&y, &mu, &sigma))?,
        false => ARGS.check(F, (), (&y, &mu, &sigma))?.size(),
    };
    if n == 0 {
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    if propto && !(Y::IS_VAR || M::IS_VAR || S::IS_VAR) {
        // Nothing to compute, but the elements the sums would have checked are checked.
        check_args(F, &y, &mu, &sigma)?;
        return Ok(OperandsAndPartials::new().finish(0.0));
    }
    match ss {
        Lane::One(_) => normal_lpdf_scalar_sigma(&y, &mu, &sigma, ys, ms, n, propto),
        Lane::Many(ss) => normal_lpdf_vector_sigma(&y, &mu, &sigma, (ys, ms, ss), n, propto),
    }
}

/// `normal_lpdf` where some argument's elements are scattered: the element loop, with the
/// constant terms (n·½log(2π) and Σ log σᵢ, the latter with one logarithm per 64 values)
/// added to the first element's term.
fn normal_lpdf_scattered<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: Y,
    mu: M,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check("normal_lpdf", (), (&y, &mu, &sigma))?;
    let n = call.size();
    let mut constant = 0.0;
    if !propto {
        constant += n as f64 * HALF_LOG_TWO_PI;
    }
    if !propto || S::IS_VAR {
        constant += match (sigma.size(), sigma.values()) {
            (None, _) => n as f64 * sigma.val(0).ln(),
            (Some(_), Some(v)) => sum_log_slice(v),
            (Some(_), None) => sum_log((0..n).map(|i| sigma.val(i))),
        };
    }
    call.sum(Form::Density { propto }, |i, [yv, m, s]| {
        let inv_s = 1.0 / s;
        let z = (yv - m) * inv_s;
        let dz = z * inv_s;
        let lp = -0.5 * z * z - if i == 0 { constant } else { 0.0 };
        Ok((lp, [-dz, dz, (z * z - 1.0) * inv_s]))
    })
}

/// `normal_lpdf` with a scalar σ and y, μ scalars or contiguous values: log σ and 1/σ once,
/// Σz² (and Σz when a scalar needs it) in one SIMD pass; an array variable whose values can be
/// shared gets a node without partials ([`scalar_sigma_sweep`]), otherwise the containers'
/// partials are computed in a second pass and the scalars' come from Σz and Σz².
fn normal_lpdf_scalar_sigma<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: &Y,
    mu: &M,
    sigma: &S,
    ys: Lane<'_>,
    ms: Lane<'_>,
    n: usize,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let s = sigma.val(0);
    let inv_s = 1.0 / s;
    let y_each = Y::IS_VAR && y.size().is_some();
    let mu_each = M::IS_VAR && mu.size().is_some();
    // y or μ an array variable whose values can be shared: no partials are stored at all (see
    // `scalar_sigma_sweep`), and Σz is not needed here.
    let (y_run, mu_run) = (y.run().filter(|_| y_each), mu.run().filter(|_| mu_each));
    let runs_known = y_each == y_run.is_some() && mu_each == mu_run.is_some();
    let shared = match (y_each || mu_each) && runs_known {
        true => Values::of(y, ys).zip(Values::of(mu, ms)),
        false => None,
    };
    let need_sum_z = shared.is_none() && ((Y::IS_VAR && !y_each) || (M::IS_VAR && !mu_each));
    let (sum_z, sum_z2) = scalar_sigma_sums(ys, ms, inv_s, need_sum_z);
    if !sum_z2.is_finite() {
        // A NaN or infinite element (or Σz² overflowed): the element checks decide.
        check_args("normal_lpdf", y, mu, sigma)?;
    }
    let nf = n as f64;
    let lp = scalar_sigma_lp(sum_z2, n, s, propto, S::IS_VAR);
    let inv_s2 = inv_s * inv_s;
    if let Some((yv, mv)) = shared {
        let mut keys = Keys::new();
        y.keys(&mut keys);
        mu.keys(&mut keys);
        sigma.keys(&mut keys);
        // A scalar variable beside the container: its partial is summed in the sweep.
        let partner = match (&yv, &mv) {
            (Values::Many(_), Values::One(_)) if M::IS_VAR => Some(mu.slot(0)),
            (Values::One(_), Values::Many(_)) if Y::IS_VAR => Some(y.slot(0)),
            _ => None,
        };
        let d_sigma = S::IS_VAR.then(|| (sigma.slot(0), (sum_z2 - nf) * inv_s));
        let runs = (y_run, mu_run);
        return Ok(<Out<(Y, M, S)>>::from_value_or(lp, || {
            tape::record_keyed(lp, &keys, move |out| {
                scalar_sigma_sweep(out, (yv, mv), runs, partner, d_sigma, inv_s2)
            })
        }));
    }
    // A container's partials (borrowed values), ∂/∂yᵢ = (μᵢ − yᵢ)/σ² = −∂/∂μᵢ, in a second
    // pass the compiler vectorises, only for the arguments that need them.
    let each = |sign: f64| -> Vec<f64> {
        let c = sign * inv_s2;
        match (ys, ms) {
            (Lane::Many(a), Lane::One(m)) => a.iter().map(|&yi| c * (m - yi)).collect(),
            (Lane::One(yv), Lane::Many(b)) => b.iter().map(|&mi| c * (mi - yv)).collect(),
            (Lane::Many(a), Lane::Many(b)) => {
                a.iter().zip(b).map(|(&yi, &mi)| c * (mi - yi)).collect()
            }
            // Not reached: only a container argument asks for its partials.
            (Lane::One(_), Lane::One(_)) => Vec::new(),
        }
    };
    // The scalars' partials, borrowed by the builder (no allocation).
    let (d_y, d_mu, d_sigma) = ([-sum_z * inv_s], [sum_z * inv_s], [(sum_z2 - nf) * inv_s]);
    let mut ops = OperandsAndPartials::new();
    match y_each {
        true => ops.add_owned(y, each(1.0)),
        false => ops.add(y, &d_y),
    }
    match mu_each {
        true => ops.add_owned(mu, each(-1.0)),
        false => ops.add(mu, &d_mu),
    }
    ops.add(sigma, &d_sigma);
    Ok(ops.finish(lp))
}

/// Σzᵢ and Σzᵢ² of `normal_lpdf` with a scalar σ (`inv_s` = 1/σ), in one SIMD pass; Σz only
/// when `need_sum_z` (else 0).
fn scalar_sigma_sums(ys: Lane<'_>, ms: Lane<'_>, inv_s: f64, need_sum_z: bool) -> (f64, f64) {
    // z = (y − μ)/σ; for a container μ and scalar y, Σz = −Σ((μᵢ − y)/σ) and Σz² alike.
    match (ys, ms) {
        (Lane::Many(a), Lane::One(m)) if need_sum_z => kernels::sums_shifted(a, m, inv_s),
        (Lane::One(yv), Lane::Many(b)) if need_sum_z => {
            let (s1, s2) = kernels::sums_shifted(b, yv, inv_s);
            (-s1, s2)
        }
        (Lane::Many(a), Lane::One(m)) => (0.0, kernels::sum_sq_shifted(a, m, inv_s)),
        (Lane::One(yv), Lane::Many(b)) => (0.0, kernels::sum_sq_shifted(b, yv, inv_s)),
        // Two containers: no scalar y or μ, so Σz is never needed.
        (Lane::Many(a), Lane::Many(b)) => (0.0, kernels::sum_sq_diff(a, b, inv_s)),
        (Lane::One(yv), Lane::One(m)) => {
            let z = (yv - m) * inv_s;
            (z, z * z)
        }
    }
}

/// `normal_lpdf` of `n` elements with a scalar σ from Σz²: −½Σz² − n·½log(2π) − n·log σ,
/// the constant terms dropped with `propto` (log σ kept when σ is a variable).
fn scalar_sigma_lp(sum_z2: f64, n: usize, s: f64, propto: bool, sigma_var: bool) -> f64 {
    let nf = n as f64;
    let mut lp = -0.5 * sum_z2;
    if !propto {
        lp -= nf * HALF_LOG_TWO_PI;
    }
    if !propto || sigma_var {
        lp -= nf * s.ln();
    }
    lp
}

/// `normal_lpdf` with σ a container from Σzᵢ²: −½Σzᵢ² − n·½log(2π) − Σ log σᵢ, the constant
/// terms dropped with `propto` (Σ log σᵢ kept when σ is a variable).
fn vector_sigma_lp(sum_z2: f64, ss: &[f64], propto: bool, sigma_var: bool) -> f64 {
    let mut lp = -0.5 * sum_z2;
    if !propto {
        lp -= ss.len() as f64 * HALF_LOG_TWO_PI;
    }
    if !propto || sigma_var {
        lp -= sum_log_slice(ss);
    }
    lp
}

/// Whether the scalar arguments pass Stan's checks (containers are checked through the sums
/// and, for σ, its SIMD pass).
fn scalars_valid(y: Lane<'_>, mu: Lane<'_>, sigma: Lane<'_>) -> bool {
    let y_ok = !matches!(y, Lane::One(v) if v.is_nan());
    let mu_ok = !matches!(mu, Lane::One(v) if !v.is_finite());
    let sigma_ok = !matches!(sigma, Lane::One(v) if !(v > 0.0 && v.is_finite()));
    y_ok && mu_ok && sigma_ok
}

/// `normal_lpdf` with σ a container and y, μ scalars or contiguous values: one SIMD pass
/// computes Σzᵢ², checks σ and, when a variable needs them, writes `dᵢ = zᵢ/σᵢ` (∂/∂μᵢ, and
/// −∂/∂yᵢ); σ's partials are `(zᵢ² − 1)/σᵢ = dᵢ²σᵢ − 1/σᵢ`, a scalar's the sum of its
/// elements' partials; Σ log σᵢ takes one logarithm per 64 values.
fn normal_lpdf_vector_sigma<Y: ProbArg, M: ProbArg, S: ProbArg>(
    y: &Y,
    mu: &M,
    sigma: &S,
    (ys, ms, ss): (Lane<'_>, Lane<'_>, &[f64]),
    n: usize,
    propto: bool,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let any_var = Y::IS_VAR || M::IS_VAR || S::IS_VAR;
    let mut d = if any_var { vec![0.0; n] } else { Vec::new() };
    let (sum_z2, sigma_ok) = kernels::scaled_sq_sum(ys, ms, ss, any_var.then_some(&mut d[..]));
    if !sum_z2.is_finite() || !sigma_ok {
        // A σ out of its domain, a NaN, or an infinite element: the element checks decide.
        check_args("normal_lpdf", y, mu, sigma)?;
    }
    let lp = vector_sigma_lp(sum_z2, ss, propto, S::IS_VAR);
    // A scalar's partial is the sum over its elements; a container's is dᵢ or −dᵢ.
    let sum_d = match (y.size(), mu.size()) {
        (None, _) if Y::IS_VAR => kernels::sum(&d),
        (_, None) if M::IS_VAR => kernels::sum(&d),
        _ => 0.0,
    };
    let (d_y, d_mu) = ([-sum_d], [sum_d]);
    let mut ops = OperandsAndPartials::new();
    if S::IS_VAR {
        let d_sigma = d.iter().zip(ss).map(|(&di, &s)| di * di * s - 1.0 / s);
        ops.add_owned(sigma, d_sigma.collect());
    }
    match (
        Y::IS_VAR && y.size().is_some(),
        M::IS_VAR && mu.size().is_some(),
    ) {
        (true, true) => {
            ops.add_owned(y, d.iter().map(|&di| -di).collect());
            ops.add_owned(mu, d);
        }
        (true, false) => {
            d.iter_mut().for_each(|di| *di = -*di);
            ops.add_owned(y, d);
            ops.add(mu, &d_mu);
        }
        (false, true) => {
            ops.add(y, &d_y);
            ops.add_owned(mu, d);
        }
        (false, false) => {
            ops.add(y, &d_y);
            ops.add(mu, &d_mu);
        }
    }
    Ok(ops.finish(lp))
}

/// An argument's values kept for the sweep: a scalar, or a container's shared values.
enum Values {
    One(f64),
    Many(Vector),
}

impl Values {
    /// `a`'s values without a copy, or `None` when they cannot be shared (a borrowed slice).
    fn of<A: ProbArg>(a: &A, lane: Lane<'_>) -> Option<Values> {
        match lane {
            Lane::One(v) => Some(Values::One(v)),
            Lane::Many(_) => a.shared_values().map(Values::Many),
        }
    }

    fn lane(&self) -> Lane<'_> {
        match self {
            Values::One(v) => Lane::One(*v),
            Values::Many(a) => Lane::Many(a.as_slice()),
        }
    }
}

/// The reverse pass of [`normal_lpdf_scalar_sigma`] without stored partials, on the tape.
fn scalar_sigma_sweep(
    out: Slot,
    (yv, mv): (Values, Values),
    (y_run, mu_run): (Option<Slot>, Option<Slot>),
    partner: Option<Slot>,
    d_sigma: Option<(Slot, f64)>,
    inv_s2: f64,
) -> impl FnOnce(&mut Adjoints) + 'static {
    move |adj: &mut Adjoints| {
        let g = adj[out];
        scalar_sigma_reverse(
            adj,
            g,
            [yv.lane(), mv.lane()],
            [y_run.map(Slot::index), mu_run.map(Slot::index)],
            partner.map(Slot::index),
            d_sigma.map(|(s, d)| (s.index(), d)),
            inv_s2,
        );
    }
}

/// The normal density's reverse pass with a scalar σ and an array y or μ, from their values
/// (no stored partials), for the result adjoint `g`: σ's slot gets `g·∂σ`; with `c = g/σ²`,
/// y's run gets `c·(μᵢ − yᵢ)` and μ's `c·(yᵢ − μᵢ)`; a scalar partner of one container gets
/// `−Σ` of that container's increments (its partial, summed here rather than in the forward
/// pass). The taped node and the flat program run this one body, each on its own adjoints.
pub(crate) fn scalar_sigma_reverse<A: AdjointStore + ?Sized>(
    adj: &mut A,
    g: f64,
    [y, mu]: [Lane<'_>; 2],
    [y_run, mu_run]: [Option<usize>; 2],
    partner: Option<usize>,
    d_sigma: Option<(usize, f64)>,
    inv_s2: f64,
) {
    if let Some((slot, d)) = d_sigma {
        *adj.at(slot) += g * d;
    }
    let c = g * inv_s2;
    let sum = match (y, mu, y_run, mu_run) {
        (Lane::Many(a), Lane::One(m), Some(first), _) => {
            kernels::add_shifted_sum(adj.run_at(first, a.len()), a, m, c)
        }
        (Lane::One(yv), Lane::Many(b), _, Some(first)) => {
            kernels::add_shifted_sum(adj.run_at(first, b.len()), b, yv, c)
        }
        (Lane::Many(a), Lane::Many(b), y_run, mu_run) => {
            if let Some(first) = y_run {
                kernels::add_diff(adj.run_at(first, a.len()), a, b, c);
            }
            if let Some(first) = mu_run {
                kernels::add_diff(adj.run_at(first, b.len()), b, a, c);
            }
            0.0
        }
        _ => 0.0,
    };
    if let Some(slot) = partner {
        *adj.at(slot) -= sum;
    }
}

/// The CDFs: `Σ log Φ(sign·zᵢ)` and its partials, combined as `form` says.
fn normal_log_cdf_impl<Y: ProbArg, M: ProbArg, S: ProbArg>(
    function: &'static str,
    y: Y,
    mu: M,
    sigma: S,
    sign: f64,
    form: Form,
) -> Result<Out<(Y, M, S)>>
where
    (Y, M, S): ProbOutput,
{
    let call = ARGS.check(function, (), (&y, &mu, &sigma))?;
    call.sum(form, |_, [yv, m, s]| {
        let z = (yv - m) / s;
        // d/dz log Φ(sign·z) = sign·φ(z)/Φ(sign·z)
        let r = sign * log_Phi_deriv(sign * z);
        Ok((log_Phi(sign * z), [r / s, -r / s, -r * z / s]))
    })
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
    normal_log_cdf_impl("normal_lcdf", y, mu, sigma, 1.0, Form::LogCdf)
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
    normal_log_cdf_impl("normal_lccdf", y, mu, sigma, -1.0, Form::LogCdf)
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
    normal_log_cdf_impl("normal_cdf", y, mu, sigma, 1.0, Form::Cdf)
}

/// How many floats [`normal_lpdf_flat`] keeps for arguments of `n` elements.
pub(crate) fn normal_lpdf_flat_keep(n: usize) -> usize {
    3 + n
}

/// [`normal_lpdf`] on plain floats, for a program's scalar form (see
/// [`crate::program::scalar`]): the value, with what the reverse pass needs in `keep`. The
/// arithmetic is the taped function's as a replay calls it (a data container shared), term
/// for term; `None` where the taped function would check the elements (a non-finite sum, a
/// σ out of its domain), or for an empty call, for the caller to run the taped function.
pub(crate) fn normal_lpdf_flat(
    [y, mu, sigma]: [Flat<'_>; 3],
    propto: bool,
    keep: &mut [f64],
) -> Option<f64> {
    if !scalars_valid(y.lane, mu.lane, sigma.lane) {
        return None;
    }
    let n = Flat::common_size(&[y, mu, sigma])?;
    if n == 0 {
        return None;
    }
    match sigma.lane {
        Lane::One(s) => {
            let inv_s = 1.0 / s;
            let shared = y.is_run() || mu.is_run();
            let need_sum_z = !shared && (y.is_scalar_var() || mu.is_scalar_var());
            let (sum_z, sum_z2) = scalar_sigma_sums(y.lane, mu.lane, inv_s, need_sum_z);
            if !sum_z2.is_finite() {
                return None;
            }
            keep[..3].copy_from_slice(&[sum_z, sum_z2, inv_s]);
            Some(scalar_sigma_lp(sum_z2, n, s, propto, sigma.var.is_some()))
        }
        Lane::Many(ss) => {
            let (head, d) = keep.split_at_mut(3);
            let d = &mut d[..n];
            d.fill(0.0);
            let (sum_z2, sigma_ok) = kernels::scaled_sq_sum(y.lane, mu.lane, ss, Some(&mut *d));
            if !sum_z2.is_finite() || !sigma_ok {
                return None;
            }
            let scalar_var = y.is_scalar_var() || mu.is_scalar_var();
            head[0] = if scalar_var { kernels::sum(d) } else { 0.0 };
            Some(vector_sigma_lp(sum_z2, ss, propto, sigma.var.is_some()))
        }
    }
}

/// The reverse pass of [`normal_lpdf_flat`] for the result adjoint `g`, adding into `adj` (the
/// slots below the result) what the taped function's node adds, in its order.
pub(crate) fn normal_lpdf_flat_reverse(
    [y, mu, sigma]: [Flat<'_>; 3],
    keep: &[f64],
    g: f64,
    adj: &mut [f64],
) {
    let run = |x: Flat<'_>| match (x.var, x.lane) {
        (Some(first), Lane::Many(v)) => Some((first, v.len())),
        _ => None,
    };
    match sigma.lane {
        Lane::One(_) => {
            let (sum_z, sum_z2, inv_s) = (keep[0], keep[1], keep[2]);
            let nf = match (y.lane, mu.lane) {
                (Lane::Many(v), _) | (_, Lane::Many(v)) => v.len() as f64,
                _ => 1.0,
            };
            if y.is_run() || mu.is_run() {
                // The taped node's sweep: the containers' increments from the values.
                let run = |x: Flat<'_>| run(x).map(|(first, _)| first);
                let partner = match (y.lane, mu.lane) {
                    (Lane::Many(_), Lane::One(_)) => mu.var,
                    (Lane::One(_), Lane::Many(_)) => y.var,
                    _ => None,
                };
                let d_sigma = sigma.var.map(|slot| (slot, (sum_z2 - nf) * inv_s));
                let (lanes, runs) = ([y.lane, mu.lane], [run(y), run(mu)]);
                scalar_sigma_reverse(adj, g, lanes, runs, partner, d_sigma, inv_s * inv_s);
            } else {
                // Scalar variables only: their pairs, in argument order.
                let d = [-sum_z * inv_s, sum_z * inv_s, (sum_z2 - nf) * inv_s];
                for (x, w) in [y, mu, sigma].iter().zip(d) {
                    if let Some(slot) = x.var {
                        adj[slot] += g * w;
                    }
                }
            }
        }
        Lane::Many(ss) => {
            let (sum_d, d) = (keep[0], &keep[3..3 + ss.len()]);
            // The pairs (scalar variables) first, then the runs: σ's, y's, μ's.
            if let (Some(slot), Lane::One(_)) = (y.var, y.lane) {
                adj[slot] += g * -sum_d;
            }
            if let (Some(slot), Lane::One(_)) = (mu.var, mu.lane) {
                adj[slot] += g * sum_d;
            }
            if let Some(first) = sigma.var {
                let r = &mut adj[first..first + ss.len()];
                for ((a, &di), &s) in r.iter_mut().zip(d).zip(ss) {
                    *a += g * (di * di * s - 1.0 / s);
                }
            }
            if let Some((first, n)) = run(y) {
                for (a, &di) in adj[first..first + n].iter_mut().zip(d) {
                    *a += g * -di;
                }
            }
            if let Some((first, n)) = run(mu) {
                for (a, &di) in adj[first..first + n].iter_mut().zip(d) {
                    *a += g * di;
                }
            }
        }
    }
}
