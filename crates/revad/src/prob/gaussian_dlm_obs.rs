//! The Gaussian dynamic linear model (Stan's `gaussian_dlm_obs_lpdf`): the log density of its
//! observations, by the Kalman filter.

use std::borrow::Cow;

use nalgebra::{DMatrix, DVector};

use crate::error::{check, require, Error, Result};
use crate::linalg::check as mcheck;
use crate::linalg::node::{arg, node, Bars};
use crate::matrix::Operand;
use crate::var::{Matrix, Var, Vector};

/// ½ log 2π.
const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

mod sealed {
    pub trait Sealed {}
}

/// The observation covariance `V` of [`gaussian_dlm_obs_lpdf`]: an r×r matrix (a reference
/// to a matrix, data or variable, or to a nalgebra `DMatrix`), or a vector of r variances,
/// the diagonal of an observation covariance with uncorrelated components (a reference to a
/// vector, data or variable, or to a nalgebra `DVector`).
pub trait ObservationCovariance: sealed::Sealed {
    /// The values, row-major.
    #[doc(hidden)]
    fn values(&self) -> Cow<'_, [f64]>;
    /// The rows and columns (columns `None` for a vector of variances).
    #[doc(hidden)]
    fn shape(&self) -> (usize, Option<usize>);
    /// The operand of a node.
    #[doc(hidden)]
    fn operand(&self) -> Option<(u64, usize)>;
}

/// The values of an array operand as one slice (borrowed when they already are one).
fn slice_of<S: crate::var::Storage>(v: Cow<'_, S>) -> Cow<'_, [f64]> {
    match v {
        Cow::Borrowed(v) => Cow::Borrowed(v.as_slice()),
        Cow::Owned(v) => Cow::Owned(v.as_slice().to_vec()),
    }
}

impl<T: Operand<Matrix>> sealed::Sealed for &T {}
impl<T: Operand<Matrix>> ObservationCovariance for &T {
    fn values(&self) -> Cow<'_, [f64]> {
        slice_of(self.value())
    }
    fn shape(&self) -> (usize, Option<usize>) {
        let (r, c) = self.value().dim();
        (r, Some(c))
    }
    fn operand(&self) -> Option<(u64, usize)> {
        arg(*self)
    }
}

macro_rules! vector_covariance {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for &$t {}
        impl ObservationCovariance for &$t {
            fn values(&self) -> Cow<'_, [f64]> {
                slice_of(Operand::<Vector>::value(*self))
            }
            fn shape(&self) -> (usize, Option<usize>) {
                (Operand::<Vector>::value(*self).len(), None)
            }
            fn operand(&self) -> Option<(u64, usize)> {
                arg::<Vector>(*self)
            }
        }
    )*};
}
vector_covariance!(Vector, Var<Vector>, DVector<f64>);

/// `(A + Aᵀ)/2` in place.
fn symmetrise(a: &mut DMatrix<f64>) {
    let n = a.nrows();
    for j in 0..n {
        for i in j + 1..n {
            let x = 0.5 * (a[(i, j)] + a[(j, i)]);
            a[(i, j)] = x;
            a[(j, i)] = x;
        }
    }
}

/// Whether the symmetric `a` is positive semi-definite: an LDLᵀ factorisation with diagonal
/// pivoting (the largest remaining pivot first) meets no negative pivot, up to rounding
/// (`n·ε` of the largest diagonal element), and stops when the rest is zero.
fn semidefinite(a: &DMatrix<f64>) -> bool {
    let n = a.nrows();
    let mut w = a.clone();
    let scale = (0..n).map(|i| w[(i, i)].abs()).fold(0.0f64, f64::max);
    let tol = 16.0 * n as f64 * f64::EPSILON * scale;
    let mut order: Vec<usize> = (0..n).collect();
    for k in 0..n {
        let (p, d) = order[k..].iter().map(|&i| (i, w[(i, i)])).fold(
            (usize::MAX, f64::NEG_INFINITY),
            |b, x| if x.1 > b.1 { x } else { b },
        );
        if d < -tol {
            return false;
        }
        let at = order[k..].iter().position(|&i| i == p).expect("present") + k;
        order.swap(k, at);
        if d <= tol {
            // What is left must be zero: a zero pivot with a nonzero off-diagonal element is
            // indefinite.
            let rest = &order[k..];
            return rest.iter().all(|&i| {
                rest.iter()
                    .all(|&j| w[(i, j)].abs() <= tol.max(f64::MIN_POSITIVE))
            });
        }
        for &i in &order[k + 1..] {
            let li = w[(i, p)] / d;
            for &j in &order[k + 1..] {
                w[(i, j)] -= li * w[(p, j)];
            }
        }
    }
    true
}

