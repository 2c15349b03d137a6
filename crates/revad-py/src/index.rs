//! Indexing and assignment in place of array Vars: `v[i]`, `v[a:b]`, `m[i, j]`, `m[a:b, c:d]`
//! (steps allowed) as NumPy reads them, and `a[key] = value` with NumPy's broadcasting of the
//! value.

use ndarray::{Array1, Array2};
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PySlice, PySliceMethods, PyTuple};
use revad::{matrix, Matrix, Storage, Var, Vector};

use crate::args::{shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{array_arg, try_x, type_name};
use crate::errors::{self, to_py};
use crate::ops::{broadcast_shape, broadcast_to, from_row, to_2d};

/// A Python index into an axis of length `n` (negative counts from the end).
fn index(obj: &Bound<'_, PyAny>, n: usize, axis: usize) -> PyResult<usize> {
    let i: isize = obj.extract()?;
    let j = if i < 0 { i + n as isize } else { i };
    if j < 0 || j as usize >= n {
        return Err(PyIndexError::new_err(format!(
            "index {i} is out of bounds for axis {axis} with size {n}"
        )));
    }
    Ok(j as usize)
}

/// One axis of an index: a single position (the axis goes away) or positions of a slice.
enum Pick {
    One(usize),
    Many(Vec<usize>),
}

fn pick(obj: &Bound<'_, PyAny>, n: usize, axis: usize) -> PyResult<Pick> {
    if let Ok(s) = obj.cast::<PySlice>() {
        let ind = s.indices(n as isize)?;
        let idx = (0..ind.slicelength)
            .map(|k| (ind.start + k as isize * ind.step) as usize)
            .collect();
        return Ok(Pick::Many(idx));
    }
    if obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")? {
        return Ok(Pick::One(index(obj, n, axis)?));
    }
    Err(PyTypeError::new_err(format!(
        "revad.Var indices must be integers or slices, not {}",
        type_name(obj)
    )))
}

/// Whether `idx` is a run `start, start + 1, …`.
fn contiguous(idx: &[usize]) -> bool {
    idx.windows(2).all(|w| w[1] == w[0] + 1)
}

/// The elements `ks` (row-major positions) of `a` as a 1-D or 2-D Var of `shape`: one gathering
/// node, whose reverse pass hands each element's adjoint to its slot.
fn gather<S: Storage>(a: &Var<S>, ks: &[usize], shape: (usize, usize), matrix: bool) -> Res {
    let vars: Vec<Var> = ks.iter().map(|&k| a.element(k)).collect();
    if matrix {
        let like: Matrix = Array2::zeros(shape).into_shared();
        Res::M(Arr::V(Var::from_vars(&like, &vars).expect("sizes agree")))
    } else {
        let like: Vector = Array1::zeros(ks.len()).into_shared();
        Res::V(Arr::V(Var::from_vars(&like, &vars).expect("sizes agree")))
    }
}

/// `v[key]` of a 1-D array Var.
pub fn getitem_vector(v: &Var<Vector>, key: &Bound<'_, PyAny>) -> PyResult<Res> {
    let n = v.len();
    let key = match key.cast::<PyTuple>() {
        Ok(t) if t.len() == 1 => t.get_item(0)?,
        Ok(t) => {
            return Err(PyIndexError::new_err(format!(
                "too many indices for a 1-D revad.Var: {} were indexed",
                t.len()
            )))
        }
        Err(_) => key.clone(),
    };
    match pick(&key, n, 0)? {
        Pick::One(i) => Ok(Res::S(Out::V(v.element(i)))),
        Pick::Many(idx) if contiguous(&idx) => {
            let start = idx.first().copied().unwrap_or(0);
            Ok(Res::V(Arr::V(
                matrix::segment(v, start, idx.len()).map_err(to_py)?,
            )))
        }
        Pick::Many(idx) => Ok(gather(v, &idx, (idx.len(), 1), false)),
    }
}

