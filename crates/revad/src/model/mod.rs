//! Models for samplers and optimisers: declared parameters with Stan's constraining transforms
//! and a log density, behind the operations of BridgeStan's model (Roualdes, Ward, Carpenter,
//! Seyboldt and Axen (2023), "BridgeStan: Efficient in-memory access to the methods of a Stan
//! model").
//!
//! The [`Model`] trait is what a sampler or an optimiser uses: sizes and names, the maps between
//! the unconstrained vector and the constrained values, and the log density with its gradient
//! (and Hessian, by central differences of gradients, as BridgeStan computes it by default). A
//! [`DensityModel`] is a `Model` made of [`Param`] declarations — each a name, a
//! [`Transform`] and the constrained [`Shape`] — and a log density written with revad that
//! receives the constrained values ([`Values`]).
//!
//! The unconstrained vector holds each parameter's free values in turn, in Stan's order; the
//! constrained vector each parameter's values in column-major order, named `a`, `a.1`, `a.2.3`
//! as Stan names them. `jacobian = true` adds each transform's log absolute Jacobian
//! determinant (for sampling); `propto = true` is passed to the log density, which may drop
//! constant terms. An error at a point a sampler proposed is [recoverable](Error::is_recoverable)
//! when it is a domain error: the sampler rejects the point, as Stan does.
//!
//! ```
//! use revad::model::{DensityModel, Model, Param};
//! use revad::transform::{Limit, Shape, Transform};
//! use revad::{normal_lpdf, Var};
//! // mu ~ normal(0, 1) and y ~ normal(mu, sigma), with sigma > 0 (flat prior).
//! let y = [0.3, -0.4, 1.1];
//! let model = DensityModel::new(
//!     "normal",
//!     vec![
//!         Param::new("mu", Transform::Identity, Shape::Scalar),
//!         Param::new("sigma", Transform::LowerBound(Limit::Real(0.0)), Shape::Scalar),
//!     ],
//!     move |p, propto| {
//!         let (mu, sigma) = (p.scalar("mu")?, p.scalar("sigma")?);
//!         Ok(normal_lpdf(mu, 0.0, 1.0, propto)? + normal_lpdf(&y[..], mu, sigma, propto)?)
//!     },
//! )
//! .unwrap();
//! assert_eq!(model.param_unc_num(), 2);
//! let mut grad = [0.0; 2];
//! let lp = model.log_density_gradient(&[0.0, 0.0], true, true, &mut grad).unwrap();
//! assert!(lp.is_finite() && grad[0] != 0.0);
//! ```

use crate::error::{Error, Result};
use crate::tape;
use crate::transform::{Shape, Transform, Value};
use crate::var::{Matrix, Var, Vector};

/// A parameter declaration: its name, its constraining transform and its constrained shape
/// (Stan's `real<lower=0> tau;` is `Param::new("tau", Transform::LowerBound(0.0.into()),
/// Shape::Scalar)`).
#[derive(Clone, Debug)]
pub struct Param {
    name: String,
    transform: Transform,
    shape: Shape,
}

impl Param {
    /// A declaration.
    pub fn new(name: impl Into<String>, transform: Transform, shape: Shape) -> Param {
        Param {
            name: name.into(),
            transform,
            shape,
        }
    }

    /// The parameter's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The constrained shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The constrained coordinates' names in column-major order: `a`, `a.1`, `a.2.3`.
    fn names(&self) -> Vec<String> {
        match self.shape {
            Shape::Scalar => vec![self.name.clone()],
            Shape::Vector(n) => (1..=n).map(|i| format!("{}.{i}", self.name)).collect(),
            Shape::Matrix(r, c) => (1..=c)
                .flat_map(|j| (1..=r).map(move |i| (i, j)))
                .map(|(i, j)| format!("{}.{i}.{j}", self.name))
                .collect(),
        }
    }
}

/// The constrained values a log density receives, by parameter name.
pub struct Values {
    names: Vec<String>,
    values: Vec<Value>,
}

