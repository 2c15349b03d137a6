//! Bounds and affine maps, on a scalar and elementwise on an array: `lower_bound`,
//! `upper_bound`, `lower_upper_bound` and `offset_multiplier`.
//!
//! | transform | constrained value `v` of `x` | log-Jacobian | unconstrained `x` of `v` |
//! |---|---|---|---|
//! | `lower_bound(lb)` | `lb + eˣ` | `x` | `log(v − lb)` |
//! | `upper_bound(ub)` | `ub − eˣ` | `x` | `log(ub − v)` |
//! | `lower_upper_bound(lb, ub)` | `lb + (ub − lb)·σ(x)` | `log(ub − lb) + log σ(x) + log σ(−x)` | `log(v − lb) − log(ub − v)` |
//! | `offset_multiplier(μ, σ)` | `μ + σx` | `log σ` | `(v − μ)/σ` |
//!
//! `σ` is the logistic function ([`inv_logit`](crate::special::log_exp::inv_logit)); `log σ(x) +
//! log σ(−x)` is computed as `−|x| − 2·log1p(e^(−|x|))`, finite for every finite `x`. An infinite
//! bound is no bound (Stan's rule, element by element): `lower_bound(−∞)` is the identity, and
//! `lower_upper_bound` with one infinite bound is the transform of the other.
//!
//! Partials (each evaluated in the reverse pass from the stored `x` and bounds):
//! `∂v/∂x` = `eˣ`, `−eˣ`, `(ub − lb)σ(x)σ(−x)`, `σ`; `∂v/∂lb = 1` (`σ(−x)` for two bounds),
//! `∂v/∂ub = 1` (`σ(x)`), `∂v/∂μ = 1`, `∂v/∂σ = x`; the log-Jacobian's: `1` for the one-sided
//! bounds, `1 − 2σ(x)`, `∓1/(ub − lb)` for two, `1/σ` in σ for the affine map. The inverse's:
//! `1/(v − lb)`, `−1/(ub − v)`, `1/(v − lb) + 1/(ub − v)` in `v`; `−1/(v − lb)` in `lb`,
//! `1/(ub − v)` in `ub` (`−1/(ub − v)` for two bounds); `1/σ`, `−1/σ` and `−x/σ` for the affine
//! map.
//!
//! A bound of an array transform ([`BoundArg`]) is an `f64`, a `Var` or an array of the value's
//! shape (data or variable); a scalar bound applies to every element and gathers the adjoint
//! of all of them.

use std::borrow::Cow;

use super::check::{element_error, shown, At};
use super::out::{record_pair, with_lp, Grid, Pair};
use crate::error::{Error, Result};
use crate::linalg::node::{record, scalar_arg, Arg};
use crate::matrix::Operand;
use crate::scalar::record_unary;
use crate::special::log_exp::{inv_logit, log1p_exp};
use crate::var::{Storage, Var};
use crate::{Promote, Promote3, Real};

/// The family of elementwise transforms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// `lb + eˣ` (bound `a`).
    Lower,
    /// `ub − eˣ` (bound `a`).
    Upper,
    /// `lb + (ub − lb)σ(x)` (bounds `a`, `b`).
    LowerUpper,
    /// `μ + σx` (offset `a`, multiplier `b`).
    OffsetMultiplier,
}

impl Kind {
    /// Stan Math's names of the constraining and freeing functions, and of the bounds.
    fn names(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Kind::Lower => ("lb_constrain", "lb_free", "lb", ""),
            Kind::Upper => ("ub_constrain", "ub_free", "ub", ""),
            Kind::LowerUpper => ("lub_constrain", "lub_free", "lb", "ub"),
            Kind::OffsetMultiplier => (
                "offset_multiplier_constrain",
                "offset_multiplier_free",
                "mu",
                "sigma",
            ),
        }
    }
}

/// The value, log-Jacobian and partials of one element.
#[derive(Clone, Copy, Debug, Default)]
struct Element {
    v: f64,
    lp: f64,
    dx: f64,
    da: f64,
    db: f64,
    lx: f64,
    la: f64,
    lb: f64,
}

const IDENTITY: Element = Element {
    v: 0.0,
    lp: 0.0,
    dx: 1.0,
    da: 0.0,
    db: 0.0,
    lx: 0.0,
    la: 0.0,
    lb: 0.0,
};

fn lower(x: f64, l: f64) -> Element {
    if l == f64::NEG_INFINITY {
        return Element { v: x, ..IDENTITY };
    }
    let e = x.exp();
    Element {
        v: e + l,
        lp: x,
        dx: e,
        da: 1.0,
        lx: 1.0,
        ..Element::default()
    }
}

fn upper(x: f64, u: f64) -> Element {
    if u == f64::INFINITY {
        return Element { v: x, ..IDENTITY };
    }
    let e = x.exp();
    Element {
        v: u - e,
        lp: x,
        dx: -e,
        da: 1.0,
        lx: 1.0,
        ..Element::default()
    }
}

