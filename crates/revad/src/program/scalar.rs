//! The scalar form of a program: when every operation of a recording is a scalar operator, an
//! elementary unary function, a read of one element, or an array operation the form knows
//! (arithmetic of an array with a scalar or with an array of its shape, a sum, an elementwise
//! function, a matrix times a vector, the densities of real arguments that [`Density`],
//! [`Density2`] and [`Density4`] list), the program can also run on plain `f64` slots,
//! without a tape and without a node per operation.
//!
//! A [`ScalarProgram`] is a straight-line list of [`Instr`]: slots `0..inputs` are the
//! inputs' elements (variables and data alike), then one slot per scalar instruction; an
//! array instruction ([`ArrayInstr`]: `a·s`, `s − a`, ..., `normal_lpdf`, `cauchy_lpdf`) takes
//! a run of slots for its result and, after it, the values its reverse pass needs.
//! [`ScalarProgram::forward`] computes every slot's value; [`ScalarProgram::reverse`] runs the
//! instructions newest first, as the tape's sweep runs their nodes (the Stan Math paper,
//! section 2), adding each partial times its result's adjoint to its operands' adjoints. Each
//! instruction computes its value and its partials with the same arithmetic as the operator or
//! function it stands for, with the same kernels, in the same order, so a run gives bit for bit
//! the value and gradient of the tape. Where a taped density would check its arguments (σ ≤ 0,
//! a non-finite sum), the forward pass declines and the caller runs the taped function.
//!
//! One forward pass serves any number of reverse sweeps: a Jacobian takes one sweep per output
//! (an ODE's right-hand side, two for Lotka–Volterra).
//!
//! ```
//! use revad::program::scalar::{Elementary, Instr, ScalarProgram};
//!
//! // f(x, y) = x·log(y) + log(x·y)·y: slots 0 and 1 are x and y.
//! let log = Elementary::named("log").unwrap();
//! let mut p = ScalarProgram::new(2);
//! let log_y = p.push(Instr::Unary(1, log));
//! let t1 = p.push(Instr::Mul(0, log_y));
//! let xy = p.push(Instr::Mul(0, 1));
//! let log_xy = p.push(Instr::Unary(xy, log));
//! let t2 = p.push(Instr::Mul(log_xy, 1));
//! let f = p.push(Instr::Add(t1, t2));
//! p.set_outputs(&[f], true);
//!
//! let (x, y) = (1.3f64, 2.4f64);
//! let mut values = vec![x, y];
//! assert!(p.forward(&mut values));
//! let mut adj = vec![0.0; values.len()];
//! adj[f as usize] = 1.0;
//! p.reverse(&values, &mut adj);
//! assert!((values[f as usize] - (x * y.ln() + (x * y).ln() * y)).abs() < 1e-14);
//! assert!((adj[0] - (y.ln() + y / x)).abs() < 1e-14);
//! ```

use std::fmt;

use smallvec::SmallVec;

use crate::kernels::{self, Lane};
use crate::matrix::reduce;
pub use crate::matrix::{ArrayArrayOp, ArrayMap, ArrayScalarOp};
use crate::prob::{self, Flat};
use crate::scalar;
use crate::special::log_exp as sp;

/// The value of a unary function.
type Value = fn(f64) -> f64;
/// The partial derivative of a unary function, from `(x, f(x))`.
type Partial = fn(f64, f64) -> f64;

/// An elementary unary function: its value and its partial `d(x, f(x))`, the ones its `Var`
/// form records.
#[derive(Clone, Copy)]
pub struct Elementary {
    name: &'static str,
    value: Value,
    partial: Partial,
}

impl fmt::Debug for Elementary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Elementary {
    /// The function revad exports as `name`, if it has a scalar form: `exp`, `expm1`, `log`,
    /// `log1p`, `sqrt`, `square`, `inv`, `sin`, `cos`, `tan`, `tanh`, `lgamma`, `log1p_exp`,
    /// `inv_logit`, `log_inv_logit`, `log1m_inv_logit`.
    pub fn named(name: &str) -> Option<Elementary> {
        let (name, value, partial): (&'static str, Value, Partial) = match name {
            "exp" => ("exp", scalar::exp::<f64>, scalar::d_exp),
            "expm1" => ("expm1", scalar::expm1::<f64>, scalar::d_expm1),
            "log" => ("log", scalar::log::<f64>, scalar::d_log),
            "log1p" => ("log1p", scalar::log1p::<f64>, scalar::d_log1p),
            "sqrt" => ("sqrt", scalar::sqrt::<f64>, scalar::d_sqrt),
            "square" => ("square", scalar::square::<f64>, scalar::d_square),
            "inv" => ("inv", scalar::inv::<f64>, scalar::d_inv),
            "sin" => ("sin", scalar::sin::<f64>, scalar::d_sin),
            "cos" => ("cos", scalar::cos::<f64>, scalar::d_cos),
            "tan" => ("tan", scalar::tan::<f64>, scalar::d_tan),
            "tanh" => ("tanh", scalar::tanh::<f64>, scalar::d_tanh),
            "lgamma" => ("lgamma", scalar::lgamma::<f64>, scalar::d_lgamma),
            "log1p_exp" => ("log1p_exp", scalar::log1p_exp::<f64>, scalar::d_log1p_exp),
            "inv_logit" => (
                "inv_logit",
                scalar::inv_logit::<f64>,
                sp::inv_logit_derivative,
            ),
            "log_inv_logit" => (
                "log_inv_logit",
                scalar::log_inv_logit::<f64>,
                scalar::d_log_inv_logit,
            ),
            "log1m_inv_logit" => (
                "log1m_inv_logit",
                scalar::log1m_inv_logit::<f64>,
                scalar::d_log1m_inv_logit,
            ),
            _ => return None,
        };
        Some(Elementary {
            name,
            value,
            partial,
        })
    }

