//! Gaussian-process covariance functions (Stan's `gp_*_cov`): the matrix `Kᵢⱼ = k(xᵢ, x′ⱼ)`
//! of a kernel over one set of points (symmetric, T×T) or two sets (a T₁×T₂ cross
//! covariance), recorded as ONE node however many points there are.
//!
//! The distance kernels (squared exponential, Matérn 3/2 and 5/2, exponential, periodic) share
//! one engine: a kernel is `k = σ²·κ(r²; θ)` with κ, and the partials `∂K/∂θ` (θ = ℓ, or ℓ
//! and the period p) and `∂K/∂r²` as functions of the squared distance r² and of K itself
//! (each carries the factor of κ that holds the exponential). The forward pass evaluates κ
//! once per pair (once per unordered pair for one set, whose result is then exactly
//! symmetric) and keeps nothing but K, shared with the result, and the points. The reverse
//! pass is one pass over the entries that recomputes the distances (no exponential):
//! `σ̄ += (2/σ)·Σᵢⱼ ḡᵢⱼKᵢⱼ`, `θ̄ += Σᵢⱼ ḡᵢⱼ·∂Kᵢⱼ/∂θ`, and, for variable points or
//! per-dimension length scales, `x̄ᵢ += Σⱼ ḡᵢⱼ·∂Kᵢⱼ/∂r²·2(xᵢ − x′ⱼ)` and its kin.

use std::borrow::Cow;

use pulp::{Arch, Simd, WithSimd};

use super::check;
use super::node::{node, scalar_arg, Arg, Bars};
use super::work::{give_work, take_work_len};
use crate::elementary::{self, Function};
use crate::error::{require, Error, Result};
use crate::kernels::{dot, zip3_lane_sums};
pub(crate) use crate::matrix::mirror_upper;
use crate::var::{Matrix, Var, Vector};
use crate::Real;

// ---------------------------------------------------------------------------------------------
// Arguments: points and length scales.

/// One set of points read for a covariance function: `n` points of dimension `d`, row-major.
#[doc(hidden)]
pub struct PointSet<'a> {
    pub(crate) n: usize,
    pub(crate) d: usize,
    /// Numbers (Stan's `array[] real`) rather than vectors.
    pub(crate) one_d: bool,
    pub(crate) values: Cow<'a, [f64]>,
    pub(crate) key: Option<u64>,
}

impl PointSet<'_> {
    /// The operand of the node: the points' adjoint run when they are a variable.
    pub(crate) fn arg(&self) -> Arg {
        self.key.map(|k| (k, self.n * self.d))
    }

    /// Point `i`.
    pub(crate) fn point(&self, i: usize) -> &[f64] {
        &self.values[i * self.d..(i + 1) * self.d]
    }

    fn numbers(values: Cow<'_, [f64]>, key: Option<u64>) -> PointSet<'_> {
        PointSet {
            n: values.len(),
            d: 1,
            one_d: true,
            values,
            key,
        }
    }
}

/// One set of points of a Gaussian-process covariance function.
///
/// Numbers, Stan's `array[] real`: `[f64]`, `[f64; N]`, `Vec<f64>`, a [`Vector`] or a vector
/// variable. Vectors, Stan's `array[] vector`: a [`Matrix`] or matrix variable whose ROWS are
/// the points (T×D for T points in D dimensions), or a slice or `Vec` of [`Vector`]s (data).
/// Points that are variables get gradients; all others are data.
pub trait GpPoints {
    /// The points in row-major order; `name` ("x", "x1", "x2") for the messages.
    #[doc(hidden)]
    fn read(&self, function: &'static str, name: &'static str) -> Result<PointSet<'_>>;
}

impl GpPoints for [f64] {
    fn read(&self, _: &'static str, _: &'static str) -> Result<PointSet<'_>> {
        Ok(PointSet::numbers(Cow::Borrowed(self), None))
    }
}

impl GpPoints for Vec<f64> {
    fn read(&self, function: &'static str, name: &'static str) -> Result<PointSet<'_>> {
        self.as_slice().read(function, name)
    }
}

impl<const N: usize> GpPoints for [f64; N] {
    fn read(&self, function: &'static str, name: &'static str) -> Result<PointSet<'_>> {
        self.as_slice().read(function, name)
    }
}

impl GpPoints for Vector {
    fn read(&self, _: &'static str, _: &'static str) -> Result<PointSet<'_>> {
        let values = match self.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.iter().copied().collect()),
        };
        Ok(PointSet::numbers(values, None))
    }
}

impl GpPoints for Var<Vector> {
    fn read(&self, _: &'static str, _: &'static str) -> Result<PointSet<'_>> {
        let values = self
            .value()
            .as_slice()
            .expect("a variable's value is standard");
        Ok(PointSet::numbers(Cow::Borrowed(values), Some(self.key())))
    }
}

fn rows(m: &Matrix, key: Option<u64>) -> PointSet<'_> {
    let (n, d) = m.dim();
    let values = match m.as_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(m.iter().copied().collect()),
    };
    PointSet {
        n,
        d,
        one_d: false,
        values,
        key,
    }
}

impl GpPoints for Matrix {
    fn read(&self, _: &'static str, _: &'static str) -> Result<PointSet<'_>> {
        Ok(rows(self, None))
    }
}

impl GpPoints for Var<Matrix> {
    fn read(&self, _: &'static str, _: &'static str) -> Result<PointSet<'_>> {
        Ok(rows(self.value(), Some(self.key())))
    }
}

impl GpPoints for [Vector] {
    fn read(&self, function: &'static str, name: &'static str) -> Result<PointSet<'_>> {
        let d = self.first().map_or(0, |v| v.len());
        let mut values = Vec::with_capacity(self.len() * d);
        for v in self {
            check::size(function, point_of(name), d, v.len())?;
            values.extend(v.iter());
        }
        Ok(PointSet {
            n: self.len(),
            d,
            one_d: false,
            values: Cow::Owned(values),
            key: None,
        })
    }
}

