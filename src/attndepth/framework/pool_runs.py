"""Running many claims: in registry order, in this process or across a process pool,
an error of one claim its verdict ``error``, Ctrl-C keeping what finished."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection
from dataclasses import replace

from attndepth.errors import (
    InvalidType,
    UserCodeFailed,
    describe_exception,
)
from attndepth.framework.domain import check_records
from attndepth.framework.model import Outcome
from attndepth.framework.registry import (
    all_claims,
    claim_source,
    default_claims,
    get_claim,
    is_users,
    load_claims,
)
from attndepth.framework.results import ClaimResult
from attndepth.framework.running import check_run, run_claim, wrong_theory_verdict
from attndepth.framework.verdicts import Verdict
from attndepth.validation import check_int


def run_claims(claim_ids: list[str] | None = None, preset: str = "quick",
               seed: int = 0, progress: Callable[[str], None] | None = None,
               wrong_theory: Collection[str] = (), jobs: int = 1,
               finished: Callable[[ClaimResult], None] | None = None) -> list[ClaimResult]:
    """Run the named claims (when None: every claim run by default) in registry order.

    A claim whose verify function raises gets the verdict ``error`` with the
    exception's message as its note; the other claims still run. Unknown ids,
    a bad preset or a bad seed are refused before anything runs. The claims
    named in ``wrong_theory`` also run with their wrong theory in place
    (:func:`~attndepth.framework.running.wrong_theory_verdict`; ``ClaimResult.wrong_theory``).

    Parameters
    ----------
    claim_ids : list of str, optional
    preset : {"quick", "full"}
    seed : int
        The base seed.
    progress : callable, optional
        Called with each claim's id as it starts (in-process runs only).
    wrong_theory : collection of str
        Ids also run with their wrong theory.
    jobs : int
        Worker processes: with ``jobs > 1`` and several claims, the claims run across
        a process pool, each worker's BLAS and attndepth threads capped at its share
        of the cores (:func:`attndepth.simulations.threads.share_cores`). Each claim
        draws from its own seeds, so every verdict is the one of a single process; a
        number may differ in its last bit where BLAS sums with another thread count
        (measured: three values of ``naderi.spectral-gap``, relative 2e-16).
    finished : callable, optional
        Called with each result as its claim finishes (completion order).

    Returns
    -------
    list of ClaimResult
        In the order of ``claim_ids`` (registry order), whatever order they finished in.

    Raises
    ------
    ClaimsInterrupted
        Ctrl-C (a ``KeyboardInterrupt``): the workers are stopped at once, and the
        exception holds the results of the claims that had finished.
    """
    if claim_ids is not None and (isinstance(claim_ids, str)
                                  or not isinstance(claim_ids, Collection)):
        raise InvalidType(f"claim_ids must be a list of ids or None, got "
                          f"{type(claim_ids).__name__}")
    for name, function in (("progress", progress), ("finished", finished)):
        if function is not None and not callable(function):
            raise InvalidType(f"{name} must be a function or None, got "
                              f"{type(function).__name__}")
    if isinstance(wrong_theory, str) or not isinstance(wrong_theory, Collection):
        raise InvalidType(f"wrong_theory must be a collection of claim ids, got "
                          f"{type(wrong_theory).__name__}")
    jobs = check_int("jobs", jobs, minimum=1, maximum=MAX_JOBS)
    check_records()  # a damaged record is refused before any claim is measured
    ids = default_claims() if not claim_ids else list(claim_ids)
    for claim_id in ids:
        get_claim(claim_id)  # reject unknown ids before anything runs
    check_run(preset, seed)
    tasks = [(claim_id, preset, seed, claim_id in wrong_theory) for claim_id in ids]
    if jobs > 1 and len(ids) > 1 and _workers_can_run(ids):
        return _run_in_pool(tasks, min(jobs, len(ids)), finished)
    results = []
    try:
        for task in tasks:
            if progress is not None:
                progress(task[0])
            results.append(_run_task(*task))
            if finished is not None:
                finished(results[-1])
    except KeyboardInterrupt:
        raise ClaimsInterrupted(results) from None
    return results


class ClaimsInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_claims`: the running claims were stopped at once (their
    workers terminated); ``results`` holds the claims that had finished, in registry
    order."""

    def __init__(self, results: list[ClaimResult]) -> None:
        super().__init__(f"interrupted after {len(results)} finished claims")
        self.results = results


#: The most worker processes ``run_claims`` starts.
MAX_JOBS = 256


def _run_task(claim_id: str, preset: str, seed: int, wrong: bool) -> ClaimResult:
    """One claim of :func:`run_claims` (in this process or a worker): an exception of its
    verify function is the verdict ``error``, never fatal to the run."""
    start = time.perf_counter()
    try:
        result = run_claim(claim_id, preset, seed)
        if wrong:
            result = replace(result, wrong_theory=wrong_theory_verdict(claim_id, preset,
                                                                       seed) or "none")
        return result
    except (Exception, SystemExit) as error:
        found = get_claim(claim_id)
        message = (str(error).splitlines()[0] if isinstance(error, UserCodeFailed)
                   else describe_exception(error))
        outcome = Outcome("(not evaluated)", "(raised)", Verdict.ERROR, message)
        return ClaimResult(claim=found, preset=preset, seed=seed,
                           params=dict(found.presets[preset]), outcome=outcome,
                           seconds=time.perf_counter() - start)


def _workers_can_run(ids: list[str]) -> bool:
    """Whether a fresh worker process finds every claim: a forked worker inherits the
    registry; another start method imports attndepth's claims and loads each user's
    claims from the source it was loaded from
    (:func:`~attndepth.framework.registry.claim_source`)."""
    import multiprocessing

    if multiprocessing.get_start_method() == "fork":
        return True
    return all(not is_users(get_claim(i)) or claim_source(i) is not None for i in ids)


def _start_worker(jobs: int, sources: tuple[str, ...], parent: int | None = None) -> None:
    from attndepth.simulations.threads import share_cores

    share_cores(jobs, parent)
    for source in sources:  # a spawned worker: the user's claims, as the caller loaded them
        if not any(claim_source(i) == source for i in all_claims()):
            load_claims(source)


def _run_in_pool(tasks: list[tuple[str, str, int, bool]], jobs: int,
                 finished: Callable[[ClaimResult], None] | None) -> list[ClaimResult]:
    from concurrent.futures import as_completed

    from attndepth.simulations.pools import process_pool

    sources = tuple(dict.fromkeys(source for task in tasks
                                  if (source := claim_source(task[0])) is not None))
    results: dict[int, ClaimResult] = {}
    with process_pool(jobs, _start_worker, (jobs, sources, os.getpid())) as pool:
        # the largest seed samples first, so that no long claim starts last and leaves
        # the other workers idle at the end (the results keep registry order)
        order = sorted(range(len(tasks)), key=lambda k: -_largest_sample(tasks[k][0]))
        futures = {pool.submit(_run_task, *tasks[k]): k for k in order}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if finished is not None:
                    finished(results[futures[future]])
        except KeyboardInterrupt:  # the pool stops its workers; the finished claims stay
            for future, k in futures.items():
                if k not in results and future.done() and not future.cancelled() \
                        and future.exception() is None:
                    results[k] = future.result()
            raise ClaimsInterrupted([results[k] for k in sorted(results)]) from None
    return [results[k] for k in range(len(tasks))]


def _largest_sample(claim_id: str) -> int:
    """The most seeds a claim's sample may reach (1 for a claim without an estimate)."""
    return max((estimate.seeds[1] for estimate in get_claim(claim_id).estimates), default=1)
