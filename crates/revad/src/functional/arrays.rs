//! `gradient_arrays(f, xs) = (f(xs), [∂f/∂x₁, ∂f/∂x₂, …])` for array inputs.

use ndarray::{Array, ArrayView, Ix1, Ix2};

use crate::error::Error;
use crate::tape;
use crate::var::{Matrix, Storage, Var, Vector};

/// The dimensions of array inputs of [`gradient_arrays`]: `Ix1` (a vector variable) or `Ix2`
/// (a matrix variable).
pub trait ArrayInput: ndarray::Dimension {
    /// The storage of the variable made from an input of this dimension.
    type Storage: Storage;
    /// The variable's value: the elements of `x` (in any layout) in row-major order.
    #[doc(hidden)]
    fn value(x: &ArrayView<'_, f64, Self>) -> Self::Storage;
    /// An adjoint run as an array of this dimension.
    #[doc(hidden)]
    fn array(adj: Self::Storage) -> Array<f64, Self>;
}

impl ArrayInput for Ix1 {
    type Storage = Vector;
    fn value(x: &ArrayView<'_, f64, Ix1>) -> Vector {
        x.to_owned().into_shared()
    }
    fn array(adj: Vector) -> Array<f64, Ix1> {
        adj.into_owned()
    }
}

impl ArrayInput for Ix2 {
    type Storage = Matrix;
    fn value(x: &ArrayView<'_, f64, Ix2>) -> Matrix {
        x.as_standard_layout().into_owned().into_shared()
    }
    fn array(adj: Matrix) -> Array<f64, Ix2> {
        adj.into_owned()
    }
}

/// The value of `f` at the arrays `xs` and its gradient with respect to each of them, shaped
/// like it: `f` receives one array variable per input (`Var<Vector>` for 1-D views,
/// `Var<Matrix>` for 2-D) and returns a scalar variable. It runs in a fresh nested scope, which
/// is recovered afterwards, also if `f` panics.
///
/// ```
/// use revad::{gradient_arrays, matrix};
/// use revad::ndarray::array;
/// // f(A, B) = Σ (A ∘ B): ∂f/∂A = B, ∂f/∂B = A.
/// let (a, b) = (array![[1.0, 2.0], [3.0, 4.0]], array![[5.0, 6.0], [7.0, 8.0]]);
/// let (fx, g) = gradient_arrays(|x| matrix::sum(&(&x[0] * &x[1])), &[a.view(), b.view()]);
/// assert_eq!(fx, 70.0);
/// assert_eq!((&g[0], &g[1]), (&b, &a));
/// ```
///
/// # Panics
/// As [`Var::grad`] does (e.g. `f` returned a variable made outside the call); see
/// [`try_gradient_arrays`] for errors instead.
pub fn gradient_arrays<D: ArrayInput>(
    f: impl FnOnce(&[Var<D::Storage>]) -> Var,
    xs: &[ArrayView<'_, f64, D>],
) -> (f64, Vec<Array<f64, D>>) {
    try_gradient_arrays::<D, Error>(|x| Ok(f(x)), xs).unwrap_or_else(|e| panic!("revad: {e}"))
}

/// [`gradient_arrays`] for a fallible `f`: its error is returned and the tape recovered; a
/// result that cannot be swept is an [`Error`] too, never a panic.
///
/// ```
/// use revad::{matrix, try_gradient_arrays, Error};
/// use revad::ndarray::array;
/// let x = array![1.0, 2.0, 3.0];
/// let (fx, g) = try_gradient_arrays(|v| matrix::dot_product(&v[0], &v[0]), &[x.view()]).unwrap();
/// assert_eq!((fx, g[0].to_vec()), (14.0, vec![2.0, 4.0, 6.0]));
/// let y = array![1.0, 2.0];
/// let e: Result<_, Error> = try_gradient_arrays(|v| matrix::dot_product(&v[0], &v[1]), &[x.view(), y.view()]);
/// assert!(e.is_err()); // the lengths differ
/// ```
pub fn try_gradient_arrays<D: ArrayInput, E: From<Error>>(
    f: impl FnOnce(&[Var<D::Storage>]) -> Result<Var, E>,
    xs: &[ArrayView<'_, f64, D>],
) -> Result<(f64, Vec<Array<f64, D>>), E> {
    let _scope = tape::nested();
    let vars: Vec<Var<D::Storage>> = xs.iter().map(|x| Var::array(D::value(x))).collect();
    let y = f(&vars)?;
    y.try_grad()?;
    let grads = vars
        .iter()
        .map(|v| v.try_adj().map(D::array))
        .collect::<Result<Vec<_>, Error>>()?;
    Ok((y.value(), grads))
}
