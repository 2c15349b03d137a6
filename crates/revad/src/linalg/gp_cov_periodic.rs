//! The periodic covariance (on the engine of [`super::gp_cov`]) and the dot-product
//! covariance (a matrix product).

use std::f64::consts::PI;

use ndarray::linalg::general_mat_mul;
use ndarray::ArrayView2;

use super::check;
use super::gp_cov::{
    distance_cov, inverses, mirror_upper, points_not_nan, positive, same_dimension, Distance,
    GpInput, Kernel, Partials, PointSet,
};
use super::node::{node, scalar_arg};
use crate::error::{require, Error, Result};
use crate::kernels::sum;
use crate::var::{Matrix, Var};
use crate::Real;

/// Periodic: `κ = exp(−2a²/ℓ²)` with `a = sin t`, `t = πr/p`; `∂K/∂ℓ = 4Ka²/ℓ³`,
/// `∂K/∂p = 4K·a·cos t·t/(ℓ²p)`, `∂K/∂r² = −2K(π/p)²cos t·(sin t/t)/ℓ²` (its limit
/// `−2K(π/p)²/ℓ²` at r = 0). The partials take sin t and cos t again (one `sin_cos` per pair
/// in the reverse pass), the exponential not.
struct Periodic {
    inv_l: f64,
    inv_l2: f64,
    pi_p: f64,
    inv_p: f64,
}

impl Kernel for Periodic {
    const CHEAP_PARTIALS: bool = false;

    #[inline(always)]
    fn value(&self, r2: f64) -> f64 {
        let a = (r2.sqrt() * self.pi_p).sin();
        (-2.0 * a * a * self.inv_l2).exp()
    }
    #[inline(always)]
    fn partials(&self, r2: f64, k: f64) -> Partials {
        let t = r2.sqrt() * self.pi_p;
        let (a, c) = t.sin_cos();
        let sinc = if t == 0.0 { 1.0 } else { a / t };
        let b = 4.0 * k * a * self.inv_l2;
        Partials {
            d_theta: [b * a * self.inv_l, b * c * t * self.inv_p],
            d_r2: -2.0 * k * self.inv_l2 * self.pi_p * self.pi_p * c * sinc,
        }
    }
}

/// The periodic covariance (Stan's `gp_periodic_cov`):
/// `Kᵢⱼ = σ²·exp(−2sin²(π|xᵢ − x′ⱼ|/p)/ℓ²)` with length scale ℓ and period p, over one set of
/// points `&x` (T×T, exactly symmetric, σ² on the diagonal) or two `(&x1, &x2)` (T₁×T₂), the
/// points numbers or vectors (Euclidean distance) as in
/// [`gp_exp_quad_cov`](super::gp_exp_quad_cov). One node whatever the number of points.
///
/// Reverse pass, with `t = πr/p`: `σ̄ += (2/σ)·Σᵢⱼ ḡᵢⱼKᵢⱼ`,
/// `ℓ̄ += Σᵢⱼ ḡᵢⱼ·4Kᵢⱼ sin²t/ℓ³`, `p̄ += Σᵢⱼ ḡᵢⱼ·2Kᵢⱼ sin(2t)·t/(ℓ²p)`, from K and one
/// `sin_cos` per pair; variable points through `∂K/∂r² = −2K(π/p)²cos t·(sin t/t)/ℓ²`
/// (smooth at r = 0).
///
/// # Errors
/// As Stan: σ ("signal standard deviation"), ℓ ("length-scale") and p ("period") positive,
/// points not NaN ("gp_periodic_cov: element of x is NaN, but must not be NaN"), the two sets
/// with points of one dimension.
///
/// ```
/// use revad::{linalg, tape, Var};
/// let x = [0.0, 0.5, 2.0];
/// let p = Var::new(2.0);
/// let k = linalg::gp_periodic_cov(&x, 1.0, 1.0, p).unwrap();
/// // Points one period apart are perfectly correlated.
/// assert!((k.value()[[0, 2]] - 1.0).abs() < 1e-15);
/// tape::reset();
/// ```
pub fn gp_periodic_cov(
    x: impl GpInput,
    sigma: impl Real,
    l: impl Real,
    p: impl Real,
) -> Result<Var<Matrix>> {
    const F: &str = "gp_periodic_cov";
    let (x1, x2) = x.read(F)?;
    positive(F, "signal standard deviation", sigma.value(), false)?;
    positive(F, "length-scale", l.value(), false)?;
    positive(F, "period", p.value(), false)?;
    match &x2 {
        None => points_not_nan(F, "element of x", &x1)?,
        Some(x2) => {
            points_not_nan(F, "element of x1", &x1)?;
            points_not_nan(F, "element of x2", x2)?;
            if x1.n > 0 && x2.n > 0 {
                same_dimension(F, &x1, x2)?;
            }
        }
    }
    let (inv_l, inv_l2) = inverses(l.value());
    let inv_p = inverses(p.value()).0;
    let kernel = Periodic {
        inv_l,
        inv_l2,
        pi_p: PI * inv_p,
        inv_p,
    };
    let args = [
        x1.arg(),
        x2.as_ref().and_then(PointSet::arg),
        scalar_arg(sigma),
        scalar_arg(l),
        scalar_arg(p),
    ];
    let c = Distance {
        x1,
        x2,
        sigma: sigma.value(),
        args,
        per_dimension: None,
    };
    Ok(distance_cov(c, kernel))
}

/// Points kept for the reverse pass as an n×d view.
fn view(v: &[f64], n: usize, d: usize) -> ArrayView2<'_, f64> {
    ArrayView2::from_shape((n, d), v).expect("n×d points")
}

