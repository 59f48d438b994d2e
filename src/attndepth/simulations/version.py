"""The installed attndepth's version, recorded with every stored result (sweep points,
measurement checkpoints) so that a result names the code that computed it."""

from importlib.metadata import PackageNotFoundError, version

try:
    TOOLKIT_VERSION = version("attndepth")
except PackageNotFoundError:  # a source tree without install
    TOOLKIT_VERSION = "0+unknown"
