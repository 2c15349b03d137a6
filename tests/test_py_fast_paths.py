"""The Python layer's fast paths (float and int arguments read first, float64 NumPy arrays
copied without a dynamic borrow, short data copied, short adjoints copied out, scalar operators
without the array machinery, a frozen Tape) give the same results and errors as the general
paths they bypass."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import revad


def normal_lpdf_ref(y, mu, sigma):
    z = (np.asarray(y, dtype=float) - mu) / sigma
    return float(np.sum(-0.5 * z**2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)))


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,  # C-contiguous float64 (the fast path)
        lambda a: np.asfortranarray(a),  # F-ordered 2-D
        lambda a: a.astype(">f8"),  # big-endian
        lambda a: np.round(a * 10).astype(np.int64),  # integer dtype
        lambda a: a.copy()[..., ::-1],  # negative strides
    ],
)
@pytest.mark.parametrize("shape", [(5,), (3, 4)])
def test_var_from_array_layouts(make, shape):
    base = np.arange(np.prod(shape), dtype=float).reshape(shape) / 7.0 - 0.5
    a = make(base)
    expect = np.asarray(a, dtype=float)
    with revad.Tape():
        v = revad.Var(a)
        assert v.shape == expect.shape
        assert np.array_equal(v.value, expect)
        (v * v).sum().grad()
        assert np.allclose(v.adj, 2 * expect, rtol=0, atol=1e-15)


def test_var_from_read_only_array():
    a = np.linspace(-1.0, 1.0, 6)
    a.flags.writeable = False
    with revad.Tape():
        v = revad.Var(a)
        v.sum().grad()
        assert np.array_equal(v.value, a) and np.array_equal(v.adj, np.ones(6))


def test_var_from_float_kinds():
    with revad.Tape():
        for x in (1.25, np.float64(1.25), np.array(1.25), 5, True):
            v = revad.Var(x)
            assert v.value == float(x) and v.shape == ()


def test_prob_int_arguments_match_floats():
    with revad.Tape():
        y = revad.Var(0.7)
        a = revad.normal_lpdf(y, 0, 2)
        b = revad.normal_lpdf(y, 0.0, 2.0)
        assert a.value == b.value == pytest.approx(normal_lpdf_ref(0.7, 0.0, 2.0), rel=1e-15)
    assert revad.normal_lpdf(1, 0, 1) == revad.normal_lpdf(1.0, 0.0, 1.0)
    with pytest.raises(OverflowError):
        revad.normal_lpdf(0.0, 10**400, 1.0)
    with pytest.raises(revad.DomainError, match="Scale parameter"):
        revad.normal_lpdf(0.0, 0, 0)


@pytest.mark.parametrize("n", [8, 256, 257, 5000])
def test_prob_float64_data_short_and_long(n):
    rng = np.random.default_rng(n)
    y = rng.standard_normal(n)
    y0 = y.copy()
    with revad.Tape():
        mu, sigma = revad.Var(0.3), revad.Var(1.4)
        lp = revad.normal_lpdf(y, mu, sigma)
        y[:] = 100.0  # changing the data after the call must not change the gradient
        lp.grad()
        assert lp.value == pytest.approx(normal_lpdf_ref(y0, 0.3, 1.4), rel=1e-12)
        z = (y0 - 0.3) / 1.4
        assert mu.adj == pytest.approx(np.sum(z) / 1.4, rel=1e-12)
        assert sigma.adj == pytest.approx(np.sum(z**2 - 1) / 1.4, rel=1e-12)


@pytest.mark.parametrize("n", [1, 256, 257, 3000])
def test_adj_short_and_long_arrays_are_owned_copies(n):
    x = np.linspace(0.1, 2.0, n)
    with revad.Tape():
        v = revad.Var(x)
        (v * v).sum().grad()
        g = v.adj
        assert g.dtype == np.float64 and g.flags.writeable
        assert np.allclose(g, 2 * x, rtol=0, atol=1e-15)
        g[:] = -1.0  # the caller's array, not the tape's adjoints
        assert np.allclose(v.adj, 2 * x, rtol=0, atol=1e-15)
    with revad.Tape():
        m = revad.Var(x.reshape(1, n))
        (m * 3.0).sum().grad()
        assert m.adj.shape == (1, n) and np.all(m.adj == 3.0)


def test_scalar_operators_all_combinations():
    with revad.Tape():
        a, b = revad.Var(1.5), revad.Var(-0.4)
        r = a * b + a / b - (2.0 - a) + b**2.0 + 3.0 * a - a / 4.0 + 2.0**b
        r.grad()
        expect = 1.5 * -0.4 + 1.5 / -0.4 - (2.0 - 1.5) + 0.16 + 4.5 - 0.375 + 2.0**-0.4
        assert r.value == pytest.approx(expect, rel=1e-15)
        assert a.adj == pytest.approx(-0.4 + 1 / -0.4 + 1 + 3 - 0.25, rel=1e-14)
        assert b.adj == pytest.approx(
            1.5 - 1.5 / 0.16 + 2 * -0.4 + np.log(2.0) * 2.0**-0.4, rel=1e-14
        )
        # Non-numbers still give NotImplemented and so Python's TypeError.
        with pytest.raises(TypeError):
            a + "x"
        with pytest.raises(TypeError):
            a * None


def test_scalar_operator_stale_and_foreign_vars():
    with revad.Tape():
        old = revad.Var(2.0)
    with revad.Tape():
        x = revad.Var(1.0)
        with pytest.raises(revad.StaleVarError):
            x + old
        with pytest.raises(revad.StaleVarError):
            old * x
        with pytest.raises(revad.StaleVarError):
            old * 2.0
    box = {}

    def make():
        box["v"] = revad.Var(3.0)

    t = threading.Thread(target=make)
    t.start()
    t.join()
    with revad.Tape():
        x = revad.Var(1.0)
        with pytest.raises(revad.ThreadError):
            x + box["v"]
        with pytest.raises(revad.ThreadError):
            box["v"] - 1.0


@pytest.mark.parametrize("x", [0.3, np.float64(0.3), np.array(0.3), 1])
def test_unary_scalar_kinds(x):
    assert revad.exp(x) == pytest.approx(np.exp(float(x)), rel=1e-15)
    assert isinstance(revad.exp(x), float)


def test_unary_vars_arrays_and_errors():
    a = np.array([0.1, 0.5, 0.9])
    assert np.allclose(revad.log1m(a), np.log1p(-a), rtol=1e-15)
    with revad.Tape():
        x, v = revad.Var(0.5), revad.Var(a)
        y = revad.exp(x) + revad.log1m(x) + revad.exp(v).sum()
        y.grad()
        assert x.adj == pytest.approx(np.exp(0.5) - 1 / 0.5, rel=1e-14)
        assert np.allclose(v.adj, np.exp(a), rtol=1e-14)
    with pytest.raises(TypeError, match="exp: argument x must be a float or a revad.Var, not str"):
        revad.exp("x")
    with revad.Tape():
        old = revad.Var(1.0)
    with pytest.raises(revad.StaleVarError):
        revad.exp(old)


def test_tape_open_twice_exit_twice_and_out_of_order():
    t = revad.Tape()
    with t:
        with pytest.raises(revad.TapeError, match="already open"):
            t.__enter__()
    with pytest.raises(revad.TapeError, match="not open"):
        t.__exit__(None, None, None)
    outer, inner = revad.Tape(), revad.Tape()
    outer.__enter__()
    x = revad.Var(1.0)
    inner.__enter__()
    y = revad.Var(2.0)
    assert outer.__exit__(None, None, None) is False  # ends the inner scope too
    with pytest.raises(revad.StaleVarError):
        x + 1.0
    with pytest.raises(revad.StaleVarError):
        y + 1.0
    assert inner.__exit__(None, None, None) is False  # its scope already ended
    revad.reset()  # no block left open
    assert revad.tape_stats()["depth"] == 1
    with t:  # a Tape opens again after it ended
        z = revad.Var(4.0)
        (z * z).grad()
        assert z.adj == 8.0
