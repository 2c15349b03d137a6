//! Times the two GEMM kernels revad can use for `C = A·B` of K×K row-major f64 matrices, one
//! core: ndarray's `dot` (matrixmultiply, AVX-512 kernel) and faer's `matmul` (sequential), at
//! K = 16, 64, 256, and `C += Gᵀ·B`-style transposed products as the reverse pass runs them.
//! `cargo run --release -p revad-benches --bin gemm`.

use std::hint::black_box;

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::linalg::general_mat_mul;
use ndarray::Array2;

/// The fastest per-call time in µs.
fn time(f: impl FnMut()) -> f64 {
    revad_benches::fastest_seconds(f) * 1e6
}

fn main() {
    println!(
        "{:>5} {:>14} {:>14} {:>16} {:>16}",
        "K", "ndarray µs", "faer µs", "ndarray Aᵀ·G µs", "faer Aᵀ·G µs"
    );
    for k in [16usize, 64, 256] {
        let a = Array2::from_shape_fn((k, k), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let b = Array2::from_shape_fn((k, k), |(i, j)| ((i * 5 + j) % 13) as f64 - 6.0);
        let mut c = Array2::<f64>::zeros((k, k));
        let nd = time(|| {
            general_mat_mul(1.0, &a.view(), &b.view(), 0.0, &mut c.view_mut());
            black_box(&c);
        });
        let nd_t = time(|| {
            general_mat_mul(1.0, &a.t(), &b.view(), 1.0, &mut c.view_mut());
            black_box(&c);
        });
        fn view(m: &Array2<f64>, k: usize) -> MatRef<'_, f64> {
            MatRef::from_row_major_slice(m.as_slice().expect("standard"), k, k)
        }
        let mut cf = vec![0.0; k * k];
        let fa = time(|| {
            let dst = MatMut::from_row_major_slice_mut(&mut cf, k, k);
            matmul(dst, Accum::Replace, view(&a, k), view(&b, k), 1.0, Par::Seq);
            black_box(&cf);
        });
        let fa_t = time(|| {
            let dst = MatMut::from_row_major_slice_mut(&mut cf, k, k);
            matmul(
                dst,
                Accum::Add,
                view(&a, k).transpose(),
                view(&b, k),
                1.0,
                Par::Seq,
            );
            black_box(&cf);
        });
        println!("{k:5} {nd:14.2} {fa:14.2} {nd_t:16.2} {fa_t:16.2}");
    }
}