impl Values {
    /// The value of parameter `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(&self.values[i])
    }

    fn missing(name: &str, kind: &str) -> Error {
        Error::Matrix {
            function: "Values",
            argument: "",
            detail: format!("the model has no {kind} parameter named {name:?}"),
        }
    }

    /// Parameter `name`, a real.
    ///
    /// # Errors
    /// [`Error::Matrix`] if there is no real parameter of that name.
    pub fn scalar(&self, name: &str) -> Result<Var> {
        match self.get(name) {
            Some(Value::Scalar(v)) => Ok(*v),
            _ => Err(Values::missing(name, "real")),
        }
    }

    /// Parameter `name`, a vector.
    ///
    /// # Errors
    /// [`Error::Matrix`] if there is no vector parameter of that name.
    pub fn vector(&self, name: &str) -> Result<&Var<Vector>> {
        match self.get(name) {
            Some(Value::Vector(v)) => Ok(v),
            _ => Err(Values::missing(name, "vector")),
        }
    }

    /// Parameter `name`, a matrix.
    ///
    /// # Errors
    /// [`Error::Matrix`] if there is no matrix parameter of that name.
    pub fn matrix(&self, name: &str) -> Result<&Var<Matrix>> {
        match self.get(name) {
            Some(Value::Matrix(v)) => Ok(v),
            _ => Err(Values::missing(name, "matrix")),
        }
    }
}

/// The operations of a model that samplers and optimisers use, as BridgeStan names them.
/// Slices are of the unconstrained size ([`param_unc_num`](Model::param_unc_num)) or the
/// constrained size ([`param_num`](Model::param_num)).
pub trait Model {
    /// The model's name.
    fn name(&self) -> &str;
    /// The number of constrained parameters.
    fn param_num(&self) -> usize;
    /// The number of unconstrained parameters.
    fn param_unc_num(&self) -> usize;
    /// The constrained parameters' names, column-major within each: `a`, `a.1`, `a.2.3`.
    fn param_names(&self) -> Vec<String>;
    /// The unconstrained parameters' names: `a` for a real, `a.1`, `a.2`, ... otherwise.
    fn param_unc_names(&self) -> Vec<String>;

    /// The constrained parameters of `theta_unc`, into `out`.
    ///
    /// # Errors
    /// [`Error::Size`] for slices of the wrong sizes.
    fn param_constrain(&self, theta_unc: &[f64], out: &mut [f64]) -> Result<()>;

    /// The unconstrained parameters of the constrained `theta` (each parameter's values
    /// column-major), into `out`.
    ///
    /// # Errors
    /// [`Error::Size`] for slices of the wrong sizes; the transform's error (Stan's message)
    /// for a value outside its constrained set.
    fn param_unconstrain(&self, theta: &[f64], out: &mut [f64]) -> Result<()>;

    /// The log density at `theta_unc`.
    ///
    /// # Errors
    /// The log density's errors; [`Error::Size`] for `theta_unc` of the wrong size.
    fn log_density(&self, theta_unc: &[f64], propto: bool, jacobian: bool) -> Result<f64>;

    /// The log density at `theta_unc`, its gradient into `grad`.
    ///
    /// # Errors
    /// As [`log_density`](Model::log_density).
    fn log_density_gradient(
        &self,
        theta_unc: &[f64],
        propto: bool,
        jacobian: bool,
        grad: &mut [f64],
    ) -> Result<f64>;

    /// The log density, its gradient and its Hessian (row-major, `d × d`), the Hessian by
    /// central differences of gradients with steps ε^⅓·max(1, |θᵢ|), symmetrised.
    ///
    /// # Errors
    /// As [`log_density`](Model::log_density).
    fn log_density_hessian(
        &self,
        theta_unc: &[f64],
        propto: bool,
        jacobian: bool,
        grad: &mut [f64],
        hessian: &mut [f64],
    ) -> Result<f64> {
        let d = self.param_unc_num();
        check_size("log_density_hessian", "hessian", d * d, hessian.len())?;
        let lp = self.log_density_gradient(theta_unc, propto, jacobian, grad)?;
        let (mut up, mut down) = (vec![0.0; d], vec![0.0; d]);
        let mut x = theta_unc.to_vec();
        for j in 0..d {
            let h = step(theta_unc[j]);
            x[j] = theta_unc[j] + h;
            self.log_density_gradient(&x, propto, jacobian, &mut up)?;
            x[j] = theta_unc[j] - h;
            self.log_density_gradient(&x, propto, jacobian, &mut down)?;
            x[j] = theta_unc[j];
            for i in 0..d {
                hessian[i * d + j] = (up[i] - down[i]) / (2.0 * h);
            }
        }
        for i in 0..d {
            for j in 0..i {
                let m = 0.5 * (hessian[i * d + j] + hessian[j * d + i]);
                hessian[i * d + j] = m;
                hessian[j * d + i] = m;
            }
        }
        Ok(lp)
    }

