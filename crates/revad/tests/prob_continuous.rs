//! The continuous distributions lognormal, Cauchy, logistic, double exponential, Gumbel,
//! Student-t (density only), skew normal and exponentially modified normal: values against
//! reference tables over grids that include the tails, gradients against finite differences
//! for every mix of constant/variable and scalar/container arguments, `propto`, validation
//! with Stan's messages.
//!
//! Reference values: mpmath 1.3 (1200 digits unless noted) from the closed forms below, each
//! cross-checked against scipy.stats 1.17.1 (`lognorm(σ, scale=e^μ)`, `cauchy`, `logistic`,
//! `laplace`, `gumbel_r`, `t`, `skewnorm(α, ξ, ω)`, `exponnorm(1/(σλ), μ, σ)`: `logpdf`,
//! `cdf`, `logcdf`, `logsf`), which agrees to 1e-13 relative everywhere except where noted
//! (SciPy's own tail underflow or cancellation).
//!
//! ```python
//! import mpmath as mp; mp.mp.dps = 1200   # z = (y − μ)/σ, z = (log y − μ)/σ for lognormal
//! lognormal: [-log(y σ √(2π)) − z²/2, ncdf(z), log ncdf(z), log ncdf(−z)]
//! cauchy:    [-log(π σ (1 + z²)), ½ + atan(z)/π, log(½ + atan(z)/π), log(½ − atan(z)/π)]
//! logistic:  [-z − log σ − 2 log1p(e⁻ᶻ), 1/(1 + e⁻ᶻ), −log1p(e⁻ᶻ), −log1p(eᶻ)]
//! laplace:   [-log(2σ) − |z|, F, log F, log(1 − F)], F = eᶻ/2 (z < 0), 1 − e⁻ᶻ/2 (z ≥ 0)
//! gumbel:    [-log σ − z − e⁻ᶻ, exp(−e⁻ᶻ), −e⁻ᶻ, log(−expm1(−e⁻ᶻ))]
//! student_t: loggamma((ν+1)/2) − loggamma(ν/2) − log(νπ)/2 − log σ − (ν+1)/2·log1p(z²/ν)
//! skew_normal: [log(2φ(z)Φ(αz)/ω), F, log F, log S] with F = ncdf(z) − 2T, S = ncdf(−z) + 2T,
//!            T(z, α) = quad(exp(−z²(1+x²)/2)/(1+x²), [0, α])/(2π) at 500 digits (unchanged
//!            at 700); SciPy's skewnorm loses accuracy where Φ(z) − 2T cancels (z ≪ 0 < α)
//! exp_mod_normal: s = λσ, v = (y − μ)/σ, E = exp(−s v + s²/2)·ncdf(v − s):
//!            [log(λE), ncdf(v) − E, log(ncdf(v) − E), log(ncdf(−v) + E)]
//! ```

// The tables are pasted reference values (some equal log ½ to the last digit).
#![allow(clippy::approx_constant)]

use revad::prob::{
    cauchy_cdf, cauchy_lccdf, cauchy_lcdf, cauchy_lpdf, double_exponential_cdf,
    double_exponential_lccdf, double_exponential_lcdf, double_exponential_lpdf, exp_mod_normal_cdf,
    exp_mod_normal_lccdf, exp_mod_normal_lcdf, exp_mod_normal_lpdf, gumbel_cdf, gumbel_lccdf,
    gumbel_lcdf, gumbel_lpdf, logistic_cdf, logistic_lccdf, logistic_lcdf, logistic_lpdf,
    lognormal_cdf, lognormal_lccdf, lognormal_lcdf, lognormal_lpdf, skew_normal_cdf,
    skew_normal_lccdf, skew_normal_lcdf, skew_normal_lpdf, student_t_lpdf,
};
use revad::special::gamma::lgamma_shift;
use revad::testing::{assert_close, check_gradient, check_gradient_with, vector_from, GradCheck};
use revad::{tape, Var};

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

type Lpdf3 = fn(f64, f64, f64, bool) -> revad::Result<f64>;
type Cdf3 = fn(f64, f64, f64) -> revad::Result<f64>;

/// `a` equals `b` to `tol` relative (exactly when `b` is 0 or infinite).
#[track_caller]
fn rel_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        a == b || (a - b).abs() <= tol * b.abs(),
        "{what}: {a:e} differs from {b:e} by more than {tol:e} relative"
    );
}

/// Rows `(y, p1, p2, lpdf, cdf, lcdf, lccdf)`.
#[track_caller]
fn check_table(name: &str, table: &[[f64; 7]], f: (Lpdf3, Cdf3, Cdf3, Cdf3), tol: f64) {
    for r in table {
        let (y, a, b) = (r[0], r[1], r[2]);
        let at = |what: &str| format!("{name}_{what}({y}, {a}, {b})");
        rel_close(f.0(y, a, b, false).unwrap(), r[3], tol, &at("lpdf"));
        rel_close(f.1(y, a, b).unwrap(), r[4], tol, &at("cdf"));
        rel_close(f.2(y, a, b).unwrap(), r[5], tol, &at("lcdf"));
        rel_close(f.3(y, a, b).unwrap(), r[6], tol, &at("lccdf"));
    }
}

/// Gradient checks of a three-argument family at `pts` (all variable, scalar) and on
/// containers `xs = [y0, y1, y2, p1, p2]` and `ps = [p1₀, p1₁, p1₂, p2₀, p2₁, p2₂]` against
/// data `ys`.
macro_rules! gradient_suite {
    ($lpdf:ident, $cdf:ident, $lcdf:ident, $lccdf:ident,
     $pts:expr, $xs:expr, $ys:expr, $ps:expr) => {{
        let pts: &[&[f64]] = $pts;
        check_gradient(|v| $lpdf(v[0], v[1], v[2], false).unwrap(), pts);
        check_gradient(|v| $lpdf(v[0], v[1], v[2], true).unwrap(), pts);
        check_gradient(|v| $lpdf(v[0], 0.4, v[2], true).unwrap(), pts);
        check_gradient(|v| $lpdf(1.1, v[1], 2.0, true).unwrap(), pts);
        check_gradient(|v| $lcdf(v[0], v[1], v[2]).unwrap(), pts);
        check_gradient(|v| $lccdf(v[0], v[1], v[2]).unwrap(), pts);
        check_gradient(|v| $cdf(v[0], v[1], v[2]).unwrap(), pts);
        let xs: &[f64] = $xs;
        check_gradient(|v| $lpdf(&v[..3], v[3], v[4], false).unwrap(), &[xs]);
        check_gradient(
            |v| $lpdf(&vector_from(&v[..3]), v[3], v[4], false).unwrap(),
            &[xs],
        );
        check_gradient(|v| $lcdf(&v[..3], v[3], v[4]).unwrap(), &[xs]);
        check_gradient(
            |v| $lccdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
            &[xs],
        );
        check_gradient(|v| $cdf(&v[..3], v[3], v[4]).unwrap(), &[xs]);
        let ys: &[f64] = $ys;
        let ps: &[f64] = $ps;
        check_gradient(|v| $lpdf(ys, &v[..3], &v[3..], false).unwrap(), &[ps]);
        check_gradient(|v| $lcdf(ys, &v[..3], &v[3..]).unwrap(), &[ps]);
        check_gradient(|v| $lccdf(ys, &v[..3], &v[3..]).unwrap(), &[ps]);
        check_gradient(|v| $cdf(ys, &v[..3], &v[3..]).unwrap(), &[ps]);
    }};
}

