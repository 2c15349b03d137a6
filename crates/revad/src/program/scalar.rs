//! The scalar form of a program: when every operation of a recording is a scalar operator, an
//! elementary unary function or a read of one element, the program can also run on plain
//! `f64` slots, without a tape and without a node per operation.
//!
//! A [`ScalarProgram`] is a straight-line list of [`Instr`]: slots `0..inputs` are the
//! inputs' elements, then one slot per instruction. [`ScalarProgram::forward`] computes every
//! slot's value; [`ScalarProgram::reverse`] runs the instructions newest first, as the tape's
//! sweep runs their nodes (the Stan Math paper, section 2), adding each partial times its
//! result's adjoint to its operands' adjoints. Each instruction computes its value and its
//! partials with the same arithmetic as the scalar operator or function it stands for, in the
//! same order, so a run gives bit for bit the value and gradient of the tape.
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
//! p.forward(&mut values);
//! let mut adj = vec![0.0; values.len()];
//! adj[f as usize] = 1.0;
//! p.reverse(&values, &mut adj);
//! assert!((values[f as usize] - (x * y.ln() + (x * y).ln() * y)).abs() < 1e-14);
//! assert!((adj[0] - (y.ln() + y / x)).abs() < 1e-14);
//! ```

use std::fmt;

use smallvec::SmallVec;

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
}

impl Instr {
    /// The operand slots.
    fn operands(&self) -> SmallVec<[u32; 2]> {
        use Instr::*;
        match *self {
            Const(_) => SmallVec::new(),
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
    outputs: SmallVec<[u32; 4]>,
    scalar_output: bool,
}

impl ScalarProgram {
    /// An empty program of `inputs` input slots.
    pub fn new(inputs: usize) -> ScalarProgram {
        ScalarProgram {
            inputs,
            ..ScalarProgram::default()
        }
    }

    /// The number of input slots.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The number of slots a run fills: inputs and instructions.
    pub fn slots(&self) -> usize {
        self.inputs + self.code.len()
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
        self.code.push(instr);
        slot
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
    /// [`ScalarProgram::inputs`]) and gets the instructions' values appended.
    ///
    /// # Panics
    /// If `values` does not hold exactly the inputs.
    pub fn forward(&self, values: &mut Vec<f64>) {
        assert_eq!(
            values.len(),
            self.inputs,
            "ScalarProgram::forward: wrong inputs"
        );
        values.reserve(self.code.len());
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
            };
            values.push(y);
        }
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
        for (k, instr) in self.code.iter().enumerate().rev() {
            let out = self.inputs + k;
            let g = adj[out];
            let v = |s: u32| values[s as usize];
            // The arithmetic of each operator's node in the tape, term for term.
            match *instr {
                Instr::Const(_) => {}
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
