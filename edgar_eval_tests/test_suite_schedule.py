"""The README's test command (`pytest -n 2 --dist loadfile`) hands whole modules to two workers in the order the
conftest sorts them, longest first. pytest-xdist reorders modules by how many tests each holds unless told not to:
that sent the one-test shared-corpus module (14 minutes) out near the end, with one worker idle for six of them."""

from __future__ import annotations

from edgar_eval_tests.conftest import _slow_minutes


def test_xdist_keeps_the_conftests_order(pytestconfig):
    assert pytestconfig.getoption("loadscopereorder", False) is False, "the conftest should turn xdist's reordering off"


def test_the_longest_modules_are_collected_first(request):
    minutes = [_slow_minutes(item) for item in request.session.items]
    assert minutes == sorted(minutes, reverse=True)
