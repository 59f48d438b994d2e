"""attndepth: check the theory of how deep self-attention can usefully go.

The front door: the claims registry (:mod:`attndepth.claims`), the report
(:mod:`attndepth.report`) and the command line (:mod:`attndepth.cli`).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("attndepth")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0+unknown"
