//! Stan's Gaussian-process covariance functions (`revad::linalg::gp_*_cov`), each one node
//! however many points there are.
//!
//! As in Stan, a function takes one set of points, `gp_exp_quad_cov(x, sigma, length_scale)`
//! (the T×T covariance of `x` with itself), or two, `gp_exp_quad_cov(x1, x2, sigma,
//! length_scale)` (the T₁×T₂ cross covariance), told apart by the number of arguments; the
//! parameters may also be given by keyword. A set of points is numbers (a 1-D array or a list
//! of floats and scalar Vars: Stan's `array[] real`) or vectors (a 2-D array with one point per
//! row, or a list of 1-D arrays: Stan's `array[] vector`). The stationary kernels also take one
//! length scale per dimension (a 1-D array). A call on data only returns a NumPy array and,
//! from 64 points on, runs with the GIL released.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::types::{PyAny, PyList, PyTuple};
use revad::{linalg, Matrix, Var, Vector};

use crate::args::{Arg, Arr, Ax, X};
use crate::convert::{arg, array_arg, try_arg, vector_arg};
use crate::errors::to_py;
use crate::family::family;
use crate::gil::{on_data, res_of, IntoData, Output};
use crate::handle::{PyData, PyVar};
use crate::record;

/// One set of points: numbers or vectors (one per row).
enum Set {
    Num(Arr<Vector>),
    Vec(Arr<Matrix>),
}

impl Set {
    /// The number of points.
    fn len(&self) -> usize {
        match self {
            Set::Num(a) => a.value().len(),
            Set::Vec(a) => a.value().nrows(),
        }
    }

    /// Whether the points are data.
    fn is_data(&self) -> bool {
        matches!(self, Set::Num(Arr::D(_)) | Set::Vec(Arr::D(_)))
    }

    /// Numbers as vectors of dimension 1 (for a pair whose other set is vectors).
    fn into_vectors(self) -> Set {
        let column = |v: Vector| {
            let n = v.len();
            v.into_shape_with_order((n, 1)).expect("n×1")
        };
        match self {
            Set::Num(Arr::V(v)) => {
                let (value, key) = v.to_array_bits();
                Set::Vec(Arr::V(Var::from_array_bits(column(value), key)))
            }
            Set::Num(Arr::D(d)) => Set::Vec(Arr::D(column(d))),
            vectors => vectors,
        }
    }

    /// The values, once every operand is known to be data.
    fn data(&self) -> DataSet {
        match self {
            Set::Num(a) => DataSet::Num(a.value().clone()),
            Set::Vec(a) => DataSet::Vec(a.value().clone()),
        }
    }
}

/// The points of a call: one set, or a pair of sets of one kind.
enum Points {
    One(Set),
    Two(Set, Set),
}

impl Points {
    /// The size that decides whether a call on data releases the GIL: the larger number of
    /// points.
    fn size(&self) -> usize {
        match self {
            Points::One(x) => x.len(),
            Points::Two(x1, x2) => x1.len().max(x2.len()),
        }
    }

    fn is_data(&self) -> bool {
        match self {
            Points::One(x) => x.is_data(),
            Points::Two(x1, x2) => x1.is_data() && x2.is_data(),
        }
    }

    fn data(&self) -> DataPoints {
        match self {
            Points::One(x) => DataPoints::One(x.data()),
            Points::Two(x1, x2) => DataPoints::Two(x1.data(), x2.data()),
        }
    }
}

/// A [`Set`] of data, sendable to a call without the GIL.
enum DataSet {
    Num(Vector),
    Vec(Matrix),
}

/// [`Points`] of data.
enum DataPoints {
    One(DataSet),
    Two(DataSet, DataSet),
}

/// A length scale: one for every dimension, or one per dimension.
enum Scale {
    One(Arg),
    Each(Arr<Vector>),
}