impl GpPoints for Vec<Vector> {
    fn read(&self, function: &'static str, name: &'static str) -> Result<PointSet<'_>> {
        self.as_slice().read(function, name)
    }
}

/// What a size message calls a point of `name`.
fn point_of(name: &'static str) -> &'static str {
    match name {
        "x1" => "a point of x1",
        "x2" => "a point of x2",
        _ => "a point of x",
    }
}

/// The points of a covariance function: one set `&x` (the T×T covariance of `x` with itself,
/// Stan's `gp_*_cov(x, ...)`) or a pair `(&x1, &x2)` (the T₁×T₂ cross covariance, Stan's
/// `gp_*_cov(x1, x2, ...)`). Each set is any [`GpPoints`]; the two of a pair may be of
/// different kinds but must have points of one dimension.
pub trait GpInput {
    /// The first set and, for a pair, the second.
    #[doc(hidden)]
    fn read(&self, function: &'static str) -> Result<(PointSet<'_>, Option<PointSet<'_>>)>;
}

impl<P: GpPoints + ?Sized> GpInput for &P {
    fn read(&self, function: &'static str) -> Result<(PointSet<'_>, Option<PointSet<'_>>)> {
        Ok((GpPoints::read(*self, function, "x")?, None))
    }
}

impl<P: GpPoints + ?Sized, Q: GpPoints + ?Sized> GpInput for (&P, &Q) {
    fn read(&self, function: &'static str) -> Result<(PointSet<'_>, Option<PointSet<'_>>)> {
        let x1 = self.0.read(function, "x1")?;
        let x2 = self.1.read(function, "x2")?;
        Ok((x1, Some(x2)))
    }
}

/// The value of a [`LengthScale`].
#[doc(hidden)]
pub enum Scale<'a> {
    /// One length scale for all dimensions.
    One(f64),
    /// One per dimension (automatic relevance determination).
    Each(Cow<'a, [f64]>),
}

/// The length scale of a covariance function: one number ℓ (`f64` or [`Var`]) for all
/// dimensions, or one per dimension (Stan's `array[] real` length scale, "automatic relevance
/// determination": `&[f64]`, `&Vec<f64>`, `&`[`Vector`] or `&Var<Vector>`), which divides
/// each coordinate by its own ℓₖ.
pub trait LengthScale {
    /// The value.
    #[doc(hidden)]
    fn scale(&self) -> Scale<'_>;
    /// The key of a variable, `None` for data.
    #[doc(hidden)]
    fn key(&self) -> Option<u64>;
}

impl<T: Real> LengthScale for T {
    fn scale(&self) -> Scale<'_> {
        Scale::One(self.value())
    }
    fn key(&self) -> Option<u64> {
        self.to_var().map(|v| v.key())
    }
}

impl LengthScale for &[f64] {
    fn scale(&self) -> Scale<'_> {
        Scale::Each(Cow::Borrowed(self))
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl LengthScale for &Vec<f64> {
    fn scale(&self) -> Scale<'_> {
        Scale::Each(Cow::Borrowed(self.as_slice()))
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl LengthScale for &Vector {
    fn scale(&self) -> Scale<'_> {
        Scale::Each(match self.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(self.iter().copied().collect()),
        })
    }
    fn key(&self) -> Option<u64> {
        None
    }
}

impl LengthScale for &Var<Vector> {
    fn scale(&self) -> Scale<'_> {
        let values = self
            .value()
            .as_slice()
            .expect("a variable's value is standard");
        Scale::Each(Cow::Borrowed(values))
    }
    fn key(&self) -> Option<u64> {
        Some(Var::key(self))
    }
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// No coordinate of `x` is NaN (Stan's `check_not_nan` on each point): "f: x is NaN, but must
/// not be NaN" for numbers (Stan names no index there), "f: x[2,1] is NaN, ..." (point 2,
/// coordinate 1) for vectors, where Stan names only the coordinate.
pub(crate) fn points_not_nan(
    function: &'static str,
    label: &'static str,
    x: &PointSet<'_>,
) -> Result<()> {
    let Some(k) = x.values.iter().position(|v| v.is_nan()) else {
        return Ok(());
    };
    if x.one_d {
        return require(false, function, label, f64::NAN, "not NaN");
    }
    Err(Error::Matrix {
        function,
        argument: label,
        detail: format!(
            "[{},{}] is NaN, but must not be NaN",
            k / x.d + 1,
            k % x.d + 1
        ),
    })
}

/// Both sets have points of one dimension (only checked when both are non-empty).
pub(crate) fn same_dimension(function: &'static str, x1: &PointSet, x2: &PointSet) -> Result<()> {
    check::size(function, "a point of x2", x1.d, x2.d)
}

/// `x > 0` (Stan's `check_positive`), and finite too (`check_positive_finite`) if `finite`.
pub(crate) fn positive(
    function: &'static str,
    argument: &'static str,
    x: f64,
    finite: bool,
) -> Result<()> {
    if finite {
        require(
            x > 0.0 && x.is_finite(),
            function,
            argument,
            x,
            "positive finite",
        )
    } else {
        require(x > 0.0, function, argument, x, "positive")
    }
}

// ---------------------------------------------------------------------------------------------
// The engine of the distance kernels.

/// The partials of one entry `K = σ²κ(r²; θ)`.
#[derive(Clone, Copy, Default)]
pub(crate) struct Partials {
    /// `∂K/∂θ` for the kernel's parameters (ℓ, and the period p of the periodic kernel).
    pub(crate) d_theta: [f64; 2],
    /// `∂K/∂r²`.
    pub(crate) d_r2: f64,
}

/// A kernel `k(x, x′) = σ²·κ(r²; θ)` of the squared Euclidean distance `r² = |x − x′|²`.
pub(crate) trait Kernel: 'static {
    /// κ(r²).
    fn value(&self, r2: f64) -> f64;
    /// The partials of `K = σ²κ` at `r2` given `K` itself: every partial carries the
    /// factor of κ that holds the exponential, so none is evaluated again. They must be 0,
    /// not NaN, where K is 0 (a huge r²/ℓ²: clamp it rather than form `0·∞`), and the
    /// partials in θ must be 0 at r = 0.
    fn partials(&self, r2: f64, k: f64) -> Partials;
    /// κ of each r² in `r2` into `out`, one row of the forward pass (`r2` may be overwritten).
    /// The kernels holding an exponential take the row through the vectorised `exp` of
    /// [`crate::elementary`] (within 1 ulp of [`Kernel::value`]'s).
    #[inline(always)]
    fn values(&self, r2: &mut [f64], out: &mut [f64]) {
        for (o, &r) in out.iter_mut().zip(r2.iter()) {
            *o = self.value(r);
        }
    }
    /// Whether [`Kernel::partials`] is cheap (arithmetic and square roots, no
    /// transcendental function): then the reverse pass evaluates it on every entry, both
    /// triangles, in contiguous vectorisable rows, rather than once per pair.
    const CHEAP_PARTIALS: bool = true;
}