/// Stan's checks of the points of `gp_dot_prod_cov`: numbers finite ("x[3] is inf, but must be
/// finite"); vectors, point by point, not NaN (one set only) then finite ("x[2,1] ...").
fn dot_points(label: &'static str, x: &PointSet<'_>, nan_first: bool) -> Result<()> {
    const F: &str = "gp_dot_prod_cov";
    if x.one_d {
        return check::elements(F, label, &x.values, f64::is_finite, "finite");
    }
    for i in 0..x.n {
        let p = x.point(i);
        let bad = |ok: fn(&f64) -> bool, requirement: &str| {
            p.iter().position(|v| !ok(v)).map(|k| {
                let v = p[k];
                let shown = if v.is_nan() {
                    "NaN".to_string()
                } else {
                    v.to_string()
                };
                Error::Matrix {
                    function: F,
                    argument: label,
                    detail: format!("[{},{}] is {shown}, but {requirement}", i + 1, k + 1),
                }
            })
        };
        if nan_first {
            if let Some(e) = bad(|v| !v.is_nan(), "must not be NaN") {
                return Err(e);
            }
        }
        if let Some(e) = bad(|v| v.is_finite(), "must be finite") {
            return Err(e);
        }
    }
    Ok(())
}

/// The dot-product covariance (Stan's `gp_dot_prod_cov`): `Kᵢⱼ = σ² + xᵢ·x′ⱼ` over one set of
/// points `&x` (T×T, exactly symmetric) or two `(&x1, &x2)` (T₁×T₂), numbers or vectors as in
/// [`gp_exp_quad_cov`](super::gp_exp_quad_cov): the covariance of Bayesian linear regression
/// with N(0, 1) coefficients and an N(0, σ²) intercept (Rasmussen and Williams 2006, ch. 4).
/// One node; the forward pass is one matrix product `X₁X₂ᵀ`.
///
/// Reverse pass: `σ̄ += 2σ·Σᵢⱼ ḡᵢⱼ`, `X̄₁ += ḠX₂`, `X̄₂ += ḠᵀX₁` (one set: `X̄ += (Ḡ + Ḡᵀ)X`).
///
/// # Errors
/// As Stan: σ ("sigma") nonnegative and finite (for one set of vectors, first not NaN), points
/// finite (`gp_dot_prod_cov: x[3] is inf, but must be finite`; `x[2,1] ...` for vector points,
/// where Stan names only the coordinate), the two sets with points of one dimension.
pub fn gp_dot_prod_cov(x: impl GpInput, sigma: impl Real) -> Result<Var<Matrix>> {
    const F: &str = "gp_dot_prod_cov";
    let (x1, x2) = x.read(F)?;
    let s = sigma.value();
    if x2.is_none() && !x1.one_d {
        require(!s.is_nan(), F, "sigma", s, "not NaN")?;
    }
    require(s >= 0.0, F, "sigma", s, "nonnegative")?;
    require(s.is_finite(), F, "sigma", s, "finite")?;
    match &x2 {
        None => dot_points("x", &x1, true)?,
        Some(x2) => {
            dot_points("x1", &x1, false)?;
            dot_points("x2", x2, false)?;
            if x1.n > 0 && x2.n > 0 {
                same_dimension(F, &x1, x2)?;
            }
        }
    }
    let (n1, d) = (x1.n, x1.d);
    let n2 = x2.as_ref().map_or(n1, |x| x.n);
    if n1 == 0 || n2 == 0 {
        return Ok(Var::array(Matrix::zeros((n1, n2))));
    }
    let sym = x2.is_none();
    let a = ArrayView2::from_shape((n1, d), &x1.values[..]).expect("n1×d points");
    let b = match &x2 {
        Some(x2) => ArrayView2::from_shape((n2, d), &x2.values[..]).expect("n2×d points"),
        None => a,
    };
    let mut value = ndarray::Array2::from_elem((n1, n2), s * s);
    general_mat_mul(1.0, &a, &b.t(), 1.0, &mut value);
    if sym {
        mirror_upper(n1, value.as_slice_mut().expect("standard"));
    }
    let (a1, a2) = (x1.arg(), x2.as_ref().and_then(PointSet::arg));
    // X̄₁ needs X₂ and X̄₂ needs X₁ (one set: X for X̄).
    let keep = |x: &Option<PointSet<'_>>| x.as_ref().map(|x| x.values.to_vec());
    let xa = (a2.is_some() || (sym && a1.is_some())).then(|| x1.values.to_vec());
    let xb = a1.is_some().then(|| keep(&x2)).flatten();
    let args = [a1, a2, scalar_arg(sigma)];
    Ok(node(value.into_shared(), args, move |g, bars| {
        let g = ArrayView2::from_shape((n1, n2), g).expect("n1×n2 adjoint");
        if let Some(s_bar) = bars.scalar(2) {
            *s_bar += 2.0 * s * sum(g.as_slice().expect("standard"));
        }
        if let Some(mut x1_bar) = bars.matrix(0, (n1, d)) {
            if sym {
                let x = view(xa.as_ref().expect("kept"), n1, d);
                general_mat_mul(1.0, &g, &x, 1.0, &mut x1_bar);
                general_mat_mul(1.0, &g.t(), &x, 1.0, &mut x1_bar);
            } else {
                let x = view(xb.as_ref().expect("kept"), n2, d);
                general_mat_mul(1.0, &g, &x, 1.0, &mut x1_bar);
            }
        }
        if let Some(mut x2_bar) = bars.matrix(1, (n2, d)) {
            let x = view(xa.as_ref().expect("kept"), n1, d);
            general_mat_mul(1.0, &g.t(), &x, 1.0, &mut x2_bar);
        }
    }))
}
