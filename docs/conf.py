"""Sphinx configuration of the attndepth documentation.

Build: ``pip install -e ".[docs]"`` then ``sphinx-build -W -b html docs docs/_build/html``.
The claims table, the figure gallery and the CLI reference are generated at
build time from the registry, the figures and argparse: nothing is pasted.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import write_generated  # noqa: E402

from attndepth import __version__  # noqa: E402

project = "attndepth"
author = "the attndepth developers"
copyright = "2026, the attndepth developers"  # noqa: A001
release = version = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinxarg.ext",
    "sphinx-mathjax-offline",  # MathJax copied into _static: math renders offline
]
# Keep "--list" as typed: smart quotes would turn the CLI page's "--" into en dashes.
smartquotes_action = "qe"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_typehints = "none"  # the numpydoc sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
# SymPy's DomainMatrix (a dataclass field type here) has a non-numpydoc section.
warnings.filterwarnings("ignore", message="Unknown section Explanation", category=UserWarning)

html_theme = "alabaster"
html_title = f"attndepth {release}"
html_static_path = ["_static"]
html_css_files = ["attndepth.css"]  # tables that scroll, figures at their printed size
# the page is wide enough for the claims table and a double-column figure (6.75 in)
html_theme_options = {"page_width": "1200px", "sidebar_width": "220px"}


_LITERAL = re.compile(r"(``.*?``)")


def _escape_bars(app, what, name, obj, options, lines: list[str]) -> None:
    """Docstrings write |P|, |λ₂| as in the terminal; reST would read substitutions.

    Escapes ``|`` outside inline literals and literal blocks (after ``::``).
    """
    in_block, block_indent = False, 0
    for k, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if in_block and line.strip() and indent <= block_indent:
            in_block = False
        if not in_block and "|" in line:
            parts = _LITERAL.split(line)
            lines[k] = "".join(part if part.startswith("``") else part.replace("|", r"\|")
                               for part in parts)
        if line.rstrip().endswith("::"):
            in_block, block_indent = True, indent


def setup(app):  # noqa: D103 - Sphinx hook
    app.connect("builder-inited", lambda app: write_generated(HERE / "_generated"))
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)
