"""Progress of a search or a map: a tqdm bar on a terminal, one line per member otherwise.

Long runs (``verify --search``, ``attndepth map``) must say how far they are.
On a terminal the bar updates in place; redirected to a file or a CI log,
each finished member is one line, ``CLAIM  MEMBER  VERDICT``, so a log shows
what was computed even when the run is killed.
"""

from __future__ import annotations

import sys
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
