//! The normal linear regression: `normal_id_glm_lpdf`.
//!
//! `Σᵢ log Normal(yᵢ | ηᵢ, σᵢ)` with `η = x·β + α` (identity link). With
//! `zᵢ = (yᵢ − ηᵢ)/σᵢ` the value is `−N·½log(2π) − Σᵢ log σᵢ − ½Σᵢ zᵢ²` and
//!
//! | operand | partial |
//! |---|---|
//! | η (so α, β, x: see [`glm`](super::glm)) | `dᵢ = zᵢ/σᵢ` |
//! | y | `−zᵢ/σᵢ` |
//! | σ | `(zᵢ² − 1)/σᵢ` |

use super::args::{Out, ProbArg, ProbOutput};
use super::glm::{
    consistent, empty, fill, instances, not_finite, pass_blocks, segment, zero, Design, MatrixArg,
    Node, Param,
};
use crate::error::Result;
use crate::kernels;

/// `½ log(2π)`.
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// `Σᵢ log Normal(yᵢ | xᵢ·β + αᵢ, σᵢ)` for an N×K design matrix `x` (or a row vector shared
/// by every observation, N then being the size of `y`), `y` a scalar or N values, the intercept
/// `alpha` and the scale `sigma` each a scalar or N values, and K weights `beta`: Stan's
/// `normal_id_glm_lpdf`, the same value as `normal_lpdf(y, alpha + x·beta, sigma)` in one node.
/// Partials: see the module notes; `x̅ = d·βᵀ` is formed in the reverse pass. With `propto`,
/// `N·½log(2π)` is dropped, and `Σ log σ` when `sigma` is data (everything when all arguments
/// are).
///
/// Errors (Stan's checks, in Stan's order): `y`, `beta`, `sigma`, `alpha` of the wrong size;
/// `sigma` not positive finite; then, only when the result is not finite, `y`, `beta`, `alpha`
/// not finite, else the non-finite sum of squares reported as "Matrix of independent
/// variables" (an infinite or NaN `x`).
///
/// ```
/// use ndarray::array;
/// use revad::prob::normal_id_glm_lpdf;
/// let x = array![[1.0, 2.0], [0.5, -1.0]].into_shared();
/// let (y, beta) = ([1.0, 0.0], [0.3, -0.2]);
/// let lp: f64 = normal_id_glm_lpdf(&y[..], &x, 0.1, &beta[..], 2.0, false).unwrap();
/// let mu = [0.1 + 0.3 - 0.4, 0.1 + 0.15 + 0.2];
/// let expected: f64 = (0..2)
///     .map(|i| -0.5 * ((y[i] - mu[i]) / 2.0f64).powi(2) - 2f64.ln()
///          - 0.5 * (2.0 * std::f64::consts::PI).ln())
///     .sum();
/// assert!((lp - expected).abs() < 1e-14);
/// ```
#[allow(clippy::type_complexity)] // the five-argument result type, spelled out
pub fn normal_id_glm_lpdf<Y, X, A, B, S>(
    y: Y,
    x: X,
    alpha: A,
    beta: B,
    sigma: S,
    propto: bool,
) -> Result<Out<(Y, X, A, B, S)>>
where
    Y: ProbArg,
    X: MatrixArg,
    A: ProbArg,
    B: ProbArg,
    S: ProbArg,
    (Y, X, A, B, S): ProbOutput,
{
    const F: &str = "normal_id_glm_lpdf";
    let k = x.shape().1;
    let n = instances(&x, y.size());
    consistent(F, "Vector of dependent variables", y.size(), n)?;
    consistent(F, "Weight vector", beta.size(), k)?;
    consistent(F, "Vector of scale parameters", sigma.size(), n)?;
    consistent(F, "Vector of intercepts", alpha.size(), n)?;
    let sig = Param::of(&sigma);
    sig.check(
        F,
        "Scale vector",
        |s| s > 0.0 && s.is_finite(),
        "positive finite",
    )?;
    let any_var = Y::IS_VAR || X::IS_VAR || A::IS_VAR || B::IS_VAR || S::IS_VAR;
    if empty(y.size()) || empty(sigma.size()) || (propto && !any_var) {
        return Ok(zero());
    }
    let (yv, design, av) = (Param::of(&y), Design::of(&x), Param::of(&alpha));
    let bv = Param::of(&beta).expand(k);
    // 1/σ once per call for a scalar σ, once per observation (one vector division) else.
    let inv = if sig.is_scalar() {
        Param::scalar(1.0 / sig.at(0))
    } else {
        Param::owned(sig.values().iter().map(|s| 1.0 / s).collect())
    };
    let (fill_y, fill_a, fill_inv) = (
        fill(&yv, &design, n),
        fill(&av, &design, n),
        fill(&inv, &design, n),
    );
    let mut sq = 0.0;
    // ∂/∂σᵢ per observation for a vector σ; a scalar σ's is (Σz² − N)/σ, formed at the end.
    let each_sigma = S::IS_VAR && !sig.is_scalar();
    let mut dsigma = if each_sigma { vec![0.0; n] } else { Vec::new() };
    let (d, beta_bar) = pass_blocks(&design, &bv, n, B::IS_VAR, |start, e| {
        let len = e.len();
        let ys = segment(&yv, &fill_y, start, len);
        let als = segment(&av, &fill_a, start, len);
        let invs = segment(&inv, &fill_inv, start, len);
        // zᵢ = (yᵢ − ηᵢ)/σᵢ in place, Σz², then ∂/∂σᵢ = (zᵢ² − 1)/σᵢ and dᵢ = zᵢ/σᵢ.
        for (((ei, y), a), w) in e.iter_mut().zip(ys).zip(als).zip(invs) {
            *ei = (y - (*ei + a)) * w;
        }
        sq += kernels::dot(e, e);
        if each_sigma {
            for ((ds, z), w) in dsigma[start..start + len]
                .iter_mut()
                .zip(e.iter())
                .zip(invs)
            {
                *ds = (z * z - 1.0) * w;
            }
        }
        for (ei, w) in e.iter_mut().zip(invs) {
            *ei *= w;
        }
    });
    if !sq.is_finite() {
        yv.finite(F, "Vector of dependent variables")?;
        Param::of(&beta).finite(F, "Weight vector")?;
        av.finite(F, "Intercept")?;
        return not_finite(F, "Matrix of independent variables", sq);
    }
    let mut lp = -0.5 * sq;
    if !propto {
        lp -= n as f64 * HALF_LOG_TWO_PI;
    }
    if !propto || S::IS_VAR {
        lp -= if sig.is_scalar() {
            n as f64 * sig.at(0).ln()
        } else {
            sig.values().iter().map(|s| s.ln()).sum::<f64>()
        };
    }
    let mut node = Node::new();
    if Y::IS_VAR {
        let dy = match y.size() {
            None => vec![-kernels::sum(&d)],
            Some(_) => d.iter().map(|v| -v).collect(),
        };
        node.add(&y, dy);
    }
    node.add_ref(&alpha, &d);
    node.add(&beta, beta_bar);
    if S::IS_VAR && !each_sigma {
        dsigma = vec![(sq - n as f64) * inv.at(0)];
    }
    node.add(&sigma, dsigma);
    if X::IS_VAR {
        node.add_x(&x, d, bv.into_owned());
    }
    Ok(node.finish(lp))
}