    /// The function's name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// One instruction: its operands are slots before its own. `C` names a constant operand, on
/// the side where it stands (`ConstSub(c, x)` is `c − x`).
#[derive(Clone, Copy, Debug)]
pub enum Instr {
    /// A constant (no partial).
    Const(f64),
    /// A copy of `x` (an element of a slice: its adjoint goes back to `x` at this point of the
    /// sweep, as a slice's node adds its adjoints into its source).
    Copy(u32),
    /// `a + b`.
    Add(u32, u32),
    /// `a − b`.
    Sub(u32, u32),
    /// `a·b`.
    Mul(u32, u32),
    /// `a/b`.
    Div(u32, u32),
    /// `−a`.
    Neg(u32),
    /// `x + c`.
    AddConst(u32, f64),
    /// `x − c`.
    SubConst(u32, f64),
    /// `c − x`.
    ConstSub(f64, u32),
    /// `x·c`.
    MulConst(u32, f64),
    /// `x/c`.
    DivConst(u32, f64),
    /// `c/x`.
    ConstDiv(f64, u32),
    /// `f(x)`.
    Unary(u32, Elementary),
    /// `aᵇ`.
    Pow(u32, u32),
    /// `xᶜ` (`c ≠ 1`: `x¹` is `x` itself, no instruction).
    PowConst(u32, f64),
    /// `cˣ`.
    ConstPow(f64, u32),
    /// An operation on arrays: entry `k` of the program's [`ArrayInstr`] table (see
    /// [`ScalarProgram::push_array`]).
    Array(u32),
}

impl Instr {
    /// The operand slots.
    fn operands(&self) -> SmallVec<[u32; 2]> {
        use Instr::*;
        match *self {
            Const(_) | Array(_) => SmallVec::new(),
            Add(a, b) | Sub(a, b) | Mul(a, b) | Div(a, b) | Pow(a, b) => {
                SmallVec::from_slice(&[a, b])
            }
            Copy(x)
            | Neg(x)
            | AddConst(x, _)
            | SubConst(x, _)
            | ConstSub(_, x)
            | MulConst(x, _)
            | DivConst(x, _)
            | ConstDiv(_, x)
            | Unary(x, _)
            | PowConst(x, _)
            | ConstPow(_, x) => SmallVec::from_slice(&[x]),
        }
    }
}

/// A straight-line program of scalar instructions (see the [module](self)).
#[derive(Clone, Debug, Default)]
pub struct ScalarProgram {
    inputs: usize,
    code: Vec<Instr>,
    /// The first slot of each instruction's result.
    outs: Vec<u32>,
    /// The array instructions, by [`Instr::Array`]'s index, each with its result's length
    /// and the number of values it keeps ([`ArrayInstr::widths`], computed once).
    arrays: Vec<(ArrayInstr, Widths)>,
    /// The slots a run fills (inputs, results and what array instructions keep).
    slots: usize,
    outputs: SmallVec<[u32; 4]>,
    scalar_output: bool,
}

impl ScalarProgram {
    /// An empty program of `inputs` input slots.
    pub fn new(inputs: usize) -> ScalarProgram {
        ScalarProgram {
            inputs,
            slots: inputs,
            ..ScalarProgram::default()
        }
    }

    /// The number of input slots.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The number of slots a run fills: the inputs, one per scalar instruction, and an array
    /// instruction's results and the values it keeps for the reverse pass.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    /// Whether the program has no instructions.
    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Appends `instr`; returns the slot of its result.
    ///
    /// # Panics
    /// If an operand is not an earlier slot, or for `PowConst(x, 1.0)`.
    pub fn push(&mut self, instr: Instr) -> u32 {
        let slot = self.slots() as u32;
        assert!(
            instr.operands().iter().all(|&a| a < slot),
            "ScalarProgram::push: an operand after its use"
        );
        assert!(
            !matches!(instr, Instr::PowConst(_, c) if c == 1.0),
            "ScalarProgram::push: x¹ is x itself, not an instruction"
        );
        assert!(
            !matches!(instr, Instr::Array(_)),
            "ScalarProgram::push: an array instruction goes through push_array"
        );
        self.code.push(instr);
        self.outs.push(slot);
        self.slots += 1;
        slot
    }

