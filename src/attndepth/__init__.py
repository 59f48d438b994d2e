"""attndepth: check the theory of how deep self-attention can usefully go.

One import name with its layers below a front door:

* :mod:`attndepth.theory` — SymPy statements, bounds and derivations;
* :mod:`attndepth.simulations` — NumPy / python-flint measurements on seeded stacks;
* :mod:`attndepth.rank` — separation ranks, measured and certified, and the atlas;
* :mod:`attndepth.pytorch` — the same measurements on PyTorch models (extra ``torch``);
* :mod:`attndepth.figures` — one module per figure and the house style;
* the front door — the claims registry (:mod:`attndepth.framework.registry`), the report
  (:mod:`attndepth.framework.report`) and the command line (:mod:`attndepth.cli.main`).

The names in :data:`__all__` are the public API, named once, in ``__init__.pyi``: they
stay importable from ``attndepth`` whatever module they move to, and load on first use
(``lazy_loader``, scientific-python SPEC 1), so ``import attndepth`` is cheap.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import lazy_loader

try:
    __version__ = version("attndepth")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0+unknown"

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
