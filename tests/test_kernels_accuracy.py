"""Accuracy of the vectorised elementary functions (``revad.exp(numpy_array)`` and friends).

Each function is evaluated through the user path, a NumPy array of data, on 10⁶ points over its
domain (log-uniform magnitudes of both signs where the domain has them, plus the edges: the
overflow and underflow thresholds, subnormals, ±0, the ends of each domain). The error is the
distance to the exact value in units in the last place of the double result (fractions of an
ulp: an error of at most 1 means the result is one of the two doubles around the exact value).

Reference: 10⁶ mpmath calls per function would take minutes, so the exact values come from
NumPy's 80-bit ``longdouble`` (libm's ``expl``, ``logl``, ``log1pl``, ``expm1l``, ``tanhl``:
64-bit significands, 11 bits more than a double, so their own error is about 2⁻¹¹ ulp of a
double). That reference is itself checked against mpmath at 80 bits on a 2·10⁴-point subset of
every function (agreement within 0.01 ulp), and the kernels are checked against mpmath directly
on that subset too.

Measured maxima (AVX-512 path; the scalar and AVX2 paths are checked against the standard
library in crates/revad/tests/kernels_elementary.rs): exp 0.51, log 0.52, log1p 0.75,
expm1 0.84, inv_logit 2.31 (Stan's eˣ below ln ε; 1 elsewhere), log_inv_logit 1.40,
log1m_inv_logit 1.41, log1p_exp 1.45, tanh 2.13 ulp. Each is asserted at the bound in CASES.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np
import pytest

import revad

LD = np.longdouble
N = 1_000_000
SUBSET = 20_000

pytestmark = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant < 63,
    reason="needs an 80-bit (or wider) numpy.longdouble for the reference values",
)


def ulp_error(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|y − ref| in ulps of the double nearest ``ref`` (``ref`` in long double)."""
    ref = np.asarray(ref, dtype=LD)
    _, e = np.frexp(ref)
    # ref = m·2ᵉ with m in [½, 1): a double's ulp there is 2^(e − 53), at least 2⁻¹⁰⁷⁴.
    ulp = np.ldexp(LD(1), np.maximum(e - 53, -1074))
    err = np.abs(y.astype(LD) - ref) / ulp
    # Beyond the largest double the correctly rounded result is ±∞.
    with np.errstate(over="ignore"):
        rounded = ref.astype(np.float64)
    err[np.isinf(rounded) & (y == rounded)] = 0
    return np.asarray(err, dtype=np.float64)


def log_uniform(rng: np.random.Generator, lo: float, hi: float, n: int, signed: bool) -> np.ndarray:
    m = 10.0 ** rng.uniform(lo, hi, n)
    return m * rng.choice([-1.0, 1.0], n) if signed else m


