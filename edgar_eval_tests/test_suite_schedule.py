"""The README's test command (`pytest -n 2 --dist loadfile`) hands whole modules to two workers in the order the
conftest sorts them, longest first. pytest-xdist reorders modules by how many tests each holds unless told not to:
that sent the one-test shared-corpus module (16 minutes beside the rest) out near the end, with one worker idle for six
minutes of it."""

from __future__ import annotations


def test_xdist_keeps_the_conftests_order(pytestconfig):
    assert pytestconfig.getoption("loadscopereorder", False) is False, "the conftest should turn xdist's reordering off"
