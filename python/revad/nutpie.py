"""Sampling a :class:`revad.Model` with nutpie (``pip install nutpie``), the NUTS sampler of the
PyMC project, written in Rust.

>>> import revad, revad.nutpie                                     # doctest: +SKIP
>>> compiled = revad.nutpie.compile(model)                          # doctest: +SKIP
>>> trace = nutpie.sample(compiled, draws=1000, tune=1000, chains=4, seed=1)  # doctest: +SKIP

:func:`compile` hands nutpie the model's unconstrained log density and gradient through nutpie's
Python-function route (``nutpie.compiled_pyfunc.from_pyfunc``): each chain runs in a thread of
its own and calls the model's ``log_density_gradient`` from Python, under the GIL. The draws
come back as an ArviZ ``InferenceData`` with each parameter's constrained values under its
name and with its declared shape. A ``revad.DomainError`` at a proposed point (its
``is_recoverable`` is true) is a divergence, as in Stan; any other error stops sampling.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .model import Model

__all__ = ["compile"]


def compile(model: Model, *, propto: bool = True, jacobian: bool = True) -> Any:
    """nutpie's compiled model of a :class:`revad.Model`, for ``nutpie.sample``.

    ``propto`` and ``jacobian`` are passed to ``log_density_gradient`` (sampling needs the
    Jacobian, the default). Initial points are uniform on (−2, 2) in the unconstrained space,
    Stan's default. Raises ``ImportError`` if nutpie is not installed.
    """
    try:
        pyfunc = importlib.import_module("nutpie.compiled_pyfunc")
    except ImportError as e:
        raise ImportError("revad.nutpie.compile needs nutpie: pip install nutpie") from e
    shapes = model.param_shapes()
    names = list(shapes)

    def make_logp_fn() -> Any:
        def logp(x: np.ndarray, **_: Any) -> tuple[float, np.ndarray]:
            return model.log_density_gradient(x, propto=propto, jacobian=jacobian)

        return logp

    def make_expand_fn(seed1: int, seed2: int, chain: int) -> Any:
        def expand(x: np.ndarray, **_: Any) -> dict[str, np.ndarray]:
            values = model.param_dict(x)
            return {name: np.asarray(values[name], dtype=np.float64) for name in names}

        return expand

    def make_initial_point(seed: int) -> np.ndarray:
        return np.random.default_rng(seed).uniform(-2.0, 2.0, model.param_unc_num())

    return pyfunc.from_pyfunc(
        model.param_unc_num(),
        make_logp_fn,
        make_expand_fn,
        [np.dtype(np.float64)] * len(names),
        [shapes[n] for n in names],
        names,
        make_initial_point_fn=make_initial_point,
    )