/// Stan's `check_pos_semidefinite` of a square matrix whose finiteness was checked: symmetric,
/// at least one row, positive semi-definite ("f: W is not positive semi-definite.").
fn check_semidefinite(function: &'static str, name: &'static str, a: &Matrix) -> Result<()> {
    mcheck::symmetric(function, name, &a.view())?;
    if a.nrows() == 0 {
        return Err(Error::Matrix {
            function,
            argument: name,
            detail: "must have a positive size, but is 0; dimension size expression = rows".into(),
        });
    }
    mcheck::not_nan(function, name, &a.view())?;
    if !semidefinite(&to_na(a)) {
        return Err(Error::Matrix {
            function,
            argument: name,
            detail: "is not positive semi-definite.".into(),
        });
    }
    Ok(())
}

/// A row-major ndarray matrix as nalgebra's.
fn to_na(a: &Matrix) -> DMatrix<f64> {
    let (r, c) = a.dim();
    DMatrix::from_row_slice(r, c, a.as_slice().expect("standard layout"))
}

/// Adds the nalgebra matrix `a` into the row-major adjoint run `out`.
fn add_into(out: &mut [f64], a: &DMatrix<f64>) {
    let c = a.ncols();
    for (k, x) in out.iter_mut().enumerate() {
        *x += a[(k / c.max(1), k % c.max(1))];
    }
}

