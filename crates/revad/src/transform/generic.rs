//! Every transform behind one description, for code that handles parameters generically (a
//! model's parameters: Stan's `parameters` block, BridgeStan's `param_constrain`,
//! `param_unconstrain` and `log_density`).
//!
//! A [`Transform`] (with its bounds, offset and multiplier as [`Limit`]s) and the [`Shape`] of
//! the constrained value determine the number of free values ([`Transform::free_size`]). The
//! free values of all parameters lie in one vector, in Stan's order: each parameter's in turn,
//! and within a parameter in the order Stan's deserializer reads them — the order of the
//! `_unconstrain` functions' results for the vector-valued free forms, **column-major** for the
//! matrix-valued ones (an elementwise transform of a matrix, `stochastic_column`,
//! `stochastic_row`, `sum_to_zero` of a matrix). [`Transform::constrain`] and
//! [`Transform::constrain_jacobian`] read a parameter's free values from that vector at an
//! offset (ONE node, which adds into that part of the vector's adjoint; no copy node; a
//! scalar of an elementwise transform with scalar bounds takes the scalar transform's node,
//! cheaper than an array node) and give the constrained value as a [`Value`] (revad's row-major arrays); [`Transform::unconstrain`]
//! maps a constrained value given as data, flattened column-major as Stan writes it, back to
//! its free values in Stan's order.
//!
//! ```
//! use revad::transform::{Shape, Transform, Value};
//! use revad::{Var, Vector};
//! let simplex = Transform::Simplex;
//! assert_eq!(simplex.free_size(Shape::Vector(4)).unwrap(), 3);
//! let free = simplex.unconstrain(&[0.1, 0.2, 0.3, 0.4], Shape::Vector(4)).unwrap();
//! // Read back from a longer free vector, at offset 1.
//! let theta = Var::array(Vector::from(vec![9.0, free[0], free[1], free[2]]));
//! let (value, log_jacobian) = simplex.constrain_jacobian(&theta, 1, Shape::Vector(4)).unwrap();
//! let Value::Vector(x) = value else { unreachable!() };
//! assert!((x.value()[3] - 0.4).abs() < 1e-15);
//! log_jacobian.grad();
//! assert_eq!(theta.adj()[0], 0.0); // the other parameter's free value
//! revad::tape::reset();
//! ```

use std::borrow::Cow;

use super::bounds::{
    constrain_elementwise, constrain_scalar, free_values as bounds_free, BoundArg, BoundData, Kind,
};
use super::check;
use super::cholesky::{
    cholesky_corr_free_values, cholesky_corr_node, cholesky_cov_free_values, cholesky_cov_node,
    cov_factor_size,
};
use super::correlation::{
    corr_matrix_free_values, corr_matrix_node, cov_matrix_free_values, cov_matrix_node, cov_size,
};
use super::ordered::{ordered_free_values, ordered_node};
use super::out::{Grid, Pair, Segment};
use super::simplex::{free_values as simplex_free, simplex_node, Groups, Method};
use super::sum_to_zero::{matrix_free_checked, matrix_node, vector_free_values, vector_node};
use super::unit_vector::unit_vector_node;
use crate::error::{Error, Result};
use crate::matrix::Operand;
use crate::var::{Matrix, Storage, Var, Vector};

/// The shape of a constrained value: a scalar, a vector of n elements, an r×c matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A real.
    Scalar,
    /// A vector of this many elements.
    Vector(usize),
    /// A matrix of (rows, columns).
    Matrix(usize, usize),
}

