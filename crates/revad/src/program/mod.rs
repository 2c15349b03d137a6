//! Programs: a recorded list of operations that replays through the functions of the layers
//! below, with new inputs, recording the usual tape as it goes.
//!
//! The Stan Math paper (section 8) names the idea: re-use a recording, as CppAD and ADOL-C do,
//! where "there are no conditionals that can evaluate differently". A [`Program`] makes that
//! safe with guards: a recording keeps, beside its operations, every decision that depended on
//! a variable's value (a comparison that chose a branch), and a replay checks each one and
//! stops at the first that comes out differently ([`Replay::Diverged`]), so the caller records
//! again instead of returning a value of the other branch.
//!
//! A program works on slots of one value type `T` (a scalar or array, variable or constant: the
//! Python layer uses its argument type) and an error type `E`. Slots `0..inputs` are the
//! inputs, then one slot per operation or constant, in the order recorded. An operation is a shared
//! closure of its operands' slots; the same closure that ran while recording runs on replay,
//! so a replay computes bit for bit what the recorded run did with the same inputs.
//!
//! ```
//! use std::sync::Arc;
//! use revad::program::{Program, Replay};
//! use revad::{log, Var};
//!
//! // f(x, y) = x·log(y) + log(x·y)·y, one operation per step.
//! let mut p: Program<Var, revad::Error> = Program::new(2);
//! let log_y = p.op(Arc::new(|s: &[&Var]| Ok(log(*s[0]))), &[1]);
//! let t1 = p.op(Arc::new(|s: &[&Var]| Ok(*s[0] * *s[1])), &[0, log_y]);
//! let xy = p.op(Arc::new(|s: &[&Var]| Ok(*s[0] * *s[1])), &[0, 1]);
//! let t2 = p.op(Arc::new(|s: &[&Var]| Ok(log(*s[0]) * *s[1])), &[xy, 1]);
//! p.op(Arc::new(|s: &[&Var]| Ok(*s[0] + *s[1])), &[t1, t2]);
//!
//! let _scope = revad::tape::nested();
//! let (x, y) = (Var::new(1.3), Var::new(2.4));
//! let mut frame = Vec::new();
//! let Replay::Done(f) = p.run([x, y], &mut frame) else { unreachable!() };
//! f.grad();
//! assert!((x.adj() - (2.4f64.ln() + 2.4 / 1.3)).abs() < 1e-14);
//! ```

pub mod scalar;

use std::sync::Arc;

use smallvec::SmallVec;

use self::scalar::ScalarProgram;

/// An operation: its result from its operands (borrowed from the program's slots), in the
/// order recorded.
pub type Op<T, E> = Arc<dyn Fn(&[&T]) -> Result<T, E> + Send + Sync>;

/// A guard: whether a decision taken while recording comes out the same on these operands.
pub type Check<T> = Arc<dyn Fn(&[&T]) -> bool + Send + Sync>;

/// The operand slots of one step (most operations have at most four).
type Slots = SmallVec<[u32; 4]>;

/// One step of a program.
enum Step<T, E, C> {
    /// Computes a new slot.
    Op { op: Op<T, E>, args: Slots },
    /// Checks a decision; computes nothing.
    Guard { check: Check<T>, args: Slots },
    /// A constant (a new slot holding a copy of it).
    Const(C),
}

/// A recorded list of operations on slots of `T`, replayed with new inputs by [`Program::run`].
///
/// Constants are kept as `C` (by default `T` itself) and turned into `T` as a replay reaches
/// them: a slot type that holds variables (bound to one thread's tape) can keep its constants
/// in a type without them, so that the program can be shared between threads.
pub struct Program<T, E, C = T> {
    inputs: usize,
    steps: Vec<Step<T, E, C>>,
    /// Slots made by steps (operations and constants).
    slots: usize,
    guards: usize,
    output: Option<u32>,
    scalar_form: Option<ScalarProgram>,
}

/// How a replay ended.
pub enum Replay<T, E> {
    /// Every guard held: the output's value (a variable on the caller's tape).
    Done(T),
    /// An operation failed with this error (the error the recorded run would have raised).
    Failed(E),
    /// The guard at this step came out differently from the recording: the values computed so
    /// far belong to another branch, and the caller should drop them (end its tape scope) and
    /// record again.
    Diverged(usize),
}

