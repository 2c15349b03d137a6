//! The trace of a square matrix.

use super::check;
use super::node::{arg, node};
use crate::error::Result;
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// `tr(A) = Σᵢ Aᵢᵢ` of a square matrix (Stan's `trace`). Reverse pass: `Āᵢᵢ += ḡ`.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, tape, Var};
/// let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
/// let t = linalg::trace(&a).unwrap();
/// t.grad();
/// assert_eq!(t.value(), 5.0);
/// assert_eq!(a.adj(), array![[1.0, 0.0], [0.0, 1.0]].into_shared());
/// tape::reset();
/// ```
pub fn trace(a: &impl Operand<Matrix>) -> Result<Var> {
    let av = a.value();
    check::square("trace", "columns of m", &av.view())?;
    let n = av.nrows();
    let value = (0..n).map(|i| av[[i, i]]).sum::<f64>();
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(a_bar) = bars.run(0) {
            for i in 0..n {
                a_bar[i * n + i] += g[0];
            }
        }
    }))
}