/// `r²/ℓ²`, clamped so that the partials of a kernel that underflowed to 0 stay 0.
#[inline(always)]
fn scaled(r2: f64, inv_l2: f64) -> f64 {
    (r2 * inv_l2).min(1e300)
}

/// The operands of a distance-kernel node, by position.
const X1: usize = 0;
const X2: usize = 1;
const SIGMA: usize = 2;
const THETA: usize = 3;

/// `1/ℓ` and `1/ℓ²`, kept finite for a subnormal ℓ (so that `0·(1/ℓ)` stays 0).
pub(crate) fn inverses(l: f64) -> (f64, f64) {
    let inv = (1.0 / l).min(f64::MAX);
    (inv, (inv * inv).min(f64::MAX))
}

/// A distance-kernel covariance, its arguments checked: the points, σ, the kernel's scalar
/// parameters (ℓ, p) as node operands, and for per-dimension length scales their inverses
/// `1/ℓₖ` (the kernel then has ℓ = 1 and sees the scaled coordinates `xₖ/ℓₖ`).
pub(crate) struct Distance<'a> {
    pub(crate) x1: PointSet<'a>,
    pub(crate) x2: Option<PointSet<'a>>,
    pub(crate) sigma: f64,
    pub(crate) args: [Arg; 5],
    pub(crate) per_dimension: Option<Vec<f64>>,
}

/// The squared distance between point `i` of one set and point `j` of the other, in three
/// monomorphised forms (numbers; vectors; vectors with per-dimension length scales).
trait Metric {
    fn r2(&self, i: usize, j: usize) -> f64;
    /// The scaled difference `zₖ = (xᵢₖ − x′ⱼₖ)/ℓₖ` and `1/ℓₖ` (1 without per-dimension
    /// length scales).
    fn diff(&self, i: usize, j: usize, k: usize) -> (f64, f64);
    /// `r²` of point `i` of the first set and points `from..` of the second, into `out` (one
    /// per element of `out`).
    #[inline(always)]
    fn row(&self, i: usize, from: usize, out: &mut [f64]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.r2(i, from + j);
        }
    }
}

struct Numbers<'a> {
    a: &'a [f64],
    b: &'a [f64],
}

impl Metric for Numbers<'_> {
    #[inline(always)]
    fn r2(&self, i: usize, j: usize) -> f64 {
        (self.a[i] - self.b[j]).powi(2)
    }
    #[inline(always)]
    fn diff(&self, i: usize, j: usize, _: usize) -> (f64, f64) {
        (self.a[i] - self.b[j], 1.0)
    }
    #[inline(always)]
    fn row(&self, i: usize, from: usize, out: &mut [f64]) {
        let a = self.a[i];
        for (o, b) in out.iter_mut().zip(&self.b[from..]) {
            *o = (a - b) * (a - b);
        }
    }
}

struct Vectors<'a> {
    a: &'a [f64],
    b: &'a [f64],
    d: usize,
}

impl Metric for Vectors<'_> {
    #[inline(always)]
    fn r2(&self, i: usize, j: usize) -> f64 {
        let d = self.d;
        let (p, q) = (&self.a[i * d..(i + 1) * d], &self.b[j * d..(j + 1) * d]);
        p.iter().zip(q).map(|(u, v)| (u - v).powi(2)).sum()
    }
    #[inline(always)]
    fn diff(&self, i: usize, j: usize, k: usize) -> (f64, f64) {
        (self.a[i * self.d + k] - self.b[j * self.d + k], 1.0)
    }
}

struct Scaled<'a> {
    a: &'a [f64],
    b: &'a [f64],
    inv: &'a [f64],
}

impl Metric for Scaled<'_> {
    #[inline(always)]
    fn r2(&self, i: usize, j: usize) -> f64 {
        let d = self.inv.len();
        let (p, q) = (&self.a[i * d..(i + 1) * d], &self.b[j * d..(j + 1) * d]);
        p.iter()
            .zip(q)
            .zip(self.inv)
            .map(|((u, v), s)| ((u - v) * s).powi(2))
            .sum()
    }
    #[inline(always)]
    fn diff(&self, i: usize, j: usize, k: usize) -> (f64, f64) {
        let d = self.inv.len();
        let iv = self.inv[k];
        ((self.a[i * d + k] - self.b[j * d + k]) * iv, iv)
    }
}