/// The log density of the Gaussian dynamic linear model (Stan's `gaussian_dlm_obs_lpdf`):
/// observations `y` (r×T), design matrix `F` (n×r), transition matrix `G` (n×n),
/// observation covariance `V` (r×r, or a vector of r variances for uncorrelated
/// observations), state covariance `W` (n×n), initial state mean `m₀` (n) and covariance `C₀`
/// (n×n). See below for the filter, its reverse pass and the
/// checks. One node.
///
/// The model, for the observations `y` (r×T, one column per time):
///
/// yₜ ~ N(Fᵀθₜ, V),  θₜ ~ N(Gθₜ₋₁, W),  θ₀ ~ N(m₀, C₀),
///
/// with the states θ (n of them) integrated out by the Kalman filter. Per time step, from the
/// filtered mean `m` and covariance `C` of the previous one:
///
/// a = Gm, R = GCGᵀ + W, f = Fᵀa, S = FᵀRF + V, e = yₜ − f, K = RFS⁻¹,
/// m ← a + Ke, C ← R − KSKᵀ, log p(yₜ | y₁..ₜ₋₁) = −½(r log 2π + log|S| + eᵀS⁻¹e).
///
/// When `V` is given as a vector (the diagonal of an observation covariance with uncorrelated
/// components), the r components of each yₜ are filtered one at a time, as in Stan, with a
/// scalar `S` each: no r×r factorisation.
///
/// One node per call. The forward pass keeps each step's gain, innovation and predicted
/// covariance; the reverse pass runs the filter backwards, step by step, with the adjoint of
/// each of the recursions above (reverse-mode differentiation of the Kalman filter; the
/// matrix rules of Giles 2008: `d log|S| = tr(S⁻¹dS)`, `d(S⁻¹) = −S⁻¹ dS S⁻¹`), adding the
/// adjoints of `y`, `F`, `G`, `V`, `W`, `m₀` and `C₀` that are variables. The cost of the
/// reverse pass is that of the forward one. Symmetric matrices (`V`, `W`, `C₀`) get the
/// symmetric gradient in both triangles. With `propto`, −½rT log 2π is dropped, and everything
/// when all arguments are data.
///
/// Checks, as Stan's: the sizes (`F` n×r with r the rows of `y`, `G` n×n, `V` r×r or of size
/// r, `W` and `C₀` n×n, `m₀` of size n: "gaussian_dlm_obs_lpdf: columns of F has size 2, but
/// must have size 3"); `y`, `F`, `G`, `V`, `W`, `m₀` and `C₀` finite ("gaussian_dlm_obs_lpdf:
/// y\[1,2\] is inf, but must be finite"); `V`, `W` and `C₀` symmetric and positive semi-definite
/// ("gaussian_dlm_obs_lpdf: W is not positive semi-definite."), a vector `V` nonnegative. In
/// the filter, a matrix `S` must be positive definite ("gaussian_dlm_obs_lpdf: Matrix S is not
/// positive definite"); with a vector `V` the scalar `S` of each component is checked positive
/// at the first time step ("gaussian_dlm_obs_lpdf: Q0 is 0, but must be positive"), as in Stan.
/// A `y` without columns gives 0.
///
/// ```
/// use ndarray::array;
/// use revad::{prob, tape, Var};
/// // A random walk observed with noise: one state, one observation, two times.
/// let y = Var::array(array![[0.5, 1.0]].into_shared());
/// let one = array![[1.0]].into_shared();
/// let (f, g, v, w, c0) = (one.clone(), one.clone(), one.clone(), one.clone(), one);
/// let m0 = array![0.0].into_shared();
/// let lp = prob::gaussian_dlm_obs_lpdf(&y, &f, &g, &v, &w, &m0, &c0, false).unwrap();
/// // The observations are jointly normal, mean 0, covariance [[3, 2], [2, 4]].
/// let (det, quad) = (8.0, (4.0 * 0.25 - 4.0 * 0.5 + 3.0) / 8.0);
/// let expected = -(2.0 * std::f64::consts::PI).ln() - 0.5 * (det as f64).ln() - 0.5 * quad;
/// assert!((lp.value() - expected).abs() < 1e-14);
/// lp.grad();
/// // ∂/∂y = −Σ⁻¹y = −(4·0.5 − 2, −2·0.5 + 3)/8.
/// assert!((y.adj()[[0, 1]] + 0.25).abs() < 1e-15);
/// tape::reset();
/// ```
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if the sizes do not match;
/// [`Error::Matrix`](crate::Error::Matrix) if an argument is not finite, `V`, `W` or `C₀` is
/// not symmetric positive semi-definite (a vector `V` negative), or the filter meets an `S`
/// that is not positive definite; [`Error::Domain`](crate::Error::Domain) if, with a vector
/// `V`, the variance of a component at the first time step is not positive.
#[allow(clippy::too_many_arguments)]
pub fn gaussian_dlm_obs_lpdf(
    y: &impl Operand<Matrix>,
    f: &impl Operand<Matrix>,
    g: &impl Operand<Matrix>,
    v: impl ObservationCovariance,
    w: &impl Operand<Matrix>,
    m0: &impl Operand<Vector>,
    c0: &impl Operand<Matrix>,
    propto: bool,
) -> Result<Var> {
    const FN: &str = "gaussian_dlm_obs_lpdf";
    let (yv, fv, gv, wv, mv, cv) = (
        y.value(),
        f.value(),
        g.value(),
        w.value(),
        m0.value(),
        c0.value(),
    );
    let (vv, (v_rows, v_cols)) = (v.values(), v.shape());
    let (r, t_len) = yv.dim();
    let n = gv.nrows();
    let diagonal = v_cols.is_none();
    check::size(FN, "columns of F", r, fv.ncols())?;
    check::size(FN, "rows of F", n, fv.nrows())?;
    if diagonal {
        mcheck::square(FN, "columns of G", &gv.view())?;
        check::size(FN, "size of V", r, v_rows)?;
    } else {
        check::size(FN, "rows of V", r, v_rows)?;
    }
    check::size(FN, "rows of W", n, wv.nrows())?;
    check::size(FN, "size of m0", n, mv.len())?;
    check::size(FN, "rows of C0", n, cv.nrows())?;
    if !diagonal {
        mcheck::square(FN, "columns of G", &gv.view())?;
    }
    mcheck::finite(FN, "y", &yv.view())?;
    mcheck::finite(FN, "F", &fv.view())?;
    mcheck::finite(FN, "G", &gv.view())?;
    if diagonal {
        mcheck::elements(FN, "V", &vv, |x| x >= 0.0, "nonnegative")?;
        mcheck::elements(FN, "V", &vv, f64::is_finite, "finite")?;
    } else {
        let v_mat = Matrix::from_shape_vec((r, v_cols.unwrap_or(0)), vv.to_vec())
            .expect("r×c")
            .into_shared();
        mcheck::finite(FN, "V", &v_mat.view())?;
        mcheck::square(FN, "columns of V", &v_mat.view())?;
        check_semidefinite(FN, "V", &v_mat)?;
    }
    if !diagonal {
        mcheck::finite(FN, "W", &wv.view())?;
    }
    mcheck::square(FN, "columns of W", &wv.view())?;
    check_semidefinite(FN, "W", &wv)?;
    if diagonal {
        mcheck::finite(FN, "W", &wv.view())?;
    }
    mcheck::elements(
        FN,
        "m0",
        mv.as_slice().expect("contiguous"),
        f64::is_finite,
        "finite",
    )?;
    mcheck::square(FN, "columns of C0", &cv.view())?;
    check_semidefinite(FN, "C0", &cv)?;
    mcheck::finite(FN, "C0", &cv.view())?;
    if t_len == 0 || r == 0 {
        return Ok(Var::new(0.0));
    }
    let args = [
        arg(y),
        arg(f),
        arg(g),
        v.operand(),
        arg(w),
        arg(m0),
        arg(c0),
    ];
    let any_var = args.iter().any(Option::is_some);
    if propto && !any_var {
        return Ok(Var::new(0.0));
    }
    let model = Model {
        y: to_na(&yv),
        f: to_na(&fv),
        g: to_na(&gv),
        w: to_na(&wv),
        m0: DVector::from_column_slice(mv.as_slice().expect("contiguous")),
        c0: to_na(&cv),
    };
    let constant = if propto {
        0.0
    } else {
        -HALF_LOG_TWO_PI * (r * t_len) as f64
    };
    if diagonal {
        let (lp, steps, end) = model.sequential(&vv, any_var)?;
        Ok(node(constant + lp, args, move |g, bars| {
            model.sequential_reverse(&steps, &end, g[0], bars)
        }))
    } else {
        let v = DMatrix::from_row_slice(r, r, &vv);
        let (lp, steps) = model.full(&v, any_var)?;
        Ok(node(constant + lp, args, move |g, bars| {
            model.full_reverse(&steps, g[0], bars)
        }))
    }
}