/// The exact message of an error.
fn msg(r: revad::Result<f64>) -> String {
    r.unwrap_err().to_string()
}

// lognormal: (y, mu, sigma, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const LOGNORMAL: &[[f64; 7]] = &[
    [1.3, 0.2, 0.5, -0.4959342200773609, 0.5496307645297214, -0.5985085634220461, -0.7976875093956737],
    [0.01, 0.2, 0.5, -41.79994219927429, 3.615477772524345e-22, -49.37164803508401, -3.615477772524345e-22],
    [1e-30, 0.0, 1.0, -2317.6955354586626, 0.0, -2391.008527534262, -0.0],
    [1e+20, 0.0, 1.0, -1107.350262488765, 1.0, -0.0, -1065.1287963223679],
    [5.0, -1.0, 2.0, -4.072669403554773, 0.9040057178899018, -0.10091959351051503, -2.3434666506412922],
    [0.7, 1.0, 0.1, -90.28802367183002, 3.152850850045597e-42, -95.56026683044618, -3.152850850045597e-42],
    [1e-05, 3.0, 0.3, -1158.340959996027, 0.0, -1174.9372975775705, -0.0],
];

// cauchy: (y, mu, sigma, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const CAUCHY: &[[f64; 7]] = &[
    [1.3, 0.2, 0.5, -2.2163135021295908, 0.8642002512199082, -0.1459507647878548, -1.9965739137849383],
    [-0.4, 0.2, 0.5, -1.3435807445945653, 0.2211420616236955, -1.5089499712031187, -0.2499266138286413],
    [-10000000000.0, 0.0, 1.0, -47.196431745730315, 3.1830988618379065e-11, -24.170580815789858, -3.1830988618885674e-11],
    [10000000000.0, 0.0, 1.0, -47.196431745730315, 0.999999999968169, -3.1830988618885674e-11, -24.170580815789858],
    [-300000.0, 1.0, 2.0, -25.674664879266132, 2.122058834331052e-06, -13.063123792270385, -2.1220610859010857e-06],
    [7.0, -2.0, 0.01, -10.14435046107707, 0.9996463224942309, -0.00035374006440893973, -7.947125060696124],
    [0.2, 0.2, 3.0, -2.24334217451751, 0.5, -0.6931471805599453, -0.6931471805599453],
];

// logistic: (y, mu, sigma, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const LOGISTIC: &[[f64; 7]] = &[
    [1.3, 0.2, 0.5, -1.7170194589774466, 0.9002495108803149, -0.10508331976869591, -2.305083319768696],
    [-0.4, 0.2, 0.5, -1.0334177541161171, 0.23147521650098235, -1.4632824673380311, -0.2632824673380312],
    [-800.0, 0.0, 1.0, -800.0, 0.0, -800.0, -0.0],
    [800.0, 0.0, 1.0, -800.0, 1.0, -0.0, -800.0],
    [-40.0, 1.0, 2.0, -21.19314718306025, 1.2501528648238605e-09, -20.500000001250154, -1.2501528656053015e-09],
    [30.0, -2.0, 0.7, -45.35761077034699, 1.0, -1.4013220964347598e-20, -45.714285714285715],
    [0.2, 0.2, 3.0, -2.4849066497880004, 0.5, -0.6931471805599453, -0.6931471805599453],
];

// laplace: (y, mu, sigma, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const DOUBLE_EXPONENTIAL: &[[f64; 7]] = &[
    [1.3, 0.2, 0.5, -2.2, 0.944598420818833, -0.05699539332033943, -2.8931471805599456],
    [-0.4, 0.2, 0.5, -1.2000000000000002, 0.15059710595610104, -1.8931471805599454, -0.1632216539461865],
    [-700.0, 0.0, 1.0, -700.6931471805599, 4.929838271879885e-305, -700.6931471805599, -4.929838271879885e-305],
    [700.0, 0.0, 1.0, -700.6931471805599, 1.0, -4.929838271879885e-305, -700.6931471805599],
    [-40.0, 1.0, 2.0, -21.88629436111989, 6.250764331933713e-10, -21.193147180559944, -6.250764333887316e-10],
    [30.0, -2.0, 0.7, -46.05075795090693, 1.0, -7.006610482173799e-21, -46.40743289484566],
    [0.2, 0.2, 3.0, -1.791759469228055, 0.5, -0.6931471805599453, -0.6931471805599453],
];

// gumbel: (y, mu, sigma, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const GUMBEL: &[[f64; 7]] = &[
    [1.3, 0.2, 0.5, -1.6176559778023887, 0.8951149274770491, -0.11080315836233387, -2.2548900756795485],
    [-0.4, 0.2, 0.5, -1.4269697421766023, 0.036148604913135506, -3.3201169227365477, -0.03681815072882058],
    [-6.0, 0.0, 1.0, -397.4287934927351, 6.210136486566067e-176, -403.4287934927351, -6.210136486566067e-176],
    [40.0, 0.0, 1.0, -40.0, 1.0, -4.248354255291589e-18, -40.0],
    [800.0, 0.0, 1.0, -800.0, 1.0, -0.0, -800.0], // scipy differs in [3]: [np.float64(-inf)]
    [-2.0, 1.0, 2.0, -3.67483625089801, 0.011314286380459624, -4.4816890703380645, -0.011378779845083259],
    [30.0, -2.0, 0.7, -45.35761077034699, 1.0, -1.4013220964347598e-20, -45.714285714285715],
];

// student_t: (y, nu, mu, sigma, lpdf)
#[rustfmt::skip]
const STUDENT_T: &[[f64; 5]] = &[
    [1.3, 3.0, 0.2, 0.5, -2.228994760451978],
    [-0.4, 0.5, 0.2, 0.5, -1.634262110577951],
    [100000000.0, 2.0, 0.0, 1.0, -55.262042231857095],
    [-30.0, 10000000000.0, 1.0, 2.0, -121.73708428280058],
    [0.2, 7.0, 0.2, 3.0, -2.0531464392394856],
    [3.0, 0.001, 0.0, 1.0, -8.704815582407505],
];

