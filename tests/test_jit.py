"""revad.jit: a function recorded once from Python and replayed in Rust.

Replay must equal an eager call bit for bit (value, gradient, errors) for every function that
has a replay: the scalar functions and the univariate probability functions are checked through
the tables of test_functions.py and test_prob.py. Then guards (branches taken both ways, many
times, alternating), data of new values and new shapes, the eager fallback of a function that
turns a Var into a float, exceptions inside a replay, threads, batches, pickling and processes.
"""

from __future__ import annotations

import math
import multiprocessing
import pickle
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest
from test_functions import CASES
from test_prob import DISTS, columns, finite_points, fn

import revad


def same(a: Any, b: Any) -> bool:
    """Equal bit for bit: floats, arrays and tuples of them (NaN equal to NaN)."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def replays(j: revad.Jit) -> int:
    return j.stats()["replays"]


# ---------------------------------------------------------------------------------------------
# every declared function, through the tables


REAL_CASES = [c for c in CASES if set(c.kinds) <= {"r", "i"}]


@pytest.mark.parametrize("case", REAL_CASES, ids=[c.name for c in REAL_CASES])
def test_replay_equals_eager_for_every_scalar_function(case: Any) -> None:
    reals = case.real_positions
    points = [p for p in case.points if all(math.isfinite(float(p[i])) for i in reals)]
    vg = revad.value_and_grad(case.fn, argnums=tuple(reals))
    jitted = revad.jit(vg)
    ok = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        for p in points + points[::-1]:
            args = tuple(float(x) if i in reals else int(x) for i, x in enumerate(p))
            try:
                expected = vg(*args)
            except Exception as e:  # noqa: BLE001 — the same error is expected from the replay
                with pytest.raises(type(e)):
                    jitted(*args)
                continue
            assert same(jitted(*args), expected), (case.name, p)
            ok += 1
    assert jitted.stats()["eager"] is None
    assert ok == 0 or replays(jitted) > 0


PROB = [(d, kind) for d in DISTS for kind in d.kinds]


@pytest.mark.parametrize(("d", "kind"), PROB, ids=[f"{d.name}_{k}" for d, k in PROB])
def test_replay_equals_eager_for_every_probability_function(d: Any, kind: str) -> None:
    f = fn(d, kind)
    reals = d.reals()
    points = finite_points(d, kind)
    cols = columns(d, points)
    # The first real argument as data (an input of the program), the others differentiated.
    diff = tuple(reals[1:]) if len(reals) > 1 else tuple(reals)
    vg = revad.value_and_grad(f, argnums=diff)
    jitted = revad.jit(vg)
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        # Whole columns, then each point with arrays of one element: two signatures.
        calls = [tuple(cols)]
        calls += [tuple(c[k : k + 1] for c in cols) for k in range(len(points))]
        calls += [tuple(c[::-1].copy() for c in cols)]
        for args in calls + calls:  # each signature again: a replay
            expected = vg(*args)
            assert same(jitted(*args), expected), (d.name, kind, args)
    assert jitted.stats()["eager"] is None
    assert replays(jitted) > 0


def test_the_talk_expression_and_eight_schools_replay_exactly() -> None:
    def talk(v: Any) -> Any:
        return v[0] * revad.log(v[1]) + revad.log(v[0] * v[1]) * v[1]

    vg = revad.value_and_grad(talk)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(0)
    for _ in range(20):
        x = rng.uniform(0.5, 3.0, size=2)
        assert same(jitted(x), vg(x))
    assert jitted.stats()["recordings"] == 1

    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])

    def schools(m: Any, lt: Any, e: Any, ys: Any, sigmas: Any) -> Any:
        tau = revad.exp(lt)
        return (revad.normal_lpdf(m, 0.0, 5.0) + revad.cauchy_lpdf(tau, 0.0, 5.0) + lt
                + revad.std_normal_lpdf(e) + revad.normal_lpdf(ys, m + tau * e, sigmas))

    vg = revad.value_and_grad(schools, argnums=(0, 1, 2))
    jitted = revad.jit(vg)
    for k in range(10):
        args = (0.1 * k, 0.2 - 0.05 * k, rng.normal(size=8), y + k, revad.Data(sigma))
        assert same(jitted(*args), vg(*args))
    assert jitted.stats() == {"recordings": 1, "replays": 9, "divergences": 0,
                              "programs": 1, "scalar_programs": 1, "eager": None}


def test_array_arithmetic_indexing_and_reductions_replay() -> None:
    def f(x: Any, a: Any) -> Any:
        m = x[:4].reshape(2, 2) if hasattr(x, "reshape") else x
        z = revad.exp(x) * 2.0 - x / 3.0 + a * x
        return revad.sum(z) + x[0] * x[-1] + revad.log_sum_exp(x) + abs(-x[1]) + revad.sum(m)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(1)
    for _ in range(5):
        x, a = rng.normal(size=6), rng.normal(size=6)
        assert same(jitted(x, a), vg(x, a))


# ---------------------------------------------------------------------------------------------
# modes and the decorator


@pytest.mark.parametrize("name", ["eigendecompose_sym", "qr_thin", "qr"])
def test_functions_with_a_pair_of_results_replay(name: str) -> None:
    def f(m: Any) -> Any:
        a = (m + m.T) * 0.5 if name == "eigendecompose_sym" else m
        first, second = getattr(revad, name)(a)
        w = np.arange(1.0, first.shape[1] + 1.0)
        return revad.sum(first[0] * w) + revad.sum(second * second) * 0.25

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(5)
    for shape in ((4, 4), (4, 4), (5, 3), (5, 3)) if name != "eigendecompose_sym" else (
            (4, 4), (4, 4), (3, 3)):
        m = rng.normal(size=shape)
        assert same(jitted(m), vg(m)), (name, shape)
    assert jitted.stats()["eager"] is None and jitted.stats()["replays"] > 0


def test_value_mode_grad_mode_and_decorators() -> None:
    def f(x: Any, y: Any) -> Any:
        return x * x * y + revad.sin(y)

    value = revad.jit(f)
    assert value(2.0, 3.0) == f(2.0, 3.0)
    assert value(1.0, 0.5) == 1.0 * 1.0 * 0.5 + math.sin(0.5)
    g = revad.jit(revad.grad(f, argnums=(0, 1)))
    assert same(g(2.0, 3.0), revad.grad(f, argnums=(0, 1))(2.0, 3.0))
    assert same(revad.value_and_grad(revad.jit(f), argnums=1)(2.0, 3.0),
                revad.value_and_grad(f, argnums=1)(2.0, 3.0))

    @revad.jit(max_programs=2)
    @revad.value_and_grad
    def h(x: Any) -> Any:
        return x * revad.log(x)

    assert h.max_programs == 2 and h.mode == "value_and_grad" and h.__name__ == "h"
    assert same(h(2.0), (2.0 * math.log(2.0), math.log(2.0) + 1.0))


def test_a_float_that_is_not_differentiated_is_a_constant() -> None:
    vg = revad.value_and_grad(lambda x, s: x * s, argnums=0)
    jitted = revad.jit(vg)
    assert jitted(2.0, 3.0) == (6.0, 3.0)
    assert jitted(4.0, 3.0) == (12.0, 3.0)
    assert jitted(2.0, 5.0) == (10.0, 5.0)
    assert jitted.stats()["recordings"] == 2
    # A constant, as in an eager call: propto drops the terms of constants alone.
    f = revad.value_and_grad(lambda mu, s: revad.normal_lpdf(1.0, mu, s, propto=True))
    assert revad.jit(f)(0.5, 2.0) == f(0.5, 2.0)


def test_other_arguments_are_constants_compared_on_each_call() -> None:
    def f(x: Any, k: int, *, scale: float = 1.0) -> Any:
        return x ** k * scale

    jitted = revad.jit(revad.value_and_grad(f))
    assert jitted(2.0, 3) == (8.0, 12.0)
    assert jitted(2.0, 2) == (4.0, 4.0)
    assert jitted(2.0, 3, scale=2.0) == (16.0, 24.0)
    assert jitted(3.0, 3) == (27.0, 27.0)
    assert jitted.stats()["recordings"] == 3


# ---------------------------------------------------------------------------------------------
# guards


def test_a_branch_taken_both_ways_alternating() -> None:
    def f(x: Any) -> Any:
        if x > 0.0:
            return x * x
        return -3.0 * x

    jitted = revad.jit(revad.value_and_grad(f))
    for k in range(200):
        x = 1.5 if k % 2 else -0.5
        assert jitted(x) == ((x * x, 2 * x) if x > 0 else (-3.0 * x, -3.0))
    s = jitted.stats()
    assert s["recordings"] == 2 and s["programs"] == 2 and s["eager"] is None


def test_array_comparisons_and_masks_guard_the_shape() -> None:
    def f(x: Any) -> Any:
        return revad.sum(x[x > 0.0])

    jitted = revad.jit(revad.value_and_grad(f))
    for x in ([1.0, -2.0, 3.0], [1.0, 2.0, 3.0], [-1.0, -2.0, 3.0], [1.0, -2.0, 4.0]):
        a = np.array(x)
        value, grad = jitted(a)
        assert value == a[a > 0].sum()
        assert same(grad, (a > 0).astype(float))
    assert jitted.stats()["recordings"] == 3


def test_where_and_if_else_decide_on_every_replay_without_nan() -> None:
    def f(x: Any) -> Any:
        s = revad.sum(revad.where(x > 0.0, revad.log(x), x * x))
        return s + revad.if_else(x[0] > 1.0, revad.sqrt(x[0] - 1.0), -x[0])

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    for x in ([2.0, -1.0, 3.0], [-2.0, 1.0, 0.5], [0.5, 0.5, -0.5], [3.0, -3.0, -1.0]):
        a = np.array(x)
        value, grad = jitted(a)
        assert same((value, grad), vg(a))
        assert np.isfinite(grad).all()
        expected = np.where(a > 0, 1 / np.where(a > 0, a, 1.0), 2 * a)
        expected[0] += 0.5 / np.sqrt(a[0] - 1) if a[0] > 1 else -1.0
        assert np.allclose(grad, expected)
    assert jitted.stats()["recordings"] == 1


def test_the_program_cache_is_bounded() -> None:
    def f(x: Any) -> Any:
        k = 0
        while x > float(k) + 0.5 and k < 10:  # a guard per loop test
            k += 1
        return x * float(k)

    jitted = revad.jit(revad.value_and_grad(f), max_programs=3)
    for x in [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0]:
        assert jitted(x) == (x * round(x), float(round(x)))
    assert jitted.stats()["programs"] == 3


# ---------------------------------------------------------------------------------------------
# data


def test_new_data_replays_and_a_new_shape_records_again() -> None:
    def f(mu: Any, y: Any) -> Any:
        return revad.normal_lpdf(y, mu, 2.0)

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    rng = np.random.default_rng(2)
    for n in (5, 5, 5, 7, 7, 5):
        y = rng.normal(size=n)
        assert same(jitted(0.3, y), vg(0.3, y))
    assert jitted.stats()["recordings"] == 2
    assert jitted.stats()["replays"] == 4


def test_closed_over_values_are_constants() -> None:
    offset = np.array([1.0, 2.0])
    jitted = revad.jit(revad.value_and_grad(lambda x: revad.sum(x * offset)))
    assert jitted(np.array([1.0, 1.0]))[0] == 3.0
    offset[0] = 100.0  # as in jax.jit: the recorded constant stays
    assert jitted(np.array([1.0, 1.0]))[0] == 3.0


# ---------------------------------------------------------------------------------------------
# what cannot be replayed runs eagerly


def test_a_float_leak_falls_back_to_eager_with_one_warning() -> None:
    def f(x: Any) -> Any:
        return x * math.exp(float(x))

    jitted = revad.jit(revad.value_and_grad(f))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for x in (1.0, 2.0, 3.0, 1.0):
            assert jitted(x) == (x * math.exp(x), math.exp(x))
    eager = [w for w in seen if "runs eagerly" in str(w.message)]
    assert len(eager) == 1
    assert "float()" in jitted.stats()["eager"]


def test_a_function_without_replay_falls_back_to_eager() -> None:
    def f(x: Any) -> Any:
        return revad.sum(revad.to_array_1d(x))  # a list of Vars: no single result to replay

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    x = np.array([1.0, 2.0, 3.0])
    with pytest.warns(revad.RevadWarning, match="to_array_1d"):
        assert same(jitted(x), vg(x))
    assert same(jitted(x + 1), vg(x + 1))


def test_a_var_made_outside_the_function_falls_back() -> None:
    with revad.Tape():
        outer = revad.Var(2.0)
        jitted = revad.jit(revad.value_and_grad(lambda x: x * outer))
        with pytest.warns(revad.RevadWarning):
            assert jitted(3.0) == (6.0, 2.0)


# ---------------------------------------------------------------------------------------------
# errors


def test_an_error_inside_a_replay_leaves_the_tape_recovered() -> None:
    def f(theta: Any, y: Any) -> Any:
        return revad.normal_lpdf(y, theta[0], theta[1])

    vg = revad.value_and_grad(f)
    jitted = revad.jit(vg)
    y = np.array([0.5, 1.0])
    before = revad.tape_stats()
    assert same(jitted(np.array([0.0, 1.0]), y), vg(np.array([0.0, 1.0]), y))
    for _ in range(3):
        with pytest.raises(revad.DomainError, match="normal_lpdf"):
            jitted(np.array([0.0, -1.0]), y)
        assert same(jitted(np.array([0.1, 2.0]), y), vg(np.array([0.1, 2.0]), y))
    assert revad.tape_stats()["variables"] == before["variables"]
    assert jitted.stats()["recordings"] == 1


def test_an_exception_raised_by_f_while_recording_propagates() -> None:
    def f(x: Any) -> Any:
        raise KeyError("boom")

    jitted = revad.jit(revad.value_and_grad(f))
    with pytest.raises(KeyError):
        jitted(1.0)
    assert jitted.stats()["recordings"] == 0


# ---------------------------------------------------------------------------------------------
# threads, batches, processes


def schools_flat(theta: Any) -> Any:
    """Eight schools, non-centred, of one flat vector (mu, log tau, eta[8])."""
    y = [28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0]
    sigma = [15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0]
    mu, lt = theta[0], theta[1]
    tau = revad.exp(lt)
    eta = theta[2:]
    return (revad.normal_lpdf(mu, 0.0, 5.0) + revad.cauchy_lpdf(tau, 0.0, 5.0) + lt
            + revad.std_normal_lpdf(eta) + revad.normal_lpdf(y, mu + tau * eta, sigma))


SCHOOLS = revad.jit(revad.value_and_grad(schools_flat))


def test_long_programs_and_large_arrays_replay_without_the_gil() -> None:
    def f(x: Any, m: Any) -> Any:
        s = x[0]
        for i in range(1, 40):  # 117 operations: replayed with the GIL released
            s = s * x[i % 5] + revad.log(x[i % 5])
        return s + revad.sum(m * m)

    vg = revad.value_and_grad(f, argnums=(0, 1))
    jitted = revad.jit(vg)
    for k in range(3):
        x, m = [1.1 + k, 1.2, 1.3, 1.4, 1.5], np.full((3, 4), 0.5 + k)
        assert same(jitted(x, m), vg(x, m))
    big = revad.jit(revad.value_and_grad(revad.normal_lpdf, argnums=(1, 2)))
    y = np.linspace(-3.0, 3.0, 10_000)
    for mu in (0.0, 0.5):
        assert same(big(y, mu, 1.5), revad.value_and_grad(revad.normal_lpdf, argnums=(1, 2))(
            y, mu, 1.5))
    assert jitted.stats()["replays"] == 2 and big.stats()["replays"] == 1


def test_python_threads_calling_one_jitted_function() -> None:
    rng = np.random.default_rng(3)
    points = rng.normal(size=(8, 50, 10))
    expected = [[revad.value_and_grad(schools_flat)(p) for p in ps] for ps in points]
    results: list[list[Any]] = [[] for _ in points]

    def work(k: int) -> None:
        results[k] = [SCHOOLS(p) for p in points[k]]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(points))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected, strict=True):
        assert all(same(g, w) for g, w in zip(got, want, strict=True))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_batch_of_ten_thousand_points(threads: int) -> None:
    rng = np.random.default_rng(4)
    xs = rng.normal(size=(10_000, 10))
    values, grads = SCHOOLS.value_and_grad_batch(xs, threads=threads)
    assert values.shape == (10_000,) and grads.shape == (10_000, 10)
    for i in rng.choice(10_000, size=50, replace=False):
        v, g = revad.value_and_grad(schools_flat)(xs[i])
        assert values[i] == v and same(grads[i], g)


def test_a_batch_with_branches_and_errors() -> None:
    def f(x: Any) -> Any:
        if x[0] > 0.0:
            return revad.sum(x * x)
        return revad.normal_lpdf(x[1], 0.0, x[0] + 10.0)

    jitted = revad.jit(revad.value_and_grad(f))
    xs = np.array([[1.0, 2.0], [-1.0, 2.0], [3.0, 0.5], [-2.0, 1.0]])
    values, grads = jitted.value_and_grad_batch(xs)
    for i, x in enumerate(xs):
        assert same((values[i], grads[i]), revad.value_and_grad(f)(x))
    with pytest.raises(revad.DomainError):
        jitted.value_and_grad_batch(np.array([[1.0, 2.0], [-20.0, 1.0]]))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_batch_raises_the_first_failing_points_error(threads: int) -> None:
    # The threads share the points out as they come free; the error raised is still the first
    # failing point's in order, whichever thread reached it.
    jitted = revad.jit(revad.value_and_grad(lambda x: revad.normal_lpdf(x[1], 0.0, x[0])))
    xs = np.ones((2000, 2))
    xs[1500, 0], xs[300, 0], xs[1999, 0] = -7.0, -5.0, -3.0
    with pytest.raises(revad.DomainError, match=r"is -5,"):
        jitted.value_and_grad_batch(xs, threads=threads)
    xs[300, 0] = 1.0
    with pytest.raises(revad.DomainError, match=r"is -7,"):
        jitted.value_and_grad_batch(xs, threads=threads)


def test_a_batch_needs_one_differentiated_argument() -> None:
    with pytest.raises(TypeError, match="value_and_grad"):
        revad.jit(lambda x: x).value_and_grad_batch(np.zeros((2, 2)))


def test_a_jitted_function_pickles_and_records_again() -> None:
    again = pickle.loads(pickle.dumps(SCHOOLS))
    x = np.linspace(-1, 1, 10)
    assert same(again(x), SCHOOLS(x))
    assert again.stats()["recordings"] == 1


def test_a_jitted_function_in_a_process_pool() -> None:
    xs = [np.linspace(-1, 1, 10) * k for k in range(4)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        got = list(pool.map(SCHOOLS, xs))
    for x, g in zip(xs, got, strict=True):
        assert same(g, SCHOOLS(x))


def _batch_in_child(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return SCHOOLS.value_and_grad_batch(xs, threads=2)


@pytest.mark.skipif(sys.platform != "linux", reason="fork is the default start method on Linux")
def test_a_batch_in_a_forked_process_after_one_in_the_parent() -> None:
    # The parent's helper threads do not exist in a forked child: its batch starts its own.
    xs = np.random.default_rng(11).normal(size=(3000, 10))
    want = SCHOOLS.value_and_grad_batch(xs, threads=2)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        got = pool.submit(_batch_in_child, xs).result(timeout=120)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_dask_cluster_evaluates_many_points() -> None:
    distributed = pytest.importorskip("dask.distributed")

    # Defined here, so that Dask's workers receive it by value (this module is not importable
    # there); the jitted function pickles as it and is recorded again on each worker.
    def model(theta: Any) -> Any:
        return revad.sum(revad.exp(theta) * theta) + revad.normal_lpdf(theta[0], 0.0, 2.0)

    jitted = revad.jit(revad.value_and_grad(model))
    xs = [np.linspace(-1, 1, 6) * k / 10 for k in range(40)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        got = client.gather(client.map(jitted, xs, pure=False))
    for x, g in zip(xs, got, strict=True):
        assert same(g, revad.value_and_grad(model)(x))


def test_numpy_shape_functions_of_a_var_are_recorded() -> None:
    m = np.array([[1.0, 0.2], [-0.1, 0.8]])

    def f(y: Any) -> Any:
        return revad.sum(m @ y) * (np.ndim(y) + np.size(y) + np.shape(y)[0] + np.size(y, 0))

    j = revad.jit(revad.value_and_grad(f))
    y = np.array([1.0, 2.0])
    value, grad = j(y)
    assert j.stats()["eager"] is None
    assert value == pytest.approx(7.0 * float(np.sum(m @ y)))
    np.testing.assert_allclose(grad, 7.0 * m.sum(axis=0))
    value2, _ = j(np.array([3.0, -1.0]))
    assert j.stats()["replays"] == 1
    assert value2 == pytest.approx(7.0 * float(np.sum(m @ np.array([3.0, -1.0]))))


# ---------------------------------------------------------------------------------------------
# a jitted function called with Vars: inside a gradient, or inside another jit's recording


def test_a_value_jit_inside_a_gradient_passes_the_gradient_through() -> None:
    inner = revad.jit(lambda v: v[0] * revad.log(v[1]))

    def outer(v: Any) -> Any:
        return inner(v) + v[0] * v[1]

    x = np.array([2.0, 3.0])
    expected = revad.value_and_grad(lambda v: v[0] * revad.log(v[1]) + v[0] * v[1])(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)
        assert same(revad.value_and_grad(outer)(x), expected)
        assert same(revad.gradient(inner, x)[1], np.array([math.log(3.0), 2.0 / 3.0]))
        # Recorded into the outer program: replays give the same.
        jitted = revad.jit(revad.value_and_grad(outer))
        for k in range(3):
            assert same(jitted(x + k), revad.value_and_grad(outer)(x + k))
    assert jitted.stats()["replays"] == 2
    assert inner.stats()["eager"] is None
    # The inner jit still records and replays on floats.
    assert inner(x) == inner(x) == 2.0 * math.log(3.0)
    assert inner.stats()["recordings"] == 1 and inner.stats()["replays"] == 1


def test_vars_inside_a_list_argument_pass_through() -> None:
    inner = revad.jit(lambda xs, k: xs[0] * xs[1] * k)
    grad = revad.grad(lambda v: inner([v[0], v[1]], 2.0))
    assert same(grad(np.array([2.0, 5.0])), np.array([10.0, 4.0]))
    assert inner.stats()["eager"] is None


def test_a_gradient_jit_called_with_a_var_runs_that_call_eagerly() -> None:
    f = revad.jit(revad.value_and_grad(lambda x, a: a * x * x))
    with warnings.catch_warnings():
        warnings.simplefilter("error", revad.RevadWarning)

        def outer(a: Any) -> Any:
            value, _ = f(3.0, a)
            return a * value

        # The inner gradient is nested: its value is a float, as without jit.
        assert same(revad.value_and_grad(outer)(2.0), revad.value_and_grad(
            lambda a: a * revad.value_and_grad(lambda x, b: b * x * x)(3.0, a)[0])(2.0))
    assert f.stats()["eager"] is None
    assert same(f(3.0, 2.0), (18.0, 12.0))