/// The system matrices, as nalgebra matrices.
struct Model {
    y: DMatrix<f64>,
    f: DMatrix<f64>,
    g: DMatrix<f64>,
    w: DMatrix<f64>,
    m0: DVector<f64>,
    c0: DMatrix<f64>,
}

/// What the reverse pass needs of one time step with a matrix `V`.
struct FullStep {
    m_prev: DVector<f64>,
    c_prev: DMatrix<f64>,
    a: DVector<f64>,
    r: DMatrix<f64>,
    /// B = RF.
    b: DMatrix<f64>,
    /// K = BS⁻¹.
    k: DMatrix<f64>,
    s_inv: DMatrix<f64>,
    /// u = S⁻¹e.
    u: DVector<f64>,
}

/// What the reverse pass needs of one time step with a vector `V`: the state before the
/// step, and for each component j the vector `c = CFⱼ`, the scalar `S` and the innovation `e`
/// (the states between components are rebuilt backwards from the step's end when `F` is a
/// variable).
struct SequentialStep {
    m_prev: DVector<f64>,
    c_prev: DMatrix<f64>,
    c: Vec<DVector<f64>>,
    s: Vec<f64>,
    e: Vec<f64>,
}

/// The operands' positions in the node.
const Y: usize = 0;
const F: usize = 1;
const G: usize = 2;
const V: usize = 3;
const W: usize = 4;
const M0: usize = 5;
const C0: usize = 6;

