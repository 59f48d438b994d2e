"""The verdicts a claim can receive, and their groupings: defined once, used everywhere.

``Verdict`` is a :class:`enum.StrEnum`, so a verdict *is* its word: it compares
equal to ``"holds"``, prints as ``holds`` and is written to JSON as
``"holds"``. User claims may keep returning the plain words; an
:class:`~attndepth.framework.model.Outcome` turns them into members (and
refuses any other word).

How strongly a claim was checked:

* ``proved``: a symbolic or exact-integer proof over the whole stated family.
* ``holds``: agrees with the measurement, and every named rival is rejected.
* ``indistinguishable``: agrees, but so does a named rival; the measurement
  cannot tell them apart.
* ``fails``: a counterexample (the smallest found, in the note).
* ``inconclusive``: the measurement could not decide (the note says why).
* ``error``: the verify function raised; the message is the note.
* ``consistent`` / ``inconsistent``: the verdicts of a consistency check, a
  comparison only a software bug can fail (a certified lower bound against a
  proved upper bound); counted apart from the theory verdicts.
"""

from __future__ import annotations

from enum import StrEnum

from attndepth.errors import InvalidParameter, InvalidType


class Verdict(StrEnum):
    """What a claim's check concluded (module docstring)."""

    PROVED = "proved"
    HOLDS = "holds"
    INDISTINGUISHABLE = "indistinguishable"
    FAILS = "fails"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"
    CONSISTENT = "consistent"
    INCONSISTENT = "inconsistent"

    @classmethod
    def of(cls, word: object) -> Verdict:
        """``word`` as a verdict.

        Raises
        ------
        InvalidType
            ``word`` is not a string.
        InvalidParameter
            It names no verdict.
        """
        if not isinstance(word, str):
            raise InvalidType(f"a verdict is a string, got {type(word).__name__}")
        try:
            return cls(word)
        except ValueError:
            raise InvalidParameter(f"verdict must be one of {', '.join(cls)}, got "
                                   f"{word!r}") from None


#: Every verdict, in the order reports count them.
VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
#: The verdicts of a theory claim.
THEORY_VERDICTS: frozenset[Verdict] = frozenset({
    Verdict.PROVED, Verdict.HOLDS, Verdict.INDISTINGUISHABLE, Verdict.FAILS,
    Verdict.INCONCLUSIVE, Verdict.ERROR})
#: The verdicts of a consistency check.
CONSISTENCY_VERDICTS: frozenset[Verdict] = frozenset({
    Verdict.CONSISTENT, Verdict.INCONSISTENT, Verdict.ERROR})
#: A single run's decision, the unit a sample of seeds pools.
DECIDED: frozenset[Verdict] = frozenset({Verdict.HOLDS, Verdict.FAILS})
#: A member of a family that contradicts its claim: a counterexample.
COUNTEREXAMPLE: frozenset[Verdict] = frozenset({Verdict.FAILS, Verdict.INCONSISTENT})
#: Verdicts that make ``attndepth verify`` exit with status 1.
FAILING: frozenset[Verdict] = COUNTEREXAMPLE | {Verdict.ERROR}
#: Verdicts that pass a strict check (the pytest plugin's ``--attndepth-strict``).
PASSING: frozenset[Verdict] = frozenset({Verdict.PROVED, Verdict.HOLDS})
#: Agreeing with the measurement without deciding against every rival, or not deciding.
UNDECIDED: frozenset[Verdict] = frozenset({Verdict.INCONCLUSIVE, Verdict.INDISTINGUISHABLE})


def failing_for(kind: str) -> Verdict:
    """The verdict of a claim of ``kind`` (``theory`` or ``consistency``) that is wrong."""
    return Verdict.INCONSISTENT if kind == "consistency" else Verdict.FAILS


def domain_verdict(preset: Verdict, failing: bool, kind: str = "theory") -> Verdict:
    """A claim's verdict from its preset's and what is known of its family (the rule of
    :mod:`attndepth.framework.domain`): ``fails`` (``inconsistent`` for a consistency
    check) when a member of the family is known to fail, whatever the preset said;
    otherwise the preset's verdict. ``error`` stays ``error``: the preset did not run.

    Parameters
    ----------
    preset : Verdict
        The preset's verdict.
    failing : bool
        Whether any member of the claim's family is known to fail.
    kind : {"theory", "consistency"}

    Returns
    -------
    Verdict
    """
    if failing and preset != Verdict.ERROR:
        return failing_for(kind)
    return preset