    /// The log density and the product of its Hessian with `v`, by a central difference of
    /// gradients along `v`.
    ///
    /// # Errors
    /// As [`log_density`](Model::log_density).
    fn log_density_hessian_vector_product(
        &self,
        theta_unc: &[f64],
        v: &[f64],
        propto: bool,
        jacobian: bool,
        out: &mut [f64],
    ) -> Result<f64> {
        let d = self.param_unc_num();
        check_size("log_density_hessian_vector_product", "v", d, v.len())?;
        let lp = self.log_density(theta_unc, propto, jacobian)?;
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            out.fill(0.0);
            return Ok(lp);
        }
        let size = theta_unc.iter().map(|x| x * x).sum::<f64>().sqrt();
        let h = step(size) / norm;
        let moved =
            |s: f64| -> Vec<f64> { theta_unc.iter().zip(v).map(|(x, v)| x + s * v).collect() };
        let mut down = vec![0.0; d];
        self.log_density_gradient(&moved(h), propto, jacobian, out)?;
        self.log_density_gradient(&moved(-h), propto, jacobian, &mut down)?;
        for (o, d) in out.iter_mut().zip(&down) {
            *o = (*o - d) / (2.0 * h);
        }
        Ok(lp)
    }
}

/// A central-difference step for a coordinate of size `x`: ε^⅓·max(1, |x|).
fn step(x: f64) -> f64 {
    f64::EPSILON.cbrt() * x.abs().max(1.0)
}

fn check_size(
    function: &'static str,
    what: &'static str,
    expected: usize,
    found: usize,
) -> Result<()> {
    crate::error::check::size(function, what, expected, found)
}

/// A [`Model`] made of parameter declarations and a log density of their constrained values:
/// `density(values, propto)`. Each call evaluates in a tape scope of its own, recovered when
/// it returns. A model is not `Sync` (a bound may be a variable, which belongs to one thread's
/// tape): threads (a sampler's chains) each make their own.
pub struct DensityModel<F> {
    name: String,
    params: Vec<(Param, usize)>,
    unc_num: usize,
    num: usize,
    density: F,
}

impl<F: Fn(&Values, bool) -> Result<Var>> DensityModel<F> {
    /// A model named `name` of `params` (in order) and `density`.
    ///
    /// # Errors
    /// A transform that does not take its parameter's shape ("simplex: the constrained value
    /// must be a vector of size 1 or more, not a 2×3 matrix"); two parameters of one name.
    pub fn new(name: impl Into<String>, params: Vec<Param>, density: F) -> Result<Self> {
        let mut placed = Vec::with_capacity(params.len());
        let (mut unc_num, mut num) = (0, 0);
        for (i, p) in params.into_iter().enumerate() {
            if placed
                .iter()
                .take(i)
                .any(|(q, _): &(Param, usize)| q.name == p.name)
            {
                return Err(Error::Matrix {
                    function: "DensityModel::new",
                    argument: "",
                    detail: format!("two parameters are named {:?}", p.name),
                });
            }
            let size = p.transform.free_size(p.shape)?;
            num += p.shape.len();
            placed.push((p, unc_num));
            unc_num += size;
        }
        Ok(DensityModel {
            name: name.into(),
            params: placed,
            unc_num,
            num,
            density,
        })
    }