/// Calls `body` with the metric of the points (`b` is `a` for one set).
#[inline(always)]
fn with_metric<R>(
    a: &[f64],
    b: &[f64],
    d: usize,
    inv: Option<&[f64]>,
    body: impl MetricFn<R>,
) -> R {
    match (inv, d) {
        (Some(inv), _) => body.call(&Scaled { a, b, inv }),
        (None, 1) => body.call(&Numbers { a, b }),
        (None, _) => body.call(&Vectors { a, b, d }),
    }
}

/// A function generic over the [`Metric`] (a closure cannot be).
trait MetricFn<R> {
    fn call(self, m: &impl Metric) -> R;
}

/// The forward pass: `Kᵢⱼ = σ²κ(r²ᵢⱼ)` for every pair (for one set, `i < j` then mirrored,
/// σ² on the diagonal).
struct Forward<'k, K> {
    kernel: &'k K,
    s2: f64,
    shape: (usize, usize),
    sym: bool,
}

impl<K: Kernel> MetricFn<Vec<f64>> for Forward<'_, K> {
    #[inline(always)]
    fn call(self, m: &impl Metric) -> Vec<f64> {
        let (n1, n2) = self.shape;
        let s2 = self.s2;
        if !self.sym {
            let mut value = vec![0.0; n1 * n2];
            // Every r², then κ of all of them in one call of the kernel.
            let mut r2 = vec![0.0; n1 * n2];
            for (i, row) in r2.chunks_exact_mut(n2).enumerate() {
                m.row(i, 0, row);
            }
            self.kernel.values(&mut r2, &mut value);
            value.iter_mut().for_each(|v| *v *= s2);
            return value;
        }
        // One set: the pairs i < j packed row by row, κ of all of them in one call (a call
        // per row spent more on short rows and their tails than on the exponentials), then
        // each row placed right of the diagonal, σ² on it, and the upper triangle mirrored.
        // (Both in this thread's working memory: written before they are read.)
        let pairs = n1 * (n1 - 1) / 2;
        let (mut r2_work, mut kappa_work) = (take_work_len(2, pairs), take_work_len(3, pairs));
        let (r2, kappa) = (&mut r2_work[..pairs], &mut kappa_work[..pairs]);
        let mut rest = &mut r2[..];
        for i in 0..n1 {
            let (now, later) = rest.split_at_mut(n1 - i - 1);
            m.row(i, i + 1, now);
            rest = later;
        }
        self.kernel.values(r2, kappa);
        // Each row: zeros left of the diagonal (the mirror's), σ², then σ²κ.
        let mut value = Vec::with_capacity(n1 * n2);
        let mut rest = &kappa[..];
        for i in 0..n1 {
            value.resize(i * n2 + i, 0.0);
            value.push(s2);
            let (now, later) = rest.split_at(n1 - i - 1);
            value.extend(now.iter().map(|k| s2 * k));
            rest = later;
        }
        give_work(2, r2_work);
        give_work(3, kappa_work);
        mirror_upper(n1, &mut value);
        value
    }
}

/// [`Forward`] on the points `xa`, `xb` (`d` coordinates each, per-dimension inverse length
/// scales `inv`), run by [`Arch::dispatch`].
struct ForwardRun<'a, K> {
    xa: &'a [f64],
    xb: &'a [f64],
    d: usize,
    inv: Option<&'a [f64]>,
    forward: Forward<'a, K>,
}

impl<K: Kernel> WithSimd for ForwardRun<'_, K> {
    type Output = Vec<f64>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> Vec<f64> {
        with_metric(self.xa, self.xb, self.d, self.inv, self.forward)
    }
}

/// The engine: the covariance matrix of `kernel` over the checked arguments, one node.
pub(crate) fn distance_cov<K: Kernel>(c: Distance<'_>, kernel: K) -> Var<Matrix> {
    let Distance {
        x1,
        x2,
        sigma,
        args,
        per_dimension,
    } = c;
    let sym = x2.is_none();
    let (n1, d) = (x1.n, x1.d);
    let n2 = x2.as_ref().map_or(n1, |x| x.n);
    if n1 == 0 || n2 == 0 {
        return Var::array(Matrix::zeros((n1, n2)));
    }
    let xa = &x1.values[..];
    let xb = x2.as_ref().map_or(xa, |x| &x.values[..]);
    let forward = Forward {
        kernel: &kernel,
        s2: sigma * sigma,
        shape: (n1, n2),
        sym,
    };
    // Compiled for the widest instruction set the machine has (the rows of r², the scaling).
    let value = Arch::new().dispatch(ForwardRun {
        xa,
        xb,
        d,
        inv: per_dimension.as_deref(),
        forward,
    });
    let value = Matrix::from_shape_vec((n1, n2), value).expect("n1·n2 values");
    // The reverse pass reads K (shared, not copied) and, unless only σ is a variable, the
    // points, to recompute the distances.
    let only_sigma =
        args[X1].is_none() && args[X2].is_none() && args[THETA..].iter().all(Option::is_none);
    let points = (!only_sigma).then(|| (x1.values.into_owned(), x2.map(|x| x.values.into_owned())));
    let back = Backward {
        kernel,
        k: value.clone(),
        sigma,
        shape: (n1, n2, d),
        points,
        inv: per_dimension,
    };
    node(value, args, move |g, bars| back.run(g, bars))
}

/// What the reverse pass keeps: K, σ, and the points unless only σ is a variable.
struct Backward<K> {
    kernel: K,
    k: Matrix,
    sigma: f64,
    shape: (usize, usize, usize),
    points: Option<(Vec<f64>, Option<Vec<f64>>)>,
    inv: Option<Vec<f64>>,
}