impl<T: Clone, E, C: Clone + Into<T>> Program<T, E, C> {
    /// An empty program of `inputs` input slots.
    pub fn new(inputs: usize) -> Self {
        Program {
            inputs,
            // Room for a small function's steps: recording pushes one per operation.
            steps: Vec::with_capacity(32),
            slots: 0,
            guards: 0,
            output: None,
            scalar_form: None,
        }
    }

    /// The number of input slots.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The number of steps (operations, constants and guards).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the program has no steps.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The number of guards.
    pub fn guards(&self) -> usize {
        self.guards
    }

    /// The slot the next operation's result takes.
    fn first_free(&self) -> u32 {
        (self.inputs + self.slots) as u32
    }

    /// Adds a constant; returns its slot.
    pub fn constant(&mut self, value: C) -> u32 {
        let slot = self.first_free();
        self.steps.push(Step::Const(value));
        self.slots += 1;
        slot
    }

    /// Appends an operation on the slots `args`; returns the slot of its result, which becomes
    /// the program's output (the last operation's result, unless [`Program::set_output`] says
    /// otherwise).
    pub fn op(&mut self, op: Op<T, E>, args: &[u32]) -> u32 {
        let slot = self.first_free();
        debug_assert!(args.iter().all(|&a| a < slot), "an operand after its use");
        self.steps.push(Step::Op {
            op,
            args: SmallVec::from_slice(args),
        });
        self.slots += 1;
        self.output = Some(slot);
        slot
    }

    /// Appends a guard on the slots `args`.
    pub fn guard(&mut self, check: Check<T>, args: &[u32]) {
        debug_assert!(args.iter().all(|&a| a < self.first_free()));
        self.steps.push(Step::Guard {
            check,
            args: SmallVec::from_slice(args),
        });
        self.guards += 1;
    }

    /// Makes `slot` the program's output.
    pub fn set_output(&mut self, slot: u32) {
        self.output = Some(slot);
    }

    /// Gives the program its scalar form (see [`scalar`]): the same function, of its inputs'
    /// elements, that callers may run instead of replaying when they only need values and
    /// gradients. The caller vouches that the two agree.
    pub fn set_scalar_form(&mut self, form: ScalarProgram) {
        self.scalar_form = Some(form);
    }

    /// The scalar form, if the program has one.
    pub fn scalar_form(&self) -> Option<&ScalarProgram> {
        self.scalar_form.as_ref()
    }

    /// The output slot, if any.
    pub fn output(&self) -> Option<u32> {
        self.output
    }

    /// Replays the program on `inputs` (as many as [`Program::inputs`]), using `frame` for the
    /// slots (cleared first and left holding them, so one frame serves many calls without
    /// allocating). Operations record on the current thread's tape as they run.
    ///
    /// # Panics
    /// If `inputs` has the wrong length or the program has no output (bugs of the caller).
    pub fn run(&self, inputs: impl IntoIterator<Item = T>, frame: &mut Vec<T>) -> Replay<T, E> {
        frame.clear();
        frame.extend(inputs);
        assert_eq!(
            frame.len(),
            self.inputs,
            "Program::run: wrong number of inputs"
        );
        for (k, step) in self.steps.iter().enumerate() {
            match step {
                Step::Op { op, args } => {
                    let at = |k: usize| &frame[args[k] as usize];
                    // The common arities without building a list.
                    let result = match args.len() {
                        1 => op(&[at(0)]),
                        2 => op(&[at(0), at(1)]),
                        3 => op(&[at(0), at(1), at(2)]),
                        _ => {
                            let operands: SmallVec<[&T; 4]> =
                                args.iter().map(|&a| &frame[a as usize]).collect();
                            op(&operands)
                        }
                    };
                    match result {
                        Ok(v) => frame.push(v),
                        Err(e) => return Replay::Failed(e),
                    }
                }
                Step::Guard { check, args } => {
                    let operands: SmallVec<[&T; 4]> =
                        args.iter().map(|&a| &frame[a as usize]).collect();
                    if !check(&operands) {
                        return Replay::Diverged(k);
                    }
                }
                Step::Const(c) => frame.push(c.clone().into()),
            }
        }
        let out = self
            .output
            .expect("Program::run: the program has no output");
        Replay::Done(frame[out as usize].clone())
    }
}
