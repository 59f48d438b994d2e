"""The numbers of ``attndepth verify`` (quick preset, base seed 0), kept so that a change of
the framework can show it changed none of them.

``numbers_of(result)`` flattens a claim's JSON record (what ``verify --format json``
prints) into ``{path: value}``: every number and bool, and every verdict word, at its
place; the prose (whose wording a refactoring may change) and the seconds (the machine's)
are left out. ``tests/data/verify_quick_numbers.json`` holds them for every claim run
by default; ``test_quick_preset_reaches_its_verdict`` compares each claim's against it.

Record them again (after a change that is meant to move a number, said in its commit)::

    python tests/verify_numbers.py
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

RECORD = Path(__file__).parent / "data" / "verify_quick_numbers.json"
#: Two numbers agree when within this relative distance (or both below ABSOLUTE): the
#: BLAS kernels of another machine move the last bits of a sum.
RELATIVE = 1e-6
ABSOLUTE = 1e-12
#: The resolving power's bounds are bisections to 1e-4 of the bound, kept to 4 digits:
#: another machine's last bits may move one by a step, and its last digit with it.
BISECTION_RELATIVE = 2e-3
BISECTION_ABSOLUTE = 1e-12
#: Keys whose text values are kept: the verdicts.
WORDS = frozenset({"verdict", "preset_verdict", "wrong_theory"})


def numbers_of(result: Any) -> dict[str, Any]:
    """Every number, bool and verdict word of ``result``'s JSON record, by path."""
    from attndepth.framework.report import render_json

    record = json.loads(render_json([result], result.preset, result.seed))["claims"][0]
    flat: dict[str, Any] = {}
    _flatten(record, "", flat)
    return flat


def _flatten(value: Any, path: str, flat: dict[str, Any]) -> None:
    key = path.rsplit(".", 1)[-1]
    if "second" in key:
        return
    if isinstance(value, dict):
        for name, item in value.items():
            _flatten(item, f"{path}.{name}" if path else str(name), flat)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", flat)
    elif isinstance(value, bool | int | float) or value is None:
        flat[path] = value
    elif isinstance(value, str) and key in WORDS:
        flat[path] = value


def differences(expected: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What differs, one line each (empty: the same numbers). A value the kept record
    lacks is not a difference: a claim may report more than it did."""
    lines = [f"{path}: {expected[path]!r} → {got.get(path, '(absent)')!r}"
             for path in sorted(expected) if not _same(expected[path], got.get(path, ...), path)]
    return lines


def _same(a: Any, b: Any, path: str = "") -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int) \
            and not isinstance(a, bool) and not isinstance(b, bool):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if "resolving_power" in path:  # a bisection: a last bit may move it one step
            return math.isclose(a, b, rel_tol=BISECTION_RELATIVE, abs_tol=BISECTION_ABSOLUTE)
        return math.isclose(a, b, rel_tol=RELATIVE, abs_tol=ABSOLUTE)
    return bool(a == b)


def recorded() -> dict[str, dict[str, Any]]:
    """The kept numbers, by claim id."""
    return json.loads(RECORD.read_text()) if RECORD.exists() else {}


def main() -> None:
    from attndepth.framework.pool_runs import run_claims
    from attndepth.framework.registry import default_claims

    ids = sys.argv[1:] or default_claims()
    kept = recorded()
    for result in run_claims(ids, "quick", 0):
        kept[result.id] = numbers_of(result)
        print(result.id, result.preset_verdict, file=sys.stderr)
    RECORD.write_text(json.dumps(dict(sorted(kept.items())), indent=1, allow_nan=True) + "\n")


if __name__ == "__main__":
    main()