impl<K: Kernel> Backward<K> {
    fn run(&self, g: &[f64], bars: &mut Bars<'_>) {
        let k = self.k.as_slice().expect("standard");
        let Some((xa, xb)) = &self.points else {
            if let Some(s_bar) = bars.scalar(SIGMA) {
                *s_bar += 2.0 * dot(g, k) / self.sigma;
            }
            return;
        };
        let d = self.shape.2;
        let xb = xb.as_deref().unwrap_or(xa);
        let pass = Pass {
            kernel: &self.kernel,
            g,
            k,
            shape: self.shape,
            sym: self.points.as_ref().is_some_and(|p| p.1.is_none()),
            want: [X1, X2, THETA, THETA + 1].map(|i| bars.wants(i)),
            ard: self.inv.is_some(),
        };
        let sums = with_metric(xa, xb, d, self.inv.as_deref(), pass);
        if let Some(s_bar) = bars.scalar(SIGMA) {
            *s_bar += 2.0 * sums.gk / self.sigma;
        }
        for (which, acc) in [(X1, &sums.x1), (X2, &sums.x2)] {
            if let Some(run) = bars.run(which) {
                run.iter_mut().zip(acc).for_each(|(r, a)| *r += a);
            }
        }
        match (&self.inv, bars.run(THETA)) {
            // ℓ̄ₖ += Σ w·∂r²/∂ℓₖ = −2·Σ w·zₖ²/ℓₖ.
            (Some(inv), Some(run)) => {
                for ((r, a), v) in run.iter_mut().zip(&sums.l).zip(inv) {
                    *r -= 2.0 * a * v;
                }
            }
            (None, Some(run)) => run[0] += sums.theta[0],
            _ => {}
        }
        if let Some(p_bar) = bars.scalar(THETA + 1) {
            *p_bar += sums.theta[1];
        }
    }
}

/// The one pass over the pairs of the reverse pass.
struct Pass<'a, K> {
    kernel: &'a K,
    g: &'a [f64],
    k: &'a [f64],
    shape: (usize, usize, usize),
    sym: bool,
    /// Which of x1, x2, θ₀ (ℓ), θ₁ (p) are variables.
    want: [bool; 4],
    ard: bool,
}

/// Its sums: `Σ ḡK`, `Σ ḡ·∂K/∂θ`, and the adjoints of the points and of per-dimension length
/// scales (before the factor `−2/ℓₖ`).
#[derive(Default)]
struct Sums {
    gk: f64,
    theta: [f64; 2],
    x1: Vec<f64>,
    x2: Vec<f64>,
    l: Vec<f64>,
}

impl<K: Kernel> MetricFn<Sums> for Pass<'_, K> {
    fn call(self, m: &impl Metric) -> Sums {
        let (n1, n2, d) = self.shape;
        let [w1, w2, wl, wp] = self.want;
        let through_r2 = w1 || w2 || (self.ard && wl);
        let scalar_l = wl && !self.ard;
        let mut s = Sums {
            x1: vec![0.0; if w1 { n1 * d } else { 0 }],
            x2: vec![0.0; if w2 { n2 * d } else { 0 }],
            l: vec![0.0; if self.ard && wl { d } else { 0 }],
            ..Sums::default()
        };
        let (g, kv) = (self.g, self.k);
        if !through_r2 && K::CHEAP_PARTIALS {
            // Only σ and θ: Σ ḡK and Σ ḡ·∂K/∂θ over every entry (for one set both triangles,
            // each pair twice with its own ḡ; on the diagonal r = 0 and the partials are 0).
            let [gk, t0, t1] = Arch::new().dispatch(CheapSums {
                kernel: self.kernel,
                m,
                g,
                k: kv,
                shape: (n1, n2),
            });
            s.gk = gk;
            s.theta = [if scalar_l { t0 } else { 0.0 }, if wp { t1 } else { 0.0 }];
            return s;
        }
        for i in 0..n1 {
            let first = if self.sym {
                s.gk += g[i * n2 + i] * kv[i * n2 + i];
                i + 1
            } else {
                0
            };
            for j in first..n2 {
                let idx = i * n2 + j;
                let gw = if self.sym {
                    g[idx] + g[j * n2 + i]
                } else {
                    g[idx]
                };
                let kij = kv[idx];
                s.gk += gw * kij;
                if kij == 0.0 || gw == 0.0 {
                    continue;
                }
                let p = self.kernel.partials(m.r2(i, j), kij);
                if scalar_l {
                    s.theta[0] += gw * p.d_theta[0];
                }
                if wp {
                    s.theta[1] += gw * p.d_theta[1];
                }
                if !through_r2 {
                    continue;
                }
                // ∂r²/∂xᵢₖ = 2zₖ/ℓₖ, ∂r²/∂x′ⱼₖ = −2zₖ/ℓₖ, ∂r²/∂ℓₖ = −2zₖ²/ℓₖ.
                let w = gw * p.d_r2;
                for k in 0..d {
                    let (z, iv) = m.diff(i, j, k);
                    if self.ard && wl {
                        s.l[k] += w * z * z;
                    }
                    let gx = 2.0 * w * z * iv;
                    if w1 {
                        s.x1[i * d + k] += gx;
                        if self.sym {
                            s.x1[j * d + k] -= gx;
                        }
                    }
                    if w2 {
                        s.x2[j * d + k] -= gx;
                    }
                }
            }
        }
        s
    }
}

/// The sums of [`Pass`] when only σ and θ are variables, `[Σ ḡK, Σ ḡ·∂K/∂θ₀, Σ ḡ·∂K/∂θ₁]`,
/// a row of r² at a time. Run through [`Arch::dispatch`] so that the compiler vectorises the
/// rows for the widest instruction set the machine has (the arithmetic per entry, r², the
/// kernel's partials and three products, bounds the pass).
struct CheapSums<'a, K, M> {
    kernel: &'a K,
    m: &'a M,
    g: &'a [f64],
    k: &'a [f64],
    shape: (usize, usize),
}

