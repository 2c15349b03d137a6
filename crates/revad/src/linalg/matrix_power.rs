//! Integer powers of a square matrix.

use ndarray::{Array2, ArrayView2};

use super::check;
use super::node::{arg, node};
use crate::error::{require_int, Result};
use crate::matrix::Operand;
use crate::var::{Matrix, Var};

/// `Aⁿ` of a square matrix with finite elements, for an integer `n ≥ 0` (Stan's
/// `matrix_power`; `A⁰ = I`), by repeated squaring: about 2·log₂n products.
///
/// Reverse pass: `Ā += Σₖ₌₀ⁿ⁻¹ (Aᵀ)ᵏ Ḡ (Aᵀ)ⁿ⁻¹⁻ᵏ`, evaluated by running the squarings
/// backwards (two products for each product of the forward pass, `X̄ += Z̄Yᵀ`, `Ȳ += XᵀZ̄` for
/// `Z = XY`, on the powers kept from the forward pass), so about 4·log₂n products rather than
/// the sum's 2n. `A⁰ = I` does not depend on `A`: nothing is recorded.
///
/// # Errors
/// [`Error::Size`](crate::Error::Size) if `a` is not square,
/// [`Error::DomainInt`](crate::Error::DomainInt) if `n < 0`, and
/// [`Error::Matrix`](crate::Error::Matrix) if an element is NaN or infinite (checked after the
/// others, and not for a 0×0 matrix, whose power is 0×0), as Stan.
///
/// ```
/// use ndarray::array;
/// use revad::{linalg, matrix, tape, Var};
/// let a = Var::array(array![[1.0, 1.0], [0.0, 1.0]].into_shared());
/// let a5 = linalg::matrix_power(&a, 5).unwrap();
/// assert_eq!(*a5.value(), array![[1.0, 5.0], [0.0, 1.0]].into_shared());
/// // The gradient of the sum of the elements: Σₖ₌₀⁴ (Aᵀ)ᵏ·1·(Aᵀ)⁴⁻ᵏ for the all-ones 1.
/// matrix::sum(&a5).grad();
/// assert_eq!(a.adj(), array![[15.0, 5.0], [35.0, 15.0]].into_shared());
/// tape::reset();
/// ```
pub fn matrix_power(a: &impl Operand<Matrix>, n: i32) -> Result<Var<Matrix>> {
    const F: &str = "matrix_power";
    let av = a.value();
    check::square(F, "columns of M", &av.view())?;
    require_int(n >= 0, F, "n", n.into(), "nonnegative")?;
    let k = av.nrows();
    if k == 0 {
        return Ok(Var::array(Array2::zeros((0, 0)).into_shared()));
    }
    check::finite(F, "M", &av.view())?;
    if n == 0 {
        return Ok(Var::array(Array2::eye(k).into_shared()));
    }
    let chain = Chain::power(av.view().to_owned(), n as u32);
    let value = chain.vals[chain.result].clone().into_shared();
    Ok(node(value, [arg(a)], move |g, bars| {
        if let Some(mut a_bar) = bars.matrix(0, (k, k)) {
            let g = ArrayView2::from_shape((k, k), g).expect("result's shape");
            a_bar += &chain.adjoint(g);
        }
    }))
}

/// The products of repeated squaring: `vals[0] = A`, and each `(x, y)` of `ops[i]` makes
/// `vals[i + 1] = vals[x]·vals[y]`.
struct Chain {
    vals: Vec<Array2<f64>>,
    ops: Vec<(usize, usize)>,
    result: usize,
}

impl Chain {
    /// `Aⁿ` for `n ≥ 1`: the binary digits of `n` from the lowest pick the squares
    /// `A, A², A⁴, …` that multiply into the result.
    fn power(a: Array2<f64>, n: u32) -> Chain {
        let mut chain = Chain {
            vals: vec![a],
            ops: Vec::new(),
            result: 0,
        };
        let (mut base, mut result, mut m) = (0, None, n);
        loop {
            if m & 1 == 1 {
                result = Some(match result {
                    None => base,
                    Some(r) => chain.push(r, base),
                });
            }
            m >>= 1;
            if m == 0 {
                break;
            }
            base = chain.push(base, base);
        }
        chain.result = result.expect("n ≥ 1");
        chain
    }

    fn push(&mut self, x: usize, y: usize) -> usize {
        let z = self.vals[x].dot(&self.vals[y]);
        self.vals.push(z);
        self.ops.push((x, y));
        self.vals.len() - 1
    }

    /// `Ā` for the result's adjoint `g`: each product `Z = XY` taken back, last first.
    fn adjoint(&self, g: ArrayView2<'_, f64>) -> Array2<f64> {
        let mut adj: Vec<Option<Array2<f64>>> = vec![None; self.vals.len()];
        adj[self.result] = Some(g.to_owned());
        for (i, &(x, y)) in self.ops.iter().enumerate().rev() {
            let Some(z_bar) = adj[i + 1].take() else {
                continue;
            };
            let x_part = z_bar.dot(&self.vals[y].t());
            let y_part = self.vals[x].t().dot(&z_bar);
            for (j, part) in [(x, x_part), (y, y_part)] {
                match &mut adj[j] {
                    Some(acc) => *acc += &part,
                    slot => *slot = Some(part),
                }
            }
        }
        adj[0].take().expect("A reaches the result")
    }
}
