//! The arguments and results of the Python layer as Rust values, before they become core calls
//! or Python objects: a real scalar ([`Arg`]) is a float or a scalar variable, an array
//! ([`Ax`]) is 1-D or 2-D and each of those a variable or data ([`Arr`]). Results mirror them:
//! an operation of data only gives data (a float or a NumPy array), never a variable.
//!
//! Nothing here touches Python: reading arguments is `convert`'s job, and so is handing results
//! back.

use std::borrow::Cow;

use revad::matrix::Operand;
use revad::{Matrix, Storage, Var, Vector};

/// A real argument: a float (or anything with `__float__`) or a scalar variable.
#[derive(Clone, Copy)]
pub enum Arg {
    /// A constant.
    F(f64),
    /// A checked variable.
    V(Var),
}

impl Arg {
    /// The value.
    pub fn value(self) -> f64 {
        match self {
            Arg::F(x) => x,
            Arg::V(v) => v.value(),
        }
    }
}

/// An array operand of kind `S`: a variable or data.
#[derive(Clone)]
pub enum Arr<S: Storage> {
    /// An array variable (checked live).
    V(Var<S>),
    /// A data array.
    D(S),
}

impl<S: Storage> Arr<S> {
    /// The value.
    pub fn value(&self) -> &S {
        match self {
            Arr::V(v) => v.value(),
            Arr::D(d) => d,
        }
    }
}

/// Either kind of operand goes to a core function as it is: one call serves a variable and
/// data alike, and data gets no reverse-pass work there.
impl<S: Storage> Operand<S> for Arr<S> {
    fn value(&self) -> Cow<'_, S> {
        match self {
            Arr::V(v) => Operand::value(v),
            Arr::D(d) => Operand::value(d),
        }
    }
    fn key(&self) -> Option<u64> {
        match self {
            Arr::V(v) => Operand::key(v),
            Arr::D(d) => Operand::key(d),
        }
    }
}

/// An array operand: 1-D (a Rust vector) or 2-D (a matrix).
#[derive(Clone)]
pub enum Ax {
    /// 1-D.
    V(Arr<Vector>),
    /// 2-D.
    M(Arr<Matrix>),
}

impl Ax {
    /// The NumPy shape.
    pub fn shape(&self) -> Vec<usize> {
        match self {
            Ax::V(a) => vec![a.value().len()],
            Ax::M(a) => {
                let (r, c) = a.value().dim();
                vec![r, c]
            }
        }
    }
}

/// Any real argument: a scalar (float or scalar Var) or an array.
#[derive(Clone)]
pub enum X {
    /// A float or a scalar Var.
    S(Arg),
    /// An array Var, a NumPy array or a `revad.Data`.
    A(Ax),
}

/// A scalar result: a float when every argument was a float, else a variable.
pub enum Out {
    /// A constant result.
    F(f64),
    /// A recorded result.
    V(Var),
}

impl From<f64> for Out {
    fn from(x: f64) -> Out {
        Out::F(x)
    }
}

impl From<Var> for Out {
    fn from(v: Var) -> Out {
        Out::V(v)
    }
}

/// A result: a scalar, or an array (a variable, or data when every operand was data).
pub enum Res {
    /// A float or a scalar Var.
    S(Out),
    /// 1-D.
    V(Arr<Vector>),
    /// 2-D.
    M(Arr<Matrix>),
}

/// `(2,)` / `(2, 3)`, as NumPy writes shapes.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// An array variable result, or its value when every operand was data.
pub fn finish<S: Storage>(v: Var<S>, data_only: bool) -> Arr<S> {
    if data_only {
        Arr::D(v.value().clone())
    } else {
        Arr::V(v)
    }
}

/// A scalar variable result, or its value when every operand was data.
pub fn finish_scalar(v: Var, data_only: bool) -> Out {
    if data_only {
        Out::F(v.value())
    } else {
        Out::V(v)
    }
}

