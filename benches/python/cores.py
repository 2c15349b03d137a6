"""Which cores the benchmark processes may use.

The reference figures of the peers (docs/benchmarks.md) were measured on a single thread; JAX
(XLA) and PyTorch otherwise use every core for large arrays while revad computes on one.
``--cores 1`` (the default) pins the whole process to one core before any peer is imported, so
each library runs under the same conditions as those figures; ``--cores all`` leaves the
machine's default (peers on every core).
"""

from __future__ import annotations

import argparse
import os


def add_argument(parser: argparse.ArgumentParser) -> None:
    """Adds ``--cores {1,all}`` to a benchmark's command line."""
    parser.add_argument("--cores", choices=("1", "all"), default="1",
                        help="1: pin the process to one core, as for the reference figures "
                             "(default); all: let peers use every core")


def apply(choice: str) -> str:
    """Pins the process as chosen (before JAX or PyTorch start their thread pools) and returns
    a line for the report."""
    allowed = sorted(os.sched_getaffinity(0))
    if choice == "1":
        os.sched_setaffinity(0, {allowed[0]})
        return f"pinned to core {allowed[0]} (every library single-threaded)"
    return f"all {len(allowed)} cores (peers may run multi-threaded; revad uses one)"
