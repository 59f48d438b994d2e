"""Hypothesis profiles: ``dev`` (default), ``ci`` (when CI is set), ``fuzz`` (many cases)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=20, deadline=None)
settings.register_profile(
    "ci", max_examples=15, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("fuzz", max_examples=1000, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