impl Shape {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match *self {
            Shape::Scalar => 1,
            Shape::Vector(n) => n,
            Shape::Matrix(r, c) => r * c,
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (rows, columns): `(1, 1)` for a scalar, `(n, 1)` for a vector.
    pub fn dims(&self) -> (usize, usize) {
        match *self {
            Shape::Scalar => (1, 1),
            Shape::Vector(n) => (n, 1),
            Shape::Matrix(r, c) => (r, c),
        }
    }
}

/// A constrained value: a scalar, vector or matrix variable.
#[derive(Clone, Debug)]
pub enum Value {
    /// A real.
    Scalar(Var),
    /// A vector.
    Vector(Var<Vector>),
    /// A matrix (row-major, as revad's matrices are).
    Matrix(Var<Matrix>),
}

impl Value {
    /// The values in row-major order.
    pub fn to_vec(&self) -> Vec<f64> {
        match self {
            Value::Scalar(v) => vec![v.value()],
            Value::Vector(v) => v.value().to_vec(),
            Value::Matrix(v) => v.value().iter().copied().collect(),
        }
    }
}

/// A bound, offset or multiplier of a [`Transform`]: one number (data or a variable) for every
/// element, or an array of the value's shape (a vector for a vector, a matrix for a matrix).
/// Also usable wherever a [`BoundArg`] is taken.
#[derive(Clone, Debug)]
pub enum Limit {
    /// A constant.
    Real(f64),
    /// A scalar variable.
    Var(Var),
    /// A constant vector.
    Vector(Vector),
    /// A vector variable.
    VarVector(Var<Vector>),
    /// A constant matrix.
    Matrix(Matrix),
    /// A matrix variable.
    VarMatrix(Var<Matrix>),
}

impl From<f64> for Limit {
    fn from(x: f64) -> Limit {
        Limit::Real(x)
    }
}

impl From<Var> for Limit {
    fn from(x: Var) -> Limit {
        Limit::Var(x)
    }
}

impl Limit {
    fn data(&self) -> BoundData<'_> {
        match self {
            Limit::Real(x) => BoundData::scalar(*x, None),
            Limit::Var(v) => BoundData::scalar(v.value(), Some(v.key())),
            Limit::Vector(v) => BoundData::array(v),
            Limit::VarVector(v) => BoundData::array(v),
            Limit::Matrix(m) => BoundData::array(m),
            Limit::VarMatrix(m) => BoundData::array(m),
        }
    }
}

impl<S: Storage> BoundArg<S> for Limit {
    fn bound_data(&self) -> BoundData<'_> {
        self.data()
    }
}

/// Stan's constraining transforms, each with what it needs besides the shape (whose sizes —
/// K, M, N — come from the [`Shape`]).
///
/// | variant | Stan type | shape | free values |
/// |---|---|---|---|
/// | `Identity` | `real`, `vector`, `matrix` | any | one per element |
/// | `LowerBound(lb)`, `UpperBound(ub)`, `LowerUpperBound(lb, ub)`, `OffsetMultiplier(μ, σ)` | `<lower=…>`, … | any | one per element |
/// | `Ordered`, `PositiveOrdered` | `ordered[K]`, `positive_ordered[K]` | vector K | K |
/// | `Simplex`, `StickBreakingSimplex` | `simplex[K]` | vector K ≥ 1 | K − 1 |
/// | `UnitVector` | `unit_vector[K]` | vector K | K |
/// | `SumToZero` | `sum_to_zero_vector[K]`, `sum_to_zero_matrix[N, M]` | vector K ≥ 1, or matrix N×M (N, M ≥ 1) | K − 1, (N − 1)(M − 1) |
/// | `CholeskyFactorCorr` | `cholesky_factor_corr[K]` | matrix K×K | K(K − 1)/2 |
/// | `CholeskyFactorCov` | `cholesky_factor_cov[M, N]` | matrix M×N, M ≥ N | N(N + 1)/2 + (M − N)N |
/// | `CorrMatrix` | `corr_matrix[K]` | matrix K×K | K(K − 1)/2 |
/// | `CovMatrix` | `cov_matrix[K]` | matrix K×K | K + K(K − 1)/2 |
/// | `StochasticColumn` | `column_stochastic_matrix[N, M]` | matrix N×M, N ≥ 1 | (N − 1)M |
/// | `StochasticRow` | `row_stochastic_matrix[N, M]` | matrix N×M, M ≥ 1 | N(M − 1) |
#[derive(Clone, Debug)]
pub enum Transform {
    /// No constraint.
    Identity,
    /// `lower_bound(lb)`.
    LowerBound(Limit),
    /// `upper_bound(ub)`.
    UpperBound(Limit),
    /// `lower_upper_bound(lb, ub)`.
    LowerUpperBound(Limit, Limit),
    /// `offset_multiplier(offset, multiplier)`.
    OffsetMultiplier(Limit, Limit),
    /// `ordered`.
    Ordered,
    /// `positive_ordered`.
    PositiveOrdered,
    /// `simplex` (Stan 2.37's: the inverse isometric log ratio transform).
    Simplex,
    /// `simplex` by Stan's earlier stick-breaking transform.
    StickBreakingSimplex,
    /// `unit_vector`.
    UnitVector,
    /// `sum_to_zero_vector` for a vector shape, `sum_to_zero_matrix` for a matrix shape.
    SumToZero,
    /// `cholesky_factor_corr`.
    CholeskyFactorCorr,
    /// `cholesky_factor_cov`.
    CholeskyFactorCov,
    /// `corr_matrix`.
    CorrMatrix,
    /// `cov_matrix`.
    CovMatrix,
    /// `column_stochastic_matrix`.
    StochasticColumn,
    /// `row_stochastic_matrix`.
    StochasticRow,
}