/// `$body` with `$x` bound to the core's input for `$points` (a [`Points`]): `&x` for one set,
/// `(&x1, &x2)` for a pair, each `&Var<_>` or `&Vector`/`&Matrix`.
macro_rules! with_points {
    ($points:expr, |$x:ident| $body:expr) => {
        match $points {
            Points::One(Set::Num(Arr::V(p))) => {
                let $x = &p;
                $body
            }
            Points::One(Set::Num(Arr::D(p))) => {
                let $x = &p;
                $body
            }
            Points::One(Set::Vec(Arr::V(p))) => {
                let $x = &p;
                $body
            }
            Points::One(Set::Vec(Arr::D(p))) => {
                let $x = &p;
                $body
            }
            Points::Two(Set::Num(p), Set::Num(q)) => with_pair!(p, q, |$x| $body),
            Points::Two(Set::Vec(p), Set::Vec(q)) => with_pair!(p, q, |$x| $body),
            Points::Two(..) => unreachable!("the sets of a pair are made one kind"),
        }
    };
}

/// `$body` with `$x` bound to `(&p, &q)` for two operands of one kind.
macro_rules! with_pair {
    ($p:expr, $q:expr, |$x:ident| $body:expr) => {
        match ($p, $q) {
            (Arr::V(p), Arr::V(q)) => {
                let $x = (&p, &q);
                $body
            }
            (Arr::V(p), Arr::D(q)) => {
                let $x = (&p, &q);
                $body
            }
            (Arr::D(p), Arr::V(q)) => {
                let $x = (&p, &q);
                $body
            }
            (Arr::D(p), Arr::D(q)) => {
                let $x = (&p, &q);
                $body
            }
        }
    };
}

/// [`with_points`] for [`DataPoints`].
macro_rules! with_data_points {
    ($points:expr, |$x:ident| $body:expr) => {
        match $points {
            DataPoints::One(DataSet::Num(p)) => {
                let $x = &p;
                $body
            }
            DataPoints::One(DataSet::Vec(p)) => {
                let $x = &p;
                $body
            }
            DataPoints::Two(DataSet::Num(p), DataSet::Num(q)) => {
                let $x = (&p, &q);
                $body
            }
            DataPoints::Two(DataSet::Vec(p), DataSet::Vec(q)) => {
                let $x = (&p, &q);
                $body
            }
            DataPoints::Two(..) => unreachable!("the sets of a pair are made one kind"),
        }
    };
}

/// Whether `obj`, an element of a list of points, is itself a point (a 1-D array, an array
/// Var or a sequence) rather than a number.
fn is_point(obj: &Bound<'_, PyAny>) -> bool {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return true;
    }
    if let Ok(v) = obj.cast::<PyVar>() {
        return v.get().is_array();
    }
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return a.ndim() > 0;
    }
    obj.is_instance_of::<PyData>()
}

/// A set of points, argument `name` of `function`.
fn read_set(obj: &Bound<'_, PyAny>, function: &'static str, name: &'static str) -> PyResult<Set> {
    let is_list = obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if is_list && obj.len()? > 0 && is_point(&obj.get_item(0)?) {
        let mut vectors = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            vectors.push(vector_arg(&item?, function, &format!("{name}[{i}]"))?);
        }
        return stack(vectors, function, name).map(Set::Vec);
    }
    Ok(match array_arg(obj, function, name)? {
        Ax::V(v) => Set::Num(v),
        Ax::M(m) => Set::Vec(m),
    })
}

/// A list of points (vectors) as one matrix, a point per row: data if every point is, else
/// one variable gathered by one node.
fn stack(
    vectors: Vec<Arr<Vector>>,
    function: &'static str,
    name: &'static str,
) -> PyResult<Arr<Matrix>> {
    let d = vectors.first().map_or(0, |v| v.value().len());
    for v in &vectors {
        let found = v.value().len();
        if found != d {
            let what = match name {
                "x1" => "a point of x1",
                "x2" => "a point of x2",
                _ => "a point of x",
            };
            return Err(to_py(revad::Error::Size {
                function,
                what,
                expected: d,
                found,
            }));
        }
    }
    let values: Vec<f64> = vectors.iter().flat_map(|v| v.value().iter().copied()).collect();
    let like = Matrix::from_shape_vec((vectors.len(), d), values).expect("shape");
    if vectors.iter().all(|v| matches!(v, Arr::D(_))) {
        return Ok(Arr::D(like));
    }
    let vars: Vec<Var> = vectors
        .iter()
        .flat_map(|v| match v {
            Arr::V(v) => v.to_vars(),
            Arr::D(d) => d.iter().map(|&x| Var::new(x)).collect(),
        })
        .collect();
    Ok(Arr::V(Var::from_vars(&like, &vars).map_err(to_py)?))
}