/// One element of `kind` (bounds already checked).
fn constrain_element(kind: Kind, x: f64, a: f64, b: f64) -> Element {
    match kind {
        Kind::Lower => lower(x, a),
        Kind::Upper => upper(x, a),
        Kind::LowerUpper => {
            let (l, u) = (a, b);
            match (l == f64::NEG_INFINITY, u == f64::INFINITY) {
                (true, true) => Element { v: x, ..IDENTITY },
                (false, true) => lower(x, l),
                (true, false) => {
                    let e = upper(x, u);
                    Element {
                        db: e.da,
                        da: 0.0,
                        ..e
                    }
                }
                (false, false) => {
                    let (s, t) = (inv_logit(x), inv_logit(-x));
                    let diff = u - l;
                    Element {
                        v: diff * s + l,
                        lp: diff.ln() - x.abs() - 2.0 * log1p_exp(-x.abs()),
                        dx: diff * s * t,
                        da: t,
                        db: s,
                        lx: t - s,
                        la: -1.0 / diff,
                        lb: 1.0 / diff,
                    }
                }
            }
        }
        Kind::OffsetMultiplier => Element {
            v: a + b * x,
            lp: b.ln(),
            dx: b,
            da: 1.0,
            db: x,
            lx: 0.0,
            la: 0.0,
            lb: 1.0 / b,
        },
    }
}

/// The unconstrained value of one element and its partials in `(v, a, b)`.
fn free_element(kind: Kind, v: f64, a: f64, b: f64) -> [f64; 4] {
    let lower = |l: f64| {
        if l == f64::NEG_INFINITY {
            [v, 1.0, 0.0, 0.0]
        } else {
            let d = v - l;
            [d.ln(), 1.0 / d, -1.0 / d, 0.0]
        }
    };
    let upper = |u: f64| {
        if u == f64::INFINITY {
            [v, 1.0, 0.0, 0.0]
        } else {
            let d = u - v;
            [d.ln(), -1.0 / d, 1.0 / d, 0.0]
        }
    };
    match kind {
        Kind::Lower => lower(a),
        Kind::Upper => upper(a),
        Kind::LowerUpper => match (a == f64::NEG_INFINITY, b == f64::INFINITY) {
            (true, true) => [v, 1.0, 0.0, 0.0],
            (false, true) => lower(a),
            (true, false) => {
                let [y, dv, du, _] = upper(b);
                [y, dv, 0.0, du]
            }
            (false, false) => {
                let (p, q) = (v - a, b - v);
                [p.ln() - q.ln(), 1.0 / p + 1.0 / q, -1.0 / p, -1.0 / q]
            }
        },
        Kind::OffsetMultiplier => {
            let y = (v - a) / b;
            [y, 1.0 / b, -1.0 / b, -y / b]
        }
    }
}

/// A bound (or offset, multiplier) as the elementwise engine reads it.
#[doc(hidden)]
pub struct BoundData<'a> {
    values: Values<'a>,
    /// `None` for a scalar.
    shape: Option<(usize, usize)>,
    key: Option<u64>,
}

impl BoundData<'_> {
    /// The bound of element `k` (row-major).
    #[inline]
    fn get(&self, k: usize) -> f64 {
        match self.shape {
            None => self.values.as_slice()[0],
            Some(_) => self.values.as_slice()[k],
        }
    }

    fn arg(&self) -> Arg {
        self.key.map(|k| (k, self.values.as_slice().len()))
    }

    fn at(&self, k: usize) -> At {
        match self.shape {
            None => At::Scalar,
            Some((rows, cols)) => At::Element { k, rows, cols },
        }
    }

    /// A scalar bound.
    pub(crate) fn scalar(x: f64, key: Option<u64>) -> BoundData<'static> {
        BoundData {
            values: Values::One([x]),
            shape: None,
            key,
        }
    }

    /// An array bound.
    pub(crate) fn array<S: Storage>(a: &impl Operand<S>) -> BoundData<'_> {
        let values = match a.value() {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_slice()),
            Cow::Owned(s) => Cow::Owned(s.as_slice().to_vec()),
        };
        let shape = a.value().shape();
        BoundData {
            values: Values::Many(values),
            shape: Some(shape),
            key: a.key(),
        }
    }

    /// Its values, owned (for the reverse pass).
    fn to_kept(&self) -> Kept {
        Kept {
            values: self.values.as_slice().to_vec(),
            scalar: self.shape.is_none(),
        }
    }
}

/// The values of a bound: one (no allocation), or an array's.
enum Values<'a> {
    One([f64; 1]),
    Many(Cow<'a, [f64]>),
}

impl Values<'_> {
    #[inline]
    fn as_slice(&self) -> &[f64] {
        match self {
            Values::One(x) => x,
            Values::Many(v) => v,
        }
    }
}

/// A bound's values kept for the reverse pass.
struct Kept {
    values: Vec<f64>,
    scalar: bool,
}

impl Kept {
    #[inline]
    fn get(&self, k: usize) -> f64 {
        if self.scalar {
            self.values[0]
        } else {
            self.values[k]
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for crate::var::Var {}
    impl<T> Sealed for &T {}
    impl Sealed for super::super::generic::Limit {}
}

/// A bound, offset or multiplier of an elementwise transform on an array of kind `S`: an `f64`
/// or a `Var` (the same for every element), or a reference to an array of the value's shape
/// (`&Var<S>`, `&S`: an operand).
///
/// ```
/// use revad::{transform, Var, Vector};
/// let x = Vector::from(vec![0.0, 1.0]);
/// // One bound for both elements, or one each.
/// let a = transform::lower_bound_constrain_array(&x, 2.0).unwrap();
/// let b = transform::lower_bound_constrain_array(&x, &Vector::from(vec![2.0, 2.0])).unwrap();
/// assert_eq!(a.value(), b.value());
/// revad::tape::reset();
/// ```
pub trait BoundArg<S: Storage>: sealed::Sealed {
    /// The values, shape and key.
    #[doc(hidden)]
    fn bound_data(&self) -> BoundData<'_>;
}

impl<S: Storage> BoundArg<S> for f64 {
    fn bound_data(&self) -> BoundData<'_> {
        BoundData::scalar(*self, None)
    }
}

impl<S: Storage> BoundArg<S> for Var {
    fn bound_data(&self) -> BoundData<'_> {
        BoundData::scalar(self.value(), Some(self.key()))
    }
}