/// "name: the constrained value must be …, not …".
fn shape_error(name: &'static str, must: &str, shape: Shape) -> Error {
    let was = match shape {
        Shape::Scalar => "a scalar".to_string(),
        Shape::Vector(n) => format!("a vector of size {n}"),
        Shape::Matrix(r, c) => format!("a {r}×{c} matrix"),
    };
    Error::Matrix {
        function: name,
        argument: "",
        detail: format!("the constrained value must be {must}, not {was}"),
    }
}

/// Column-major `values` (r×c) in row-major order.
fn to_row_major(values: &[f64], r: usize, c: usize) -> Cow<'_, [f64]> {
    if r <= 1 || c <= 1 {
        return Cow::Borrowed(values);
    }
    let mut out = vec![0.0; r * c];
    for j in 0..c {
        for i in 0..r {
            out[i * c + j] = values[j * r + i];
        }
    }
    Cow::Owned(out)
}

/// Row-major `values` (r×c) in column-major order.
fn to_col_major(values: Vec<f64>, r: usize, c: usize) -> Vec<f64> {
    if r <= 1 || c <= 1 {
        return values;
    }
    let mut out = vec![0.0; r * c];
    for i in 0..r {
        for j in 0..c {
            out[j * r + i] = values[i * c + j];
        }
    }
    out
}