    /// Appends the array instruction `instr`; returns the first slot of its result and the
    /// result's length (one for a density).
    ///
    /// ```
    /// use revad::program::scalar::{Arg, ArrayInstr, ArrayScalarOp, Density, ScalarProgram};
    ///
    /// // normal_lpdf(y | μ + x, 2) for a scalar μ (slot 0), an array x (slots 1..4), data y.
    /// let mut p = ScalarProgram::new(7);
    /// let (m, n) = p.push_array(ArrayInstr::WithScalar {
    ///     op: ArrayScalarOp::Add,
    ///     a: Arg::Run(1, 3),
    ///     s: Arg::Var(0),
    /// });
    /// let (lp, _) = p.push_array(ArrayInstr::Density {
    ///     density: Density::Normal,
    ///     args: [Arg::Data(4, 3), Arg::Run(m, n as u32), Arg::Const(2.0)],
    ///     propto: false,
    /// });
    /// p.set_outputs(&[lp], true);
    /// let mut values = vec![0.5, 0.1, -0.2, 0.3, 1.0, 0.0, -1.0];
    /// assert!(p.forward(&mut values));
    /// let mut adj = vec![0.0; values.len()];
    /// adj[lp as usize] = 1.0;
    /// p.reverse(&values, &mut adj);
    /// // ∂/∂μ = Σ (yᵢ − μ − xᵢ)/σ²
    /// let expect = ((1.0 - 0.6) + (0.0 - 0.3) + (-1.0 - 0.8)) / 4.0;
    /// assert!((adj[0] - expect).abs() < 1e-15);
    /// ```
    ///
    /// # Panics
    /// If an operand is not made of earlier slots, or is not an array where the instruction
    /// takes one (`a` of every instruction but a density's), or two arrays of `WithArray`
    /// differ in length.
    pub fn push_array(&mut self, instr: ArrayInstr) -> (u32, usize) {
        let slot = self.slots;
        assert!(
            instr.args().iter().all(|a| a.end() <= slot),
            "ScalarProgram::push_array: an operand after its use"
        );
        let array = |a: &Arg| a.len().is_some();
        let shaped = match &instr {
            ArrayInstr::WithScalar { a, s, .. } => array(a) && !array(s),
            ArrayInstr::WithArray { a, b, .. } => array(a) && a.len() == b.len(),
            ArrayInstr::Sum(a) | ArrayInstr::Map(_, a) => array(a),
            ArrayInstr::MatVec { a, b } => match (a.len(), b.len()) {
                (Some(n), Some(k)) => k > 0 && n % k == 0,
                _ => false,
            },
            ArrayInstr::Density { .. }
            | ArrayInstr::Density2 { .. }
            | ArrayInstr::Density4 { .. } => true,
            ArrayInstr::StdNormal { y, .. } => matches!(y, Arg::Var(_) | Arg::Run(..)),
        };
        assert!(
            shaped,
            "ScalarProgram::push_array: operands of the wrong shape: {instr:?}"
        );
        let (len, keep) = instr.widths();
        self.code.push(Instr::Array(self.arrays.len() as u32));
        self.arrays.push((instr, (len, keep)));
        self.outs.push(slot as u32);
        self.slots += len + keep;
        (slot as u32, len)
    }

    /// Makes `slots` the outputs: one scalar when `scalar` (`slots` has one element then), else
    /// the elements of a vector.
    ///
    /// # Panics
    /// If an output is not a slot of the program, or `scalar` with other than one output.
    pub fn set_outputs(&mut self, slots: &[u32], scalar: bool) {
        assert!(slots.iter().all(|&s| (s as usize) < self.slots()));
        assert!(!scalar || slots.len() == 1, "a scalar output is one slot");
        self.outputs = SmallVec::from_slice(slots);
        self.scalar_output = scalar;
    }

    /// The output slots.
    pub fn outputs(&self) -> &[u32] {
        &self.outputs
    }

    /// Whether the output is one scalar (not a vector, even of one element).
    pub fn scalar_output(&self) -> bool {
        self.scalar_output
    }