// skew_normal: (y, xi, omega, alpha, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const SKEW_NORMAL: &[[f64; 8]] = &[
    [1.3, 0.2, 0.5, 2.0, -1.9526495846433378, 0.9721931374775173, -0.02820079315159166, -3.5824724354221003],
    [-0.4, 0.2, 0.5, -1.5, -0.28923587599079165, 0.22737057844957287, -1.4811740884040754, -0.2579557482552149],
    [0.0, 0.0, 1.0, 0.0, -0.9189385332046728, 0.5, -0.6931471805599453, -0.6931471805599453],
    [-6.0, 0.0, 1.0, -3.0, -18.225791352644727, 1.973175290075396e-09, -20.04362176941476, -1.9731752920221066e-09],
    [8.0, 0.0, 1.0, 2.0, -32.22579135264473, 0.9999999999999988, -1.2441921148543576e-15, -34.320289979354605],
    [-2.0, 0.0, 1.0, 0.5, -4.066812997653991, 0.005499975977136193, -5.20301155454667, -0.005515156532390186],
    [3.0, 1.0, 2.0, -0.7, -2.837906294736204, 0.9512084434696702, -0.050022056994762275, -3.0201980030125255],
    [0.1, -0.2, 0.3, 10.0, 0.4781814516812085, 0.682689492137086, -0.381715146302126, -1.1478744644493184],
    [-3.0, 0.0, 1.0, 2.0, -25.462560302619433, 5.596622287836366e-13, -28.211442956043765, -5.596622287837933e-13], // scipy differs in [1, 2, 3]: [5.5966222735859e-13, -28.211442958590027, -5.596622273587466e-13]
    [-4.0, 0.0, 1.0, 5.0, -212.142946723742, 7.053221215748863e-95, -216.79209941192647, -7.053221215748863e-95], // scipy differs in [1, 2, 3]: [7.053235371580762e-95, -216.7920974049261, -7.053235371580762e-95]
    [-10.0, 0.0, 1.0, 1.0, -103.4570765031572, 5.806216010980832e-47, -106.46257030102494, -5.806216010980832e-47], // scipy differs in [1, 2, 3]: [5.806216012796661e-47, -106.4625703007122, -5.806216012796661e-47]
    [-30.0, 0.0, 1.0, 1.0, -904.5470353089879, 0.0, -908.6424879126864, -0.0], // scipy differs in [2]: [-inf]
    [-20.0, 0.0, 1.0, 0.2, -210.58589283917203, 1.6736816954003042e-93, -213.62538784057594, -1.6736816954003042e-93], // scipy differs in [1, 2, 3]: [1.6736816955253543e-93, -213.62538784050122, -1.6736816955253543e-93]
    [-45.0, 0.0, 1.0, -2.0, -1012.7257913526447, 0.0, -1016.5329470613924, -0.0], // scipy differs in [2]: [-inf]
    [5.0, 0.0, 1.0, -3.0, -128.85717619835643, 1.0, -2.1659607561811265e-58, -132.77707136334658], // scipy differs in [2]: [-2.1659607561808152e-58]
    [12.0, 1.0, 2.0, -1.0, -33.82331488582993, 0.9999999999999997, -3.6060348264585175e-16, -35.55875270525052], // scipy differs in [2, 3]: [-3.606034820235584e-16, -35.55875270697622]
];

// exp_mod_normal: (y, mu, sigma, lambda, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const EXP_MOD_NORMAL: &[[f64; 8]] = &[
    [1.3, 0.2, 0.5, 2.0, -1.1290991799274726, 0.8244343613014544, -0.1930577504590665, -1.7397422963220797],
    [-0.4, 0.2, 0.5, 2.0, -1.8824712664841978, 0.038962929969176524, -3.245144598487871, -0.03974229632207959],
    [-10.0, 0.0, 1.0, 1.0, -53.32493409442372, 6.81196735432366e-25, -55.6459463544398, -6.81196735432366e-25],
    [-40.0, 0.0, 1.0, 0.5, -805.3139964245979, 0.0, -809.0041151036266, -0.0], // scipy differs in [2]: [-inf]
    [60.0, 0.0, 1.0, 1.0, -59.5, 1.0, -1.4437045551572354e-26, -59.5],
    [800.0, 0.0, 1.0, 1.0, -799.5, 1.0, -0.0, -799.5], // scipy differs in [3]: [-inf]
    [0.5, 1.0, 2.0, 0.1, -3.3523539510433595, 0.05127503056326, -2.9705513789583415, -0.05263633329569913],
    [3.0, -1.0, 0.1, 20.0, -75.004267726446, 1.0, -1.3336148155022616e-34, -78.0],
    [-10.0, 0.0, 1.0, 0.01, -57.837435796868824, 7.467302606828473e-27, -60.15926367371577, -7.467302606828473e-27],
    [-30.0, 0.0, 1.0, 0.1, -456.62714950937624, 1.6265528055459855e-200, -460.0305556666527, -1.6265528055459855e-200],
    [-5.0, 0.0, 1.0, 10.0, -13.82879975271765, 1.8797170020519157e-07, -15.486974416270813, -1.8797171787187382e-07],
    [-60.0, 0.0, 1.0, 2.0, -1804.3531857143987, 0.0, -1808.448076282225, -0.0],
    [0.0, 0.0, 1.0, 0.001, -7.601700162449102, 0.0003986924133197194, -7.827320332301477, -0.00039877191227106015],
    [-3.0, 0.0, 1.0, 1e-06, -20.423237062573243, 3.82154215330209e-10, -21.68519688373603, -3.8215421540322995e-10],
    [0.5, 0.0, 1.0, 0.0001, -9.57938770087739, 6.977445425570931e-05, -9.57024260005998, -6.97768886061803e-05],
    [3.0, 0.0, 1.0, 0.01, -4.636516046984413, 0.02950977470239093, -3.5230337246755137, -0.029953948244907023],
    [100.0, 0.0, 1.0, 0.0001, -9.220340366976183, 0.009950161300582766, -4.610166516829189, -0.009999995000000001],
    [8.0, 1.0, 2.0, 0.001, -6.9149876870198685, 0.006973688033647097, -4.965611064501358, -0.006998117839523297],
];

// ---------------------------------------------------------------------------------------------
// lognormal

