//! `jacobian(f, x) = (f(x), J)` with `J[i][j] = ∂fᵢ/∂xⱼ`.

use ndarray::Array2;

use crate::error::Error;
use crate::tape;
use crate::var::Var;

/// The values of `f` at `x` and its Jacobian, one row per output.
///
/// Reverse-pass continuations run once, so `f` is evaluated once per output (each time in a
/// fresh nested scope) and each evaluation is swept from one output. With no outputs, `f` runs
/// once.
///
/// # Panics
/// If `f` returns a different number of outputs on different calls.
///
/// ```
/// // f(x, y) = (x·y, x + 3y)
/// let (fx, j) = revad::jacobian(|v| vec![v[0] * v[1], v[0] + 3.0 * v[1]], &[2.0, 5.0]);
/// assert_eq!(fx, vec![10.0, 17.0]);
/// assert_eq!(j, ndarray::array![[5.0, 2.0], [1.0, 3.0]]);
/// ```
pub fn jacobian(f: impl Fn(&[Var]) -> Vec<Var>, x: &[f64]) -> (Vec<f64>, Array2<f64>) {
    match try_jacobian(|v| Ok::<_, Error>(f(v)), x) {
        Ok(r) => r,
        Err(e) => panic!("revad: {e}"),
    }
}

/// [`jacobian`] for a fallible `f`: its first error is returned, and the tape is recovered.
/// An output count that changes between calls is an [`Error::Size`].
pub fn try_jacobian<E: From<Error>>(
    f: impl Fn(&[Var]) -> Result<Vec<Var>, E>,
    x: &[f64],
) -> Result<(Vec<f64>, Array2<f64>), E> {
    let n = x.len();
    let mut inputs = Vec::with_capacity(n);
    let mut values = Vec::new();
    let mut jac = Array2::zeros((0, n));
    let mut row = vec![0.0; n];
    let mut i = 0;
    loop {
        let _scope = tape::nested();
        inputs.clear();
        let key = tape::new_run(n);
        inputs.extend((0..n).map(|j| Var::from_key(x[j], tape::nth_key(key, j))));
        let y = f(&inputs)?;
        if i == 0 {
            values = y.iter().map(|v| v.value()).collect();
            jac = Array2::zeros((values.len(), n));
        } else if y.len() != values.len() {
            return Err(Error::Size {
                function: "jacobian",
                what: "the output of f",
                expected: values.len(),
                found: y.len(),
            }
            .into());
        }
        let Some(yi) = y.get(i) else { break };
        yi.try_grad()?;
        tape::adjoint_run_into(key, &mut row);
        jac.row_mut(i).assign(&ndarray::ArrayView1::from(&row));
        i += 1;
        if i == values.len() {
            break;
        }
    }
    Ok((values, jac))
}