    /// Computes every slot's value: `values` holds the inputs (as many as
    /// [`ScalarProgram::inputs`]) and gets the instructions' values appended. False when an
    /// array instruction's arguments fail its checks (a density's σ ≤ 0, say) or need the
    /// element checks of the taped function: the caller then runs the taped function, which
    /// reports them; scalar instructions never fail (IEEE arithmetic, as on the tape).
    ///
    /// # Panics
    /// If `values` does not hold exactly the inputs.
    #[must_use]
    pub fn forward(&self, values: &mut Vec<f64>) -> bool {
        assert_eq!(
            values.len(),
            self.inputs,
            "ScalarProgram::forward: wrong inputs"
        );
        values.reserve(self.slots - self.inputs);
        for instr in &self.code {
            let v = |s: u32| values[s as usize];
            let y = match *instr {
                Instr::Const(c) => c,
                Instr::Copy(x) => v(x),
                Instr::Add(a, b) => v(a) + v(b),
                Instr::Sub(a, b) => v(a) - v(b),
                Instr::Mul(a, b) => v(a) * v(b),
                Instr::Div(a, b) => v(a) / v(b),
                Instr::Neg(x) => -v(x),
                Instr::AddConst(x, c) => v(x) + c,
                Instr::SubConst(x, c) => v(x) - c,
                Instr::ConstSub(c, x) => c - v(x),
                Instr::MulConst(x, c) => v(x) * c,
                Instr::DivConst(x, c) => v(x) / c,
                Instr::ConstDiv(c, x) => c / v(x),
                Instr::Unary(x, f) => (f.value)(v(x)),
                // Two variables, or a constant base: `pow` does not specialise.
                Instr::Pow(a, b) => v(a).powf(v(b)),
                Instr::ConstPow(c, x) => c.powf(v(x)),
                Instr::PowConst(x, c) => scalar::pow(v(x), c),
                Instr::Array(k) => {
                    let (array, widths) = &self.arrays[k as usize];
                    if !array.forward(*widths, values) {
                        return false;
                    }
                    continue;
                }
            };
            values.push(y);
        }
        true
    }

    /// The reverse sweep: runs the instructions newest first, adding each one's partials times
    /// its adjoint into its operands' adjoints. `values` is what [`ScalarProgram::forward`]
    /// left; `adj` (as long) holds the seeds (the outputs' adjoints) and receives the rest.
    ///
    /// # Panics
    /// If `values` or `adj` is not as long as [`ScalarProgram::slots`].
    pub fn reverse(&self, values: &[f64], adj: &mut [f64]) {
        let n = self.slots();
        assert!(
            values.len() == n && adj.len() == n,
            "ScalarProgram::reverse: wrong lengths"
        );
        for (instr, &out) in self.code.iter().zip(&self.outs).rev() {
            let out = out as usize;
            if let Instr::Array(k) = *instr {
                let (array, widths) = &self.arrays[k as usize];
                array.reverse(*widths, values, adj, out);
                continue;
            }
            let g = adj[out];
            let v = |s: u32| values[s as usize];
            // The arithmetic of each operator's node in the tape, term for term.
            match *instr {
                Instr::Const(_) | Instr::Array(_) => {}
                Instr::Copy(x) => adj[x as usize] += g,
                Instr::Add(a, b) => {
                    adj[a as usize] += g;
                    adj[b as usize] += g;
                }
                Instr::Sub(a, b) => {
                    adj[a as usize] += g;
                    adj[b as usize] -= g;
                }
                Instr::Mul(a, b) => {
                    if g != 0.0 {
                        let (av, bv) = (v(a), v(b));
                        adj[a as usize] += g * bv;
                        adj[b as usize] += g * av;
                    }
                }
                Instr::Div(a, b) => {
                    if g != 0.0 {
                        let bv = v(b);
                        let h = g / bv;
                        adj[a as usize] += h;
                        adj[b as usize] -= h * values[out];
                    }
                }
                Instr::Neg(x) => adj[x as usize] -= g,
                Instr::AddConst(x, _) | Instr::SubConst(x, _) => adj[x as usize] += g,
                // `c − x` records ∂/∂x = −1 as a factor, as the tape does.
                #[allow(clippy::neg_multiply)]
                Instr::ConstSub(_, x) => adj[x as usize] += g * -1.0,
                Instr::MulConst(x, c) => adj[x as usize] += g * c,
                Instr::DivConst(x, c) => adj[x as usize] += g * (1.0 / c),
                Instr::ConstDiv(_, x) => adj[x as usize] -= g * values[out] / v(x),
                Instr::Unary(x, f) => {
                    if g != 0.0 {
                        adj[x as usize] += g * (f.partial)(v(x), values[out]);
                    }
                }
                Instr::Pow(a, b) => {
                    if g != 0.0 {
                        let (av, bv, y) = (v(a), v(b), values[out]);
                        adj[a as usize] += g * scalar::pow_dx(av, bv, y);
                        adj[b as usize] += g * scalar::pow_dy(av, bv, y);
                    }
                }
                Instr::PowConst(x, c) => {
                    if g != 0.0 {
                        adj[x as usize] += g * scalar::d_pow_const(v(x), c, values[out]);
                    }
                }
                Instr::ConstPow(c, x) => {
                    if g != 0.0 {
                        adj[x as usize] += g * scalar::pow_dy(c, v(x), values[out]);
                    }
                }
            }
        }
    }
}

/// An operand of an array instruction, as a run's slots hold it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A float constant.
    Const(f64),
    /// A scalar variable: its slot.
    Var(u32),
    /// An array variable: `len` slots from `first` (row-major).
    Run(u32, u32),
    /// Data (not differentiated): `len` slots from `first`, filled by the caller like inputs.
    Data(u32, u32),
}