def ld_log1p_exp(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def ld_log_inv_logit(x: np.ndarray) -> np.ndarray:
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


# name: (revad function, long-double reference, mpmath reference, point generator, bound)
Case = tuple[
    Callable[[np.ndarray], np.ndarray],
    Callable[[np.ndarray], np.ndarray],
    Callable[[mpmath.mpf], mpmath.mpf],
    Callable[[np.random.Generator], np.ndarray],
    float,
]

EDGES_EXP = [
    709.782712893384,
    709.0,
    708.0,
    -708.0,
    -708.3964185322641,
    -708.4,
    -709.0,
    -740.0,
    -745.1332191019411,
    1e-300,
    5e-324,
    -5e-324,
    0.0,
    -0.0,
    1e-17,
    -1e-17,
]


def pts_exp(rng: np.random.Generator) -> np.ndarray:
    half = N // 2
    return np.concatenate(
        [
            log_uniform(rng, -20, np.log10(745.0), half, True),
            rng.uniform(-745.0, 709.7, N - half - len(EDGES_EXP)),
            EDGES_EXP,
        ]
    )


def pts_log(rng: np.random.Generator) -> np.ndarray:
    third = N // 3
    edges = [
        5e-324,
        1e-310,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        1.0,
        np.nextafter(1.0, 2.0),
        np.nextafter(1.0, 0.0),
        0.7071067811865476,
        1.4142135623730951,
    ]
    return np.concatenate(
        [
            rng.uniform(0.5, 2.0, third),
            log_uniform(rng, -323, 308, N - third - len(edges), False),
            edges,
        ]
    )


def pts_log1p(rng: np.random.Generator) -> np.ndarray:
    third = N // 3
    edges = [
        -1.0 + 2.0**-53,
        -0.5,
        -0.2928932188134524,
        0.41421356237309515,
        5e-324,
        -5e-324,
        0.0,
        -0.0,
        1e-300,
        1.7976931348623157e308,
        2.0**53,
        1e16,
    ]
    return np.concatenate(
        [
            -1.0 + log_uniform(rng, -16, 0, third, False),
            log_uniform(rng, -300, 300, N - third - len(edges), True).clip(-1.0 + 2.0**-53),
            edges,
        ]
    )


def pts_expm1(rng: np.random.Generator) -> np.ndarray:
    half = N // 2
    edges = [
        709.0,
        709.78,
        37.0,
        36.7,
        -37.0,
        -37.5,
        -38.0,
        -40.0,
        5e-324,
        -5e-324,
        0.0,
        -0.0,
        0.34657359027997264,
        -0.34657359027997264,
        1e-300,
    ]
    return np.concatenate(
        [
            log_uniform(rng, -20, np.log10(709.7), half, True),
            rng.uniform(-60.0, 709.7, N - half - len(edges)),
            edges,
        ]
    )


def pts_real(rng: np.random.Generator) -> np.ndarray:
    edges = [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        708.0,
        -708.0,
        709.0,
        -745.0,
        800.0,
        -800.0,
        -36.04365338911715,
        19.0,
        22.0,
        -22.0,
    ]
    return np.concatenate([log_uniform(rng, -20, 3, N - len(edges), True), edges])


def mp_log_inv_logit(x: mpmath.mpf) -> mpmath.mpf:
    return -mpmath.log1p(mpmath.exp(-x))


CASES: dict[str, Case] = {
    "exp": (revad.exp, np.exp, mpmath.exp, pts_exp, 1.0),
    "log": (revad.log, np.log, mpmath.log, pts_log, 1.0),
    "log1p": (revad.log1p, np.log1p, mpmath.log1p, pts_log1p, 1.0),
    "expm1": (revad.expm1, np.expm1, mpmath.expm1, pts_expm1, 1.0),
    # Below ln ε = −36.04 inv_logit returns eˣ, as Stan's does: 1–2 ulps from σ(x) there.
    "inv_logit": (
        revad.inv_logit,
        lambda x: 1 / (1 + np.exp(-x)),
        lambda x: 1 / (1 + mpmath.exp(-x)),
        pts_real,
        2.5,
    ),
    "log_inv_logit": (revad.log_inv_logit, ld_log_inv_logit, mp_log_inv_logit, pts_real, 1.5),
    "log1m_inv_logit": (
        revad.log1m_inv_logit,
        lambda x: ld_log_inv_logit(-x),
        lambda x: mp_log_inv_logit(-x),
        pts_real,
        1.5,
    ),
    "log1p_exp": (
        revad.log1p_exp,
        ld_log1p_exp,
        lambda x: mpmath.log1p(mpmath.exp(x)),
        pts_real,
        1.5,
    ),
    "tanh": (revad.tanh, np.tanh, mpmath.tanh, pts_real, 2.5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_max_error_in_ulps(name: str) -> None:
    f, ref_ld, ref_mp, points, bound = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    x = points(rng)
    assert x.size >= N
    y = np.asarray(f(x), dtype=np.float64)
    assert y.shape == x.shape
    with np.errstate(all="ignore"):
        ref = ref_ld(x.astype(LD))
    err = ulp_error(y, ref)
    worst = int(np.argmax(err))
    print(f"{name}: max error {err[worst]:.3f} ulp at x = {x[worst]!r} over {x.size} points")
    assert err[worst] <= bound, (name, x[worst], y[worst], ref[worst], err[worst])

    # The long-double reference, and the kernel directly, against mpmath on a subset.
    idx = rng.choice(x.size, SUBSET, replace=False)
    idx = np.concatenate([idx, np.arange(x.size - 10, x.size)])  # the edges
    with mpmath.workprec(80):
        exact = np.array([LD(str(ref_mp(mpmath.mpf(float(v))))) for v in x[idx]], dtype=LD)
    ld_gap = np.abs(ref[idx] - exact) / np.ldexp(LD(1), np.maximum(np.frexp(exact)[1] - 53, -1074))
    assert float(np.max(np.where(np.isfinite(ld_gap), ld_gap, 0))) <= 0.01, name
    assert float(np.max(ulp_error(y[idx], exact))) <= bound, name


def test_special_values_as_the_standard_library() -> None:
    specials = np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            0.0,
            -0.0,
            5e-324,
            -5e-324,
            1e-310,
            710.0,
            -746.0,
            1e308,
            -1e308,
            -1.0,
            -2.0,
        ]
    )
    with np.errstate(all="ignore"):
        for name, want in [
            ("exp", np.exp(specials)),
            ("log", np.log(specials)),
            ("log1p", np.log1p(specials)),
            ("expm1", np.expm1(specials)),
            ("tanh", np.tanh(specials)),
        ]:
            got = np.asarray(getattr(revad, name)(specials))
            same = (got == want) | (np.isnan(got) & np.isnan(want))
            assert same.all(), (name, specials[~same], got[~same], want[~same])
            # The sign of zero too.
            zero = want == 0
            assert (np.signbit(got[zero]) == np.signbit(want[zero])).all(), name
