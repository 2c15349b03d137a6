//! Indexing and assignment in place of array Vars, as NumPy reads an index: integers, slices
//! (any step), `None`/`np.newaxis`, `...`, integer arrays and boolean masks (advanced
//! indexing), and `a[key] = value` with NumPy's broadcasting of the value. A selection is ONE
//! gathering node (`matrix::gather`); a single element is a scalar Var sharing the slot.

use numpy::PyUntypedArray;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PySlice, PySliceMethods, PyTuple};
use revad::{matrix, Storage, Var};

use crate::args::{shape_str, Arg, Arr, Ax, Out, Res, X};
use crate::convert::{array_arg, try_x};
use crate::errors::{self, to_py};
use crate::handle::PyVar;
use crate::ops::{broadcast_shape, broadcast_to, to_2d};
use crate::record;

/// One item of an index, as NumPy reads it.
enum Item<'py> {
    /// An integer: the axis goes away.
    Int(isize),
    /// A slice of the axis.
    Slice(Bound<'py, PySlice>),
    /// `None` (`np.newaxis`): a new axis of length 1.
    NewAxis,
    /// `...`: as many full slices as the other items leave.
    Ellipsis,
    /// An integer array (row-major values and shape).
    Ints(Vec<isize>, Vec<usize>),
    /// A boolean array: the positions where it is true, over as many axes as it has.
    Mask(Vec<bool>, Vec<usize>),
}

impl Item<'_> {
    /// How many axes of the array the item consumes.
    fn consumes(&self) -> usize {
        match self {
            Item::Int(_) | Item::Slice(_) | Item::Ints(..) => 1,
            Item::Mask(_, shape) => shape.len(),
            Item::NewAxis | Item::Ellipsis => 0,
        }
    }
}

/// NumPy's message for an index of a type it does not take.
const VALID: &str = "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and \
                     integer or boolean arrays are valid indices";

/// One item of an index.
fn item<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Item<'py>> {
    // A comparison made while recording: the selection depends on its outcome (a guard).
    let obj = &record::decided(obj);
    let py = obj.py();
    if obj.is_none() {
        return Ok(Item::NewAxis);
    }
    if obj.is(py.Ellipsis()) {
        return Ok(Item::Ellipsis);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        return Ok(Item::Slice(s.clone()));
    }
    if obj.is_instance_of::<PyBool>() {
        return Err(PyIndexError::new_err(
            "revad.Var does not take a boolean scalar as an index; use a boolean array",
        ));
    }
    if obj.is_instance_of::<PyVar>() {
        return Err(PyIndexError::new_err(format!(
            "{VALID}, not a revad.Var (index with its .value, or with an integer array)"
        )));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(Item::Int(obj.extract()?));
    }
    let is_array = obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.cast::<PyUntypedArray>().is_ok();
    if !is_array {
        if obj.hasattr("__index__")? {
            return Ok(Item::Int(obj.extract()?));
        }
        return Err(PyIndexError::new_err(VALID));
    }
    let a = py.import("numpy")?.call_method1("asarray", (obj,))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    let flat = a.call_method1("reshape", (-1,))?.call_method0("tolist")?;
    match kind.as_str() {
        "b" => Ok(Item::Mask(flat.extract()?, shape)),
        "i" | "u" if shape.is_empty() => Ok(Item::Int(a.call_method0("item")?.extract()?)),
        "i" | "u" => Ok(Item::Ints(flat.extract()?, shape)),
        // An empty list is read as floats; NumPy takes it as an empty integer array.
        _ if shape == [0] => Ok(Item::Ints(Vec::new(), shape)),
        _ => Err(PyIndexError::new_err(
            "arrays used as indices must be of integer (or boolean) type",
        )),
    }
}

/// An index checked against an axis of length `n` (negative counts from the end).
fn in_axis(i: isize, n: usize, axis: usize) -> PyResult<usize> {
    let j = if i < 0 { i + n as isize } else { i };
    if j < 0 || j as usize >= n {
        return Err(PyIndexError::new_err(format!(
            "index {i} is out of bounds for axis {axis} with size {n}"
        )));
    }
    Ok(j as usize)
}