impl<K: Kernel, M: Metric> WithSimd for CheapSums<'_, K, M> {
    type Output = [f64; 3];
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> [f64; 3] {
        let (n1, n2) = self.shape;
        let mut r2 = vec![0.0; n2];
        let mut total = [0.0; 3];
        let rows = self.g.chunks_exact(n2).zip(self.k.chunks_exact(n2));
        for (i, (gr, kr)) in rows.take(n1).enumerate() {
            self.m.row(i, 0, &mut r2);
            let sums = zip3_lane_sums(gr, kr, &r2, |g, k, r| {
                let p = self.kernel.partials(r, k);
                [g * k, g * p.d_theta[0], g * p.d_theta[1]]
            });
            for (t, x) in total.iter_mut().zip(sums) {
                *t += x;
            }
        }
        total
    }
}

// ---------------------------------------------------------------------------------------------
// The stationary kernels κ(r²/ℓ²).

/// Squared exponential: `κ = exp(−s/2)`, `s = r²/ℓ²`; `∂K/∂ℓ = K·s/ℓ`, `∂K/∂r² = −K/(2ℓ²)`.
struct ExpQuad {
    inv_l: f64,
    inv_l2: f64,
}

impl Kernel for ExpQuad {
    #[inline(always)]
    fn value(&self, r2: f64) -> f64 {
        (-0.5 * r2 * self.inv_l2).exp()
    }
    #[inline(always)]
    fn values(&self, r2: &mut [f64], out: &mut [f64]) {
        for r in r2.iter_mut() {
            *r = -0.5 * *r * self.inv_l2;
        }
        elementary::map(Function::Exp, r2, out);
    }
    #[inline(always)]
    fn partials(&self, r2: f64, k: f64) -> Partials {
        let s = scaled(r2, self.inv_l2);
        Partials {
            d_theta: [k * s * self.inv_l, 0.0],
            d_r2: -0.5 * k * self.inv_l2,
        }
    }
}

/// Matérn 3/2: `κ = (1 + u)·e⁻ᵘ`, `u = √3·r/ℓ`; with `E = σ²e⁻ᵘ = K/(1 + u)`:
/// `∂K/∂ℓ = E·u²/ℓ`, `∂K/∂r² = −(3/2)E/ℓ²` (finite at r = 0).
struct Matern32 {
    inv_l: f64,
    inv_l2: f64,
}

impl Kernel for Matern32 {
    #[inline(always)]
    fn value(&self, r2: f64) -> f64 {
        let u = (3.0 * r2 * self.inv_l2).sqrt();
        (1.0 + u) * (-u).exp()
    }
    #[inline(always)]
    fn values(&self, r2: &mut [f64], out: &mut [f64]) {
        // r2 holds −u, out e⁻ᵘ, then (1 + u)·e⁻ᵘ.
        for r in r2.iter_mut() {
            *r = -(3.0 * *r * self.inv_l2).sqrt();
        }
        elementary::map(Function::Exp, r2, out);
        for (o, &minus_u) in out.iter_mut().zip(r2.iter()) {
            *o *= 1.0 - minus_u;
        }
    }
    #[inline(always)]
    fn partials(&self, r2: f64, k: f64) -> Partials {
        let u = (3.0 * scaled(r2, self.inv_l2)).sqrt();
        let e = k / (1.0 + u);
        Partials {
            d_theta: [e * u * u * self.inv_l, 0.0],
            d_r2: -1.5 * e * self.inv_l2,
        }
    }
}

/// Matérn 5/2: `κ = (1 + u + u²/3)·e⁻ᵘ`, `u = √5·r/ℓ`; with `E = σ²e⁻ᵘ`:
/// `∂K/∂ℓ = E(1 + u)u²/(3ℓ)`, `∂K/∂r² = −(5/6)(1 + u)E/ℓ²`.
struct Matern52 {
    inv_l: f64,
    inv_l2: f64,
}

impl Kernel for Matern52 {
    #[inline(always)]
    fn value(&self, r2: f64) -> f64 {
        let s = r2 * self.inv_l2;
        let u = (5.0 * s).sqrt();
        (1.0 + u + 5.0 / 3.0 * s) * (-u).exp()
    }
    #[inline(always)]
    fn values(&self, r2: &mut [f64], out: &mut [f64]) {
        // r2 holds −u, out e⁻ᵘ, then (1 + u + u²/3)·e⁻ᵘ (u²/3 = 5s/3 to rounding).
        for r in r2.iter_mut() {
            *r = -(5.0 * (*r * self.inv_l2)).sqrt();
        }
        elementary::map(Function::Exp, r2, out);
        for (o, &minus_u) in out.iter_mut().zip(r2.iter()) {
            *o *= 1.0 - minus_u + minus_u * minus_u / 3.0;
        }
    }
    #[inline(always)]
    fn partials(&self, r2: f64, k: f64) -> Partials {
        let s = scaled(r2, self.inv_l2);
        let u = (5.0 * s).sqrt();
        let a = (1.0 + u) * k / (1.0 + u + 5.0 / 3.0 * s);
        Partials {
            d_theta: [a * u * u * self.inv_l / 3.0, 0.0],
            d_r2: -5.0 / 6.0 * a * self.inv_l2,
        }
    }
}

/// Exponential: `κ = e⁻ᵘ`, `u = r/ℓ`; `∂K/∂ℓ = K·u/ℓ` (0 at r = 0), `∂K/∂r² = −K/(2uℓ²)`,
/// infinite at r = 0 where κ has a kink: taken as 0 there.
struct Exponential {
    inv_l: f64,
    inv_l2: f64,
}