#[test]
fn lognormal_values() {
    let f: (Lpdf3, Cdf3, Cdf3, Cdf3) = (
        lognormal_lpdf,
        lognormal_cdf,
        lognormal_lcdf,
        lognormal_lccdf,
    );
    check_table("lognormal", LOGNORMAL, f, 1e-13);
    // y = 0: density 0, CDF 0, CCDF 1; y = ∞: CDF 1
    assert_eq!(
        lognormal_lpdf(0.0, 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(lognormal_cdf(0.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(lognormal_lcdf(0.0, 0.0, 1.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(lognormal_lccdf(0.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(lognormal_cdf(f64::INFINITY, 0.0, 1.0).unwrap(), 1.0);
    // vectorised: the sum of the rows (the product for the CDF)
    let y = [1.3, 5.0];
    let s = lognormal_lpdf(&y[..], &[0.2, -1.0][..], &[0.5, 2.0][..], false).unwrap();
    rel_close(s, LOGNORMAL[0][3] + LOGNORMAL[4][3], 1e-14, "sum");
    let c = lognormal_cdf(&y[..], &[0.2, -1.0][..], &[0.5, 2.0][..]).unwrap();
    rel_close(c, LOGNORMAL[0][4] * LOGNORMAL[4][4], 1e-14, "product");
}

#[test]
fn lognormal_gradients() {
    gradient_suite!(
        lognormal_lpdf,
        lognormal_cdf,
        lognormal_lcdf,
        lognormal_lccdf,
        &[&[1.3, 0.2, 0.5], &[0.05, 1.0, 0.7], &[20.0, -1.0, 2.0]],
        &[1.3, 0.4, 2.5, 0.2, 0.8],
        &[0.7, 1.5, 3.0],
        &[0.1, -0.3, 0.9, 0.6, 1.2, 0.8]
    );
    // lower tail of the CDF: finite gradient where Φ underflows (d/dy log Φ(z) ≈ −z/(σy))
    let (v, g) = revad::gradient(|v| lognormal_lcdf(v[0], 0.0, 1.0).unwrap(), &[1e-30]);
    assert!(v.is_finite());
    // mpmath: npdf(z)/ncdf(z)/y at z = log(1e-30), 50 digits
    rel_close(g[0], 6.909_202_321_126_851e31, 1e-13, "lognormal_lcdf'");
    check_gradient_with(
        |v| lognormal_lccdf(v[0], v[1], 1.0).unwrap(),
        &[&[1e10, 0.0]],
        GradCheck {
            rel_tol: 1e-6,
            ..GradCheck::default()
        },
    );
    // y = 0 gives zero partials, not NaN
    let (_, g) = revad::gradient(|v| lognormal_cdf(0.0, v[0], v[1]).unwrap(), &[0.0, 1.0]);
    assert_eq!(g, vec![0.0, 0.0]);
}

#[test]
fn lognormal_propto() {
    tape::reset();
    let y = [0.3, 1.2, 2.0];
    let log_y: f64 = y.iter().map(|v: &f64| v.ln()).sum();
    let mu = Var::new(0.5);
    let full = lognormal_lpdf(&y[..], mu, 1.5, false).unwrap().value();
    let prop = lognormal_lpdf(&y[..], mu, 1.5, true).unwrap().value();
    assert_close(
        full - prop,
        -3.0 * (HALF_LOG_TWO_PI + 1.5f64.ln()) - log_y,
        1e-14,
    );
    let s = Var::new(1.5);
    let prop_s = lognormal_lpdf(&y[..], 0.5, s, true).unwrap().value();
    assert_close(full - prop_s, -3.0 * HALF_LOG_TWO_PI - log_y, 1e-14);
    let yv: Vec<Var> = y.iter().map(|&v| Var::new(v)).collect();
    let prop_y = lognormal_lpdf(&yv, 0.5, 1.5, true).unwrap().value();
    assert_close(full - prop_y, -3.0 * (HALF_LOG_TWO_PI + 1.5f64.ln()), 1e-14);
    assert_eq!(lognormal_lpdf(&y[..], 0.5, 1.5, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn lognormal_validation() {
    assert_eq!(
        msg(lognormal_lpdf(-1.0, 0.0, 1.0, false)),
        "lognormal_lpdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(lognormal_cdf(f64::NAN, 0.0, 1.0)),
        "lognormal_cdf: Random variable is NaN, but must be nonnegative"
    );
    assert_eq!(
        msg(lognormal_lcdf(1.0, f64::INFINITY, 1.0)),
        "lognormal_lcdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(lognormal_lccdf(1.0, 0.0, 0.0)),
        "lognormal_lccdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(lognormal_lpdf(1.0, 0.0, f64::INFINITY, false)),
        "lognormal_lpdf: Scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(lognormal_lpdf(
            &[1.0, 2.0][..],
            &[0.0, 1.0, 2.0][..],
            1.0,
            false
        )),
        "lognormal_lpdf: Location parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(lognormal_lpdf(empty, 0.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(lognormal_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(lognormal_lcdf(empty, 0.0, 1.0).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Cauchy

#[test]
fn cauchy_values() {
    let f: (Lpdf3, Cdf3, Cdf3, Cdf3) = (cauchy_lpdf, cauchy_cdf, cauchy_lcdf, cauchy_lccdf);
    check_table("cauchy", CAUCHY, f, 1e-13);
    assert_eq!(cauchy_cdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(cauchy_lccdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(cauchy_lcdf(f64::INFINITY, 0.0, 1.0).unwrap(), 0.0);
    // |z| so large that z² overflows: log(1 + z²) = 2 log|z|
    rel_close(
        cauchy_lpdf(1e200, 0.0, 1.0, false).unwrap(),
        -(std::f64::consts::PI.ln() + 400.0 * 10f64.ln()),
        1e-14,
        "cauchy_lpdf(1e200)",
    );
}

#[test]
fn cauchy_gradients() {
    gradient_suite!(
        cauchy_lpdf,
        cauchy_cdf,
        cauchy_lcdf,
        cauchy_lccdf,
        &[&[1.3, 0.2, 0.5], &[-2.0, 1.0, 0.2], &[10.0, -3.0, 7.0]],
        &[0.3, -1.2, 2.0, 0.5, 1.5],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.0, 2.0, 0.5]
    );
    // far tails: d/dy log F(y) → −1/y, d/dy log(1 − F(y)) → −1/y
    let (_, g) = revad::gradient(|v| cauchy_lcdf(v[0], 0.0, 1.0).unwrap(), &[-1e10]);
    rel_close(g[0], 1e-10, 1e-12, "cauchy_lcdf'");
    let (_, g) = revad::gradient(|v| cauchy_lccdf(v[0], 0.0, 1.0).unwrap(), &[1e10]);
    rel_close(g[0], -1e-10, 1e-12, "cauchy_lccdf'");
    let (_, g) = revad::gradient(|v| cauchy_lcdf(v[0], 0.0, 1.0).unwrap(), &[-1e200]);
    rel_close(g[0], 1e-200, 1e-12, "cauchy_lcdf' at -1e200");
    check_gradient(
        |v| cauchy_lcdf(v[0], v[1], v[2]).unwrap(),
        &[&[-1e4, 1.0, 2.0], &[1e4, 1.0, 2.0]],
    );
}

#[test]
fn cauchy_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let mu = Var::new(0.5);
    let full = cauchy_lpdf(&y[..], mu, 1.5, false).unwrap().value();
    let prop = cauchy_lpdf(&y[..], mu, 1.5, true).unwrap().value();
    let log_pi = std::f64::consts::PI.ln();
    assert_close(full - prop, -3.0 * (log_pi + 1.5f64.ln()), 1e-14);
    let prop_s = cauchy_lpdf(&y[..], 0.5, Var::new(1.5), true)
        .unwrap()
        .value();
    assert_close(full - prop_s, -3.0 * log_pi, 1e-14);
    assert_eq!(cauchy_lpdf(&y[..], 0.5, 1.5, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn cauchy_validation() {
    assert_eq!(
        msg(cauchy_lpdf(f64::NAN, 0.0, 1.0, false)),
        "cauchy_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(cauchy_cdf(0.0, f64::NEG_INFINITY, 1.0)),
        "cauchy_cdf: Location parameter is -inf, but must be finite"
    );
    assert_eq!(
        msg(cauchy_lcdf(0.0, 0.0, -2.0)),
        "cauchy_lcdf: Scale parameter is -2, but must be positive finite"
    );
    assert_eq!(
        msg(cauchy_lccdf(0.0, 0.0, f64::INFINITY)),
        "cauchy_lccdf: Scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(cauchy_lpdf(&[1.0, 2.0][..], 0.0, &[1.0][..], false)),
        "cauchy_lpdf: Scale parameter has size 1, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(cauchy_lpdf(0.0, empty, 1.0, false).unwrap(), 0.0);
    assert_eq!(cauchy_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(cauchy_lccdf(empty, 0.0, 1.0).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// logistic

#[test]
fn logistic_values() {
    let f: (Lpdf3, Cdf3, Cdf3, Cdf3) = (logistic_lpdf, logistic_cdf, logistic_lcdf, logistic_lccdf);
    check_table("logistic", LOGISTIC, f, 1e-13);
    assert_eq!(logistic_cdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(logistic_lcdf(f64::INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(
        logistic_lccdf(f64::INFINITY, 0.0, 1.0).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn logistic_gradients() {
    gradient_suite!(
        logistic_lpdf,
        logistic_cdf,
        logistic_lcdf,
        logistic_lccdf,
        &[&[1.3, 0.2, 0.5], &[-2.0, 1.0, 0.2], &[10.0, -3.0, 7.0]],
        &[0.3, -1.2, 2.0, 0.5, 1.5],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.0, 2.0, 0.5]
    );
    // far tails: d/dy log F → 1 as y → −∞, d/dy log(1 − F) → −1 as y → ∞
    let (_, g) = revad::gradient(|v| logistic_lcdf(v[0], 0.0, 1.0).unwrap(), &[-800.0]);
    assert_eq!(g[0], 1.0);
    let (_, g) = revad::gradient(|v| logistic_lccdf(v[0], 0.0, 1.0).unwrap(), &[800.0]);
    assert_eq!(g[0], -1.0);
    let (_, g) = revad::gradient(|v| logistic_lpdf(v[0], 0.0, 1.0, false).unwrap(), &[-800.0]);
    assert_eq!(g[0], 1.0);
    check_gradient(
        |v| logistic_lccdf(v[0], v[1], v[2]).unwrap(),
        &[&[40.0, 1.0, 2.0], &[-40.0, 1.0, 2.0]],
    );
}

#[test]
fn logistic_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let mu = Var::new(0.5);
    let full = logistic_lpdf(&y[..], mu, 1.5, false).unwrap().value();
    let prop = logistic_lpdf(&y[..], mu, 1.5, true).unwrap().value();
    assert_close(full - prop, -3.0 * 1.5f64.ln(), 1e-14);
    let prop_s = logistic_lpdf(&y[..], 0.5, Var::new(1.5), true)
        .unwrap()
        .value();
    assert_eq!(full, prop_s);
    assert_eq!(logistic_lpdf(&y[..], 0.5, 1.5, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn logistic_validation() {
    assert_eq!(
        msg(logistic_lpdf(f64::INFINITY, 0.0, 1.0, false)),
        "logistic_lpdf: Random variable is inf, but must be finite"
    );
    assert_eq!(
        msg(logistic_cdf(f64::NAN, 0.0, 1.0)),
        "logistic_cdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(logistic_lcdf(0.0, f64::NAN, 1.0)),
        "logistic_lcdf: Location parameter is NaN, but must be finite"
    );
    assert_eq!(
        msg(logistic_lccdf(0.0, 0.0, 0.0)),
        "logistic_lccdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(logistic_lpdf(
            0.0,
            &[0.0, 1.0][..],
            &[1.0, 2.0, 3.0][..],
            false
        )),
        "logistic_lpdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(logistic_lpdf(0.0, 0.0, empty, false).unwrap(), 0.0);
    assert_eq!(logistic_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------------------------------------
// double exponential

#[test]
fn double_exponential_values() {
    let f: (Lpdf3, Cdf3, Cdf3, Cdf3) = (
        double_exponential_lpdf,
        double_exponential_cdf,
        double_exponential_lcdf,
        double_exponential_lccdf,
    );
    check_table("double_exponential", DOUBLE_EXPONENTIAL, f, 1e-13);
    assert_eq!(
        double_exponential_cdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(),
        0.0
    );
    assert_eq!(
        double_exponential_lccdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(),
        0.0
    );
    assert_eq!(
        double_exponential_lcdf(f64::INFINITY, 0.0, 1.0).unwrap(),
        0.0
    );
}

#[test]
fn double_exponential_gradients() {
    // points away from the kink at y = μ
    gradient_suite!(
        double_exponential_lpdf,
        double_exponential_cdf,
        double_exponential_lcdf,
        double_exponential_lccdf,
        &[&[1.3, 0.2, 0.5], &[-2.0, 1.0, 0.2], &[10.0, -3.0, 7.0]],
        &[0.3, -1.2, 2.0, 0.5, 1.5],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.0, 2.0, 0.5]
    );
    // at the kink the partials use sign(0) = 0, as Stan
    let (_, g) = revad::gradient(
        |v| double_exponential_lpdf(v[0], v[1], v[2], false).unwrap(),
        &[0.5, 0.5, 2.0],
    );
    assert_eq!(g, vec![0.0, 0.0, -0.5]);
    let (_, g) = revad::gradient(
        |v| double_exponential_lccdf(v[0], 0.0, 1.0).unwrap(),
        &[700.0],
    );
    assert_eq!(g[0], -1.0);
    let (_, g) = revad::gradient(
        |v| double_exponential_lcdf(v[0], 0.0, 1.0).unwrap(),
        &[700.0],
    );
    assert!(g[0].is_finite() && g[0] >= 0.0 && g[0] < 1e-300);
}

#[test]
fn double_exponential_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let mu = Var::new(0.5);
    let full = double_exponential_lpdf(&y[..], mu, 1.5, false)
        .unwrap()
        .value();
    let prop = double_exponential_lpdf(&y[..], mu, 1.5, true)
        .unwrap()
        .value();
    let ln2 = std::f64::consts::LN_2;
    assert_close(full - prop, -3.0 * (ln2 + 1.5f64.ln()), 1e-14);
    let prop_s = double_exponential_lpdf(&y[..], 0.5, Var::new(1.5), true)
        .unwrap()
        .value();
    assert_close(full - prop_s, -3.0 * ln2, 1e-14);
    assert_eq!(
        double_exponential_lpdf(&y[..], 0.5, 1.5, true).unwrap(),
        0.0
    );
    tape::reset();
}

#[test]
fn double_exponential_validation() {
    assert_eq!(
        msg(double_exponential_lpdf(f64::NEG_INFINITY, 0.0, 1.0, false)),
        "double_exponential_lpdf: Random variable is -inf, but must be finite"
    );
    assert_eq!(
        msg(double_exponential_lcdf(f64::NAN, 0.0, 1.0)),
        "double_exponential_lcdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(double_exponential_cdf(0.0, f64::INFINITY, 1.0)),
        "double_exponential_cdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(double_exponential_lccdf(0.0, 0.0, -1e-300)),
        "double_exponential_lccdf: Scale parameter is -1e-300, but must be positive finite"
    );
    assert_eq!(
        msg(double_exponential_lpdf(
            &[0.0; 2][..],
            0.0,
            &[1.0; 4][..],
            false
        )),
        "double_exponential_lpdf: Scale parameter has size 4, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(
        double_exponential_lpdf(empty, 0.0, 1.0, false).unwrap(),
        0.0
    );
    assert_eq!(double_exponential_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------------------------------------
// Gumbel

#[test]
fn gumbel_values() {
    let f: (Lpdf3, Cdf3, Cdf3, Cdf3) = (gumbel_lpdf, gumbel_cdf, gumbel_lcdf, gumbel_lccdf);
    check_table("gumbel", GUMBEL, f, 1e-13);
    assert_eq!(gumbel_cdf(f64::NEG_INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(gumbel_lcdf(f64::INFINITY, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(
        gumbel_lpdf(f64::NEG_INFINITY, 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        gumbel_lpdf(-800.0, 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn gumbel_gradients() {
    gradient_suite!(
        gumbel_lpdf,
        gumbel_cdf,
        gumbel_lcdf,
        gumbel_lccdf,
        &[&[1.3, 0.2, 0.5], &[-2.0, 1.0, 0.9], &[10.0, -3.0, 7.0]],
        &[0.3, -1.2, 2.0, 0.5, 1.5],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.0, 2.0, 0.5]
    );
    // upper tail of the CCDF: log(1 − F) ≈ −z, d/dy → −1/β, finite where 1 − F underflows
    let (v, g) = revad::gradient(|v| gumbel_lccdf(v[0], 0.0, v[1]).unwrap(), &[800.0, 1.0]);
    assert_eq!(v, -800.0);
    assert_eq!(g, vec![-1.0, 800.0]);
    check_gradient(
        |v| gumbel_lccdf(v[0], v[1], v[2]).unwrap(),
        &[&[30.0, 1.0, 1.5], &[24.0, 1.0, 1.0], &[-3.0, 1.0, 1.0]],
    );
    check_gradient(
        |v| gumbel_lcdf(v[0], v[1], v[2]).unwrap(),
        &[&[-5.0, 1.0, 1.0]],
    );
}

#[test]
fn gumbel_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let mu = Var::new(0.5);
    let full = gumbel_lpdf(&y[..], mu, 1.5, false).unwrap().value();
    let prop = gumbel_lpdf(&y[..], mu, 1.5, true).unwrap().value();
    assert_close(full - prop, -3.0 * 1.5f64.ln(), 1e-14);
    let prop_s = gumbel_lpdf(&y[..], 0.5, Var::new(1.5), true)
        .unwrap()
        .value();
    assert_eq!(full, prop_s);
    assert_eq!(gumbel_lpdf(&y[..], 0.5, 1.5, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn gumbel_validation() {
    assert_eq!(
        msg(gumbel_lpdf(f64::NAN, 0.0, 1.0, false)),
        "gumbel_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(gumbel_cdf(0.0, f64::INFINITY, 1.0)),
        "gumbel_cdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(gumbel_lcdf(0.0, 0.0, 0.0)),
        "gumbel_lcdf: Scale parameter is 0, but must be positive"
    );
    assert_eq!(
        msg(gumbel_lccdf(0.0, 0.0, f64::NAN)),
        "gumbel_lccdf: Scale parameter is NaN, but must be positive"
    );
    assert_eq!(
        msg(gumbel_lpdf(&[0.0; 3][..], &[0.0; 2][..], 1.0, false)),
        "gumbel_lpdf: Location parameter has size 2, but must have size 3"
    );
    let empty: &[f64] = &[];
    assert_eq!(gumbel_lpdf(empty, 0.0, 1.0, false).unwrap(), 0.0);
    assert_eq!(gumbel_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------------------------------------
// Student-t (density only: the CDFs need the regularised incomplete beta function)

#[test]
fn student_t_values() {
    for r in STUDENT_T {
        rel_close(
            student_t_lpdf(r[0], r[1], r[2], r[3], false).unwrap(),
            r[4],
            1e-13,
            &format!("student_t_lpdf{r:?}"),
        );
    }
    let y = [1.3, 0.2];
    let s = student_t_lpdf(&y[..], &[3.0, 7.0][..], 0.2, &[0.5, 3.0][..], false).unwrap();
    rel_close(s, STUDENT_T[0][4] + STUDENT_T[4][4], 1e-14, "sum");
    assert_eq!(
        student_t_lpdf(f64::INFINITY, 3.0, 0.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn student_t_gradients() {
    let pts: &[&[f64]] = &[
        &[1.3, 3.0, 0.2, 0.5],
        &[-2.0, 0.7, 1.0, 0.2],
        &[10.0, 25.0, -3.0, 7.0],
        &[0.5, 1e6, 0.1, 1.0],
    ];
    check_gradient(
        |v| student_t_lpdf(v[0], v[1], v[2], v[3], false).unwrap(),
        pts,
    );
    check_gradient(
        |v| student_t_lpdf(v[0], v[1], v[2], v[3], true).unwrap(),
        pts,
    );
    check_gradient(|v| student_t_lpdf(v[0], 4.0, v[2], 1.5, true).unwrap(), pts);
    check_gradient(|v| student_t_lpdf(1.1, v[1], 0.0, v[3], true).unwrap(), pts);
    let xs: &[f64] = &[0.3, -1.2, 2.0, 3.5, 0.5, 1.5];
    check_gradient(
        |v| student_t_lpdf(&v[..3], v[3], v[4], v[5], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| student_t_lpdf(&vector_from(&v[..3]), v[3], v[4], v[5], false).unwrap(),
        &[xs],
    );
    let y = [0.1, 0.7, -0.4];
    check_gradient(
        |v| student_t_lpdf(&y[..], &v[..3], v[3], &v[4..], false).unwrap(),
        &[&[1.5, 4.0, 30.0, 0.2, 1.0, 2.0, 0.5]],
    );
    // huge |z|: z² overflows, the partials stay finite
    let (v, g) = revad::gradient(
        |v| student_t_lpdf(v[0], v[1], 0.0, 1.0, false).unwrap(),
        &[1e200, 2.0],
    );
    assert!(v.is_finite());
    rel_close(g[0], -3e-200, 1e-14, "∂y at 1e200");
    assert!(g[1].is_finite());
}

#[test]
fn student_t_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let (nu, sigma) = (4.0f64, 1.5f64);
    let mu = Var::new(0.5);
    let full = student_t_lpdf(&y[..], nu, mu, sigma, false)
        .unwrap()
        .value();
    let prop = student_t_lpdf(&y[..], nu, mu, sigma, true).unwrap().value();
    let half_log_pi = 0.5 * std::f64::consts::PI.ln();
    let nu_terms = lgamma_shift(0.5 * nu, 0.5) - 0.5 * nu.ln();
    assert_close(
        full - prop,
        3.0 * (nu_terms - half_log_pi - sigma.ln()),
        1e-14,
    );
    let prop_nu = student_t_lpdf(&y[..], Var::new(nu), 0.5, sigma, true)
        .unwrap()
        .value();
    assert_close(full - prop_nu, -3.0 * (half_log_pi + sigma.ln()), 1e-14);
    let prop_s = student_t_lpdf(&y[..], nu, 0.5, Var::new(sigma), true)
        .unwrap()
        .value();
    assert_close(full - prop_s, 3.0 * (nu_terms - half_log_pi), 1e-14);
    assert_eq!(student_t_lpdf(&y[..], nu, 0.5, sigma, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn student_t_validation() {
    assert_eq!(
        msg(student_t_lpdf(f64::NAN, 1.0, 0.0, 1.0, false)),
        "student_t_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(student_t_lpdf(0.0, 0.0, 0.0, 1.0, false)),
        "student_t_lpdf: Degrees of freedom parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_lpdf(0.0, f64::INFINITY, 0.0, 1.0, false)),
        "student_t_lpdf: Degrees of freedom parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_lpdf(0.0, 1.0, f64::INFINITY, 1.0, false)),
        "student_t_lpdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(student_t_lpdf(0.0, 1.0, 0.0, -1.0, false)),
        "student_t_lpdf: Scale parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_lpdf(
            &[0.0; 2][..],
            &[1.0; 3][..],
            0.0,
            1.0,
            false
        )),
        "student_t_lpdf: Degrees of freedom parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(student_t_lpdf(0.0, empty, 0.0, 1.0, false).unwrap(), 0.0);
}

#[test]
fn one_node_per_call() {
    tape::reset();
    let ys = [Var::new(0.3), Var::new(1.2), Var::new(2.0)];
    let before = tape::stats().continuations;
    let a = lognormal_lpdf(&ys[..], 0.5, 1.5, false).unwrap();
    let b = gumbel_cdf(&ys[..], Var::new(0.5), 1.5).unwrap();
    let c = student_t_lpdf(&ys[..], Var::new(3.0), 0.5, 1.5, false).unwrap();
    assert_eq!(tape::stats().continuations, before + 3);
    let d: f64 = lognormal_lpdf(&vec![0.3, 1.2, 2.0], 0.5, 1.5, false).unwrap();
    assert_eq!(a.value(), d);
    assert!(b.value() > 0.0 && c.value().is_finite());
    tape::reset();
}

type Lpdf4 = fn(f64, f64, f64, f64, bool) -> revad::Result<f64>;
type Cdf4 = fn(f64, f64, f64, f64) -> revad::Result<f64>;

/// Rows `(y, p1, p2, p3, lpdf, cdf, lcdf, lccdf)`.
#[track_caller]
fn check_table4(name: &str, table: &[[f64; 8]], f: (Lpdf4, Cdf4, Cdf4, Cdf4), tol: f64) {
    for r in table {
        let (y, a, b, c) = (r[0], r[1], r[2], r[3]);
        let at = |what: &str| format!("{name}_{what}({y}, {a}, {b}, {c})");
        rel_close(f.0(y, a, b, c, false).unwrap(), r[4], tol, &at("lpdf"));
        rel_close(f.1(y, a, b, c).unwrap(), r[5], tol, &at("cdf"));
        rel_close(f.2(y, a, b, c).unwrap(), r[6], tol, &at("lcdf"));
        rel_close(f.3(y, a, b, c).unwrap(), r[7], tol, &at("lccdf"));
    }
}

/// Gradient checks of a four-argument family at `pts` (all variable, scalar), on containers
/// `xs = [y0, y1, y2, p1, p2, p3]`, and with vectorised parameters
/// `ps = [p1₀, p1₁, p1₂, p2, p3₀, p3₁, p3₂]` against data `ys`.
macro_rules! gradient_suite4 {
    ($lpdf:ident, $cdf:ident, $lcdf:ident, $lccdf:ident,
     $pts:expr, $xs:expr, $ys:expr, $ps:expr) => {{
        let pts: &[&[f64]] = $pts;
        check_gradient(|v| $lpdf(v[0], v[1], v[2], v[3], false).unwrap(), pts);
        check_gradient(|v| $lpdf(v[0], v[1], v[2], v[3], true).unwrap(), pts);
        check_gradient(|v| $lpdf(v[0], 0.4, 1.1, v[3], true).unwrap(), pts);
        check_gradient(|v| $lpdf(1.1, v[1], v[2], 0.8, true).unwrap(), pts);
        check_gradient(|v| $lcdf(v[0], v[1], v[2], v[3]).unwrap(), pts);
        check_gradient(|v| $lccdf(v[0], v[1], v[2], v[3]).unwrap(), pts);
        check_gradient(|v| $cdf(v[0], v[1], v[2], v[3]).unwrap(), pts);
        check_gradient(|v| $cdf(0.3, v[1], 1.2, v[3]).unwrap(), pts);
        let xs: &[f64] = $xs;
        check_gradient(|v| $lpdf(&v[..3], v[3], v[4], v[5], false).unwrap(), &[xs]);
        check_gradient(
            |v| $lpdf(&vector_from(&v[..3]), v[3], v[4], v[5], false).unwrap(),
            &[xs],
        );
        check_gradient(|v| $lcdf(&v[..3], v[3], v[4], v[5]).unwrap(), &[xs]);
        check_gradient(
            |v| $lccdf(&vector_from(&v[..3]), v[3], v[4], v[5]).unwrap(),
            &[xs],
        );
        check_gradient(|v| $cdf(&v[..3], v[3], v[4], v[5]).unwrap(), &[xs]);
        let ys: &[f64] = $ys;
        let ps: &[f64] = $ps;
        check_gradient(|v| $lpdf(ys, &v[..3], v[3], &v[4..], false).unwrap(), &[ps]);
        check_gradient(|v| $lcdf(ys, &v[..3], v[3], &v[4..]).unwrap(), &[ps]);
        check_gradient(|v| $lccdf(ys, &v[..3], v[3], &v[4..]).unwrap(), &[ps]);
        check_gradient(|v| $cdf(ys, &v[..3], v[3], &v[4..]).unwrap(), &[ps]);
    }};
}

// ---------------------------------------------------------------------------------------------
// skew normal

#[test]
fn skew_normal_values() {
    let f: (Lpdf4, Cdf4, Cdf4, Cdf4) = (
        skew_normal_lpdf,
        skew_normal_cdf,
        skew_normal_lcdf,
        skew_normal_lccdf,
    );
    check_table4("skew_normal", SKEW_NORMAL, f, 1e-13);
    // α = 0 is the normal distribution
    rel_close(
        skew_normal_lcdf(-3.0, 0.0, 1.0, 0.0).unwrap(),
        -6.607726221510349,
        1e-13,
        "log Φ(−3)",
    );
    assert_eq!(
        skew_normal_cdf(f64::NEG_INFINITY, 0.0, 1.0, 1.0).unwrap(),
        0.0
    );
    assert_eq!(
        skew_normal_lcdf(f64::INFINITY, 0.0, 1.0, -1.0).unwrap(),
        0.0
    );
}

#[test]
fn skew_normal_gradients() {
    gradient_suite4!(
        skew_normal_lpdf,
        skew_normal_cdf,
        skew_normal_lcdf,
        skew_normal_lccdf,
        &[
            &[1.3, 0.2, 0.5, 2.0],
            &[-0.4, 0.2, 0.5, -1.5],
            &[3.0, 1.0, 2.0, -0.7],
            &[-2.0, 0.0, 1.0, 0.5]
        ],
        &[0.3, -1.2, 2.0, 0.5, 1.5, 1.2],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.3, -2.0, 0.5, 1.0]
    );
    check_gradient(
        |v| skew_normal_lpdf(0.3, 0.1, 1.2, v[3], true).unwrap(),
        &[&[0.0, 0.0, 0.0, 2.0], &[0.0, 0.0, 0.0, -0.5]],
    );
    // tails on the accurate side: lower tail with α < 0, upper tail with α > 0
    check_gradient(
        |v| skew_normal_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[-6.0, 0.0, 1.0, -3.0]],
    );
    check_gradient(
        |v| skew_normal_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[8.0, 0.0, 1.0, 2.0]],
    );
    // where Φ(z) − 2T(z, α) cancels (the quadrature branch), and its mirror image
    check_gradient(
        |v| skew_normal_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[
            &[-4.0, 0.0, 1.0, 5.0],
            &[-10.0, 0.0, 1.0, 1.0],
            &[-3.0, 0.5, 1.0, 2.0],
        ],
    );
    check_gradient(
        |v| skew_normal_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[5.0, 0.0, 1.0, -3.0], &[12.0, 1.0, 2.0, -1.0]],
    );
    check_gradient(
        |v| skew_normal_cdf(&v[..2], 0.0, 1.0, v[2]).unwrap(),
        &[&[-3.0, 0.5, 2.0]],
    );
    // far tail where the log density is finite: finite partials
    let (v, g) = revad::gradient(
        |v| skew_normal_lcdf(v[0], 0.0, 1.0, v[1]).unwrap(),
        &[-30.0, -1.0],
    );
    assert!(v.is_finite() && g.iter().all(|x| x.is_finite()));
}

#[test]
fn skew_normal_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let alpha = Var::new(1.5);
    let full = skew_normal_lpdf(&y[..], 0.5, 1.5, alpha, false)
        .unwrap()
        .value();
    let prop = skew_normal_lpdf(&y[..], 0.5, 1.5, alpha, true)
        .unwrap()
        .value();
    // only α variable: −½log(2π), −log ω and −½z² are dropped (as Stan)
    let half_z2: f64 = y.iter().map(|v| 0.5 * ((v - 0.5) / 1.5f64).powi(2)).sum();
    assert_close(
        full - prop,
        -3.0 * (HALF_LOG_TWO_PI + 1.5f64.ln()) - half_z2,
        1e-14,
    );
    let prop_w = skew_normal_lpdf(&y[..], 0.5, Var::new(1.5), 1.5, true)
        .unwrap()
        .value();
    assert_close(full - prop_w, -3.0 * HALF_LOG_TWO_PI, 1e-14);
    let prop_y = skew_normal_lpdf(&y[..], Var::new(0.5), 1.5, 1.5, true)
        .unwrap()
        .value();
    assert_close(full - prop_y, -3.0 * (HALF_LOG_TWO_PI + 1.5f64.ln()), 1e-14);
    assert_eq!(skew_normal_lpdf(&y[..], 0.5, 1.5, 1.5, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn skew_normal_validation() {
    assert_eq!(
        msg(skew_normal_lpdf(f64::NAN, 0.0, 1.0, 0.0, false)),
        "skew_normal_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(skew_normal_cdf(0.0, f64::INFINITY, 1.0, 0.0)),
        "skew_normal_cdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(skew_normal_lcdf(0.0, 0.0, 0.0, 0.0)),
        "skew_normal_lcdf: Scale parameter is 0, but must be positive"
    );
    assert_eq!(
        msg(skew_normal_lccdf(0.0, 0.0, 1.0, f64::NEG_INFINITY)),
        "skew_normal_lccdf: Shape parameter is -inf, but must be finite"
    );
    assert_eq!(
        msg(skew_normal_lpdf(
            &[0.0; 2][..],
            0.0,
            1.0,
            &[0.0; 3][..],
            false
        )),
        "skew_normal_lpdf: Shape parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(skew_normal_lpdf(empty, 0.0, 1.0, 0.0, false).unwrap(), 0.0);
    assert_eq!(skew_normal_cdf(empty, 0.0, 1.0, 0.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------------------------------------
// exponentially modified normal

#[test]
fn exp_mod_normal_values() {
    let f: (Lpdf4, Cdf4, Cdf4, Cdf4) = (
        exp_mod_normal_lpdf,
        exp_mod_normal_cdf,
        exp_mod_normal_lcdf,
        exp_mod_normal_lccdf,
    );
    check_table4("exp_mod_normal", EXP_MOD_NORMAL, f, 1e-13);
    assert_eq!(
        exp_mod_normal_cdf(f64::NEG_INFINITY, 0.0, 1.0, 1.0).unwrap(),
        0.0
    );
    assert_eq!(
        exp_mod_normal_lccdf(f64::NEG_INFINITY, 0.0, 1.0, 1.0).unwrap(),
        0.0
    );
    assert_eq!(
        exp_mod_normal_lccdf(f64::INFINITY, 0.0, 1.0, 1.0).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn exp_mod_normal_gradients() {
    gradient_suite4!(
        exp_mod_normal_lpdf,
        exp_mod_normal_cdf,
        exp_mod_normal_lcdf,
        exp_mod_normal_lccdf,
        &[
            &[1.3, 0.2, 0.5, 2.0],
            &[-0.4, 0.2, 0.5, 2.0],
            &[0.5, 1.0, 2.0, 0.1],
            &[4.0, -1.0, 0.3, 5.0]
        ],
        &[0.3, -1.2, 2.0, 0.5, 1.5, 1.2],
        &[0.1, 0.7, -0.4],
        &[0.0, 0.5, -1.0, 1.3, 2.0, 0.5, 1.0]
    );
    // both tails
    check_gradient(
        |v| exp_mod_normal_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[-10.0, 0.0, 1.0, 1.0], &[-20.0, 0.0, 1.0, 0.5]],
    );
    check_gradient(
        |v| exp_mod_normal_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[30.0, 0.0, 1.0, 1.0], &[6.0, 0.0, 1.0, 3.0]],
    );
    // small λσ, where Φ(v) − E cancels (the quadrature branch), on both sides of μ
    check_gradient(
        |v| exp_mod_normal_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[
            &[-3.0, 0.0, 1.0, 1e-3],
            &[-10.0, 0.0, 1.0, 0.01],
            &[0.5, 0.0, 1.0, 1e-3],
        ],
    );
    check_gradient(
        |v| exp_mod_normal_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[3.0, 0.0, 1.0, 0.01], &[-3.0, 0.0, 1.0, 1e-3]],
    );
    check_gradient(
        |v| exp_mod_normal_cdf(&v[..2], v[2], 1.0, v[3]).unwrap(),
        &[&[0.5, -2.0, 0.0, 0.01]],
    );
    // where Φ underflows: finite values and partials (d/dy log F ≈ −v for v → −∞)
    let (v, g) = revad::gradient(
        |v| exp_mod_normal_lcdf(v[0], 0.0, 1.0, v[1]).unwrap(),
        &[-40.0, 0.5],
    );
    assert!(v.is_finite() && g.iter().all(|x| x.is_finite()));
    assert!((g[0] - 40.0).abs() < 0.1);
    let (v, g) = revad::gradient(
        |v| exp_mod_normal_lccdf(v[0], 0.0, 1.0, v[1]).unwrap(),
        &[800.0, 1.0],
    );
    assert_eq!(v, -799.5);
    assert!(g.iter().all(|x| x.is_finite()));
    assert_close(g[0], -1.0, 1e-14);
}

#[test]
fn exp_mod_normal_propto() {
    tape::reset();
    let y = [0.3, -1.2, 2.0];
    let mu = Var::new(0.5);
    let full = exp_mod_normal_lpdf(&y[..], mu, 1.5, 2.0, false)
        .unwrap()
        .value();
    let prop = exp_mod_normal_lpdf(&y[..], mu, 1.5, 2.0, true)
        .unwrap()
        .value();
    let ln2 = std::f64::consts::LN_2;
    assert_close(full - prop, 3.0 * (2.0f64.ln() - ln2), 1e-14);
    let prop_l = exp_mod_normal_lpdf(&y[..], 0.5, 1.5, Var::new(2.0), true)
        .unwrap()
        .value();
    assert_close(full - prop_l, -3.0 * ln2, 1e-14);
    assert_eq!(
        exp_mod_normal_lpdf(&y[..], 0.5, 1.5, 2.0, true).unwrap(),
        0.0
    );
    tape::reset();
}

#[test]
fn exp_mod_normal_validation() {
    assert_eq!(
        msg(exp_mod_normal_lpdf(f64::NAN, 0.0, 1.0, 1.0, false)),
        "exp_mod_normal_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(exp_mod_normal_cdf(0.0, f64::NAN, 1.0, 1.0)),
        "exp_mod_normal_cdf: Location parameter is NaN, but must be finite"
    );
    assert_eq!(
        msg(exp_mod_normal_lcdf(0.0, 0.0, -1.0, 1.0)),
        "exp_mod_normal_lcdf: Scale parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(exp_mod_normal_lccdf(0.0, 0.0, 1.0, 0.0)),
        "exp_mod_normal_lccdf: Inv_scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(exp_mod_normal_lpdf(0.0, 0.0, 1.0, f64::INFINITY, false)),
        "exp_mod_normal_lpdf: Inv_scale parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(exp_mod_normal_lpdf(
            0.0,
            &[0.0; 2][..],
            &[1.0; 3][..],
            1.0,
            false
        )),
        "exp_mod_normal_lpdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(
        exp_mod_normal_lpdf(empty, 0.0, 1.0, 1.0, false).unwrap(),
        0.0
    );
    assert_eq!(exp_mod_normal_cdf(empty, 0.0, 1.0, 1.0).unwrap(), 1.0);
}
