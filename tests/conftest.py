"""Hypothesis profiles: ``dev`` (default), ``ci`` (when CI is set), ``fuzz`` (many cases);
the JAX ordering; a full disk for checkpoint writers; a small training sweep shared by
the figure tests; the figures' quick data, computed once and (with
ATTNDEPTH_FIGURES_DIR set) saved for the docs build."""

import copy
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=20, deadline=None)
settings.register_profile(
    "ci", max_examples=15, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("fuzz", max_examples=1000, deadline=None)
# CI's fuzz run of tests/test_fuzz_reliability.py: 4 tests x 2,500 = 10,000 cases
settings.register_profile("reliability", max_examples=2500, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


#: In an xdist worker: the BLAS thread limit, kept for the worker's life.
_BLAS_SHARE = None


def pytest_configure(config):
    # pytest-xdist runs one worker per core, and each would start BLAS on every core: two
    # workers on two cores ran four busy BLAS threads. Each worker takes its share, and
    # the commands it starts inherit it through the environment.
    global _BLAS_SHARE
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and _BLAS_SHARE is None:
        from threadpoolctl import threadpool_limits

        from attndepth.simulations.threads import available_cores

        share = max(1, available_cores() // int(workers))
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(variable, str(share))
        _BLAS_SHARE = threadpool_limits(limits=share, user_api="blas")
    config.addinivalue_line("markers", "jax: the test runs JAX (the train extra); run last")
    config.addinivalue_line(
        "markers", "slow: longer than about 5 s; left out of a plain `pytest` (the README's "
        "command), run by `pytest -m slow` in .ci/run")


#: The docs build: it shows the quick runs the tests saved (docs/generate.py), so it comes
#: after every other test that is not JAX's, the slow quick runs of its xdist group
#: included (.ci/run runs the slow tests with ``--dist loadgroup``).
DOCS_BUILD = "test_docs.py::test_site_builds_with_warnings_as_errors"


def pytest_collection_modifyitems(config, items):
    """Tests that start JAX run after all others; the docs build just before them.

    JAX starts threads of its own, and the sweep tests fork worker processes;
    forking a process that holds JAX's threads can deadlock the child (JAX warns
    so). Running the JAX tests last keeps every fork before JAX exists. The docs build
    (a subprocess) reuses what the tests before it saved (:data:`DOCS_BUILD`).
    """
    items.sort(key=lambda item: (item.get_closest_marker("jax") is not None,
                                 item.nodeid.endswith(DOCS_BUILD)))


@pytest.fixture
def full_disk(monkeypatch):
    """``full_disk(after)``: every checkpoint save after the first ``after`` finds the disk
    full, as the writer sees it (an ENOSPC inside the file); returns the save counter."""
    import errno

    from attndepth.simulations import checkpoints

    real = checkpoints.np.savez

    def fill(after: int, patch=monkeypatch) -> list[int]:
        count = [0]

        def savez(*args, **kwargs):
            count[0] += 1
            if count[0] > after:
                raise OSError(errno.ENOSPC, "No space left on device")
            real(*args, **kwargs)

        patch.setattr(checkpoints.np, "savez", savez)
        return count

    return fill


@pytest.fixture
def training_store(tmp_path):
    """Build a small training sweep (2 variants × the given depths × 2 seeds) and return its
    store path: ``training_store(depths, steps, evaluate_every)``."""
    from attndepth.simulations.sweeps.sweep import parse_spec, run_sweep

    def build(depths, steps, evaluate_every):
        spec = parse_spec({"measurement": "train", "seeds": [0, 1],
                           "grid": {"variant": ["post-ln", "post-ln-deesc-a"],
                                    "depth": list(depths)},
                           "fixed": {"width": 8, "pairs": 2, "steps": steps, "batch": 8,
                                     "evaluate_every": evaluate_every}})
        store = tmp_path / "train.sqlite"
        run_sweep(spec, store, workers=1, progress=False)
        return store

    return build


@pytest.fixture(scope="session")
def quick_data():
    """``quick_data(module)``: a figure module's ``compute("quick", 0)``, once per session
    (each call returns a fresh copy).

    The figure is drawn from that data and checked against the figure rules
    (tests/figure_rules.py). With the environment variable ``ATTNDEPTH_FIGURES_DIR`` set
    (``.ci/run`` sets it), it is also saved there as PDF, PNG and CSV; the docs build
    (``docs/generate.py``) then shows these instead of computing them again.
    """
    from attndepth.figures.registry import save

    cache: dict[str, dict] = {}

    def get(module):
        if module.NAME not in cache:
            import matplotlib.pyplot as plt
            from figure_rules import figure_problems

            data = module.compute("quick", 0)
            figure = module.draw(copy.deepcopy(data))
            problems = figure_problems(figure)  # every figure a test draws keeps the rules
            assert not problems, f"figure {module.NAME}: " + "; ".join(problems)
            out = os.environ.get("ATTNDEPTH_FIGURES_DIR")
            if out:
                save(figure, data, module.NAME, Path(out))
            else:
                plt.close(figure)
            cache[module.NAME] = data
        return copy.deepcopy(cache[module.NAME])

    return get


@pytest.fixture
def save_for_docs():
    """``save_for_docs(result)``: with ``ATTNDEPTH_FIGURES_DIR`` set (``.ci/run``), a claim's
    quick run is saved there (``results/<id>.json``) for the docs build's results page,
    which then runs only the claims no test ran, and, for an atlas conjecture, its row of
    the atlas page (docs/generate.py)."""
    def save(result) -> None:
        out = os.environ.get("ATTNDEPTH_FIGURES_DIR")
        if not out:
            return
        import json

        from attndepth.framework.report import markdown_part

        folder = Path(out) / "results"
        folder.mkdir(parents=True, exist_ok=True)
        part = markdown_part(result)
        values = result.outcome.values
        if "smallest_refutation" in values:  # an atlas conjecture: its atlas-page row too
            part["atlas"] = {"verdict": f"{result.verdict}", **{
                key: values[key] for key in ("support", "refutations", "smallest_refutation")}}
        partial = folder / f".{result.id}.json.partial"  # whole or absent, never half
        partial.write_text(json.dumps(part), encoding="utf-8")
        partial.replace(folder / f"{result.id}.json")

    return save