impl Kernel for Exponential {
    #[inline(always)]
    fn value(&self, r2: f64) -> f64 {
        (-(r2 * self.inv_l2).sqrt()).exp()
    }
    #[inline(always)]
    fn values(&self, r2: &mut [f64], out: &mut [f64]) {
        for r in r2.iter_mut() {
            *r = -(*r * self.inv_l2).sqrt();
        }
        elementary::map(Function::Exp, r2, out);
    }
    #[inline(always)]
    fn partials(&self, r2: f64, k: f64) -> Partials {
        let u = scaled(r2, self.inv_l2).sqrt();
        Partials {
            d_theta: [k * u * self.inv_l, 0.0],
            d_r2: if u > 0.0 {
                -0.5 * k * self.inv_l2 / u
            } else {
                0.0
            },
        }
    }
}

/// How one of the stationary functions checks its arguments (Stan's order and names).
struct Spec {
    function: &'static str,
    /// What σ is called in the messages.
    sigma: &'static str,
    /// Points checked before σ and ℓ (the Matérn and exponential kernels) or after.
    points_first: bool,
    /// One length scale and σ must be finite too (`check_positive_finite`); per-dimension
    /// length scales always must.
    finite: bool,
}

/// A stationary kernel's covariance: checks, then the engine with `make(ℓ)` (ℓ = 1 and scaled
/// coordinates for per-dimension length scales).
fn stationary<K: Kernel>(
    spec: Spec,
    x: impl GpInput,
    sigma: impl Real,
    length_scale: impl LengthScale,
    make: impl Fn(f64) -> K,
) -> Result<Var<Matrix>> {
    let f = spec.function;
    let (x1, x2) = x.read(f)?;
    let scale = length_scale.scale();
    let check_points = || -> Result<()> {
        match &x2 {
            None => points_not_nan(f, "x", &x1),
            Some(x2) => {
                points_not_nan(f, "x1", &x1)?;
                points_not_nan(f, "x2", x2)
            }
        }
    };
    if spec.points_first {
        check_points()?;
    }
    let per_dim = matches!(scale, Scale::Each(_));
    positive(f, spec.sigma, sigma.value(), spec.finite || per_dim)?;
    match &scale {
        Scale::One(l) => positive(f, "length scale", *l, spec.finite)?,
        Scale::Each(l) => check::elements(
            f,
            "length scale",
            l,
            |v| v > 0.0 && v.is_finite(),
            "positive finite",
        )?,
    }
    if !spec.points_first {
        check_points()?;
    }
    let nonempty = x1.n > 0 && x2.as_ref().is_none_or(|x| x.n > 0);
    if let (Some(x2), true) = (&x2, nonempty) {
        same_dimension(f, &x1, x2)?;
    }
    let (l, per_dimension) = match scale {
        Scale::One(l) => (l, None),
        Scale::Each(l) => {
            if nonempty {
                check::size(f, "number of length scales", x1.d, l.len())?;
            }
            (1.0, Some(l.iter().map(|&v| inverses(v).0).collect()))
        }
    };
    let l_arg = length_scale.key().map(|k| {
        let n = per_dimension.as_ref().map_or(1, |v: &Vec<f64>| v.len());
        (k, n)
    });
    let args = [
        x1.arg(),
        x2.as_ref().and_then(PointSet::arg),
        scalar_arg(sigma),
        l_arg,
        None,
    ];
    let c = Distance {
        x1,
        x2,
        sigma: sigma.value(),
        args,
        per_dimension,
    };
    Ok(distance_cov(c, make(l)))
}

/// The squared exponential (exponentiated quadratic) covariance (Stan's `gp_exp_quad_cov`):
/// `Kᵢⱼ = σ²·exp(−|xᵢ − x′ⱼ|²/(2ℓ²))` over one set of points `&x` (T×T, exactly symmetric,
/// σ² on the diagonal) or two `(&x1, &x2)` (T₁×T₂); with per-dimension length scales
/// `Kᵢⱼ = σ²·exp(−½Σₖ(xᵢₖ − x′ⱼₖ)²/ℓₖ²)`. One node whatever the number of points.
///
/// Reverse pass, with `s = r²/ℓ²`: `σ̄ += (2/σ)·Σᵢⱼ ḡᵢⱼKᵢⱼ`, `ℓ̄ += Σᵢⱼ ḡᵢⱼKᵢⱼ·sᵢⱼ/ℓ`
/// (`∂K/∂ℓ = K·r²/ℓ³`, from K and the distance: no exponential is recomputed); for
/// per-dimension length scales `ℓ̄ₖ += Σᵢⱼ ḡᵢⱼKᵢⱼ(xᵢₖ − x′ⱼₖ)²/ℓₖ³`, and for variable points
/// `x̄ᵢ −= Σⱼ ḡᵢⱼKᵢⱼ(xᵢ − x′ⱼ)/ℓ²` (and `x̄′ⱼ` the opposite).
///
/// # Errors
/// As Stan: σ ("marginal standard deviation") and ℓ ("length scale") must be positive — and
/// finite with per-dimension length scales (`length scale[2] is -1, but must be positive
/// finite`) —, points must not be NaN ("gp_exp_quad_cov: x is NaN, but must not be NaN";
/// `x1[3,2] is NaN, ...` names point and coordinate for vector points), the two sets must have
/// points of one dimension and there must be one length scale per dimension
/// ([`Error::Size`]). An infinite σ gives infinite or NaN entries, as in Stan.
///
/// ```
/// use revad::{linalg, tape, Var};
/// let x = [0.0, 1.0, 3.0];
/// let (sigma, l) = (Var::new(1.5), Var::new(0.8));
/// let k = linalg::gp_exp_quad_cov(&x, sigma, l).unwrap(); // 3×3
/// let kv = k.value();
/// assert_eq!(kv[[0, 0]], 2.25);
/// assert!((kv[[0, 1]] - 2.25 * (-1.0f64 / (2.0 * 0.64)).exp()).abs() < 1e-15);
/// assert_eq!(kv[[0, 1]], kv[[1, 0]]);
/// let s = revad::matrix::sum(&k);
/// s.grad();
/// assert!((sigma.adj() - 2.0 * s.value() / 1.5).abs() < 1e-12);
/// // Cross covariance of x with two new points: 3×2.
/// let k2 = linalg::gp_exp_quad_cov((&x, &[0.5, 2.0]), 1.5, 0.8).unwrap();
/// assert_eq!(k2.value().dim(), (3, 2));
/// tape::reset();
/// ```
pub fn gp_exp_quad_cov(
    x: impl GpInput,
    sigma: impl Real,
    length_scale: impl LengthScale,
) -> Result<Var<Matrix>> {
    let spec = Spec {
        function: "gp_exp_quad_cov",
        sigma: "marginal standard deviation",
        points_first: false,
        finite: false,
    };
    stationary(spec, x, sigma, length_scale, |l| {
        let (inv_l, inv_l2) = inverses(l);
        ExpQuad { inv_l, inv_l2 }
    })
}