/// `m[key]` of a 2-D array Var.
pub fn getitem_matrix(m: &Var<Matrix>, key: &Bound<'_, PyAny>) -> PyResult<Res> {
    let (r, c) = m.shape();
    let (kr, kc) = match key.cast::<PyTuple>() {
        Ok(t) if t.len() == 2 => (t.get_item(0)?, Some(t.get_item(1)?)),
        Ok(t) if t.len() == 1 => (t.get_item(0)?, None),
        Ok(t) => {
            return Err(PyIndexError::new_err(format!(
                "too many indices for a 2-D revad.Var: {} were indexed",
                t.len()
            )))
        }
        Err(_) => (key.clone(), None),
    };
    let rows = pick(&kr, r, 0)?;
    let cols = match kc {
        Some(k) => pick(&k, c, 1)?,
        None => Pick::Many((0..c).collect()),
    };
    match (rows, cols) {
        (Pick::One(i), Pick::One(j)) => Ok(Res::S(Out::V(m.at(i, j)))),
        (Pick::One(i), Pick::Many(js)) if js.len() == c && contiguous(&js) => {
            Ok(Res::V(from_row(Arr::V(matrix::row(m, i).map_err(to_py)?))))
        }
        (Pick::Many(is), Pick::One(j)) if is.len() == r && contiguous(&is) => {
            Ok(Res::V(Arr::V(matrix::col(m, j).map_err(to_py)?)))
        }
        (Pick::Many(is), Pick::Many(js)) if contiguous(&is) && contiguous(&js) => {
            let (i0, j0) = (
                is.first().copied().unwrap_or(0),
                js.first().copied().unwrap_or(0),
            );
            Ok(Res::M(Arr::V(
                matrix::block(m, i0, j0, is.len(), js.len()).map_err(to_py)?,
            )))
        }
        (Pick::One(i), Pick::Many(js)) => {
            let ks: Vec<usize> = js.iter().map(|j| i * c + j).collect();
            Ok(gather(m, &ks, (ks.len(), 1), false))
        }
        (Pick::Many(is), Pick::One(j)) => {
            let ks: Vec<usize> = is.iter().map(|i| i * c + j).collect();
            Ok(gather(m, &ks, (ks.len(), 1), false))
        }
        (Pick::Many(is), Pick::Many(js)) => {
            let ks: Vec<usize> = is
                .iter()
                .flat_map(|i| js.iter().map(move |j| i * c + j))
                .collect();
            Ok(gather(m, &ks, (is.len(), js.len()), true))
        }
    }
}

/// The row-major positions that `key` selects in an array of NumPy shape `shape` (1-D or 2-D),
/// and the NumPy shape of the selection (an integer index drops its axis).
fn selection(key: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let parts: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    if parts.len() > shape.len() {
        return Err(PyIndexError::new_err(format!(
            "too many indices for a {}-D revad.Var: {} were indexed",
            shape.len(),
            parts.len()
        )));
    }
    let picks: Vec<Pick> = (0..shape.len())
        .map(|axis| match parts.get(axis) {
            Some(p) => pick(p, shape[axis], axis),
            None => Ok(Pick::Many((0..shape[axis]).collect())),
        })
        .collect::<PyResult<_>>()?;
    let axis = |p: &Pick| match p {
        Pick::One(i) => vec![*i],
        Pick::Many(is) => is.clone(),
    };
    let out_shape: Vec<usize> = picks
        .iter()
        .filter_map(|p| match p {
            Pick::One(_) => None,
            Pick::Many(is) => Some(is.len()),
        })
        .collect();
    let ks = match picks[..] {
        [ref p] => axis(p),
        [ref p, ref q] => {
            let c = shape[1];
            let (is, js) = (axis(p), axis(q));
            is.iter()
                .flat_map(|i| js.iter().map(move |j| i * c + j))
                .collect()
        }
        _ => unreachable!("1-D or 2-D"),
    };
    Ok((ks, out_shape))
}

/// `a[key] = value` in place (seed 001's assignment, `Var::assign_indices`): `value` is a
/// float or scalar Var (written to every selected element), or an array Var, NumPy array or
/// sequence whose shape is the selection's, or broadcasts to it by NumPy's rule.
pub fn setitem<S: Storage>(
    a: &mut Var<S>,
    shape: &[usize],
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (ks, target) = selection(key, shape)?;
    let src = match try_x(value, "__setitem__")? {
        Some(x) => x,
        None => X::A(array_arg(value, "__setitem__", "value")?),
    };
    let src = match src {
        X::S(Arg::F(c)) => return a.fill_indices(&ks, c).map_err(to_py),
        X::S(Arg::V(v)) => return a.fill_indices(&ks, v).map_err(to_py),
        X::A(s) => s,
    };
    let have = src.shape();
    if have == target {
        return match src {
            Ax::V(Arr::V(v)) => a.assign_indices(&ks, &v),
            Ax::V(Arr::D(d)) => a.assign_indices(&ks, &d),
            Ax::M(Arr::V(m)) => a.assign_indices(&ks, &m),
            Ax::M(Arr::D(d)) => a.assign_indices(&ks, &d),
        }
        .map_err(to_py);
    }
    // NumPy's rule for the source: leading axes of length 1 go, then it must broadcast to the
    // selection's shape without the selection stretching.
    let mut trimmed: &[usize] = &have;
    while trimmed.len() > target.len() && trimmed[0] == 1 {
        trimmed = &trimmed[1..];
    }
    if broadcast_shape(trimmed, &target).as_deref() != Some(&target[..]) {
        return Err(errors::size_error(format!(
            "could not broadcast input array from shape {} into shape {}",
            shape_str(&have),
            shape_str(&target)
        )));
    }
    let (r, c) = match target[..] {
        [] => (1, 1),
        [n] => (1, n),
        [r, c] => (r, c),
        _ => unreachable!("1-D or 2-D"),
    };
    match broadcast_to(to_2d(src), r, c)? {
        Arr::V(m) => a.assign_indices(&ks, &m),
        Arr::D(d) => a.assign_indices(&ks, &d),
    }
    .map_err(to_py)
}
