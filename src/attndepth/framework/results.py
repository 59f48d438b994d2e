"""What a run of a claim reports: :class:`ClaimResult`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from attndepth.framework.deciding import ToDecide
from attndepth.framework.domain import Domain
from attndepth.framework.evidence import Evidence, RivalResult
from attndepth.framework.model import Claim, Outcome
from attndepth.framework.registry import get_claim
from attndepth.framework.verdicts import Verdict, domain_verdict, failing_for


@dataclass(frozen=True, kw_only=True)
class ClaimResult:
    """What one run of a claim found, with the claim itself and the run's provenance.

    The claim's fields (``id``, ``source``, ``statement``, ``tolerance``, ``conjecture``,
    ``kind``) are read from :attr:`claim`, not copied. Two verdicts stand side by side:
    :attr:`preset_verdict`, this run's alone, and :attr:`family_verdict`, the claim's
    given what is known of its whole family (:mod:`attndepth.framework.domain`), where
    the run joined it. A result crosses processes with its claim named by id (the
    receiving process has the claim registered).
    """

    claim: Claim
    preset: str
    seed: int
    params: dict[str, Any]
    outcome: Outcome
    seconds: float
    #: What the sample of seeds said (None: a claim decided by one run).
    evidence: Evidence | None = None
    rivals: tuple[RivalResult, ...] = ()
    #: Whether the parameters lie in the claim's family (None: it has none, or a
    #: family parameter is not among them).
    in_family: bool | None = None
    #: The verdict with the claim's wrong theory in place, when it was run: the
    #: claim is shown able to fail when this is ``fails`` (``inconsistent`` for a
    #: check); ``"none"`` when the claim declares no wrong theory.
    wrong_theory: str | None = None
    #: What is known of the claim's whole family (:mod:`attndepth.framework.domain`):
    #: set when the claim ran at a preset with its own theory; None for a run at other
    #: parameters (a family member, a map's grid point) or with another theory.
    domain: Domain | None = None
    #: What would decide an undecided run (:mod:`attndepth.framework.deciding`); None
    #: when it is decided.
    to_decide: ToDecide | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if f.name != "claim"}
        return (_result_of_claim, (self.claim.id, fields))

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def source(self) -> str:
        return self.claim.source

    @property
    def statement(self) -> str:
        return self.claim.statement

    @property
    def tolerance(self) -> str:
        return self.claim.tolerance

    @property
    def conjecture(self) -> bool:
        return self.claim.conjecture

    @property
    def kind(self) -> str:
        return self.claim.kind

    def __repr__(self) -> str:
        """One line: the id, the verdict (and the preset's, where the domain's differs),
        the preset and the seconds. A notebook shows the whole report
        (``_repr_pretty_``)."""
        word = self.claim_verdict or "outside its family"
        preset = (f", {self.preset_verdict} at the preset" if self.claim_verdict is not None
                  and self.verdict != self.preset_verdict else "")
        return (f"<ClaimResult {self.id}: {word}{preset} ({self.preset}, base seed "
                f"{self.seed}, {self.seconds:.2f} s)>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython and Jupyter
        from attndepth.framework.result_text import TABLE_WIDTH, result_block

        printer.text(repr(self) if cycle else "\n".join(result_block(self, TABLE_WIDTH)))

    def _repr_html_(self) -> str:  # Jupyter
        """The report's lines as an HTML table: verdict, prediction, measurement,
        tolerance, rivals, and the domain's failing members."""
        from attndepth.framework.result_text import result_html

        return result_html(self)

    @property
    def family_verdict(self) -> Verdict | None:
        """The claim's verdict given what is known of its whole family
        (:func:`~attndepth.framework.verdicts.domain_verdict`: ``fails`` where a member
        is known to fail); None where the run did not join the family's record."""
        if self.domain is None:
            return None
        return domain_verdict(self.outcome.judgement, bool(self.domain.failures), self.kind)

    @property
    def verdict(self) -> Verdict:
        """The claim's verdict: :attr:`family_verdict` where the run joined the family's
        record, else :attr:`preset_verdict`."""
        family = self.family_verdict
        return self.preset_verdict if family is None else family

    @property
    def claim_verdict(self) -> Verdict | None:
        """The verdict as the claim's: None for parameters outside its family (a run
        there says nothing of the claim)."""
        return None if self.in_family is False else self.verdict

    @property
    def preset_verdict(self) -> Verdict:
        """The verdict of this run alone (at its preset or parameters)."""
        return self.outcome.judgement

    @property
    def wrong_theory_caught(self) -> bool | None:
        """Whether the wrong theory made the claim fail (None: not run, or none declared)."""
        if self.wrong_theory in (None, "none"):
            return None
        return self.wrong_theory == failing_for(self.kind)


def _result_of_claim(claim_id: str, fields: dict[str, Any]) -> ClaimResult:
    """A :class:`ClaimResult` unpickled: its claim found again by id."""
    return ClaimResult(claim=get_claim(claim_id), **fields)