/// The Matérn 3/2 covariance (Stan's `gp_matern32_cov`):
/// `Kᵢⱼ = σ²(1 + √3·r/ℓ)·exp(−√3·r/ℓ)`, `r = |xᵢ − x′ⱼ|`, over `&x` or `(&x1, &x2)` as
/// [`gp_exp_quad_cov`]; per-dimension length scales replace r/ℓ by `√(Σₖ(xᵢₖ − x′ⱼₖ)²/ℓₖ²)`.
///
/// Reverse pass, with `u = √3·r/ℓ`: `σ̄ += (2/σ)·Σ ḡK`, `ℓ̄ += Σᵢⱼ ḡᵢⱼσ²u²e⁻ᵘ/ℓ` (0 at
/// r = 0); points and per-dimension length scales through `∂K/∂r² = −(3/2)σ²e⁻ᵘ/ℓ²`, finite
/// everywhere.
///
/// # Errors
/// As Stan, in its order: points not NaN, σ ("magnitude") and ℓ ("length scale") positive
/// finite, sizes as [`gp_exp_quad_cov`].
pub fn gp_matern32_cov(
    x: impl GpInput,
    sigma: impl Real,
    length_scale: impl LengthScale,
) -> Result<Var<Matrix>> {
    let spec = Spec {
        function: "gp_matern32_cov",
        sigma: "magnitude",
        points_first: true,
        finite: true,
    };
    stationary(spec, x, sigma, length_scale, |l| {
        let (inv_l, inv_l2) = inverses(l);
        Matern32 { inv_l, inv_l2 }
    })
}

/// The Matérn 5/2 covariance (Stan's `gp_matern52_cov`):
/// `Kᵢⱼ = σ²(1 + √5·r/ℓ + 5r²/(3ℓ²))·exp(−√5·r/ℓ)`, over `&x` or `(&x1, &x2)` as
/// [`gp_exp_quad_cov`], with per-dimension length scales as [`gp_matern32_cov`].
///
/// Reverse pass, with `u = √5·r/ℓ`: `σ̄ += (2/σ)·Σ ḡK`,
/// `ℓ̄ += Σᵢⱼ ḡᵢⱼσ²(1 + u)u²e⁻ᵘ/(3ℓ)`; points and per-dimension length scales through
/// `∂K/∂r² = −(5/6)σ²(1 + u)e⁻ᵘ/ℓ²`.
///
/// # Errors
/// As [`gp_matern32_cov`] ("gp_matern52_cov: magnitude is 0, but must be positive finite").
pub fn gp_matern52_cov(
    x: impl GpInput,
    sigma: impl Real,
    length_scale: impl LengthScale,
) -> Result<Var<Matrix>> {
    let spec = Spec {
        function: "gp_matern52_cov",
        sigma: "magnitude",
        points_first: true,
        finite: true,
    };
    stationary(spec, x, sigma, length_scale, |l| {
        let (inv_l, inv_l2) = inverses(l);
        Matern52 { inv_l, inv_l2 }
    })
}

/// The exponential (Matérn 1/2) covariance (Stan's `gp_exponential_cov`):
/// `Kᵢⱼ = σ²·exp(−r/ℓ)`, over `&x` or `(&x1, &x2)` as [`gp_exp_quad_cov`], with
/// per-dimension length scales as [`gp_matern32_cov`].
///
/// Reverse pass, with `u = r/ℓ`: `σ̄ += (2/σ)·Σ ḡK`, `ℓ̄ += Σᵢⱼ ḡᵢⱼKᵢⱼ·u/ℓ` (0 at r = 0);
/// points and per-dimension length scales through `∂K/∂r² = −K/(2uℓ²)`. At r = 0 the kernel
/// has a kink in the points (no derivative): two coincident variable points get 0 from that
/// pair, and per-dimension length scales get 0 from it, which is their exact partial.
///
/// # Errors
/// As [`gp_matern32_cov`] ("gp_exponential_cov: length scale is inf, but must be positive
/// finite").
pub fn gp_exponential_cov(
    x: impl GpInput,
    sigma: impl Real,
    length_scale: impl LengthScale,
) -> Result<Var<Matrix>> {
    let spec = Spec {
        function: "gp_exponential_cov",
        sigma: "magnitude",
        points_first: true,
        finite: true,
    };
    stationary(spec, x, sigma, length_scale, |l| {
        let (inv_l, inv_l2) = inverses(l);
        Exponential { inv_l, inv_l2 }
    })
}
