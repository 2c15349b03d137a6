"""Shared fixtures: every test starts and ends with an empty default tape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import revad


@pytest.fixture(autouse=True)
def _fresh_tape() -> Iterator[None]:
    """Empties the thread's default tape around each test, and checks no Tape block leaked."""
    revad.reset()
    depth = revad.tape_stats()["depth"]
    yield
    assert revad.tape_stats()["depth"] == depth, "a Tape block was left open"
    revad.reset()
