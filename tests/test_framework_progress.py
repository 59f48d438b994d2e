"""Progress: one line per member of a search or a map, and a line every few seconds of a
long claim, with the seeds it has measured."""

import io

from attndepth.framework.progress import MemberProgress, seed_done, seed_progress
from attndepth.framework.running import run_claim


def test_a_member_is_one_line_off_a_terminal():
    stream = io.StringIO()
    with MemberProgress("mine.x", 2, "map", stream=stream) as progress:
        progress.done({"width": 8}, "holds")
    assert stream.getvalue() == "mine.x  map  width=8  holds\n"


def test_a_long_claim_says_how_many_seeds_it_has_measured(monkeypatch):
    from attndepth import Estimate, Outcome
    from attndepth.framework import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))

    @registry.claim("mine.seeds", source="s", statement="s", tolerance="t",
                    presets={"quick": {}, "full": {}},
                    estimate=Estimate("m", "p", (-0.1, 0.1), seeds=(4, 4)))
    def verify(seed):
        return Outcome("p", "m", "holds", values={"m": 1.0, "p": 1.0})

    stream = io.StringIO()
    with seed_progress(every=0.0, stream=stream):
        run_claim("mine.seeds")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4 and all(line.startswith("attndepth: mine.seeds: ") for line in lines)
    assert lines[-1].split(": ")[2].startswith("4 seed runs measured")
    seed_done("mine.x")  # no active reporter: nothing happens
