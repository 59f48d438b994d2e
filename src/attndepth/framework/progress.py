"""Progress of a search or a map: a tqdm bar on a terminal, one line per member otherwise;
and of one long claim: a line every ten seconds with the seeds measured (:func:`seed_progress`).

Long runs (``verify --search``, ``attndepth map``) must say how far they are.
On a terminal the bar updates in place; redirected to a file or a CI log,
each finished member is one line, ``CLAIM  MEMBER  VERDICT``, so a log shows
what was computed even when the run is killed.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from tqdm import tqdm


class MemberProgress:
    """Reports each finished member of one claim's run.

    Parameters
    ----------
    claim_id : str
    total : int or None
        Members expected (None: unknown, as for hypothesis draws).
    phase : str
        Shown before the bar / on each line (``exhaustive``, ``drawn``, ``map``).
    enabled : bool or None
        None: on whenever there is a stream to write to (a bar on a terminal,
        lines otherwise); False: silent.
    stream : text stream, default ``sys.stderr``
    """

    def __init__(self, claim_id: str, total: int | None, phase: str,
                 enabled: bool | None = None, stream: TextIO | None = None):
        self.claim_id, self.phase = claim_id, phase
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled is not False
        self.terminal = self.enabled and self.stream.isatty()
        self.bar = (tqdm(total=total, desc=f"{claim_id} {phase}", unit="member",
                         file=self.stream, leave=False) if self.terminal else None)

    def done(self, member: dict[str, Any], verdict: str) -> None:
        """One member finished with ``verdict``."""
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(verdict, refresh=False)
        elif self.enabled:
            text = ", ".join(f"{k}={v}" for k, v in member.items())
            print(f"{self.claim_id}  {self.phase}  {text}  {verdict}", file=self.stream,
                  flush=True)

    def close(self) -> None:
        """End the bar (lines need no ending)."""
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> MemberProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SeedProgress:
    """A claim's run that lasts: one line on the stream every ``every`` seconds (the first
    after ``every``), saying how many seeds its samples have measured so far.

    Parameters
    ----------
    every : float
        Seconds between lines (a run shorter than that says nothing).
    stream : text stream, default ``sys.stderr``
    """

    def __init__(self, every: float = 10.0, stream: TextIO | None = None):
        import time

        self.every, self.stream = every, sys.stderr if stream is None else stream
        self.start = self.last = time.monotonic()
        self.seeds: dict[str, int] = {}

    def seed_done(self, claim_id: str) -> None:
        """One seed of ``claim_id`` was measured."""
        import time

        self.seeds[claim_id] = self.seeds.get(claim_id, 0) + 1
        now = time.monotonic()
        if now - self.last >= self.every:
            self.last = now
            print(f"attndepth: {claim_id}: {self.seeds[claim_id]} seed runs measured "
                  f"({now - self.start:.0f} s)", file=self.stream, flush=True)


_ACTIVE: list[SeedProgress] = []


@contextlib.contextmanager
def seed_progress(every: float = 10.0, stream: TextIO | None = None
                  ) -> Iterator[SeedProgress]:
    """While the block runs, every claim measured in this process reports its seeds
    (:class:`SeedProgress`): the command line's progress on long claims."""
    reporter = SeedProgress(every, stream)
    _ACTIVE.append(reporter)
    try:
        yield reporter
    finally:
        _ACTIVE.remove(reporter)


def seed_done(claim_id: str) -> None:
    """Tell the active :func:`seed_progress` (if any) that one seed was measured."""
    for reporter in _ACTIVE:
        reporter.seed_done(claim_id)
