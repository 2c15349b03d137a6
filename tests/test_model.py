"""revad.Model: BridgeStan's interface on declared parameters. Against the same model written by
hand on the unconstrained space (values and gradients, with and without the Jacobian, propto),
the names and sizes, constrain/unconstrain round trips (flat arrays, dicts, JSON), bad values
with Stan's messages, the Hessian against a closed form, pickling, threads, a MAP estimate with
scipy.optimize against its closed form, and sampling with nutpie against known posteriors."""

from __future__ import annotations

import json
import math
import pickle
import threading

import numpy as np
import pytest
import scipy.optimize

import revad
from revad.testing import check_gradient

Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SIGMA = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
LOG_TWO_PI = math.log(2 * math.pi)


def eight_schools(p, data, propto=False):
    theta = p["mu"] + p["tau"] * p["eta"]
    return (revad.normal_lpdf(p["mu"], 0.0, 5.0, propto=propto)
            + revad.cauchy_lpdf(p["tau"], 0.0, 5.0, propto=propto)
            + revad.normal_lpdf(p["eta"], 0.0, 1.0, propto=propto)
            + revad.normal_lpdf(data["y"], theta, data["sigma"], propto=propto))


def schools_model() -> revad.Model:
    return revad.Model(
        {"mu": revad.real(), "tau": revad.real(lower=0), "eta": revad.vector(8)},
        eight_schools, data={"y": Y, "sigma": SIGMA}, name="eight_schools")


def by_hand(x, jacobian: bool, propto: bool = False):
    """The unconstrained log density written out: tau = exp(log_tau), log|J| = log_tau."""
    mu, log_tau, eta = x[0], x[1], x[2:]
    tau = revad.exp(log_tau)
    lp = eight_schools({"mu": mu, "tau": tau, "eta": eta}, {"y": Y, "sigma": SIGMA}, propto)
    return lp + log_tau if jacobian else lp


POINTS = [np.linspace(-1.0, 1.0, 10), np.random.default_rng(3).normal(size=10)]


@pytest.mark.parametrize("jacobian", [True, False])
@pytest.mark.parametrize("propto", [True, False])
def test_values_and_gradients_match_the_model_by_hand(jacobian: bool, propto: bool) -> None:
    model = schools_model()
    for x in POINTS:
        want, want_grad = revad.gradient(lambda v, j=jacobian, p=propto: by_hand(v, j, p), x)
        lp, grad = model.log_density_gradient(x, propto=propto, jacobian=jacobian)
        assert lp == pytest.approx(want, rel=1e-13)
        np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-14)
        assert model.log_density(x, propto=propto, jacobian=jacobian) == pytest.approx(
            want, rel=1e-13)
        out = np.empty(10)
        assert model.log_density_gradient(x, out=out)[1] is out


def test_the_gradient_matches_finite_differences() -> None:
    model = schools_model()
    # propto=False: on plain floats a density of data only would drop every term.
    check_gradient(lambda x: model._density(False, True)(x), POINTS)


def test_names_and_sizes_follow_bridgestan() -> None:
    model = revad.Model({"a": revad.real(), "b": revad.vector(2), "c": revad.matrix(2, 3)},
                        lambda p, d: revad.sum(p["b"]))
    assert model.name() == "revad_model"
    assert model.param_num() == model.param_unc_num() == 9
    assert model.param_names() == ["a", "b.1", "b.2", "c.1.1", "c.2.1", "c.1.2", "c.2.2",
                                   "c.1.3", "c.2.3"]
    assert model.param_unc_names() == ["a", "b.1", "b.2"] + [f"c.{i}" for i in range(1, 7)]
    m = schools_model()
    assert m.name() == "eight_schools"
    assert m.param_unc_num() == 10
    assert m.param_names()[:3] == ["mu", "tau", "eta.1"]


def test_constrain_and_unconstrain_are_inverse() -> None:
    model = schools_model()
    x = POINTS[1]
    theta = model.param_constrain(x)
    assert theta[1] == pytest.approx(math.exp(x[1]))
    np.testing.assert_allclose(model.param_unconstrain(theta), x, rtol=1e-13)
    values = {"mu": 1.5, "tau": 2.0, "eta": np.arange(8.0)}
    free = model.param_unconstrain(values)
    assert free[1] == pytest.approx(math.log(2.0))
    text = json.dumps({"mu": 1.5, "tau": 2.0, "eta": list(range(8))})
    np.testing.assert_allclose(model.param_unconstrain_json(text), free)
    d = model.param_dict(free)
    assert d["tau"] == pytest.approx(2.0) and d["eta"].shape == (8,)


def test_a_matrix_is_column_major_as_in_stan() -> None:
    model = revad.Model({"c": revad.matrix(2, 3)}, lambda p, d: revad.sum(p["c"]))
    x = np.arange(6.0)
    c = model.param_dict(x)["c"]
    np.testing.assert_array_equal(c, np.arange(6.0).reshape(2, 3, order="F"))
    np.testing.assert_array_equal(model.param_constrain(x), x)
    np.testing.assert_array_equal(model.param_unconstrain({"c": c}), x)


