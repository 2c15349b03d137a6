"""The imperative interface: revad.Tape blocks, the default tape, reset, tape_stats, and the
safety of handles (stale, used twice, used on another thread)."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import Any

import pytest

import revad
from revad import Var
from revad.testing import assert_close

STALE = "this Var is stale: the tape scope that made it was reset or ended"

# y ~ normal(mu, sigma): the data of the paper's first example (any small sample will do).
Y = [1.3, 0.2, -0.8, 2.1, 0.9, 1.7, -0.1]


def normal_lp(mu: Any, sigma: Any) -> Any:
    lp = 0.0
    for y in Y:
        z = (y - mu) / sigma
        lp = lp - 0.5 * z * z - revad.log(sigma)
    return lp


def test_imperative_example_of_the_paper() -> None:
    with revad.Tape():
        mu, sigma = Var(0.5), Var(1.2)
        lp = normal_lp(mu, sigma)
        lp.grad()
        n = len(Y)
        assert_close(lp.value, normal_lp(0.5, 1.2), 1e-15)
        assert_close(mu.adj, sum(y - 0.5 for y in Y) / 1.2**2, 1e-14)
        assert_close(sigma.adj, -n / 1.2 + sum((y - 0.5) ** 2 for y in Y) / 1.2**3, 1e-14)


def test_default_tape_without_a_block() -> None:
    mu, sigma = Var(0.5), Var(1.2)
    lp = normal_lp(mu, sigma)
    lp.grad()
    assert_close(mu.adj, sum(y - 0.5 for y in Y) / 1.2**2, 1e-14)
    assert revad.tape_stats()["variables"] > 2 * len(Y)
    revad.reset()
    assert revad.tape_stats()["variables"] == 0


def test_a_tape_block_opens_a_scope_and_ends_it() -> None:
    depth = revad.tape_stats()["depth"]
    with revad.Tape() as tape:
        assert revad.tape_stats()["depth"] == depth + 1
        x = Var(1.0)
        assert revad.tape_stats()["variables"] >= 1
    assert tape is not None
    assert revad.tape_stats()["depth"] == depth
    with pytest.raises(revad.StaleVarError):
        x * 2.0


def test_nested_tape_blocks() -> None:
    with revad.Tape():
        a = Var(2.0)
        outer = a * a
        with revad.Tape():
            b = Var(3.0)
            c = a * b
            c.grad()
            assert (b.adj, a.adj) == (2.0, 3.0)
        # The inner block is over: b is stale, a is not, and the inner sweep's writes to a's
        # adjoint are undone.
        with pytest.raises(revad.StaleVarError):
            b + 1.0
        assert a.adj == 0.0
        outer.grad()
        assert a.adj == 4.0


def test_three_levels_and_a_fresh_gradient_in_each() -> None:
    with revad.Tape():
        x = Var(1.5)
        with revad.Tape():
            y = Var(2.5)
            with revad.Tape():
                z = Var(0.5)
                w = x * y * z
                w.grad()
                assert (x.adj, y.adj, z.adj) == (1.25, 0.75, 3.75)
            v = y * y
            v.grad()
            assert y.adj == 5.0
        u = revad.exp(x)
        u.grad()
        assert_close(x.adj, math.exp(1.5), 1e-15)


def test_an_exception_in_a_block_ends_it_and_propagates() -> None:
    depth = revad.tape_stats()["depth"]
    with pytest.raises(KeyError, match="inside"):
        with revad.Tape():
            x = Var(1.0)
            _ = x * 2.0
            raise KeyError("inside")
    assert revad.tape_stats()["depth"] == depth
    with pytest.raises(revad.StaleVarError):
        x + 1.0


# ---------------------------------------------------------------------------------------------
# stale handles


STALE_USES: list[Callable[[Var], Any]] = [
    lambda v: v + 1.0,
    lambda v: 1.0 + v,
    lambda v: v * v,
    lambda v: -v,
    lambda v: abs(v),
    lambda v: v**2,
    lambda v: revad.exp(v),
    lambda v: revad.pow(2.0, v),
    lambda v: revad.log_sum_exp([v, 1.0]),
    lambda v: v.adj,
    lambda v: v.grad(),
    lambda v: Var(1.0) * v,
]


@pytest.mark.parametrize("use", STALE_USES)
def test_a_var_from_an_ended_block_is_stale(use: Callable[[Var], Any]) -> None:
    with revad.Tape():
        v = Var(1.5)
    with pytest.raises(revad.StaleVarError) as info:
        use(v)
    assert STALE in str(info.value)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, revad.RevadError)


@pytest.mark.parametrize("use", STALE_USES)
def test_a_var_from_before_reset_is_stale(use: Callable[[Var], Any]) -> None:
    v = Var(1.5)
    revad.reset()
    with pytest.raises(revad.StaleVarError, match=STALE):
        use(v)


def test_a_stale_var_keeps_its_value() -> None:
    with revad.Tape():
        v = Var(1.5)
    assert v.value == 1.5
    assert float(v) == 1.5


def test_a_stale_var_never_reads_a_later_gradient() -> None:
    with revad.Tape():
        old = Var(1.0)
    with revad.Tape():
        new = Var(2.0)  # may reuse old's slot
        y = new * new
        y.grad()
        assert new.adj == 4.0
        with pytest.raises(revad.StaleVarError):
            _ = old.adj


# ---------------------------------------------------------------------------------------------
# tape errors


def test_reset_inside_a_tape_block_is_a_tape_error() -> None:
    with revad.Tape():
        x = Var(1.0)
        with pytest.raises(revad.TapeError) as info:
            revad.reset()
        assert "Tape block" in str(info.value)
        assert isinstance(info.value, RuntimeError)
        y = x * 2.0  # the block is intact
        y.grad()
        assert x.adj == 2.0


def test_grad_twice_is_a_tape_error() -> None:
    with revad.Tape():
        x = Var(1.0)
        y = x * 3.0
        y.grad()
        with pytest.raises(revad.TapeError, match="already been swept"):
            y.grad()
        assert x.adj == 3.0  # not doubled


def test_grad_twice_on_the_default_tape_then_reset_starts_over() -> None:
    x = Var(1.0)
    y = x * 3.0
    y.grad()
    with pytest.raises(revad.TapeError):
        (x * 4.0).grad()
    revad.reset()
    x = Var(1.0)
    y = x * 4.0
    y.grad()
    assert x.adj == 4.0


def test_grad_of_an_outer_var_inside_a_block_is_a_tape_error() -> None:
    with revad.Tape():
        x = Var(1.0)
        y = x * 2.0
        with revad.Tape():
            with pytest.raises(revad.TapeError, match="outer scope"):
                y.grad()
        y.grad()
        assert x.adj == 2.0


def test_a_tape_object_cannot_be_entered_twice_at_once() -> None:
    tape = revad.Tape()
    with tape:
        with pytest.raises(revad.TapeError):
            with tape:
                pass


def test_a_tape_object_can_be_reused_after_its_block() -> None:
    tape = revad.Tape()
    for k in range(3):
        with tape:
            x = Var(float(k))
            y = x * x
            y.grad()
            assert x.adj == 2.0 * k


# ---------------------------------------------------------------------------------------------
# threads


def _on_another_thread(fn: Callable[[], Any]) -> BaseException | None:
    """Runs ``fn`` on a new thread; returns the exception it raised (None if none)."""
    caught: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as e:
            caught.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return caught[0] if caught else None


@pytest.mark.parametrize(
    "use",
    [lambda v: v + 1.0, lambda v: 2.0 * v, lambda v: revad.exp(v), lambda v: v.adj,
     lambda v: v.grad(), lambda v: revad.gradient(lambda x: x * v, 1.0)],
)
def test_a_var_used_on_another_thread_is_a_thread_error(use: Callable[[Var], Any]) -> None:
    v = Var(1.5)
    err = _on_another_thread(lambda: use(v))
    assert isinstance(err, revad.ThreadError), repr(err)
    assert isinstance(err, RuntimeError) and isinstance(err, revad.RevadError)
    assert "another thread" in str(err)
    w = v * 2.0  # still fine on its own thread
    w.grad()
    assert v.adj == 2.0


def test_a_tape_block_on_another_thread_is_a_thread_error() -> None:
    tape = revad.Tape()
    err = _on_another_thread(lambda: tape.__enter__())
    assert isinstance(err, revad.ThreadError), repr(err)


def test_each_thread_has_its_own_tape() -> None:
    x = Var(1.0)
    _ = x * 2.0
    here = revad.tape_stats()["variables"]
    seen: list[int] = []

    def other() -> None:
        seen.append(revad.tape_stats()["variables"])
        with revad.Tape():
            y = Var(2.0)
            z = y * y
            z.grad()
            assert y.adj == 4.0

    assert _on_another_thread(other) is None
    assert seen == [0]
    assert revad.tape_stats()["variables"] == here


# ---------------------------------------------------------------------------------------------
# tape_stats


def test_tape_stats_keys_and_types() -> None:
    stats = revad.tape_stats()
    assert set(stats) == {"bytes_reserved", "bytes_used", "continuations", "variables", "depth"}
    assert all(type(v) is int and v >= 0 for v in stats.values())


def test_tape_stats_count_what_is_recorded() -> None:
    before = revad.tape_stats()
    x = Var(1.0)
    y = Var(2.0)
    _ = x * y + x
    after = revad.tape_stats()
    assert after["variables"] == before["variables"] + 4
    assert after["continuations"] == before["continuations"] + 2
    assert after["bytes_used"] > before["bytes_used"]
    assert after["bytes_reserved"] >= after["bytes_used"]
    revad.reset()
    assert revad.tape_stats()["variables"] == 0
    assert revad.tape_stats()["bytes_used"] == 0
    assert revad.tape_stats()["bytes_reserved"] == after["bytes_reserved"]  # memory is kept


def test_running_sums_and_products_are_one_record_with_every_adjoint() -> None:
    # `t = t + x` and `t = t * x` grow one record each; the gradient, the intermediate results'
    # adjoints and a replay under jit are those of the arithmetic written out.
    xs = [0.5 + 0.1 * k for k in range(30)]
    with revad.Tape():
        vs = [Var(x) for x in xs]
        before = revad.tape_stats()["continuations"]
        total = vs[0]
        partial = []
        for v in vs[1:]:
            total = total + v
            partial.append(total)
        prod = vs[0]
        for v in vs[1:10]:
            prod = prod * v
        assert revad.tape_stats()["continuations"] == before + 2
        y = total * 2.0 + partial[4] * 3.0 + prod
        y.grad()
        p = math.prod(xs[:10])
        for k, v in enumerate(vs):
            want = 2.0 + (3.0 if k <= 5 else 0.0) + (p / xs[k] if k < 10 else 0.0)
            assert_close(v.adj, want, 1e-13)
        assert partial[4].adj == 5.0
        assert partial[20].adj == 2.0

    def f(v: Any) -> Any:
        t = v[0]
        for k in range(1, len(xs)):
            t = t + v[k] if k % 4 else t * v[k]
        return t

    eager = revad.value_and_grad(f)
    jitted = revad.jit(eager)
    for shift in (0.0, 0.25, -0.5):
        x = [a + shift for a in xs]
        value, grad = eager(x)
        for _ in range(2):  # recorded, then replayed
            v2, g2 = jitted(x)
            assert v2 == value
            assert list(g2) == list(grad)