impl Arg {
    /// One past the last slot read.
    fn end(&self) -> usize {
        match *self {
            Arg::Const(_) => 0,
            Arg::Var(s) => s as usize + 1,
            Arg::Run(first, len) | Arg::Data(first, len) => (first + len) as usize,
        }
    }

    /// The number of elements (`None` for a scalar).
    fn len(&self) -> Option<usize> {
        match *self {
            Arg::Const(_) | Arg::Var(_) => None,
            Arg::Run(_, len) | Arg::Data(_, len) => Some(len as usize),
        }
    }

    /// A scalar's value.
    fn scalar(&self, values: &[f64]) -> f64 {
        match *self {
            Arg::Const(c) => c,
            Arg::Var(s) => values[s as usize],
            Arg::Run(first, _) | Arg::Data(first, _) => values[first as usize],
        }
    }

    /// An array's values (empty for a scalar).
    fn slice<'a>(&self, values: &'a [f64]) -> &'a [f64] {
        match *self {
            Arg::Run(first, len) | Arg::Data(first, len) => {
                &values[first as usize..(first + len) as usize]
            }
            Arg::Const(_) | Arg::Var(_) => &[],
        }
    }

    /// The argument as a probability function reads it.
    fn flat<'a>(&self, values: &'a [f64]) -> Flat<'a> {
        let (lane, var) = match *self {
            Arg::Const(c) => (Lane::One(c), None),
            Arg::Var(s) => (Lane::One(values[s as usize]), Some(s as usize)),
            Arg::Run(first, _) => (Lane::Many(self.slice(values)), Some(first as usize)),
            Arg::Data(..) => (Lane::Many(self.slice(values)), None),
        };
        Flat { lane, var }
    }
}

/// A probability function an [`ArrayInstr::Density`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Density {
    /// `normal_lpdf(y, mu, sigma)`.
    Normal,
    /// `cauchy_lpdf(y, mu, sigma)`.
    Cauchy,
    /// `beta_lpdf(y, alpha, beta)`.
    Beta,
    /// `logistic_lpdf(y, mu, sigma)`.
    Logistic,
    /// `double_exponential_lpdf(y, mu, sigma)`.
    DoubleExponential,
    /// `gumbel_lpdf(y, mu, beta)`.
    Gumbel,
    /// `frechet_lpdf(y, alpha, sigma)`.
    Frechet,
    /// `gamma_lpdf(y, alpha, beta)`.
    Gamma,
    /// `lognormal_lpdf(y, mu, sigma)`.
    Lognormal,
    /// `inv_gamma_lpdf(y, alpha, beta)`.
    InvGamma,
    /// `weibull_lpdf(y, alpha, sigma)`.
    Weibull,
    /// `von_mises_lpdf(y, mu, kappa)`.
    VonMises,
    /// `loglogistic_lpdf(y, alpha, beta)`.
    Loglogistic,
    /// `beta_proportion_lpdf(y, mu, kappa)`.
    BetaProportion,
    /// `pareto_lpdf(y, y_min, alpha)`.
    Pareto,
    /// `scaled_inv_chi_square_lpdf(y, nu, s)`.
    ScaledInvChiSquare,
    /// `uniform_lpdf(y, alpha, beta)`.
    Uniform,
}

/// A probability function of two real arguments an [`ArrayInstr::Density2`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Density2 {
    /// `exponential_lpdf(y, beta)`.
    Exponential,
    /// `chi_square_lpdf(y, nu)`.
    ChiSquare,
    /// `inv_chi_square_lpdf(y, nu)`.
    InvChiSquare,
    /// `rayleigh_lpdf(y, sigma)`.
    Rayleigh,
}

/// A probability function of four real arguments an [`ArrayInstr::Density4`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Density4 {
    /// `student_t_lpdf(y, nu, mu, sigma)`.
    StudentT,
    /// `skew_normal_lpdf(y, xi, omega, alpha)`.
    SkewNormal,
    /// `exp_mod_normal_lpdf(y, mu, sigma, lambda)`.
    ExpModNormal,
    /// `skew_double_exponential_lpdf(y, mu, sigma, tau)`.
    SkewDoubleExponential,
    /// `pareto_type_2_lpdf(y, mu, lambda, alpha)`.
    ParetoType2,
}

impl Density2 {
    fn flat(self) -> FlatDensity<2> {
        match self {
            Density2::Exponential => prob::exponential::exponential_lpdf_flat,
            Density2::ChiSquare => prob::chi_square::chi_square_lpdf_flat,
            Density2::InvChiSquare => prob::inv_chi_square::inv_chi_square_lpdf_flat,
            Density2::Rayleigh => prob::rayleigh::rayleigh_lpdf_flat,
        }
    }
}