/// The arguments of a call in Stan's order, `(x, p₁, …)` or `(x1, x2, p₁, …)` for the
/// parameters `params` (name and keyword value): the points and the parameters' objects.
fn parse<'py, const P: usize>(
    function: &'static str,
    args: &Bound<'py, PyTuple>,
    params: [(&'static str, Option<&Bound<'py, PyAny>>); P],
) -> PyResult<(Vec<Set>, [Bound<'py, PyAny>; P])> {
    let keywords = params.iter().filter(|(_, v)| v.is_some()).count();
    let given = args.len() + keywords;
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    let sets = given.checked_sub(P).filter(|s| (1..=2).contains(s)).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{function}() takes (x, {0}) or (x1, x2, {0}), not {given} arguments",
            names.join(", ")
        ))
    })?;
    let mut slots: Vec<Option<Bound<'py, PyAny>>> = vec![None; sets + P];
    for (slot, a) in slots.iter_mut().zip(args.iter()) {
        *slot = Some(a);
    }
    for (i, (name, value)) in params.iter().enumerate() {
        if let Some(value) = value {
            let slot = &mut slots[sets + i];
            if slot.is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{function}() got multiple values for argument '{name}'"
                )));
            }
            *slot = Some((*value).clone());
        }
    }
    let mut slots = slots.into_iter().map(|s| s.expect("every slot is filled"));
    let sets = if sets == 1 {
        vec![read_set(&slots.next().expect("x"), function, "x")?]
    } else {
        let x1 = read_set(&slots.next().expect("x1"), function, "x1")?;
        let x2 = read_set(&slots.next().expect("x2"), function, "x2")?;
        vec![x1, x2]
    };
    let rest: Vec<Bound<'py, PyAny>> = slots.collect();
    let rest: [Bound<'py, PyAny>; P] = rest
        .try_into()
        .unwrap_or_else(|_| unreachable!("P parameters follow the points"));
    Ok((sets, rest))
}

/// The points of a call from its one or two sets (a pair made one kind: numbers beside
/// vectors are vectors of dimension 1).
fn points(sets: Vec<Set>) -> Points {
    let mut sets = sets.into_iter();
    let x1 = sets.next().expect("a set of points");
    match sets.next() {
        None => Points::One(x1),
        Some(x2) => match (x1, x2) {
            (Set::Num(a), Set::Vec(b)) => Points::Two(Set::Num(a).into_vectors(), Set::Vec(b)),
            (Set::Vec(a), Set::Num(b)) => Points::Two(Set::Vec(a), Set::Num(b).into_vectors()),
            (x1, x2) => Points::Two(x1, x2),
        },
    }
}

/// The operands of a call declared for replay: its sets of points (each a 1-D or 2-D array),
/// then its parameters.
fn operands(sets: Vec<Set>, params: impl IntoIterator<Item = X>) -> Vec<X> {
    sets.into_iter()
        .map(|s| match s {
            Set::Num(a) => X::from(a),
            Set::Vec(a) => X::from(a),
        })
        .chain(params)
        .collect()
}

