//! The inputs of the elementary-kernel benchmarks (the criterion bench `kernels` and the
//! example `kernels_min`): every function of `revad::elementary` and arguments in its domain.

use revad::elementary::Function;

/// How many values each kernel is timed on.
pub const N: usize = 4096;

/// The functions timed, in the order printed.
pub const FUNCTIONS: [Function; 8] = [
    Function::Exp,
    Function::Log,
    Function::Log1p,
    Function::Expm1,
    Function::InvLogit,
    Function::LogInvLogit,
    Function::Log1pExp,
    Function::Tanh,
];

/// `N` arguments in the domain of `f` (as a density loop meets them).
pub fn points(f: Function) -> Vec<f64> {
    (0..N)
        .map(|i| {
            let u = ((i as f64) * 0.618_033_988_749_895).fract();
            match f {
                Function::Log => 1e-3 + 50.0 * u,
                Function::Log1p => -0.9 + 20.0 * u,
                _ => -20.0 + 40.0 * u,
            }
        })
        .collect()
}
