#!/usr/bin/env bash
# The whole test suite: formatting, lints, every Rust test and doctest, the API docs, ruff, then
# the Python package built as a release wheel and its pytest suite.
#
# The Python part runs in an environment of its own, a virtual environment under
# target/test-venv (made on first use, reused afterwards): the wheel and the test dependencies are
# installed there and nowhere else. The revad installed in your own Python (by `pip install .`)
# is never replaced or touched.
#
# Needs the Rust toolchain (with rustfmt and clippy), Python >= 3.10 with its venv module (the
# interpreter is $PYTHON, python3 by default), and the crates.io and PyPI registries.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1

PYTHON=${PYTHON:-python3}
VENV=target/test-venv
PY="$PWD/$VENV/bin/python"

# (Re)make the environment if it is missing or its interpreter no longer runs.
if ! "$PY" -c "" 2>/dev/null; then
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || { echo "scripts/test.sh: $PYTHON is older than Python 3.10" >&2; exit 1; }
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$PY" -m pip install --quiet "maturin>=1.9.4,<2" "numpy>=1.21" "scipy>=1.10" "mpmath>=1.3" \
    "nutpie>=0.16" "arviz>=0.20" "dask[distributed]>=2024.1" \
    "pytest>=7" "mypy>=1.10" "ruff>=0.5"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

"$PY" -m ruff check python tests benches scripts

# A release wheel, as `pip install .` builds: the tests and the timings they print are those of
# the build users get.
rm -rf target/wheels
"$PY" -m maturin build --release --interpreter "$PY" --out target/wheels
"$PY" -m pip install --quiet --force-reinstall --no-deps target/wheels/revad-*.whl
"$PY" -m pytest -q