/// The points and parameters of a call back from its operands (`n` sets of points first),
/// and whether every operand is data.
fn from_operands<'a>(ops: &'a [&'a X], n: usize) -> (Points, &'a [&'a X], bool) {
    let data_only = ops.iter().all(|x| x.is_data());
    let sets = ops[..n]
        .iter()
        .map(|x| match x.array() {
            Ax::V(a) => Set::Num(a),
            Ax::M(a) => Set::Vec(a),
        })
        .collect();
    (points(sets), &ops[n..], data_only)
}

/// A length scale: a scalar (float or Var), or a 1-D array or list (one per dimension).
fn read_scale(obj: &Bound<'_, PyAny>, function: &'static str) -> PyResult<Scale> {
    // An array Var is one per dimension (the scalar reader would refuse it).
    if !obj.cast::<PyVar>().is_ok_and(|v| v.get().is_array()) {
        if let Some(s) = try_arg(obj, function)? {
            return Ok(Scale::One(s));
        }
    }
    Ok(Scale::Each(vector_arg(obj, function, "length_scale")?))
}

/// A scalar parameter as a variable (a constant one for a float) for a recorded call.
fn var_of(a: Arg) -> Var {
    match a {
        Arg::F(x) => Var::new(x),
        Arg::V(v) => v,
    }
}

/// The result of a call on data as a Python object (an error as its exception).
fn finish<D: IntoData>(py: Python<'_>, result: revad::Result<D>) -> PyResult<Py<PyAny>> {
    result.map_err(to_py)?.into_data(py)
}

/// A stationary kernel `σ² κ(r/ℓ)`: `f(x, sigma, length_scale)` or
/// `f(x1, x2, sigma, length_scale)`, with per-dimension length scales.
macro_rules! stationary {
    ($(#[$doc:meta])* $name:ident => $core:path) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (*args, sigma = None, length_scale = None))]
        fn $name(
            py: Python<'_>,
            args: &Bound<'_, PyTuple>,
            sigma: Option<&Bound<'_, PyAny>>,
            length_scale: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Py<PyAny>> {
            const F: &str = stringify!($name);
            let (sets, sigma, scale) = record::declared(|| -> PyResult<_> {
                let (sets, [sigma, scale]) =
                    parse(F, args, [("sigma", sigma), ("length_scale", length_scale)])?;
                Ok((sets, arg(&sigma, F, "sigma")?, read_scale(&scale, F)?))
            })?;
            let data = sets.iter().all(Set::is_data)
                && matches!(sigma, Arg::F(_))
                && matches!(scale, Scale::One(Arg::F(_)) | Scale::Each(Arr::D(_)));
            if record::recording() || !data {
                let n = sets.len();
                let scale = match scale {
                    Scale::One(l) => X::S(l),
                    Scale::Each(l) => X::from(l),
                };
                let ops = operands(sets, [X::S(sigma), scale]);
                return record::apply(F, &ops, move |ops| {
                    let (points, params, data_only) = from_operands(ops, n);
                    let (sigma, scale) = (params[0].scalar(), &params[1]);
                    res_of(data_only, || {
                        let s = var_of(sigma);
                        match scale {
                            X::S(l) => {
                                let l = var_of(*l);
                                with_points!(points, |x| $core(x, s, l))
                            }
                            l => match l.vector() {
                                Arr::V(l) => with_points!(points, |x| $core(x, s, &l)),
                                Arr::D(l) => with_points!(points, |x| $core(x, s, &l)),
                            },
                        }
                    })
                })?
                .into_py(py);
            }
            let points = points(sets);
            let n = points.size();
            match (&sigma, &scale) {
                (Arg::F(s), Scale::One(Arg::F(l))) if points.is_data() => {
                    let (s, l, data) = (*s, *l, points.data());
                    let r = on_data(py, n, move || {
                        with_data_points!(data, |x| $core(x, s, l).map(Output::data))
                    });
                    finish(py, r)
                }
                (Arg::F(s), Scale::Each(Arr::D(l))) if points.is_data() => {
                    let (s, l, data) = (*s, l.clone(), points.data());
                    let r = on_data(py, n, move || {
                        with_data_points!(data, |x| $core(x, s, &l).map(Output::data))
                    });
                    finish(py, r)
                }
                _ => unreachable!("a call on data only"),
            }
        }
    };
}

stationary! {
    /// `gp_exp_quad_cov(x, sigma, length_scale)` or `gp_exp_quad_cov(x1, x2, sigma,
    /// length_scale)`: the squared exponential covariance
    /// ``Kᵢⱼ = σ² exp(−|xᵢ − x′ⱼ|² / (2ℓ²))`` of one set of points (T×T, symmetric) or of two
    /// (T₁×T₂). Points are numbers (a 1-D array or a list) or vectors (a 2-D array, one point
    /// per row, or a list of 1-D arrays); ``length_scale`` is one number or a 1-D array with
    /// one ℓₖ per dimension: ``Kᵢⱼ = σ² exp(−½ Σₖ (xᵢₖ − x′ⱼₖ)²/ℓₖ²)``.
    ///
    /// Reverse pass: ``σ̄ += (2/σ) Σ ḡK``, ``ℓ̄ += Σ ḡK r²/ℓ³``; variable points through
    /// ``∂K/∂r² = −K/(2ℓ²)``. One node.
    ///
    /// Raises ``DomainError`` unless σ and ℓ are positive (finite for per-dimension length
    /// scales) and no point is NaN; ``SizeError`` for points of different dimensions or a
    /// wrong number of length scales.
    ///
    /// >>> import numpy as np, revad
    /// >>> k = revad.gp_exp_quad_cov(np.array([0.0, 1.0]), 2.0, 1.0)
    /// >>> bool(np.allclose(k, [[4.0, 4.0 * np.exp(-0.5)], [4.0 * np.exp(-0.5), 4.0]]))
    /// True
    /// >>> revad.gp_exp_quad_cov([0.0, 1.0], [0.5], sigma=1.0, length_scale=1.0).shape
    /// (2, 1)
    gp_exp_quad_cov => linalg::gp_exp_quad_cov
}

stationary! {
    /// `gp_matern32_cov(x, sigma, length_scale)` or `gp_matern32_cov(x1, x2, sigma,
    /// length_scale)`: the Matérn 3/2 covariance ``Kᵢⱼ = σ² (1 + √3 r/ℓ) exp(−√3 r/ℓ)``,
    /// ``r = |xᵢ − x′ⱼ|``, with points and length scales as ``gp_exp_quad_cov``.
    ///
    /// Reverse pass, ``u = √3 r/ℓ``: ``σ̄ += (2/σ) Σ ḡK``, ``ℓ̄ += Σ ḡ σ² u² e⁻ᵘ/ℓ``; points
    /// through ``∂K/∂r² = −(3/2) σ² e⁻ᵘ/ℓ²``.
    ///
    /// Raises ``DomainError`` unless σ and ℓ are positive and finite and no point is NaN;
    /// ``SizeError`` as ``gp_exp_quad_cov``.
    gp_matern32_cov => linalg::gp_matern32_cov
}

stationary! {
    /// `gp_matern52_cov(x, sigma, length_scale)` or `gp_matern52_cov(x1, x2, sigma,
    /// length_scale)`: the Matérn 5/2 covariance
    /// ``Kᵢⱼ = σ² (1 + √5 r/ℓ + 5r²/(3ℓ²)) exp(−√5 r/ℓ)``, with points and length scales as
    /// ``gp_exp_quad_cov``.
    ///
    /// Reverse pass, ``u = √5 r/ℓ``: ``σ̄ += (2/σ) Σ ḡK``, ``ℓ̄ += Σ ḡ σ² (1 + u) u² e⁻ᵘ/(3ℓ)``.
    ///
    /// Raises as ``gp_matern32_cov``.
    gp_matern52_cov => linalg::gp_matern52_cov
}

stationary! {
    /// `gp_exponential_cov(x, sigma, length_scale)` or `gp_exponential_cov(x1, x2, sigma,
    /// length_scale)`: the exponential (Matérn 1/2) covariance ``Kᵢⱼ = σ² exp(−r/ℓ)``, with
    /// points and length scales as ``gp_exp_quad_cov``. The kernel has a kink at r = 0: two
    /// coincident variable points get 0 from their pair.
    ///
    /// Reverse pass, ``u = r/ℓ``: ``σ̄ += (2/σ) Σ ḡK``, ``ℓ̄ += Σ ḡK u/ℓ``.
    ///
    /// Raises as ``gp_matern32_cov``.
    gp_exponential_cov => linalg::gp_exponential_cov
}

/// `gp_periodic_cov(x, sigma, length_scale, period)` or `gp_periodic_cov(x1, x2, sigma,
/// length_scale, period)`: the periodic covariance
/// ``Kᵢⱼ = σ² exp(−2 sin²(π|xᵢ − x′ⱼ|/p) / ℓ²)``, with points as ``gp_exp_quad_cov`` and one
/// length scale ℓ and period p (floats or Vars).
///
/// Reverse pass, ``t = πr/p``: ``σ̄ += (2/σ) Σ ḡK``, ``ℓ̄ += Σ ḡ 4K sin²t/ℓ³``,
/// ``p̄ += Σ ḡ 2K sin(2t) t/(ℓ²p)``. One node.
///
/// Raises ``DomainError`` unless σ, ℓ and p are positive and no point is NaN.
///
/// >>> import numpy as np, revad
/// >>> k = revad.gp_periodic_cov(np.array([0.0, 0.5, 2.0]), 1.0, 1.0, 2.0)
/// >>> round(float(k[0, 2]), 12)  # one period apart
/// 1.0
#[pyfunction]
#[pyo3(signature = (*args, sigma = None, length_scale = None, period = None))]
fn gp_periodic_cov(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    sigma: Option<&Bound<'_, PyAny>>,
    length_scale: Option<&Bound<'_, PyAny>>,
    period: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "gp_periodic_cov";
    let params = [
        ("sigma", sigma),
        ("length_scale", length_scale),
        ("period", period),
    ];
    let (sets, sigma, l, p) = record::declared(|| -> PyResult<_> {
        let (sets, [sigma, l, p]) = parse(F, args, params)?;
        Ok((
            sets,
            arg(&sigma, F, "sigma")?,
            arg(&l, F, "length_scale")?,
            arg(&p, F, "period")?,
        ))
    })?;
    let data = sets.iter().all(Set::is_data)
        && [sigma, l, p].iter().all(|a| matches!(a, Arg::F(_)));
    if record::recording() || !data {
        let n = sets.len();
        let ops = operands(sets, [X::S(sigma), X::S(l), X::S(p)]);
        return record::apply(F, &ops, move |ops| {
            let (points, params, data_only) = from_operands(ops, n);
            let (s, l, p) = (params[0].scalar(), params[1].scalar(), params[2].scalar());
            res_of(data_only, || {
                let (s, l, p) = (var_of(s), var_of(l), var_of(p));
                with_points!(points, |x| linalg::gp_periodic_cov(x, s, l, p))
            })
        })?
        .into_py(py);
    }
    let points = points(sets);
    let n = points.size();
    match (sigma, l, p) {
        (Arg::F(s), Arg::F(l), Arg::F(p)) if points.is_data() => {
            let data = points.data();
            let r = on_data(py, n, move || {
                with_data_points!(data, |x| linalg::gp_periodic_cov(x, s, l, p)
                    .map(Output::data))
            });
            finish(py, r)
        }
        _ => unreachable!("a call on data only"),
    }
}

/// `gp_dot_prod_cov(x, sigma)` or `gp_dot_prod_cov(x1, x2, sigma)`: the dot-product
/// covariance ``Kᵢⱼ = σ² + xᵢ·x′ⱼ`` (Bayesian linear regression with N(0, 1) coefficients and
/// an N(0, σ²) intercept), with points as ``gp_exp_quad_cov``.
///
/// Reverse pass: ``σ̄ += 2σ Σ ḡ``, ``X̄₁ += Ḡ X₂``, ``X̄₂ += Ḡᵀ X₁``. One node.
///
/// Raises ``DomainError`` unless σ is nonnegative and finite and the points are finite.
///
/// >>> import numpy as np, revad
/// >>> revad.gp_dot_prod_cov(np.array([1.0, 2.0]), 0.5).tolist()
/// [[1.25, 2.25], [2.25, 4.25]]
#[pyfunction]
#[pyo3(signature = (*args, sigma = None))]
fn gp_dot_prod_cov(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    sigma: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    const F: &str = "gp_dot_prod_cov";
    let (sets, sigma) = record::declared(|| -> PyResult<_> {
        let (sets, [sigma]) = parse(F, args, [("sigma", sigma)])?;
        Ok((sets, arg(&sigma, F, "sigma")?))
    })?;
    if record::recording() || !(sets.iter().all(Set::is_data) && matches!(sigma, Arg::F(_))) {
        let n = sets.len();
        let ops = operands(sets, [X::S(sigma)]);
        return record::apply(F, &ops, move |ops| {
            let (points, params, data_only) = from_operands(ops, n);
            let s = params[0].scalar();
            res_of(data_only, || {
                let s = var_of(s);
                with_points!(points, |x| linalg::gp_dot_prod_cov(x, s))
            })
        })?
        .into_py(py);
    }
    let points = points(sets);
    let n = points.size();
    match sigma {
        Arg::F(s) if points.is_data() => {
            let data = points.data();
            let r = on_data(py, n, move || {
                with_data_points!(data, |x| linalg::gp_dot_prod_cov(x, s).map(Output::data))
            });
            finish(py, r)
        }
        _ => unreachable!("a call on data only"),
    }
}

family! {
    functions: [
        gp_exp_quad_cov,
        gp_matern32_cov,
        gp_matern52_cov,
        gp_exponential_cov,
        gp_periodic_cov,
        gp_dot_prod_cov,
    ],
}