impl Model {
    /// The filter with a matrix `V`: the log density without its constant and, if `keep`,
    /// each step's quantities for the reverse pass.
    fn full(&self, v: &DMatrix<f64>, keep: bool) -> Result<(f64, Vec<FullStep>)> {
        let (f, g) = (&self.f, &self.g);
        let mut m = self.m0.clone();
        let mut c = self.c0.clone();
        let mut lp = 0.0;
        let mut steps = Vec::with_capacity(if keep { self.y.ncols() } else { 0 });
        for t in 0..self.y.ncols() {
            let a = g * &m;
            let mut r = g * &c * g.transpose();
            symmetrise(&mut r);
            r += &self.w;
            let b = &r * f;
            let mut s = f.transpose() * &b;
            symmetrise(&mut s);
            s += v;
            let e = self.y.column(t) - f.transpose() * &a;
            let chol = s
                .cholesky()
                .ok_or_else(|| mcheck::not_positive_definite("gaussian_dlm_obs_lpdf", "S"))?;
            let u = chol.solve(&e);
            let log_det: f64 = 2.0
                * chol
                    .l_dirty()
                    .diagonal()
                    .iter()
                    .map(|x| x.ln())
                    .sum::<f64>();
            lp -= 0.5 * (log_det + e.dot(&u));
            let s_inv = chol.inverse();
            let k = &b * &s_inv;
            let m_next = &a + &b * &u;
            let mut c_next = &r - &k * b.transpose();
            symmetrise(&mut c_next);
            let (m_prev, c_prev) = (
                std::mem::replace(&mut m, m_next),
                std::mem::replace(&mut c, c_next),
            );
            if keep {
                steps.push(FullStep {
                    m_prev,
                    c_prev,
                    a,
                    r,
                    b,
                    k,
                    s_inv,
                    u,
                });
            }
        }
        Ok((lp, steps))
    }

    /// The reverse pass of [`Model::full`] for the result adjoint `gb`.
    fn full_reverse(&self, steps: &[FullStep], gb: f64, bars: &mut Bars<'_>) {
        let (f, g) = (&self.f, &self.g);
        let (n, r) = f.shape();
        let wants = |bars: &Bars<'_>, i: usize| bars.wants(i);
        let (f_var, g_var, v_var, w_var) = (
            wants(bars, F),
            wants(bars, G),
            wants(bars, V),
            wants(bars, W),
        );
        let mut f_bar = DMatrix::zeros(n, r);
        let mut g_bar = DMatrix::zeros(n, n);
        let mut v_bar = DMatrix::zeros(r, r);
        let mut w_bar = DMatrix::zeros(n, n);
        let mut m_bar = DVector::zeros(n);
        let mut c_bar = DMatrix::zeros(n, n);
        for (t, st) in steps.iter().enumerate().rev() {
            // C' = sym(R − BKᵀ), m' = a + Bu.
            symmetrise(&mut c_bar);
            let mut r_bar = c_bar.clone();
            let mut b_bar = &c_bar * &st.k * -2.0;
            let mut s_bar = st.k.transpose() * &c_bar * &st.k;
            b_bar += &m_bar * st.u.transpose();
            let kt_m = st.k.transpose() * &m_bar;
            // lp = −½(log|S| + eᵀu), u = S⁻¹e.
            let e_bar = &st.u * -gb + &kt_m;
            s_bar -= &kt_m * st.u.transpose();
            s_bar += (&st.u * st.u.transpose() - &st.s_inv) * (0.5 * gb);
            // S = sym(FᵀRF) + V.
            if v_var {
                v_bar += &s_bar;
            }
            symmetrise(&mut s_bar);
            // B = RF.
            r_bar += &b_bar * f.transpose();
            r_bar += f * &s_bar * f.transpose();
            if f_var {
                f_bar += st.r.transpose() * &b_bar;
                f_bar += &st.b * &s_bar * 2.0;
                // f = Fᵀa, e = y − f.
                f_bar -= &st.a * e_bar.transpose();
            }
            if let Some(y_bar) = bars.run(Y) {
                for j in 0..r {
                    y_bar[j * steps.len() + t] += e_bar[j];
                }
            }
            let a_bar = &m_bar - f * &e_bar;
            // R = sym(GCGᵀ) + W.
            if w_var {
                w_bar += &r_bar;
            }
            symmetrise(&mut r_bar);
            if g_var {
                g_bar += &r_bar * g * &st.c_prev * 2.0;
                g_bar += &a_bar * st.m_prev.transpose();
            }
            c_bar = g.transpose() * &r_bar * g;
            // a = Gm.
            m_bar = g.transpose() * &a_bar;
        }
        self.finish(bars, [&f_bar, &g_bar, &w_bar], &m_bar, &c_bar);
        if let Some(run) = bars.run(V) {
            add_into(run, &v_bar);
        }
    }