impl Transform {
    /// The transform's name in Stan's functions (`lower_bound`, `simplex`, `cov_matrix`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Transform::Identity => "identity",
            Transform::LowerBound(_) => "lower_bound",
            Transform::UpperBound(_) => "upper_bound",
            Transform::LowerUpperBound(..) => "lower_upper_bound",
            Transform::OffsetMultiplier(..) => "offset_multiplier",
            Transform::Ordered => "ordered",
            Transform::PositiveOrdered => "positive_ordered",
            Transform::Simplex => "simplex",
            Transform::StickBreakingSimplex => "stick_breaking_simplex",
            Transform::UnitVector => "unit_vector",
            Transform::SumToZero => "sum_to_zero",
            Transform::CholeskyFactorCorr => "cholesky_factor_corr",
            Transform::CholeskyFactorCov => "cholesky_factor_cov",
            Transform::CorrMatrix => "corr_matrix",
            Transform::CovMatrix => "cov_matrix",
            Transform::StochasticColumn => "stochastic_column",
            Transform::StochasticRow => "stochastic_row",
        }
    }

    /// The elementwise kind and its two limits, for the elementwise transforms.
    fn elementwise(&self) -> Option<(Kind, BoundData<'_>, BoundData<'_>)> {
        let none = || BoundData::scalar(0.0, None);
        let inf = |x: f64| BoundData::scalar(x, None);
        Some(match self {
            Transform::Identity => (Kind::LowerUpper, inf(f64::NEG_INFINITY), inf(f64::INFINITY)),
            Transform::LowerBound(l) => (Kind::Lower, l.data(), none()),
            Transform::UpperBound(u) => (Kind::Upper, u.data(), none()),
            Transform::LowerUpperBound(l, u) => (Kind::LowerUpper, l.data(), u.data()),
            Transform::OffsetMultiplier(m, s) => (Kind::OffsetMultiplier, m.data(), s.data()),
            _ => return None,
        })
    }

    /// The number of free values of a constrained value of `shape` (see the table of
    /// [`Transform`]).
    ///
    /// # Errors
    /// A shape the transform does not take ([`Error::Matrix`]: "simplex: the constrained value
    /// must be a vector of size 1 or more, not a 2×3 matrix").
    ///
    /// ```
    /// use revad::transform::{Shape, Transform};
    /// assert_eq!(Transform::CovMatrix.free_size(Shape::Matrix(3, 3)).unwrap(), 6);
    /// assert_eq!(Transform::CholeskyFactorCorr.free_size(Shape::Matrix(4, 4)).unwrap(), 6);
    /// assert!(Transform::Simplex.free_size(Shape::Scalar).is_err());
    /// ```
    pub fn free_size(&self, shape: Shape) -> Result<usize> {
        let name = self.name();
        let vector = |min: usize, must: &str| match shape {
            Shape::Vector(k) if k >= min => Ok(k),
            _ => Err(shape_error(name, must, shape)),
        };
        let square = |must: &str| match shape {
            Shape::Matrix(r, c) if r == c => Ok(r),
            _ => Err(shape_error(name, must, shape)),
        };
        match self {
            Transform::Identity
            | Transform::LowerBound(_)
            | Transform::UpperBound(_)
            | Transform::LowerUpperBound(..)
            | Transform::OffsetMultiplier(..) => Ok(shape.len()),
            Transform::Ordered | Transform::PositiveOrdered => vector(0, "a vector"),
            Transform::UnitVector => vector(1, "a vector of size 1 or more"),
            Transform::Simplex | Transform::StickBreakingSimplex => {
                Ok(vector(1, "a vector of size 1 or more")? - 1)
            }
            Transform::SumToZero => match shape {
                Shape::Vector(k) if k >= 1 => Ok(k - 1),
                Shape::Matrix(n, m) if n >= 1 && m >= 1 => Ok((n - 1) * (m - 1)),
                _ => Err(shape_error(
                    name,
                    "a vector or matrix with at least one element",
                    shape,
                )),
            },
            Transform::CholeskyFactorCorr | Transform::CorrMatrix => {
                let k = square("a square matrix")?;
                Ok(k * k.saturating_sub(1) / 2)
            }
            Transform::CovMatrix => Ok(cov_size(square("a square matrix")?)),
            Transform::CholeskyFactorCov => match shape {
                Shape::Matrix(m, n) if m >= n => Ok(cov_factor_size(m, n)),
                _ => Err(shape_error(
                    name,
                    "a matrix with at least as many rows as columns",
                    shape,
                )),
            },
            Transform::StochasticColumn => match shape {
                Shape::Matrix(n, m) if n >= 1 => Ok((n - 1) * m),
                _ => Err(shape_error(name, "a matrix with at least one row", shape)),
            },
            Transform::StochasticRow => match shape {
                Shape::Matrix(n, m) if m >= 1 => Ok(n * (m - 1)),
                _ => Err(shape_error(
                    name,
                    "a matrix with at least one column",
                    shape,
                )),
            },
        }
    }

    /// The constrained value of `shape` whose free values are `free[offset..offset + n]`
    /// (`n = free_size(shape)`), without the log-Jacobian. ONE node, which adds into that part of
    /// `free`'s adjoint (a scalar with scalar bounds: the scalar transform's node).
    ///
    /// # Errors
    /// As [`free_size`](Transform::free_size); `free` too short ([`Error::Size`]:
    /// "simplex: free vector has size 3, but must have size 5"); the transform's own (a bound's
    /// shape, `lb ≥ ub`, ...).
    pub fn constrain(
        &self,
        free: &impl Operand<Vector>,
        offset: usize,
        shape: Shape,
    ) -> Result<Value> {
        Ok(self.run(free, offset, shape, false)?.0)
    }

    /// [`constrain`](Transform::constrain) and the log-Jacobian, from ONE node.
    ///
    /// # Errors
    /// As [`constrain`](Transform::constrain).
    pub fn constrain_jacobian(
        &self,
        free: &impl Operand<Vector>,
        offset: usize,
        shape: Shape,
    ) -> Result<(Value, Var)> {
        let (v, lp) = self.run(free, offset, shape, true)?;
        Ok((v, lp.expect("a log-Jacobian was asked for")))
    }

    fn run(
        &self,
        free: &impl Operand<Vector>,
        offset: usize,
        shape: Shape,
        jacobian: bool,
    ) -> Result<(Value, Option<Var>)> {
        if let (Shape::Scalar, Some((kind, a, b)), Some(key)) =
            (shape, self.elementwise(), free.key())
        {
            // One free value of a variable: the scalar transform's node, no array node.
            if let Some(&y) = free.value().as_slice().get(offset) {
                // A scalar view of the element: its adjoint is reached by slot.
                crate::tape::settle_run(key, free.value().len());
                let y = Var::from_key(y, key + offset as u64);
                if let Some((v, lp)) = constrain_scalar(kind, y, &a, &b, jacobian)? {
                    return Ok((Value::Scalar(v), lp));
                }
            }
        }
        let n = self.free_size(shape)?;
        let seg = Segment::new(self.name(), free, offset, n)?;
        let (y, y_arg) = (seg.values(), seg.key().map(|k| (k, n)));
        fn vector((v, lp): Pair<Vector>) -> (Value, Option<Var>) {
            (Value::Vector(v), lp)
        }
        fn matrix((v, lp): Pair<Matrix>) -> (Value, Option<Var>) {
            (Value::Matrix(v), lp)
        }
        if let Some((kind, a, b)) = self.elementwise() {
            return Ok(match shape {
                Shape::Scalar => {
                    let (v, lp) = constrain_elementwise::<Vector>(
                        kind,
                        y,
                        y_arg,
                        Grid::row_major(1, 1),
                        &a,
                        &b,
                        jacobian,
                    )?;
                    let key = v.key();
                    (Value::Scalar(Var::from_key(v.value()[0], key)), lp)
                }
                Shape::Vector(k) => vector(constrain_elementwise(
                    kind,
                    y,
                    y_arg,
                    Grid::row_major(k, 1),
                    &a,
                    &b,
                    jacobian,
                )?),
                Shape::Matrix(r, c) => matrix(constrain_elementwise(
                    kind,
                    y,
                    y_arg,
                    Grid::col_major(r, c),
                    &a,
                    &b,
                    jacobian,
                )?),
            });
        }
        let (r, c) = shape.dims();
        Ok(match self {
            Transform::Ordered => vector(ordered_node(false, y, y_arg, jacobian)),
            Transform::PositiveOrdered => vector(ordered_node(true, y, y_arg, jacobian)),
            Transform::Simplex => vector(simplex_node(
                Method::Ilr,
                y,
                y_arg,
                Groups::vector(r),
                jacobian,
            )),
            Transform::StickBreakingSimplex => vector(simplex_node(
                Method::StickBreaking,
                y,
                y_arg,
                Groups::vector(r),
                jacobian,
            )),
            Transform::UnitVector => vector(unit_vector_node(y, y_arg, jacobian)?),
            Transform::SumToZero => match shape {
                Shape::Matrix(..) => matrix(matrix_node(
                    y,
                    y_arg,
                    Grid::col_major(r - 1, c - 1),
                    jacobian,
                )),
                _ => vector(vector_node(y, y_arg, jacobian)),
            },
            Transform::CholeskyFactorCorr => matrix(cholesky_corr_node(y, y_arg, r, jacobian)?),
            Transform::CholeskyFactorCov => matrix(cholesky_cov_node(y, y_arg, r, c, jacobian)?),
            Transform::CorrMatrix => matrix(corr_matrix_node(y, y_arg, r, jacobian)?),
            Transform::CovMatrix => matrix(cov_matrix_node(y, y_arg, r, jacobian)?),
            Transform::StochasticColumn => matrix(simplex_node(
                Method::Ilr,
                y,
                y_arg,
                Groups::columns(Grid::col_major(r - 1, c)),
                jacobian,
            )),
            Transform::StochasticRow => matrix(simplex_node(
                Method::Ilr,
                y,
                y_arg,
                Groups::rows(Grid::col_major(r, c - 1)),
                jacobian,
            )),
            _ => unreachable!("the elementwise transforms returned above"),
        })
    }

    /// The free values, in Stan's order, of the constrained value of `shape` given as data
    /// flattened column-major (Stan's order of a matrix's elements). Records nothing. The
    /// bounds of an elementwise transform are read as values (a variable's value).
    ///
    /// # Errors
    /// As [`free_size`](Transform::free_size); `value` of another length ([`Error::Size`]:
    /// "simplex: value has size 3, but must have size 4"); the transform's `_unconstrain`
    /// checks ("simplex_free: Simplex variable is not a valid simplex. ...").
    ///
    /// ```
    /// use revad::transform::{Limit, Shape, Transform};
    /// let t = Transform::LowerBound(Limit::Real(1.0));
    /// assert_eq!(t.unconstrain(&[2.0], Shape::Scalar).unwrap(), vec![0.0]);
    /// ```
    pub fn unconstrain(&self, value: &[f64], shape: Shape) -> Result<Vec<f64>> {
        let n = self.free_size(shape)?;
        if value.len() != shape.len() {
            return Err(Error::Size {
                function: self.name(),
                what: "value",
                expected: shape.len(),
                found: value.len(),
            });
        }
        let (r, c) = shape.dims();
        let rm = to_row_major(value, r, c);
        let matrix = || {
            Matrix::from_shape_vec((r, c), rm.to_vec())
                .expect("r×c")
                .into_shared()
        };
        let out = if let Some((kind, a, b)) = self.elementwise() {
            let y = bounds_free(kind, &rm, r, c, &a, &b, shape == Shape::Scalar)?;
            to_col_major(y, r, c)
        } else {
            match self {
                Transform::Ordered => ordered_free_values(false, &rm)?,
                Transform::PositiveOrdered => ordered_free_values(true, &rm)?,
                Transform::Simplex | Transform::StickBreakingSimplex => {
                    check::simplex("simplex_free", "Simplex variable", &rm)?;
                    let method = if matches!(self, Transform::Simplex) {
                        Method::Ilr
                    } else {
                        Method::StickBreaking
                    };
                    simplex_free(method, &rm, Groups::vector(r))
                }
                Transform::UnitVector => {
                    check::unit_vector("unit_vector_free", "Unit vector variable", &rm)?;
                    rm.to_vec()
                }
                Transform::SumToZero => match shape {
                    Shape::Matrix(..) => {
                        to_col_major(matrix_free_checked(&rm, r, c)?, r - 1, c - 1)
                    }
                    _ => vector_free_values(&rm)?,
                },
                Transform::CholeskyFactorCorr => cholesky_corr_free_values(&rm, r, c)?,
                Transform::CholeskyFactorCov => cholesky_cov_free_values(&rm, r, c)?,
                Transform::CorrMatrix => corr_matrix_free_values(&matrix())?.0,
                Transform::CovMatrix => cov_matrix_free_values(&matrix())?.0,
                Transform::StochasticColumn => {
                    check::stochastic_column(
                        "stochastic_column_free",
                        "Column stochastic variable",
                        &rm,
                        r,
                        c,
                    )?;
                    let y =
                        simplex_free(Method::Ilr, &rm, Groups::columns(Grid::row_major(r - 1, c)));
                    to_col_major(y, r - 1, c)
                }
                Transform::StochasticRow => {
                    check::stochastic_row(
                        "stochastic_row_free",
                        "Row stochastic variable",
                        &rm,
                        r,
                        c,
                    )?;
                    let y = simplex_free(Method::Ilr, &rm, Groups::rows(Grid::row_major(r, c - 1)));
                    to_col_major(y, r, c - 1)
                }
                _ => unreachable!("the elementwise transforms are handled above"),
            }
        };
        debug_assert_eq!(out.len(), n);
        Ok(out)
    }
}
