"""Record each claim's resolving power (``attndepth.framework.resolving``) from a run of
``attndepth verify --format json``, and write its table into the theory document.

    attndepth verify --format json > verify.json
    python docs/resolving_power.py verify.json

``--keep`` keeps the recorded rows of the claims the run did not include (a run of only
the claims that changed), in the registry's order.

writes ``src/attndepth/framework/data/resolving_power.json`` (what ``verify --explain``
prints) and the table between the markers of ``docs/theory.md`` (§6).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from attndepth.framework.resolving import from_dict

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "src" / "attndepth" / "framework" / "data" / "resolving_power.json"
THEORY = ROOT / "docs" / "theory.md"
BEGIN, END = "<!-- resolving-power table -->", "<!-- /resolving-power table -->"


def powers_of(document: dict) -> dict[str, list[dict]]:
    """Claim id -> its estimates' resolving power, from a ``verify --format json``."""
    found = {}
    for claim in document["claims"]:
        evidence = claim.get("evidence") or {}
        if evidence.get("resolving_power"):
            found[claim["claim"]] = evidence["resolving_power"]
    return found


def table(powers: dict[str, list[dict]]) -> str:
    """The Markdown table: claim, number, smallest perturbation caught, largest that
    holds (up / down)."""
    def amount(value, relative: bool) -> str:
        if value is None:
            return "—"
        if value == "inf" or value == float("inf"):
            return "any"
        return f"{100 * value:.3g} %" if relative else f"{value:.3g}"

    lines = ["| claim | error (its prediction perturbed) | caught up / down | holds up / down "
             "| n |",
             "|---|---|---|---|---|"]
    for claim, entries in powers.items():
        for entry in entries:
            power = from_dict(entry)
            kind = "×(1 ± ε)" if power.relative else "± ε"
            caught = (f"{amount(entry['caught_up'], power.relative)} / "
                      f"{amount(entry['caught_down'], power.relative)}")
            held = (f"{amount(entry['held_up'], power.relative)} / "
                    f"{amount(entry['held_down'], power.relative)}")
            label = power.label.replace("|", "\\|")
            lines.append(f"| `{claim}` | {label} {kind} | {caught} | {held} | "
                         f"{power.seeds} |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    keep = "--keep" in argv
    document = json.loads(Path([a for a in argv if a != "--keep"][0]).read_text())
    powers = powers_of(document)
    if keep:
        from attndepth.framework.registry import all_claims

        recorded = json.loads(RECORD.read_text())["claims"]
        merged = {**recorded, **powers}
        order = {claim: index for index, claim in enumerate(all_claims())}
        powers = dict(sorted(merged.items(), key=lambda item: order.get(item[0], len(order))))
    RECORD.write_text(json.dumps({"preset": document["preset"], "seed": document["seed"],
                                  "claims": powers}, indent=1, ensure_ascii=False) + "\n")
    text = THEORY.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    THEORY.write_text(f"{head}{BEGIN}\n{table(powers)}\n{END}{tail}")
    print(f"{len(powers)} claims recorded in {RECORD} and {THEORY}")


if __name__ == "__main__":
    main(sys.argv[1:])