    /// Adds the adjoints of `F`, `G`, `W`, `m₀` and `C₀` into the variables among them.
    fn finish(
        &self,
        bars: &mut Bars<'_>,
        [f_bar, g_bar, w_bar]: [&DMatrix<f64>; 3],
        m_bar: &DVector<f64>,
        c_bar: &DMatrix<f64>,
    ) {
        for (i, a) in [(F, f_bar), (G, g_bar), (W, w_bar), (C0, c_bar)] {
            if let Some(run) = bars.run(i) {
                add_into(run, a);
            }
        }
        if let Some(run) = bars.run(M0) {
            for (x, d) in run.iter_mut().zip(m_bar.iter()) {
                *x += d;
            }
        }
    }

    /// The filter with a vector `V`, one observation component at a time: the log density
    /// without its constant and, if `keep`, each step's quantities for the reverse pass.
    #[allow(clippy::type_complexity)]
    fn sequential(
        &self,
        v: &[f64],
        keep: bool,
    ) -> Result<(f64, Vec<SequentialStep>, (DVector<f64>, DMatrix<f64>))> {
        let (f, g) = (&self.f, &self.g);
        let r = f.ncols();
        let mut m = self.m0.clone();
        let mut c = self.c0.clone();
        let mut lp = 0.0;
        let mut steps = Vec::with_capacity(if keep { self.y.ncols() } else { 0 });
        for t in 0..self.y.ncols() {
            let m_prev = m.clone();
            let c_prev = c.clone();
            m = g * &m;
            let mut p = g * &c * g.transpose();
            symmetrise(&mut p);
            c = p + &self.w;
            let mut step = SequentialStep {
                m_prev,
                c_prev,
                c: Vec::with_capacity(if keep { r } else { 0 }),
                s: Vec::with_capacity(r),
                e: Vec::with_capacity(r),
            };
            for (j, &vj) in v.iter().enumerate() {
                let fj = f.column(j);
                let cf = &c * fj;
                let s = fj.dot(&cf) + vj;
                if t == 0 {
                    require(s > 0.0, "gaussian_dlm_obs_lpdf", "Q0", s, "positive")?;
                }
                let e = self.y[(j, t)] - fj.dot(&m);
                m += &cf * (e / s);
                c.ger(-1.0 / s, &cf, &cf, 1.0);
                symmetrise(&mut c);
                lp -= 0.5 * (s.ln() + e * e / s);
                if keep {
                    step.c.push(cf);
                    step.s.push(s);
                    step.e.push(e);
                }
            }
            if keep {
                steps.push(step);
            }
        }
        Ok((lp, steps, (m, c)))
    }