impl Density4 {
    fn flat(self) -> FlatDensity<4> {
        match self {
            Density4::StudentT => prob::student_t::student_t_lpdf_flat,
            Density4::SkewNormal => prob::skew_normal::skew_normal_lpdf_flat,
            Density4::ExpModNormal => prob::exp_mod_normal::exp_mod_normal_lpdf_flat,
            Density4::SkewDoubleExponential => {
                prob::skew_double_exponential::skew_double_exponential_lpdf_flat
            }
            Density4::ParetoType2 => prob::pareto_type_2::pareto_type_2_lpdf_flat,
        }
    }
}

/// A density of `K` arguments on plain floats: the value, with what its reverse pass needs
/// in `keep`; `None` where the taped function would check its arguments.
type FlatDensity<const K: usize> = for<'a> fn([Flat<'a>; K], bool, &mut [f64]) -> Option<f64>;

impl Density {
    /// The density's flat form when it is a sum of elementwise terms
    /// ([`prob::elements::flat_density`], whose keep and reverse pass it shares); `None` for
    /// the normal density, which has its own.
    fn elementwise(self) -> Option<FlatDensity<3>> {
        Some(match self {
            Density::Normal => return None,
            Density::Cauchy => prob::cauchy::cauchy_lpdf_flat,
            Density::Beta => prob::beta::beta_lpdf_flat,
            Density::Logistic => prob::logistic::logistic_lpdf_flat,
            Density::DoubleExponential => prob::double_exponential::double_exponential_lpdf_flat,
            Density::Gumbel => prob::gumbel::gumbel_lpdf_flat,
            Density::Frechet => prob::frechet::frechet_lpdf_flat,
            Density::Gamma => prob::gamma::gamma_lpdf_flat,
            Density::Lognormal => prob::lognormal::lognormal_lpdf_flat,
            Density::InvGamma => prob::inv_gamma::inv_gamma_lpdf_flat,
            Density::Weibull => prob::weibull::weibull_lpdf_flat,
            Density::VonMises => prob::von_mises::von_mises_lpdf_flat,
            Density::Loglogistic => prob::loglogistic::loglogistic_lpdf_flat,
            Density::BetaProportion => prob::beta_proportion::beta_proportion_lpdf_flat,
            Density::Pareto => prob::pareto::pareto_lpdf_flat,
            Density::ScaledInvChiSquare => {
                prob::scaled_inv_chi_square::scaled_inv_chi_square_lpdf_flat
            }
            Density::Uniform => prob::uniform::uniform_lpdf_flat,
        })
    }
}

/// An array instruction's result length and the number of values it keeps after it.
type Widths = (usize, usize);

/// An instruction on arrays: each computes what the taped function it names computes, with the
/// same kernels in the same order, so a run gives bit for bit the value and gradient of a
/// replay on the tape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrayInstr {
    /// `a op s` elementwise, for an array `a` (a variable or data) and a scalar `s` (a variable
    /// or a constant; one of them a variable): the function of
    /// [`ArrayScalarOp`] (`matrix::multiply_scalar` and the like).
    WithScalar {
        /// The operation.
        op: ArrayScalarOp,
        /// The array.
        a: Arg,
        /// The scalar.
        s: Arg,
    },
    /// `a op b` elementwise for two arrays of one shape (variables or data; one of them a
    /// variable): the function of [`ArrayArrayOp`] (`matrix::add` and the like).
    WithArray {
        /// The operation.
        op: ArrayArrayOp,
        /// The first array.
        a: Arg,
        /// The second array.
        b: Arg,
    },
    /// `Σ aᵢ` of an array variable (`matrix::sum`).
    Sum(Arg),
    /// `f(aᵢ)` of every element of an array variable: `matrix::exp` and the other elementwise
    /// functions of one array.
    Map(ArrayMap, Arg),
    /// `std_normal_lpdf(y)` of a scalar or array variable.
    StdNormal {
        /// The argument.
        y: Arg,
        /// Whether −½log(2π) per element is dropped.
        propto: bool,
    },
    /// A density of three real arguments (each a constant, a scalar variable, an array
    /// variable or data), summed over the elements.
    Density {
        /// The function.
        density: Density,
        /// Its real arguments, in order.
        args: [Arg; 3],
        /// Whether the terms constant given which arguments are variables are dropped.
        propto: bool,
    },
    /// `A·b` of a row-major matrix `A` (r×k: `a` holds its r·k elements) and a vector `b` of
    /// k elements (each a variable or data, one of them a variable): the product of
    /// `matrix::multiply` for a matrix and a vector, by the same kernels.
    MatVec {
        /// The matrix, row-major.
        a: Arg,
        /// The vector.
        b: Arg,
    },
    /// A density of two real arguments, as [`ArrayInstr::Density`].
    Density2 {
        /// The function.
        density: Density2,
        /// Its real arguments, in order.
        args: [Arg; 2],
        /// Whether the terms constant given which arguments are variables are dropped.
        propto: bool,
    },
    /// A density of four real arguments, as [`ArrayInstr::Density`].
    Density4 {
        /// The function.
        density: Density4,
        /// Its real arguments, in order.
        args: [Arg; 4],
        /// Whether the terms constant given which arguments are variables are dropped.
        propto: bool,
    },
}