/// Applies a function of two reals to the four float/variable combinations of two [`Arg`]s;
/// yields an [`Out`].
macro_rules! binop {
    ($a:expr, $b:expr, $f:expr) => {
        match ($a, $b) {
            ($crate::args::Arg::F(a), $crate::args::Arg::F(b)) => $crate::args::Out::F($f(a, b)),
            ($crate::args::Arg::F(a), $crate::args::Arg::V(b)) => $crate::args::Out::V($f(a, b)),
            ($crate::args::Arg::V(a), $crate::args::Arg::F(b)) => $crate::args::Out::V($f(a, b)),
            ($crate::args::Arg::V(a), $crate::args::Arg::V(b)) => $crate::args::Out::V($f(a, b)),
        }
    };
}
pub(crate) use binop;

/// Applies `$body` to one array operand (`$x` bound to `&Var<S>` or `&S`); yields
/// `(result, data_only)`.
macro_rules! arr1 {
    ($a:expr, |$x:ident| $body:expr) => {
        match $a {
            $crate::args::Arr::V(v) => {
                let $x = &v;
                ($body, false)
            }
            $crate::args::Arr::D(d) => {
                let $x = &d;
                ($body, true)
            }
        }
    };
}
pub(crate) use arr1;

/// Applies `$body` to two array operands; yields `(result, data_only)`.
macro_rules! arr2 {
    ($a:expr, $b:expr, |$x:ident, $y:ident| $body:expr) => {
        match ($a, $b) {
            ($crate::args::Arr::V(a), $crate::args::Arr::V(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::args::Arr::V(a), $crate::args::Arr::D(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::args::Arr::D(a), $crate::args::Arr::V(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, false)
            }
            ($crate::args::Arr::D(a), $crate::args::Arr::D(b)) => {
                let ($x, $y) = (&a, &b);
                ($body, true)
            }
        }
    };
}
pub(crate) use arr2;

/// A declared function's operands read back in its closure (`record::apply` hands them over
/// as a slice of [`X`]): each accessor expects the kind the function put there (and panics on
/// another: the closure knows the kinds it recorded).
impl X {
    /// The operand as a 1-D array.
    pub fn vector(&self) -> Arr<Vector> {
        self.vector_ref().clone()
    }

    /// The operand as a 2-D array.
    pub fn matrix(&self) -> Arr<Matrix> {
        self.matrix_ref().clone()
    }

    /// A 1-D operand, borrowed.
    pub fn vector_ref(&self) -> &Arr<Vector> {
        match self {
            X::A(Ax::V(a)) => a,
            _ => unreachable!("a 1-D operand"),
        }
    }

    /// A 2-D operand, borrowed.
    pub fn matrix_ref(&self) -> &Arr<Matrix> {
        match self {
            X::A(Ax::M(a)) => a,
            _ => unreachable!("a 2-D operand"),
        }
    }

    /// The operand as an array of either kind.
    pub fn array(&self) -> Ax {
        match self {
            X::A(a) => a.clone(),
            X::S(_) => unreachable!("an array operand"),
        }
    }

    /// The operand as a scalar.
    pub fn scalar(&self) -> Arg {
        match self {
            X::S(a) => *a,
            X::A(_) => unreachable!("a scalar operand"),
        }
    }

    /// Whether the operand is data (a float or a data array): no variable.
    pub fn is_data(&self) -> bool {
        matches!(
            self,
            X::S(Arg::F(_)) | X::A(Ax::V(Arr::D(_))) | X::A(Ax::M(Arr::D(_)))
        )
    }
}

impl From<Arr<Vector>> for X {
    fn from(a: Arr<Vector>) -> X {
        X::A(Ax::V(a))
    }
}

impl From<Arr<Matrix>> for X {
    fn from(a: Arr<Matrix>) -> X {
        X::A(Ax::M(a))
    }
}

impl From<Ax> for X {
    fn from(a: Ax) -> X {
        X::A(a)
    }
}

impl From<Arg> for X {
    fn from(a: Arg) -> X {
        X::S(a)
    }
}