impl<S: Storage, T: Operand<S>> BoundArg<S> for &T {
    fn bound_data(&self) -> BoundData<'_> {
        BoundData::array(*self)
    }
}

/// `bound`'s shape matches the value's `(rows, cols)`, as Stan's `check_matching_dims`.
fn matching(
    function: &'static str,
    name: &'static str,
    bound: &BoundData<'_>,
    rows: usize,
    cols: usize,
) -> Result<()> {
    let Some((r, c)) = bound.shape else {
        return Ok(());
    };
    let size = |what, expected, found| Error::Size {
        function,
        what,
        expected,
        found,
    };
    if r * c != rows * cols {
        return Err(size(name, rows * cols, r * c));
    }
    if r != rows {
        return Err(size(rows_of(name), rows, r));
    }
    if c != cols {
        return Err(size(columns_of(name), cols, c));
    }
    Ok(())
}

fn rows_of(name: &'static str) -> &'static str {
    match name {
        "lb" => "rows of lb",
        "ub" => "rows of ub",
        "mu" => "rows of mu",
        _ => "rows of sigma",
    }
}

fn columns_of(name: &'static str) -> &'static str {
    match name {
        "lb" => "columns of lb",
        "ub" => "columns of ub",
        "mu" => "columns of mu",
        _ => "columns of sigma",
    }
}

/// Stan's checks of the bounds of a constraining transform: `lb < ub` where both are finite
/// ("lub_constrain: lb is 3, but must be less than 2"); a finite offset ("offset is inf, but
/// must be finite") and a positive finite multiplier ("multiplier is 0, but must be positive
/// finite"), under `function`'s name.
fn check_bounds(
    kind: Kind,
    function: &'static str,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
    n: usize,
) -> Result<()> {
    match kind {
        Kind::Lower | Kind::Upper => Ok(()),
        Kind::LowerUpper => {
            let count = if a.shape.is_none() && b.shape.is_none() {
                n.min(1)
            } else {
                n
            };
            for k in 0..count {
                let (l, u) = (a.get(k), b.get(k));
                let ok = l == f64::NEG_INFINITY || u == f64::INFINITY || l < u;
                if !ok {
                    return Err(element_error(
                        function,
                        "lb",
                        a.at(k),
                        l,
                        format!("less than {}", shown(u)),
                    ));
                }
            }
            Ok(())
        }
        Kind::OffsetMultiplier => {
            for (k, &m) in a.values.as_slice().iter().enumerate() {
                if !m.is_finite() {
                    return Err(element_error(
                        function,
                        "offset",
                        a.at(k),
                        m,
                        "finite".into(),
                    ));
                }
            }
            for (k, &s) in b.values.as_slice().iter().enumerate() {
                if !(s > 0.0 && s.is_finite()) {
                    return Err(element_error(
                        function,
                        "multiplier",
                        b.at(k),
                        s,
                        "positive finite".into(),
                    ));
                }
            }
            Ok(())
        }
    }
}

/// Stan's checks of a constrained value before it is freed: `v ≥ lb` ("lb_free: Lower bounded
/// variable is -1, but must be greater than or equal to 0"), `v ≤ ub` ("ub_free: Upper bounded
/// variable ..."), `lb ≤ v ≤ ub` ("lub_free: Bounded variable is 2, but must be in the interval
/// [0, 1]"; with one infinite bound the one-sided check and message), and the offset and
/// multiplier as for the constraining transform.
fn check_value(kind: Kind, v: f64, at: At, a: f64, b: f64) -> Result<()> {
    let lower = |l: f64| -> Result<()> {
        if l == f64::NEG_INFINITY || v >= l {
            return Ok(());
        }
        Err(element_error(
            "lb_free",
            "Lower bounded variable",
            at,
            v,
            format!("greater than or equal to {}", shown(l)),
        ))
    };
    let upper = |u: f64| -> Result<()> {
        if u == f64::INFINITY || v <= u {
            return Ok(());
        }
        Err(element_error(
            "ub_free",
            "Upper bounded variable",
            at,
            v,
            format!("less than or equal to {}", shown(u)),
        ))
    };
    match kind {
        Kind::Lower => lower(a),
        Kind::Upper => upper(a),
        Kind::LowerUpper => match (a == f64::NEG_INFINITY, b == f64::INFINITY) {
            (true, true) => Ok(()),
            (false, true) => lower(a),
            (true, false) => upper(b),
            (false, false) => {
                if a <= v && v <= b {
                    Ok(())
                } else {
                    Err(element_error(
                        "lub_free",
                        "Bounded variable",
                        at,
                        v,
                        format!("in the interval [{}, {}]", shown(a), shown(b)),
                    ))
                }
            }
        },
        Kind::OffsetMultiplier => Ok(()),
    }
}

/// The elementwise transform of one scalar variable `y` with scalar bounds (constants or
/// variables): [`scalar_node`], not an array node. `None` for an array bound.
pub(crate) fn constrain_scalar(
    kind: Kind,
    y: Var,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
    jacobian: bool,
) -> Result<Option<(Var, Option<Var>)>> {
    if a.shape.is_some() || b.shape.is_some() {
        return Ok(None);
    }
    let (_, _, vars) = scalar_node(
        kind,
        (y.value(), scalar_arg(y)),
        (a.get(0), a.arg()),
        (b.get(0), b.arg()),
        jacobian,
    )?;
    Ok(Some(vars.expect("a variable argument")))
}

/// The elementwise transform of `x` (an r×c array read through `grid`), the value row-major.
/// Checks the bounds, records one node.
pub(crate) fn constrain_elementwise<S: Storage>(
    kind: Kind,
    x: &[f64],
    x_arg: Arg,
    grid: Grid,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
    jacobian: bool,
) -> Result<Pair<S>> {
    let (function, _, a_name, b_name) = kind.names();
    let (rows, cols) = (grid.rows, grid.cols);
    matching(function, a_name, a, rows, cols)?;
    if kind == Kind::LowerUpper || kind == Kind::OffsetMultiplier {
        matching(function, b_name, b, rows, cols)?;
    }
    check_bounds(kind, function, a, b, grid.len())?;
    let n = grid.len();
    let mut value = Vec::with_capacity(n);
    let mut lp = 0.0;
    for k in 0..n {
        let e = constrain_element(kind, x[grid.at_row_major(k)], a.get(k), b.get(k));
        value.push(e.v);
        if jacobian {
            lp += e.lp;
        }
    }
    let value = S::from2(ndarray::Array2::from_shape_vec((rows, cols), value).expect("r×c values"));
    let args = [x_arg, a.arg(), b.arg()];
    let kept = args
        .iter()
        .any(Option::is_some)
        .then(|| (x.to_vec(), a.to_kept(), b.to_kept()));
    Ok(record_pair(
        value,
        jacobian.then_some(lp),
        args,
        move |g, g_lp, bars| {
            let (x, a, b) = kept.expect("kept");
            let (wa, wb) = (bars.wants(1), bars.wants(2));
            let mut ca = if wa {
                vec![0.0; a.values.len()]
            } else {
                Vec::new()
            };
            let mut cb = if wb {
                vec![0.0; b.values.len()]
            } else {
                Vec::new()
            };
            let mut x_bar = bars.run(0);
            for k in 0..n {
                let p = grid.at_row_major(k);
                let e = constrain_element(kind, x[p], a.get(k), b.get(k));
                if let Some(xb) = x_bar.as_deref_mut() {
                    xb[p] += g[k] * e.dx + g_lp * e.lx;
                }
                if wa {
                    ca[if a.scalar { 0 } else { k }] += g[k] * e.da + g_lp * e.la;
                }
                if wb {
                    cb[if b.scalar { 0 } else { k }] += g[k] * e.db + g_lp * e.lb;
                }
            }
            if let Some(ab) = bars.run(1) {
                ab.iter_mut().zip(&ca).for_each(|(s, c)| *s += c);
            }
            if let Some(bb) = bars.run(2) {
                bb.iter_mut().zip(&cb).for_each(|(s, c)| *s += c);
            }
        },
    ))
}

/// The unconstrained value of the row-major r×c `v` (written through `grid`), after Stan's
/// checks; one node. Returns the values in `grid`'s order.
pub(crate) fn free_values(
    kind: Kind,
    v: &[f64],
    rows: usize,
    cols: usize,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
    scalar: bool,
) -> Result<Vec<f64>> {
    let (_, function, a_name, b_name) = kind.names();
    matching(function, a_name, a, rows, cols)?;
    if kind == Kind::LowerUpper || kind == Kind::OffsetMultiplier {
        matching(function, b_name, b, rows, cols)?;
    }
    if kind == Kind::OffsetMultiplier {
        check_bounds(kind, function, a, b, v.len())?;
    }
    let mut out = Vec::with_capacity(v.len());
    for (k, &vk) in v.iter().enumerate() {
        let at = if scalar {
            At::Scalar
        } else {
            At::Element { k, rows, cols }
        };
        let (ak, bk) = (a.get(k), b.get(k));
        check_value(kind, vk, at, ak, bk)?;
        out.push(free_element(kind, vk, ak, bk)[0]);
    }
    Ok(out)
}

/// [`free_values`] as one node on array operands.
fn free_array<S: Storage>(
    kind: Kind,
    y: &impl Operand<S>,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
) -> Result<Var<S>> {
    let yv = y.value();
    let (rows, cols) = yv.shape();
    let ys = yv.as_slice();
    let out = free_values(kind, ys, rows, cols, a, b, false)?;
    let value = yv.with_data(out);
    let args = [y.key().map(|k| (k, ys.len())), a.arg(), b.arg()];
    let kept = args
        .iter()
        .any(Option::is_some)
        .then(|| (ys.to_vec(), a.to_kept(), b.to_kept()));
    let n = ys.len();
    Ok(record_pair(value, None, args, move |g, _, bars| {
        let (v, a, b) = kept.expect("kept");
        let (wa, wb) = (bars.wants(1), bars.wants(2));
        let mut ca = if wa {
            vec![0.0; a.values.len()]
        } else {
            Vec::new()
        };
        let mut cb = if wb {
            vec![0.0; b.values.len()]
        } else {
            Vec::new()
        };
        let mut v_bar = bars.run(0);
        for k in 0..n {
            let [_, dv, da, db] = free_element(kind, v[k], a.get(k), b.get(k));
            if let Some(vb) = v_bar.as_deref_mut() {
                vb[k] += g[k] * dv;
            }
            if wa {
                ca[if a.scalar { 0 } else { k }] += g[k] * da;
            }
            if wb {
                cb[if b.scalar { 0 } else { k }] += g[k] * db;
            }
        }
        if let Some(ab) = bars.run(1) {
            ab.iter_mut().zip(&ca).for_each(|(s, c)| *s += c);
        }
        if let Some(bb) = bars.run(2) {
            bb.iter_mut().zip(&cb).for_each(|(s, c)| *s += c);
        }
    })
    .0)
}

/// The scalar transform of `kind`: its value (and log-Jacobian), one node when any argument is
/// a variable.
fn scalar_constrain<O: Real>(
    kind: Kind,
    x: impl Real,
    a: impl Real,
    b: impl Real,
    jacobian: bool,
) -> Result<(O, Option<O>)> {
    let (v, lp, vars) = scalar_node(
        kind,
        (x.value(), scalar_arg(x)),
        (a.value(), scalar_arg(a)),
        (b.value(), scalar_arg(b)),
        jacobian,
    )?;
    // Only data arguments (no variables) give an f64 result, which needs no handle.
    let vars = || vars.expect("a variable argument");
    Ok((
        O::from_value_or(v, || vars().0),
        lp.map(|lp| O::from_value_or(lp, || vars().1.expect("a log-Jacobian"))),
    ))
}

/// The node of a scalar transform of `kind` at `x` with bounds `a`, `b` (each a value and its
/// operand): the value, the log-Jacobian when asked, and their variables (`None` when every
/// argument is data). Checks the bounds.
///
/// With constant bounds (a model's `real<lower=0>`, the common case) each result is a unary
/// node of `x`, the cheapest the tape has, or `x` itself where it equals `x` (`lb + eˣ` has
/// log-Jacobian `x`); variable bounds take one node with both results.
fn scalar_node(
    kind: Kind,
    (xv, x): (f64, Arg),
    (av, a): (f64, Arg),
    (bv, b): (f64, Arg),
    jacobian: bool,
) -> Result<(f64, Option<f64>, Option<Pair<f64>>)> {
    let (function, ..) = kind.names();
    check_bounds(
        kind,
        function,
        &BoundData::scalar(av, None),
        &BoundData::scalar(bv, None),
        1,
    )?;
    let e = constrain_element(kind, xv, av, bv);
    let lp = jacobian.then_some(e.lp);
    if let (Some((key, _)), None, None) = (x, a, b) {
        let y = Var::from_key(xv, key);
        let node = |v: f64, d: f64| {
            if v.to_bits() == xv.to_bits() && d == 1.0 {
                y
            } else {
                record_unary(y, v, move |_, _| d)
            }
        };
        let vars = (node(e.v, e.dx), lp.map(|lp| node(lp, e.lx)));
        return Ok((e.v, lp, Some(vars)));
    }
    let key = record([x, a, b], 1 + usize::from(jacobian), move |g, bars| {
        let e = constrain_element(kind, xv, av, bv);
        let g_lp = g.get(1).copied().unwrap_or(0.0);
        for (i, (d, l)) in [(e.dx, e.lx), (e.da, e.la), (e.db, e.lb)]
            .into_iter()
            .enumerate()
        {
            if let Some(s) = bars.scalar(i) {
                *s += g[0] * d + g_lp * l;
            }
        }
    });
    let vars = key.map(|k| (Var::from_key(e.v, k), lp.map(|lp| Var::from_key(lp, k + 1))));
    Ok((e.v, lp, vars))
}

/// The scalar inverse transform of `kind`, one node when any argument is a variable.
fn scalar_free<O: Real>(kind: Kind, y: impl Real, a: impl Real, b: impl Real) -> Result<O> {
    let (_, function, ..) = kind.names();
    let (yv, av, bv) = (y.value(), a.value(), b.value());
    if kind == Kind::OffsetMultiplier {
        check_bounds(
            kind,
            function,
            &BoundData::scalar(av, None),
            &BoundData::scalar(bv, None),
            1,
        )?;
    }
    check_value(kind, yv, At::Scalar, av, bv)?;
    let [x, ..] = free_element(kind, yv, av, bv);
    let args = [scalar_arg(y), scalar_arg(a), scalar_arg(b)];
    let key = record(args, 1, move |g, bars| {
        let [_, dv, da, db] = free_element(kind, yv, av, bv);
        for (i, d) in [dv, da, db].into_iter().enumerate() {
            if let Some(s) = bars.scalar(i) {
                *s += g[0] * d;
            }
        }
    });
    Ok(O::from_value_or(x, || {
        Var::from_key(x, key.expect("a variable argument"))
    }))
}

/// The elementwise transform of an array operand.
fn constrain_array<S: Storage>(
    kind: Kind,
    x: &impl Operand<S>,
    a: &BoundData<'_>,
    b: &BoundData<'_>,
    jacobian: bool,
) -> Result<Pair<S>> {
    let xv = x.value();
    let (rows, cols) = xv.shape();
    let xs = xv.as_slice();
    constrain_elementwise(
        kind,
        xs,
        x.key().map(|k| (k, xs.len())),
        Grid::row_major(rows, cols),
        a,
        b,
        jacobian,
    )
}

// ---------------------------------------------------------------------------------------------
// Scalar functions.

/// `lb + eˣ`: the value greater than `lb` of the free `x` (Stan's `lower_bound_constrain`,
/// Stan Math's `lb_constrain`); `x` itself when `lb = −∞`. Partials `∂/∂x = eˣ`, `∂/∂lb = 1`.
///
/// # Errors
/// None for any input; the `Result` keeps every transform's signature alike.
///
/// ```
/// use revad::{transform, Var};
/// assert_eq!(transform::lower_bound_constrain(0.0, 1.0).unwrap(), 2.0);
/// let x = Var::new(0.0);
/// let (v, lj) = transform::lower_bound_jacobian(x, 1.0).unwrap();
/// (v + lj).grad(); // ∂v/∂x = e⁰ = 1, ∂(log J)/∂x = 1
/// assert_eq!((v.value(), lj.value(), x.adj()), (2.0, 0.0, 2.0));
/// revad::tape::reset();
/// ```
pub fn lower_bound_constrain<T: Promote<L>, L: Real>(x: T, lb: L) -> Result<T::Output> {
    Ok(scalar_constrain(Kind::Lower, x, lb, 0.0, false)?.0)
}

/// [`lower_bound_constrain`] and its log-Jacobian `x` (0 when `lb = −∞`), from one node (Stan's
/// `lower_bound_jacobian`).
///
/// # Errors
/// None, as [`lower_bound_constrain`].
pub fn lower_bound_jacobian<T: Promote<L>, L: Real>(x: T, lb: L) -> Result<(T::Output, T::Output)> {
    let (v, lp) = scalar_constrain(Kind::Lower, x, lb, 0.0, true)?;
    Ok((v, lp.expect("lp")))
}

/// `log(y − lb)`, the free value of `y ≥ lb` (Stan's `lower_bound_unconstrain`, Stan Math's
/// `lb_free`); `y` itself when `lb = −∞`. Partials `1/(y − lb)`, `−1/(y − lb)`.
///
/// # Errors
/// `y < lb` or NaN ([`Error::Domain`]: "lb_free: Lower bounded variable is -1, but must be
/// greater than or equal to 0").
pub fn lower_bound_unconstrain<T: Promote<L>, L: Real>(y: T, lb: L) -> Result<T::Output> {
    scalar_free(Kind::Lower, y, lb, 0.0)
}

/// `ub − eˣ`: the value less than `ub` of the free `x` (Stan's `upper_bound_constrain`, Stan
/// Math's `ub_constrain`); `x` itself when `ub = ∞`. Partials `−eˣ`, `1`.
///
/// # Errors
/// None, as [`lower_bound_constrain`].
pub fn upper_bound_constrain<T: Promote<U>, U: Real>(x: T, ub: U) -> Result<T::Output> {
    Ok(scalar_constrain(Kind::Upper, x, ub, 0.0, false)?.0)
}

/// [`upper_bound_constrain`] and its log-Jacobian `x` (0 when `ub = ∞`), from one node.
///
/// # Errors
/// None, as [`lower_bound_constrain`].
pub fn upper_bound_jacobian<T: Promote<U>, U: Real>(x: T, ub: U) -> Result<(T::Output, T::Output)> {
    let (v, lp) = scalar_constrain(Kind::Upper, x, ub, 0.0, true)?;
    Ok((v, lp.expect("lp")))
}

/// `log(ub − y)`, the free value of `y ≤ ub` (Stan Math's `ub_free`). Partials `−1/(ub − y)`,
/// `1/(ub − y)`.
///
/// # Errors
/// `y > ub` or NaN ([`Error::Domain`]: "ub_free: Upper bounded variable is 2, but must be less
/// than or equal to 1").
pub fn upper_bound_unconstrain<T: Promote<U>, U: Real>(y: T, ub: U) -> Result<T::Output> {
    scalar_free(Kind::Upper, y, ub, 0.0)
}

/// `lb + (ub − lb)·σ(x)`: the value in `(lb, ub)` of the free `x` (Stan's
/// `lower_upper_bound_constrain`, Stan Math's `lub_constrain`); with one infinite bound the
/// one-sided transform of the other, with both the identity.
///
/// # Errors
/// `lb ≥ ub` (or NaN) with both finite ([`Error::Domain`]: "lub_constrain: lb is 3, but must be
/// less than 2").
///
/// ```
/// use revad::transform;
/// assert_eq!(transform::lower_upper_bound_constrain(0.0, -1.0, 3.0).unwrap(), 1.0);
/// let (v, lj) = transform::lower_upper_bound_jacobian(0.0, -1.0, 3.0).unwrap();
/// assert!((lj - (4.0f64 * 0.25).ln()).abs() < 1e-15); // log((ub − lb)·σ(0)·σ(0))
/// ```
pub fn lower_upper_bound_constrain<T, L, U>(x: T, lb: L, ub: U) -> Result<Promote3<T, L, U>>
where
    T: Promote<L>,
    L: Real,
    U: Real,
    T::Output: Promote<U>,
{
    Ok(scalar_constrain(Kind::LowerUpper, x, lb, ub, false)?.0)
}

/// [`lower_upper_bound_constrain`] and its log-Jacobian `log(ub − lb) + log σ(x) + log σ(−x)`
/// (that of the one-sided transform with one infinite bound), from one node.
///
/// # Errors
/// As [`lower_upper_bound_constrain`].
#[allow(clippy::type_complexity)]
pub fn lower_upper_bound_jacobian<T, L, U>(
    x: T,
    lb: L,
    ub: U,
) -> Result<(Promote3<T, L, U>, Promote3<T, L, U>)>
where
    T: Promote<L>,
    L: Real,
    U: Real,
    T::Output: Promote<U>,
{
    let (v, lp) = scalar_constrain(Kind::LowerUpper, x, lb, ub, true)?;
    Ok((v, lp.expect("lp")))
}

/// `log(y − lb) − log(ub − y)` (the logit of `(y − lb)/(ub − lb)`, accurate next to either
/// bound), the free value of `lb ≤ y ≤ ub` (Stan Math's `lub_free`).
///
/// # Errors
/// `y` outside `[lb, ub]` or NaN ([`Error::Domain`]: "lub_free: Bounded variable is 2, but must
/// be in the interval [0, 1]"); with one infinite bound, the one-sided check.
pub fn lower_upper_bound_unconstrain<T, L, U>(y: T, lb: L, ub: U) -> Result<Promote3<T, L, U>>
where
    T: Promote<L>,
    L: Real,
    U: Real,
    T::Output: Promote<U>,
{
    scalar_free(Kind::LowerUpper, y, lb, ub)
}

/// `μ + σx` (Stan's `offset_multiplier_constrain`). Partials `σ`, `1`, `x`.
///
/// # Errors
/// `offset` not finite ([`Error::Domain`]: "offset_multiplier_constrain: offset is inf, but
/// must be finite"), `multiplier` not positive finite ("... multiplier is 0, but must be
/// positive finite").
pub fn offset_multiplier_constrain<T, M, S>(
    x: T,
    offset: M,
    multiplier: S,
) -> Result<Promote3<T, M, S>>
where
    T: Promote<M>,
    M: Real,
    S: Real,
    T::Output: Promote<S>,
{
    Ok(scalar_constrain(Kind::OffsetMultiplier, x, offset, multiplier, false)?.0)
}

/// [`offset_multiplier_constrain`] and its log-Jacobian `log σ`, from one node.
///
/// # Errors
/// As [`offset_multiplier_constrain`].
#[allow(clippy::type_complexity)]
pub fn offset_multiplier_jacobian<T, M, S>(
    x: T,
    offset: M,
    multiplier: S,
) -> Result<(Promote3<T, M, S>, Promote3<T, M, S>)>
where
    T: Promote<M>,
    M: Real,
    S: Real,
    T::Output: Promote<S>,
{
    let (v, lp) = scalar_constrain(Kind::OffsetMultiplier, x, offset, multiplier, true)?;
    Ok((v, lp.expect("lp")))
}

/// `(y − μ)/σ` (Stan Math's `offset_multiplier_free`). Partials `1/σ`, `−1/σ`, `−x/σ`.
///
/// # Errors
/// As [`offset_multiplier_constrain`], named `offset_multiplier_free`.
pub fn offset_multiplier_unconstrain<T, M, S>(
    y: T,
    offset: M,
    multiplier: S,
) -> Result<Promote3<T, M, S>>
where
    T: Promote<M>,
    M: Real,
    S: Real,
    T::Output: Promote<S>,
{
    scalar_free(Kind::OffsetMultiplier, y, offset, multiplier)
}

// ---------------------------------------------------------------------------------------------
// Elementwise functions on arrays.

/// [`lower_bound_constrain`] on each element of an array (vector, row vector or matrix), one
/// node; `lb` one bound for all or an array of the same shape ([`BoundArg`]).
///
/// # Errors
/// An array bound of another shape ([`Error::Size`]: "lb_constrain: lb has size 3, but must
/// have size 2").
///
/// ```
/// use revad::{matrix, transform, Var, Vector};
/// let x = Var::array(Vector::from(vec![0.0, 1.0]));
/// let (v, lj) = transform::lower_bound_jacobian_array(&x, 1.0).unwrap();
/// assert_eq!(lj.value(), 1.0); // Σ xᵢ
/// (matrix::sum(&v) + lj).grad();
/// assert_eq!(x.adj().to_vec(), vec![2.0, 1.0f64.exp() + 1.0]);
/// revad::tape::reset();
/// ```
pub fn lower_bound_constrain_array<S: Storage>(
    x: &impl Operand<S>,
    lb: impl BoundArg<S>,
) -> Result<Var<S>> {
    let none = BoundData::scalar(0.0, None);
    Ok(constrain_array(Kind::Lower, x, &lb.bound_data(), &none, false)?.0)
}

/// [`lower_bound_constrain_array`] and the sum of the log-Jacobians, from one node.
///
/// # Errors
/// As [`lower_bound_constrain_array`].
pub fn lower_bound_jacobian_array<S: Storage>(
    x: &impl Operand<S>,
    lb: impl BoundArg<S>,
) -> Result<(Var<S>, Var)> {
    let none = BoundData::scalar(0.0, None);
    Ok(with_lp(constrain_array(
        Kind::Lower,
        x,
        &lb.bound_data(),
        &none,
        true,
    )?))
}

/// [`lower_bound_unconstrain`] on each element, one node.
///
/// # Errors
/// As [`lower_bound_unconstrain`] ("lb_free: Lower bounded variable\[2\] is -1, but must be
/// greater than or equal to 0"), and bounds of another shape.
pub fn lower_bound_unconstrain_array<S: Storage>(
    y: &impl Operand<S>,
    lb: impl BoundArg<S>,
) -> Result<Var<S>> {
    let none = BoundData::scalar(0.0, None);
    free_array(Kind::Lower, y, &lb.bound_data(), &none)
}

/// [`upper_bound_constrain`] on each element, one node.
///
/// # Errors
/// An array bound of another shape.
pub fn upper_bound_constrain_array<S: Storage>(
    x: &impl Operand<S>,
    ub: impl BoundArg<S>,
) -> Result<Var<S>> {
    let none = BoundData::scalar(0.0, None);
    Ok(constrain_array(Kind::Upper, x, &ub.bound_data(), &none, false)?.0)
}

/// [`upper_bound_constrain_array`] and the sum of the log-Jacobians, from one node.
///
/// # Errors
/// As [`upper_bound_constrain_array`].
pub fn upper_bound_jacobian_array<S: Storage>(
    x: &impl Operand<S>,
    ub: impl BoundArg<S>,
) -> Result<(Var<S>, Var)> {
    let none = BoundData::scalar(0.0, None);
    Ok(with_lp(constrain_array(
        Kind::Upper,
        x,
        &ub.bound_data(),
        &none,
        true,
    )?))
}

/// [`upper_bound_unconstrain`] on each element, one node.
///
/// # Errors
/// As [`upper_bound_unconstrain`], and bounds of another shape.
pub fn upper_bound_unconstrain_array<S: Storage>(
    y: &impl Operand<S>,
    ub: impl BoundArg<S>,
) -> Result<Var<S>> {
    let none = BoundData::scalar(0.0, None);
    free_array(Kind::Upper, y, &ub.bound_data(), &none)
}

/// [`lower_upper_bound_constrain`] on each element, one node; each bound one for all or an
/// array.
///
/// # Errors
/// As [`lower_upper_bound_constrain`] ("lub_constrain: lb\[2\] is 3, but must be less than 2"
/// for an array `lb`), and bounds of another shape.
pub fn lower_upper_bound_constrain_array<S: Storage>(
    x: &impl Operand<S>,
    lb: impl BoundArg<S>,
    ub: impl BoundArg<S>,
) -> Result<Var<S>> {
    Ok(constrain_array(
        Kind::LowerUpper,
        x,
        &lb.bound_data(),
        &ub.bound_data(),
        false,
    )?
    .0)
}

/// [`lower_upper_bound_constrain_array`] and the sum of the log-Jacobians, from one node.
///
/// # Errors
/// As [`lower_upper_bound_constrain_array`].
pub fn lower_upper_bound_jacobian_array<S: Storage>(
    x: &impl Operand<S>,
    lb: impl BoundArg<S>,
    ub: impl BoundArg<S>,
) -> Result<(Var<S>, Var)> {
    Ok(with_lp(constrain_array(
        Kind::LowerUpper,
        x,
        &lb.bound_data(),
        &ub.bound_data(),
        true,
    )?))
}

/// [`lower_upper_bound_unconstrain`] on each element, one node.
///
/// # Errors
/// As [`lower_upper_bound_unconstrain`], and bounds of another shape.
pub fn lower_upper_bound_unconstrain_array<S: Storage>(
    y: &impl Operand<S>,
    lb: impl BoundArg<S>,
    ub: impl BoundArg<S>,
) -> Result<Var<S>> {
    free_array(Kind::LowerUpper, y, &lb.bound_data(), &ub.bound_data())
}

/// [`offset_multiplier_constrain`] on each element, one node; the log-Jacobian of a scalar
/// multiplier is `n·log σ` for n elements.
///
/// # Errors
/// As [`offset_multiplier_constrain`] ("offset\[2\] is inf, ..." for an array offset), and an
/// offset or multiplier of another shape.
pub fn offset_multiplier_constrain_array<S: Storage>(
    x: &impl Operand<S>,
    offset: impl BoundArg<S>,
    multiplier: impl BoundArg<S>,
) -> Result<Var<S>> {
    Ok(constrain_array(
        Kind::OffsetMultiplier,
        x,
        &offset.bound_data(),
        &multiplier.bound_data(),
        false,
    )?
    .0)
}

/// [`offset_multiplier_constrain_array`] and the sum of the log-Jacobians, from one node.
///
/// # Errors
/// As [`offset_multiplier_constrain_array`].
pub fn offset_multiplier_jacobian_array<S: Storage>(
    x: &impl Operand<S>,
    offset: impl BoundArg<S>,
    multiplier: impl BoundArg<S>,
) -> Result<(Var<S>, Var)> {
    Ok(with_lp(constrain_array(
        Kind::OffsetMultiplier,
        x,
        &offset.bound_data(),
        &multiplier.bound_data(),
        true,
    )?))
}

/// [`offset_multiplier_unconstrain`] on each element, one node.
///
/// # Errors
/// As [`offset_multiplier_unconstrain`], and an offset or multiplier of another shape.
pub fn offset_multiplier_unconstrain_array<S: Storage>(
    y: &impl Operand<S>,
    offset: impl BoundArg<S>,
    multiplier: impl BoundArg<S>,
) -> Result<Var<S>> {
    free_array(
        Kind::OffsetMultiplier,
        y,
        &offset.bound_data(),
        &multiplier.bound_data(),
    )
}
