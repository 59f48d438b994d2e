"""Every stored result names the installed attndepth, the version the package reports."""

import attndepth
from attndepth.simulations.version import TOOLKIT_VERSION


def test_the_recorded_version_is_the_packages():
    assert TOOLKIT_VERSION == attndepth.__version__