    /// The reverse pass of [`Model::sequential`] for the result adjoint `gb`, with `end` the
    /// filtered state after the last step.
    fn sequential_reverse(
        &self,
        steps: &[SequentialStep],
        end: &(DVector<f64>, DMatrix<f64>),
        gb: f64,
        bars: &mut Bars<'_>,
    ) {
        let (f, g) = (&self.f, &self.g);
        let (n, r) = f.shape();
        let t_len = steps.len();
        let (f_var, g_var, w_var) = (bars.wants(F), bars.wants(G), bars.wants(W));
        let mut f_bar = DMatrix::zeros(n, r);
        let mut g_bar = DMatrix::zeros(n, n);
        let mut v_bar = vec![0.0; r];
        let mut w_bar = DMatrix::zeros(n, n);
        let mut m_bar = DVector::zeros(n);
        let mut c_bar = DMatrix::zeros(n, n);
        let mut y_bar = vec![0.0; r];
        for t in (0..t_len).rev() {
            let st = &steps[t];
            // F's adjoint needs the state before each component: rebuilt backwards from the
            // step's end, m = m' − c·e/s, C = C' + ccᵀ/s.
            let (mut m, mut c) = if f_var {
                match steps.get(t + 1) {
                    Some(next) => (next.m_prev.clone(), next.c_prev.clone()),
                    None => end.clone(),
                }
            } else {
                (DVector::zeros(0), DMatrix::zeros(0, 0))
            };
            for j in (0..r).rev() {
                let (cf, s, e) = (&st.c[j], st.s[j], st.e[j]);
                let fj = f.column(j);
                let k = e / s;
                // m' = m + c·k, C' = sym(C − ccᵀ/s), lp −= ½(log s + e·k).
                symmetrise(&mut c_bar);
                let c_bar_cf = &c_bar * cf;
                let mut cf_bar = &m_bar * k - &c_bar_cf * (2.0 / s);
                let k_bar = cf.dot(&m_bar);
                let e_bar = k_bar / s - gb * k;
                let s_bar =
                    cf.dot(&c_bar_cf) / (s * s) - k_bar * k / s - 0.5 * gb * (1.0 / s - k * k);
                y_bar[j] = e_bar;
                v_bar[j] += s_bar;
                // s = Fⱼᵀc + Vⱼ, e = y − Fⱼᵀm, c = CFⱼ.
                cf_bar += fj * s_bar;
                if f_var {
                    m -= cf * k;
                    c.ger(1.0 / s, cf, cf, 1.0);
                    let col = cf * s_bar - &m * e_bar + &c * &cf_bar;
                    let mut target = f_bar.column_mut(j);
                    target += col;
                }
                m_bar -= fj * e_bar;
                c_bar.ger(1.0, &cf_bar, &fj, 1.0);
            }
            if let Some(run) = bars.run(Y) {
                for (j, d) in y_bar.iter().enumerate() {
                    run[j * t_len + t] += d;
                }
            }
            // C = sym(GC₋Gᵀ) + W, m = Gm₋.
            if w_var {
                w_bar += &c_bar;
            }
            symmetrise(&mut c_bar);
            if g_var {
                g_bar += &c_bar * g * &st.c_prev * 2.0;
                g_bar += &m_bar * st.m_prev.transpose();
            }
            c_bar = g.transpose() * &c_bar * g;
            m_bar = g.transpose() * &m_bar;
        }
        self.finish(bars, [&f_bar, &g_bar, &w_bar], &m_bar, &c_bar);
        if let Some(run) = bars.run(V) {
            for (x, d) in run.iter_mut().zip(&v_bar) {
                *x += d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semidefinite_matrices_are_told_apart() {
        let m = |r: usize, x: &[f64]| DMatrix::from_row_slice(r, r, x);
        assert!(semidefinite(&m(2, &[1.0, 1.0, 1.0, 1.0])));
        assert!(semidefinite(&m(2, &[0.0, 0.0, 0.0, 0.0])));
        assert!(semidefinite(&m(
            3,
            &[2.0, 1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0]
        )));
        assert!(!semidefinite(&m(2, &[1.0, 2.0, 2.0, 1.0])));
        assert!(!semidefinite(&m(2, &[0.0, 1.0, 1.0, 0.0])));
        assert!(!semidefinite(&m(1, &[-1e-3])));
    }
}
