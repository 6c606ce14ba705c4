"""Test settings shared by the suite.

Hypothesis is derandomized by default (profile ``ci``): the suite is deterministic, so
a failure is a defect, never bad luck. ``make fuzz`` selects the ``fuzz`` profile
(``HYPOTHESIS_PROFILE=fuzz``, random seeds) with ``SIMLAB_FUZZ_SCALE=10`` (ten times the
examples of the property tests), to explore.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", derandomize=False, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Runs with several jobs normally stay in one process when they are short (see
# simlab.engine.runner.MIN_PARALLEL_SECONDS); the suite's runs are all short, and must still
# exercise the worker processes. Set here so subprocesses inherit it too;
# tests/test_runner.py checks the automatic choice itself.
os.environ["SIMLAB_MIN_PARALLEL_SECONDS"] = "0"


@pytest.fixture
def executed(monkeypatch):
    """``executed(*modules)``: the sizes (``Plan.n``) of every ``execute`` call made from
    those modules from now on, in order: what a command ran in its own process."""
    sizes: list[int] = []

    def watch(*modules) -> list[int]:
        for module in modules:
            real = module.execute

            def counted(p, _real=real, **kw):
                sizes.append(p.n)
                return _real(p, **kw)
            monkeypatch.setattr(module, "execute", counted)
        return sizes
    return watch