impl ArrayInstr {
    /// Whether the result is a scalar (a density, a sum), not an array.
    pub fn scalar_result(&self) -> bool {
        matches!(
            self,
            ArrayInstr::Density { .. }
                | ArrayInstr::Density2 { .. }
                | ArrayInstr::Density4 { .. }
                | ArrayInstr::StdNormal { .. }
                | ArrayInstr::Sum(_)
        )
    }

    /// The operands.
    fn args(&self) -> SmallVec<[Arg; 4]> {
        match self {
            ArrayInstr::WithScalar { a, s, .. } => SmallVec::from_slice(&[*a, *s]),
            ArrayInstr::WithArray { a, b, .. } | ArrayInstr::MatVec { a, b } => {
                SmallVec::from_slice(&[*a, *b])
            }
            ArrayInstr::Sum(a) | ArrayInstr::Map(_, a) | ArrayInstr::StdNormal { y: a, .. } => {
                SmallVec::from_slice(&[*a])
            }
            ArrayInstr::Density { args, .. } => SmallVec::from_slice(args),
            ArrayInstr::Density2 { args, .. } => SmallVec::from_slice(args),
            ArrayInstr::Density4 { args, .. } => SmallVec::from_slice(args),
        }
    }

    /// The length of the result and the number of slots kept after it for the reverse pass.
    fn widths(&self) -> Widths {
        match self {
            ArrayInstr::WithScalar { a, .. }
            | ArrayInstr::WithArray { a, .. }
            | ArrayInstr::Map(_, a) => (a.len().unwrap_or(1), 0),
            ArrayInstr::Sum(_) => (1, 0),
            ArrayInstr::MatVec { a, b } => (a.len().unwrap_or(0) / b.len().unwrap_or(1), 0),
            ArrayInstr::StdNormal { .. } => (1, 1),
            ArrayInstr::Density { density, args, .. } => {
                let n = args.iter().filter_map(Arg::len).max().unwrap_or(1);
                let keep = match density {
                    Density::Normal => prob::normal::normal_lpdf_flat_keep(n),
                    _ => prob::elements::flat_keep(3, n),
                };
                (1, keep)
            }
            ArrayInstr::Density2 { args, .. } => (1, elementwise_keep(args)),
            ArrayInstr::Density4 { args, .. } => (1, elementwise_keep(args)),
        }
    }

    /// Appends the result (and the kept values, `widths` as [`ArrayInstr::widths`]) to `values`;
    /// false where the taped function must decide (see [`ScalarProgram::forward`]).
    fn forward(&self, (len, keep): Widths, values: &mut Vec<f64>) -> bool {
        let start = values.len();
        values.resize(start + len + keep, 0.0);
        let (before, after) = values.split_at_mut(start);
        match *self {
            ArrayInstr::WithScalar { op, a, s } => {
                op.values(a.slice(before), s.scalar(before), after);
                true
            }
            ArrayInstr::WithArray { op, a, b } => {
                op.values(a.slice(before), b.slice(before), after);
                true
            }
            ArrayInstr::Sum(a) => {
                after[0] = kernels::sum(a.slice(before));
                true
            }
            ArrayInstr::MatVec { a, b } => {
                let b = b.slice(before);
                kernels::mat_vec(a.slice(before), b.len(), b, after);
                true
            }
            ArrayInstr::Map(f, a) => {
                f.values(a.slice(before), after);
                true
            }
            ArrayInstr::StdNormal { y, propto } => {
                let (value, kept) = after.split_at_mut(1);
                match prob::std_normal::std_normal_lpdf_flat(y.flat(before), propto, kept) {
                    Some(v) => {
                        value[0] = v;
                        true
                    }
                    None => false,
                }
            }
            ArrayInstr::Density {
                density,
                args,
                propto,
            } => {
                let flat = args.map(|x| x.flat(before));
                let (value, kept) = after.split_at_mut(1);
                let v = match density.elementwise() {
                    None => prob::normal::normal_lpdf_flat(flat, propto, kept),
                    Some(lpdf) => lpdf(flat, propto, kept),
                };
                match v {
                    Some(v) => {
                        value[0] = v;
                        true
                    }
                    None => false,
                }
            }
            ArrayInstr::Density2 {
                density,
                args,
                propto,
            } => run_density(density.flat(), args, propto, before, after),
            ArrayInstr::Density4 {
                density,
                args,
                propto,
            } => run_density(density.flat(), args, propto, before, after),
        }
    }

