"""pytest plugin: run registered claims as tests (installed as the ``pytest11`` entry point).

Opt-in, so that installing attndepth changes no other test suite::

    pytest --attndepth-claims my_claims.py            # the claims of a file or module
    pytest --attndepth-all                            # every registered claim
    pytest --attndepth-claims my_claims.py --attndepth-search 20   # search their families

One test per claim, with the node id ``FILE::CLAIM-ID`` (a module source:
``claim[CLAIM-ID]``). A claim passes when its verdict is ``holds`` or ``proved``
(``inconclusive`` and ``indistinguishable`` too, unless ``--attndepth-strict``)
*and* its wrong theory, in place of its theory, makes it fail
(``--attndepth-no-wrong-theory`` skips that run);
``fails``, ``error`` and a wrong theory that does not fail are test failures
whose message is the claim's numbers, or with ``--attndepth-search`` the
smallest counterexample and the command that reproduces it.

Given claims and no paths, pytest collects the claims only, not the tests of
the folder it runs in.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("attndepth", "attndepth claims as tests")
    group.addoption("--attndepth-claims", action="append", default=[], metavar="SOURCE",
                    help="run the claims of this .py file or importable module (repeatable)")
    group.addoption("--attndepth-all", action="store_true",
                    help="run every registered claim (built-in, plug-ins, --attndepth-claims)")
    group.addoption("--attndepth-preset", default="quick", choices=("quick", "full"),
                    help="preset of each claim (default: quick)")
    group.addoption("--attndepth-search", type=int, default=None, metavar="DRAWS",
                    help="search each claim's family instead: exhaustive part, then DRAWS "
                         "hypothesis draws (0: exhaustive only)")
    group.addoption("--attndepth-strict", action="store_true",
                    help="an inconclusive verdict fails the test too")
    group.addoption("--attndepth-no-wrong-theory", action="store_true",
                    help="do not run each claim with its wrong theory in place")


def _claim_files(config: pytest.Config) -> list[Path]:
    """The ``--attndepth-claims`` sources that are files, resolved."""
    return [Path(source).resolve() for source in config.getoption("attndepth_claims")
            if source.endswith(".py") and Path(source).is_file()]


def pytest_configure(config: pytest.Config) -> None:
    """With claims and no paths on the command line, collect the claims only."""
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if not config.getoption("attndepth_claims") or explicit:
        return
    files = _claim_files(config)
    config.args[:] = [str(path) for path in files]
    if not files:  # module sources only: nothing for pytest to walk
        config.args[:] = [str(Path(__file__).parent / "py.typed")]


class ClaimFailed(Exception):
    """A claim's verdict was fails or error."""


class ClaimItem(pytest.Item):
    """One registered claim, run as a test."""

    def __init__(self, *, claim_id: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim_id = claim_id

    def runtest(self) -> None:
        """Run the claim (or search its family); raise :class:`ClaimFailed` unless it passes."""
        config = self.config
        strict = config.getoption("attndepth_strict")
        draws = config.getoption("attndepth_search")
        from attndepth.framework.verdicts import PASSING, UNDECIDED

        passing = PASSING if strict else PASSING | UNDECIDED
        if draws is not None:
            from attndepth.framework.search import search_claim

            report = search_claim(self.claim_id, draws=draws, workers=1)
            if report.verdict not in passing:
                raise ClaimFailed(f"{report.verdict}: {report.summary()}")
            return
        from attndepth.framework.pool_runs import run_claims
        from attndepth.framework.report import wrong_theory_line

        wrong = () if config.getoption("attndepth_no_wrong_theory") else (self.claim_id,)
        result = run_claims([self.claim_id], config.getoption("attndepth_preset"),
                            wrong_theory=wrong)[0]
        if result.verdict not in passing:
            raise ClaimFailed(f"{result.verdict}: predicted {result.outcome.predicted}; "
                              f"measured {result.outcome.measured}; tolerance "
                              f"{result.tolerance}; {result.outcome.note}")
        if result.wrong_theory_caught is False:
            raise ClaimFailed(f"{result.verdict}, but {wrong_theory_line(result)}")

    def repr_failure(self, excinfo, style=None):
        """The claim's verdict and numbers (or its counterexample) instead of a traceback."""
        if isinstance(excinfo.value, ClaimFailed):
            return f"claim {self.claim_id} {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        """Where pytest says the test lives: the claims file and the claim's id."""
        return self.path, None, f"claim {self.claim_id}"


class ClaimsFile(pytest.File):
    """A ``--attndepth-claims`` file: one :class:`ClaimItem` per claim it registers."""

    def collect(self):
        from attndepth.framework.registry import load_claims

        try:
            ids = load_claims(str(self.path))
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
        for claim_id in ids:
            yield ClaimItem.from_parent(self, name=claim_id, claim_id=claim_id)


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector):
    """A claims file is collected as its claims, never imported as a test module."""
    if module_path.resolve() in _claim_files(parent.config):
        return ClaimsFile.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Claims not collected from their file (module sources, files outside the paths
    given, ``--attndepth-all``) become session-level items ``claim[ID]``."""
    sources = config.getoption("attndepth_claims")
    if not sources and not config.getoption("attndepth_all"):
        return
    from attndepth.framework.registry import all_claims, load_claims

    try:
        ids = [claim_id for source in sources for claim_id in load_claims(source)]
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    collected = {item.claim_id for item in items if isinstance(item, ClaimItem)}
    if config.getoption("attndepth_all"):
        ids = list(all_claims())
    items.extend(ClaimItem.from_parent(session, name=f"claim[{claim_id}]", claim_id=claim_id)
                 for claim_id in ids if claim_id not in collected)