def test_bad_values_raise_with_stans_messages() -> None:
    model = schools_model()
    with pytest.raises(revad.DomainError) as e:
        model.param_unconstrain({"mu": 0.0, "tau": -1.0, "eta": np.zeros(8)})
    assert e.value.is_recoverable
    with pytest.raises(revad.SizeError):
        model.log_density_gradient(np.zeros(3))
    with pytest.raises(revad.SizeError):
        model.param_unconstrain({"mu": 0.0, "tau": 1.0, "eta": np.zeros(3)})
    with pytest.raises(ValueError, match="out size"):
        model.log_density_gradient(np.zeros(10), out=np.zeros(2))
    with pytest.raises(TypeError, match="revad.real"):
        revad.Model({"x": 3.0}, eight_schools)


def test_hessian_of_a_gaussian_is_its_negative_precision() -> None:
    # log N(x | m, S) in x: the Hessian is −S⁻¹ exactly.
    s = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
    m = np.array([0.5, -1.0, 2.0])
    model = revad.Model({"x": revad.vector(3)},
                        lambda p, d: revad.multi_normal_lpdf(p["x"], m, s))
    x = np.array([0.1, 0.2, 0.3])
    lp, grad, hess = model.log_density_hessian(x)
    np.testing.assert_allclose(hess, -np.linalg.inv(s), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(grad, -np.linalg.solve(s, x - m), rtol=1e-12)
    v = np.array([1.0, -2.0, 0.5])
    lp2, hv = model.log_density_hessian_vector_product(x, v)
    assert lp2 == pytest.approx(lp)
    np.testing.assert_allclose(hv, -np.linalg.solve(s, v), rtol=1e-6, atol=1e-7)


def test_models_pickle() -> None:
    model = schools_model()
    again = pickle.loads(pickle.dumps(model))
    x = POINTS[0]
    assert again.log_density_gradient(x)[0] == model.log_density_gradient(x)[0]
    assert again.param_names() == model.param_names()


def test_threads_evaluate_independently() -> None:
    model = schools_model()
    xs = [np.random.default_rng(i).normal(size=10) for i in range(8)]
    want = [model.log_density_gradient(x) for x in xs]
    got: list[object] = [None] * len(xs)

    def work(i: int) -> None:
        for _ in range(50):
            got[i] = model.log_density_gradient(xs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (lp, g), (wl, wg) in zip(got, want, strict=True):  # type: ignore[misc]
        assert lp == wl
        np.testing.assert_array_equal(g, wg)


def poisson_gamma(p, data):
    return (revad.gamma_lpdf(p["lam"], data["a"], data["b"])
            + revad.poisson_lpmf(data["y"], p["lam"]))


POISSON = {"a": 2.0, "b": 0.5, "y": np.array([3, 5, 2, 4, 6, 1, 3])}


def test_map_by_scipy_optimize_reaches_the_closed_form() -> None:
    # λ ~ gamma(a, b), yᵢ ~ Poisson(λ): the posterior is gamma(a + Σy, b + n), whose mode
    # (MAP, no Jacobian) is (a + Σy − 1)/(b + n).
    model = revad.Model({"lam": revad.real(lower=0)}, poisson_gamma, POISSON)

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        lp, g = model.log_density_gradient(x, jacobian=False)
        return -lp, -g

    fit = scipy.optimize.minimize(negative, np.zeros(1), jac=True, method="BFGS")
    assert fit.success
    a, b, y = POISSON["a"], POISSON["b"], POISSON["y"]
    assert model.param_constrain(fit.x)[0] == pytest.approx((a + y.sum() - 1) / (b + len(y)),
                                                            rel=1e-6)


def test_sampling_with_nutpie_recovers_known_posteriors() -> None:
    nutpie = pytest.importorskip("nutpie")
    import revad.nutpie

    # Two independent conjugate pieces: λ | y ~ gamma(a + Σy, b + n), and for a normal mean
    # with known unit variance and prior N(0, 10²), μ | z ~ N(Σz / (n + 1/100), 1/(n + 1/100)).
    z = np.array([1.2, 0.4, 2.2, 1.9, 0.8, 1.5])

    def model_fn(p, data):
        return (poisson_gamma(p, data) + revad.normal_lpdf(p["mu"], 0.0, 10.0)
                + revad.normal_lpdf(data["z"], p["mu"], 1.0))

    model = revad.Model({"lam": revad.real(lower=0), "mu": revad.real()}, model_fn,
                        {**POISSON, "z": z})
    trace = nutpie.sample(revad.nutpie.compile(model), draws=1000, tune=500, chains=2, seed=7,
                          progress_bar=False)
    a, b, y = POISSON["a"], POISSON["b"], POISSON["y"]
    precision = len(z) + 1e-2
    exact = {
        "lam": ((a + y.sum()) / (b + len(y)), math.sqrt(a + y.sum()) / (b + len(y))),
        "mu": (z.sum() / precision, 1 / math.sqrt(precision)),
    }
    for name, (mean, sd) in exact.items():
        draws = np.asarray(trace.posterior[name]).ravel()
        # Monte Carlo standard error with a conservative effective size of a quarter of the
        # draws; the check fails by chance with probability about 1e-4.
        mcse = sd / math.sqrt(len(draws) / 4)
        assert abs(draws.mean() - mean) < 4 * mcse, (name, draws.mean(), mean)
    assert trace.posterior["lam"].shape == (2, 1000)