    /// The constrained values read from the free vector `free`, and the sum of the
    /// log-Jacobians if `jacobian`.
    fn values(&self, free: &Var<Vector>, jacobian: bool) -> Result<(Values, Option<Var>)> {
        let mut values = Vec::with_capacity(self.params.len());
        let mut total: Option<Var> = None;
        for (p, offset) in &self.params {
            if jacobian && !matches!(p.transform, Transform::Identity) {
                let (v, lj) = p.transform.constrain_jacobian(free, *offset, p.shape)?;
                total = Some(total.map_or(lj, |t| t + lj));
                values.push(v);
            } else {
                values.push(p.transform.constrain(free, *offset, p.shape)?);
            }
        }
        let names = self.params.iter().map(|(p, _)| p.name.clone()).collect();
        Ok((Values { names, values }, total))
    }

    /// The log density as a variable, in the current scope.
    fn record(
        &self,
        theta_unc: &[f64],
        propto: bool,
        jacobian: bool,
    ) -> Result<(Var, Var<Vector>)> {
        check_size("log_density", "theta_unc", self.unc_num, theta_unc.len())?;
        let free = Var::array(Vector::from(theta_unc.to_vec()));
        let (values, log_jacobian) = self.values(&free, jacobian)?;
        let lp = (self.density)(&values, propto)?;
        Ok((log_jacobian.map_or(lp, |lj| lp + lj), free))
    }
}

impl<F: Fn(&Values, bool) -> Result<Var>> Model for DensityModel<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn param_num(&self) -> usize {
        self.num
    }

    fn param_unc_num(&self) -> usize {
        self.unc_num
    }

    fn param_names(&self) -> Vec<String> {
        self.params.iter().flat_map(|(p, _)| p.names()).collect()
    }

    fn param_unc_names(&self) -> Vec<String> {
        let mut names = Vec::with_capacity(self.unc_num);
        for (i, (p, offset)) in self.params.iter().enumerate() {
            let end = self.params.get(i + 1).map_or(self.unc_num, |(_, o)| *o);
            match p.shape {
                Shape::Scalar => names.push(p.name.clone()),
                _ => names.extend((1..=end - offset).map(|k| format!("{}.{k}", p.name))),
            }
        }
        names
    }

    fn param_constrain(&self, theta_unc: &[f64], out: &mut [f64]) -> Result<()> {
        check_size(
            "param_constrain",
            "theta_unc",
            self.unc_num,
            theta_unc.len(),
        )?;
        check_size("param_constrain", "out", self.num, out.len())?;
        let _scope = tape::nested();
        let free = Vector::from(theta_unc.to_vec());
        let mut at = 0;
        for (p, offset) in &self.params {
            let value = p.transform.constrain(&free, *offset, p.shape)?;
            let (r, c) = p.shape.dims();
            let row_major = value.to_vec();
            // Column-major, as Stan writes constrained values.
            for j in 0..c {
                for i in 0..r {
                    out[at + j * r + i] = row_major[i * c + j];
                }
            }
            at += r * c;
        }
        Ok(())
    }

    fn param_unconstrain(&self, theta: &[f64], out: &mut [f64]) -> Result<()> {
        check_size("param_unconstrain", "theta", self.num, theta.len())?;
        check_size("param_unconstrain", "out", self.unc_num, out.len())?;
        let mut at = 0;
        for (p, offset) in &self.params {
            let n = p.shape.len();
            let free = p.transform.unconstrain(&theta[at..at + n], p.shape)?;
            out[*offset..*offset + free.len()].copy_from_slice(&free);
            at += n;
        }
        Ok(())
    }

    fn log_density(&self, theta_unc: &[f64], propto: bool, jacobian: bool) -> Result<f64> {
        // On variables even without a gradient: a density of data only drops every term
        // with `propto`.
        let _scope = tape::nested();
        Ok(self.record(theta_unc, propto, jacobian)?.0.value())
    }

    fn log_density_gradient(
        &self,
        theta_unc: &[f64],
        propto: bool,
        jacobian: bool,
        grad: &mut [f64],
    ) -> Result<f64> {
        check_size("log_density_gradient", "grad", self.unc_num, grad.len())?;
        let _scope = tape::nested();
        let (lp, free) = self.record(theta_unc, propto, jacobian)?;
        lp.try_grad()?;
        grad.copy_from_slice(free.adj().as_slice().expect("a vector"));
        Ok(lp.value())
    }
}