    /// The reverse pass of the instruction whose result starts at slot `out`.
    fn reverse(&self, (len, keep): Widths, values: &[f64], adj: &mut [f64], out: usize) {
        let (below, rest) = adj.split_at_mut(out);
        match *self {
            ArrayInstr::WithScalar { op, a, s } => {
                let (x, sv, c) = (a.slice(values), s.scalar(values), &values[out..out + len]);
                let a_adj = match a {
                    Arg::Run(first, n) => Some(&mut below[first as usize..(first + n) as usize]),
                    _ => None,
                };
                let sum = op.reverse(&rest[..len], x, sv, c, a_adj, matches!(s, Arg::Var(_)));
                if let Arg::Var(slot) = s {
                    below[slot as usize] += sum;
                }
            }
            ArrayInstr::WithArray { op, a, b } => {
                let (x, y, c) = (a.slice(values), b.slice(values), &values[out..out + len]);
                let g = &rest[..len];
                // a's share, then b's (the two may be one variable).
                if let Arg::Run(first, n) = a {
                    op.reverse_a(g, x, y, c, &mut below[first as usize..(first + n) as usize]);
                }
                if let Arg::Run(first, n) = b {
                    op.reverse_b(g, x, y, c, &mut below[first as usize..(first + n) as usize]);
                }
            }
            ArrayInstr::Sum(a) => {
                if let Arg::Run(first, n) = a {
                    let r = &mut below[first as usize..(first + n) as usize];
                    reduce::add_reduced(r, rest[0], 1.0, None);
                }
            }
            ArrayInstr::MatVec { a, b } => {
                // As the taped node: Ā += ḡ·bᵀ, then b̄ += Aᵀ·ḡ.
                let (av, bv, g) = (a.slice(values), b.slice(values), &rest[..len]);
                if let Arg::Run(first, n) = a {
                    kernels::add_outer(&mut below[first as usize..(first + n) as usize], g, bv);
                }
                if let Arg::Run(first, k) = b {
                    let b_adj = &mut below[first as usize..(first + k) as usize];
                    kernels::mat_t_vec_add(av, k as usize, g, b_adj);
                }
            }
            ArrayInstr::StdNormal { y, .. } => {
                let kept = &values[out + 1..out + 1 + keep];
                prob::std_normal::std_normal_lpdf_flat_reverse(y.flat(values), kept, rest[0], below)
            }
            ArrayInstr::Map(f, a) => {
                if let Arg::Run(first, n) = a {
                    let (x, c) = (a.slice(values), &values[out..out + len]);
                    f.reverse(
                        &rest[..len],
                        x,
                        c,
                        &mut below[first as usize..(first + n) as usize],
                    );
                }
            }
            ArrayInstr::Density { density, args, .. } => {
                let flat = args.map(|x| x.flat(values));
                let kept = &values[out + 1..out + 1 + keep];
                let g = rest[0];
                match density {
                    Density::Normal => prob::normal::normal_lpdf_flat_reverse(flat, kept, g, below),
                    _ => prob::elements::flat_density_reverse(&flat, kept, g, below),
                }
            }
            ArrayInstr::Density2 { args, .. } => reverse_density(
                args,
                &values[out + 1..out + 1 + keep],
                values,
                rest[0],
                below,
            ),
            ArrayInstr::Density4 { args, .. } => reverse_density(
                args,
                &values[out + 1..out + 1 + keep],
                values,
                rest[0],
                below,
            ),
        }
    }
}

/// The reverse pass of an elementwise density of `args` (slots of `values`), from what it
/// kept, for the result adjoint `g` (out of line, as [`run_density`]).
#[inline(never)]
fn reverse_density<const K: usize>(
    args: [Arg; K],
    kept: &[f64],
    values: &[f64],
    g: f64,
    below: &mut [f64],
) {
    let flat = args.map(|x| x.flat(values));
    prob::elements::flat_density_reverse(&flat, kept, g, below)
}

/// What an elementwise density of `args` keeps for its reverse pass.
fn elementwise_keep(args: &[Arg]) -> usize {
    let n = args.iter().filter_map(Arg::len).max().unwrap_or(1);
    prob::elements::flat_keep(args.len(), n)
}

/// Runs the density `lpdf` of `args` (slots of `before`) into `after`: its value, then what it
/// keeps; false where the taped function must decide. (Out of line: inlined into
/// [`ArrayInstr::forward`] for each arity, it slowed the loop's other arms.)
#[inline(never)]
fn run_density<const K: usize>(
    lpdf: FlatDensity<K>,
    args: [Arg; K],
    propto: bool,
    before: &[f64],
    after: &mut [f64],
) -> bool {
    let (value, kept) = after.split_at_mut(1);
    match lpdf(args.map(|x| x.flat(before)), propto, kept) {
        Some(v) => {
            value[0] = v;
            true
        }
        None => false,
    }
}
