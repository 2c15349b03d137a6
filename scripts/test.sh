#!/usr/bin/env bash
# The whole test suite: formatting, lints, every Rust test and doctest, then the Python package
# (built with maturin, installed) and its pytest suite. Needs the Rust toolchain, Python >= 3.9
# with pip, and the crates.io and PyPI registries.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1

python3 -m pip install --quiet "maturin>=1.9.4,<2" "numpy>=1.21" "scipy>=1.10" "mpmath>=1.3" \
    "pytest>=7" "mypy>=1.10" "ruff>=0.5"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

ruff check python tests benches scripts
rm -rf target/wheels
maturin build --out target/wheels
python3 -m pip install --quiet --force-reinstall --no-deps target/wheels/revad-*.whl
python3 -m pytest -q