/// One entry of an index expanded over the array's axes.
enum Entry {
    /// Positions along `axis` (a slice): an axis of the result.
    Range(usize, Vec<usize>),
    /// One position along `axis` (an integer without advanced indexing): no axis.
    One(usize, usize),
    /// A new axis of length 1.
    NewAxis,
    /// Positions along `axis` from an integer array (or a mask's axis, or an integer among
    /// arrays) of shape `shape`, broadcast with the others.
    Adv(usize, Vec<usize>, Vec<usize>),
}

/// The row-major positions that `key` selects in an array of NumPy shape `shape` and the NumPy
/// shape of the selection, by NumPy's rules: basic indexing (integers, slices with any step,
/// `None`, `...`) and advanced indexing (integer arrays broadcast together, boolean masks as the
/// positions where they are true; an integer among arrays is a 0-d array). Advanced indices
/// that are next to each other put their broadcast shape where they stand, otherwise first.
fn selection(key: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let ndim = shape.len();
    let items: Vec<Item<'_>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|i| item(&i)).collect::<PyResult<_>>()?,
        Err(_) => vec![item(key)?],
    };
    if items.iter().filter(|i| matches!(i, Item::Ellipsis)).count() > 1 {
        return Err(PyIndexError::new_err(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    let consumed: usize = items.iter().map(Item::consumes).sum();
    if consumed > ndim {
        return Err(PyIndexError::new_err(format!(
            "too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )));
    }
    let full = |axis: usize| Entry::Range(axis, (0..shape[axis]).collect());
    let mut entries = Vec::new();
    let mut axis = 0;
    for it in items {
        match it {
            Item::Ellipsis => {
                for _ in 0..ndim - consumed {
                    entries.push(full(axis));
                    axis += 1;
                }
            }
            Item::NewAxis => entries.push(Entry::NewAxis),
            Item::Int(i) => {
                entries.push(Entry::One(axis, in_axis(i, shape[axis], axis)?));
                axis += 1;
            }
            Item::Slice(s) => {
                let ind = s.indices(shape[axis] as isize)?;
                let pos = (0..ind.slicelength)
                    .map(|k| (ind.start + k as isize * ind.step) as usize)
                    .collect();
                entries.push(Entry::Range(axis, pos));
                axis += 1;
            }
            Item::Ints(values, ishape) => {
                let pos = values
                    .iter()
                    .map(|&i| in_axis(i, shape[axis], axis))
                    .collect::<PyResult<_>>()?;
                entries.push(Entry::Adv(axis, pos, ishape));
                axis += 1;
            }
            Item::Mask(values, mshape) => {
                let k = mshape.len();
                for (d, (&m, &n)) in mshape.iter().zip(&shape[axis..axis + k]).enumerate() {
                    if m != n {
                        return Err(PyIndexError::new_err(format!(
                            "boolean index did not match indexed array along axis {}; size of \
                             axis is {n} but size of corresponding boolean axis is {m}",
                            axis + d
                        )));
                    }
                }
                // The coordinates of the true elements, one array per axis of the mask.
                let trues: Vec<usize> = (0..values.len()).filter(|&p| values[p]).collect();
                let count = trues.len();
                for d in 0..k {
                    let inner: usize = mshape[d + 1..].iter().product();
                    let pos = trues.iter().map(|&p| p / inner % mshape[d]).collect();
                    entries.push(Entry::Adv(axis + d, pos, vec![count]));
                }
                axis += k;
            }
        }
    }
    while axis < ndim {
        entries.push(full(axis));
        axis += 1;
    }
    let advanced: Vec<usize> = (0..entries.len())
        .filter(|&k| matches!(entries[k], Entry::Adv(..)))
        .collect();
    if !advanced.is_empty() {
        // An integer among arrays is a 0-d array.
        for e in entries.iter_mut() {
            if let Entry::One(axis, i) = *e {
                *e = Entry::Adv(axis, vec![i], vec![]);
            }
        }
    }
    let advanced: Vec<usize> = (0..entries.len())
        .filter(|&k| matches!(entries[k], Entry::Adv(..)))
        .collect();
    // The broadcast shape of the advanced indices.
    let mut bshape: Vec<usize> = Vec::new();
    for &k in &advanced {
        let Entry::Adv(_, _, s) = &entries[k] else {
            unreachable!()
        };
        bshape = broadcast_shape(&bshape, s).ok_or_else(|| {
            let shapes: Vec<String> = advanced
                .iter()
                .map(|&k| match &entries[k] {
                    Entry::Adv(_, _, s) => shape_str(s),
                    _ => unreachable!(),
                })
                .collect();
            PyIndexError::new_err(format!(
                "shape mismatch: indexing arrays could not be broadcast together with shapes {}",
                shapes.join(" ")
            ))
        })?;
    }
    // The result's axes: Some(entry) for a basic one, None for the block of advanced ones.
    let adjacent = advanced
        .first()
        .is_some_and(|&f| advanced.last() == Some(&(f + advanced.len() - 1)));
    let basic = |k: &usize| !matches!(entries[*k], Entry::Adv(..) | Entry::One(..));
    let mut layout: Vec<Option<usize>> = Vec::new();
    if !advanced.is_empty() && !adjacent {
        layout.push(None);
    }
    for k in 0..entries.len() {
        if adjacent && k == advanced[0] {
            layout.push(None);
        }
        if basic(&k) {
            layout.push(Some(k));
        }
    }
    let mut out_shape = Vec::new();
    for slot in &layout {
        match slot {
            None => out_shape.extend_from_slice(&bshape),
            Some(k) => out_shape.push(match &entries[*k] {
                Entry::Range(_, pos) => pos.len(),
                _ => 1,
            }),
        }
    }
    // Walk the result row-major: each index gives a coordinate per axis of the array.
    let strides: Vec<usize> = (0..ndim).map(|d| shape[d + 1..].iter().product()).collect();
    let total: usize = out_shape.iter().product();
    let mut positions = Vec::with_capacity(total);
    let mut index = vec![0usize; out_shape.len()];
    for _ in 0..total {
        let mut pos = 0;
        let mut d = 0;
        for slot in &layout {
            match slot {
                None => {
                    let b = &index[d..d + bshape.len()];
                    for &k in &advanced {
                        let Entry::Adv(axis, values, s) = &entries[k] else {
                            unreachable!()
                        };
                        // The element of this array that broadcasts to b.
                        let skip = bshape.len() - s.len();
                        let mut flat = 0;
                        for (t, &n) in s.iter().enumerate() {
                            flat = flat * n + if n == 1 { 0 } else { b[skip + t] };
                        }
                        pos += values[flat] * strides[*axis];
                    }
                    d += bshape.len();
                }
                Some(k) => {
                    if let Entry::Range(axis, p) = &entries[*k] {
                        pos += p[index[d]] * strides[*axis];
                    }
                    d += 1;
                }
            }
        }
        for e in &entries {
            if let Entry::One(axis, i) = e {
                pos += i * strides[*axis];
            }
        }
        positions.push(pos);
        // The next index, row-major.
        for t in (0..index.len()).rev() {
            index[t] += 1;
            if index[t] < out_shape[t] {
                break;
            }
            index[t] = 0;
        }
    }
    Ok((positions, out_shape))
}

/// The elements `key` selects from an array of `shape`, as NumPy reads it (see
/// [`selection`]): their row-major positions and the result's shape (`[]` for one element).
pub fn select_positions(
    key: &Bound<'_, PyAny>,
    shape: &[usize],
) -> PyResult<(Vec<usize>, Vec<usize>)> {
    // The common cases first: `v[i]` of a vector, `m[i, j]` of a matrix.
    let plain_int = |o: &Bound<'_, PyAny>| o.is_exact_instance_of::<PyInt>();
    if let ([n], true) = (shape, plain_int(key)) {
        return Ok((vec![in_axis(key.extract()?, *n, 0)?], vec![]));
    }
    if let ([r, c], Ok(t)) = (shape, key.cast::<PyTuple>()) {
        if let (2, Ok(i), Ok(j)) = (t.len(), t.get_item(0), t.get_item(1)) {
            if plain_int(&i) && plain_int(&j) {
                let (i, j) = (in_axis(i.extract()?, *r, 0)?, in_axis(j.extract()?, *c, 1)?);
                return Ok((vec![i * c + j], vec![]));
            }
        }
    }
    let (positions, out) = selection(key, shape)?;
    if out.len() > 2 {
        return Err(errors::size_error(format!(
            "revad arrays have at most 2 dimensions; this index gives shape {}",
            shape_str(&out)
        )));
    }
    Ok((positions, out))
}

/// What an index selects: row-major positions (from [`select_positions`]), or, for basic
/// indexing by slices and integers, a strided window (copied row by row, with no position
/// vector) of NumPy shape `out`.
pub enum Selection {
    Positions(Vec<usize>, Vec<usize>),
    Window {
        start: usize,
        rows: (usize, isize),
        cols: (usize, isize),
        out: Vec<usize>,
    },
}

impl Selection {
    /// The position (row-major) of the one element selected, when the selection is one
    /// element (`v[i]`, `m[i, j]`).
    pub fn element(&self) -> Option<usize> {
        match self {
            Selection::Positions(p, out) if p.len() == 1 && out.is_empty() => Some(p[0]),
            Selection::Window { start, out, .. } if out.is_empty() => Some(*start),
            _ => None,
        }
    }

    /// The positions (row-major) of the elements an array selection takes, in the result's
    /// order, when no element is taken twice (`None` for one element, or a repeated index).
    pub fn positions(&self) -> Option<Vec<usize>> {
        match self {
            Selection::Positions(p, out) if !out.is_empty() => {
                let mut sorted = p.clone();
                sorted.sort_unstable();
                sorted.windows(2).all(|w| w[0] != w[1]).then(|| p.clone())
            }
            Selection::Window {
                start,
                rows,
                cols,
                out,
            } if !out.is_empty() => {
                let at = |i: usize, j: usize| {
                    (*start as isize + i as isize * rows.1 + j as isize * cols.1) as usize
                };
                Some(
                    (0..rows.0)
                        .flat_map(|i| (0..cols.0).map(move |j| at(i, j)))
                        .collect(),
                )
            }
            _ => None,
        }
    }
}

/// One axis of a basic index: an integer (the axis goes) or a slice (start, length, step).
fn basic_axis(
    obj: &Bound<'_, PyAny>,
    n: usize,
    axis: usize,
) -> PyResult<Option<(usize, usize, isize, bool)>> {
    if obj.is_exact_instance_of::<PyInt>() {
        let i = in_axis(obj.extract()?, n, axis)?;
        return Ok(Some((i, 1, 1, false)));
    }
    match obj.cast::<PySlice>() {
        Ok(s) => {
            let ind = s.indices(n as isize)?;
            let len = ind.slicelength;
            // An empty slice may start past the end; it selects nothing, from 0.
            let start = if len == 0 { 0 } else { ind.start as usize };
            Ok(Some((start, len, ind.step, true)))
        }
        Err(_) => Ok(None),
    }
}

/// The selection of `key` in an array of NumPy shape `shape`: a strided window for slices and
/// integers (`v[a:b:s]`, `m[a:b, c:d]`, `m[i]`, `m[:, j]`, ...), else the positions of
/// [`select_positions`].
pub fn select(key: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<Selection> {
    let items: Option<Vec<Bound<'_, PyAny>>> = match key.cast::<PyTuple>() {
        Ok(t) if t.len() <= shape.len() => Some(t.iter().collect()),
        Ok(_) => None,
        Err(_) if key.is_exact_instance_of::<PyInt>() || key.cast::<PySlice>().is_ok() => {
            Some(vec![key.clone()])
        }
        Err(_) => None,
    };
    let both_ints = |items: &[Bound<'_, PyAny>]| {
        items.len() == shape.len() && items.iter().all(|i| i.is_exact_instance_of::<PyInt>())
    };
    if let Some(items) = items.filter(|i| !i.is_empty() && !both_ints(i)) {
        let mut axes = Vec::with_capacity(shape.len());
        for (axis, &n) in shape.iter().enumerate() {
            let a = match items.get(axis) {
                Some(obj) => basic_axis(obj, n, axis)?,
                None => Some((0, n, 1, true)),
            };
            match a {
                Some(a) => axes.push(a),
                None => {
                    axes.clear();
                    break;
                }
            }
        }
        let out: Vec<usize> = axes.iter().filter(|a| a.3).map(|a| a.1).collect();
        match axes[..] {
            [(start, len, step, _)] => {
                return Ok(Selection::Window {
                    start,
                    rows: (1, 0),
                    cols: (len, step),
                    out,
                })
            }
            [(i, r, si, _), (j, c, sj, _)] => {
                let width = shape[1] as isize;
                // A single column is one strided run.
                let (rows, cols) = match c {
                    1 => ((1, 0), (r, si * width)),
                    _ => ((r, si * width), (c, sj)),
                };
                let start = match r * c {
                    0 => 0,
                    _ => i * shape[1] + j,
                };
                return Ok(Selection::Window {
                    start,
                    rows,
                    cols,
                    out,
                });
            }
            _ => {}
        }
    }
    let (positions, out) = select_positions(key, shape)?;
    Ok(Selection::Positions(positions, out))
}

/// The elements of `a` that `sel` selects (see [`select`]).
pub fn take_selection<S: Storage>(a: &Var<S>, sel: &Selection) -> PyResult<Res> {
    match sel {
        Selection::Positions(positions, out) => take(a, positions, out),
        Selection::Window {
            start,
            rows,
            cols,
            out,
        } => {
            let n = rows.0 * cols.0;
            match out[..] {
                [] => Ok(Res::S(Out::V(a.element(*start)))),
                [_] => Ok(Res::V(Arr::V(
                    matrix::strided(a, *start, *rows, *cols, (n, 1)).map_err(to_py)?,
                ))),
                [r, c] => Ok(Res::M(Arr::V(
                    matrix::strided(a, *start, *rows, *cols, (r, c)).map_err(to_py)?,
                ))),
                _ => unreachable!("a window of at most 2 dimensions"),
            }
        }
    }
}

/// The elements of `a` at `positions` (from [`select_positions`]) in shape `out`: a scalar Var
/// sharing `a`'s adjoint slot for one element, else ONE gathering node (`matrix::gather`).
pub fn take<S: Storage>(a: &Var<S>, positions: &[usize], out: &[usize]) -> PyResult<Res> {
    match *out {
        [] => Ok(Res::S(Out::V(a.element(positions[0])))),
        [n] => Ok(Res::V(Arr::V(
            matrix::gather(a, positions, (n, 1)).map_err(to_py)?,
        ))),
        [r, c] => Ok(Res::M(Arr::V(
            matrix::gather(a, positions, (r, c)).map_err(to_py)?,
        ))),
        _ => unreachable!("select_positions gives at most 2 dimensions"),
    }
}

/// `a[key] = value` in place (the assignment rule of Stan Math's varmat design, `Var::assign_indices`): `value` is a
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
        _ => {
            return Err(errors::size_error(format!(
                "revad arrays have at most 2 dimensions; this index gives shape {}",
                shape_str(&target)
            )))
        }
    };
    match broadcast_to(to_2d(src), r, c)? {
        Arr::V(m) => a.assign_indices(&ks, &m),
        Arr::D(d) => a.assign_indices(&ks, &d),
    }
    .map_err(to_py)
}
