"""Fuzzed command lines: every subcommand, in-process, with random and adversarial arguments.

Each run must end with exit code 0 or 1, or 2 with exactly one line on stderr;
any exception escaping ``main`` (or a traceback) fails the test. Run many
cases with ``pytest --hypothesis-profile=fuzz tests/test_fuzz_cli.py``.
"""

import io
from contextlib import redirect_stderr, redirect_stdout

from hypothesis import given
from hypothesis import strategies as st

from attndepth.cli.main import main

ADVERSARIAL = ["0", "-1", "-7", "nan", "inf", "-inf", "1e309", "abc", "", " ", "3.5",
               "1e12", "1000000000000", str(2**63), str(-2**63), "0x10", "--json", "/",
               "0,1/2", "1/0", "0,0/1", "é", "None", "[]"]
small_ints = st.integers(-3, 4).map(str)
values = st.one_of(st.sampled_from(ADVERSARIAL), small_ints)


def _run(argv: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    assert code in (0, 1, 2), (argv, code)
    if code == 2:
        lines = err.getvalue().strip().splitlines()
        assert len(lines) == 1, (argv, err.getvalue())
    assert "Traceback" not in err.getvalue()


def _flags(options: dict[str, st.SearchStrategy], switches: tuple[str, ...] = ()):
    """argv fragments: a random subset of options with values, and switches."""
    pairs = [st.tuples(st.just(flag), strategy) for flag, strategy in options.items()]
    chosen = st.lists(st.one_of(*pairs), max_size=len(options) + 1)
    return st.tuples(chosen, st.lists(st.sampled_from(switches), max_size=2) if switches
                     else st.just([])).map(
        lambda pair: [token for flag_value in pair[0] for token in flag_value] + pair[1])


@given(_flags({"--params": values, "--width": st.one_of(values, st.sampled_from(["200", "768"])),
               "--depth": values, "--fit-intercept": values, "--fit-slope": values},
              ("--zoo", "--json")))
def test_fuzz_plan(argv):
    _run(["plan", *argv])


@given(_flags({"--width": values, "--depth": st.one_of(values, st.sampled_from(["9", "40"])),
               "--heads": values, "--tokens": values, "--partition": values,
               "--method": st.sampled_from(["exact", "numeric", "x"]), "--seed": values,
               "--prime": st.sampled_from(["2147483647", "15", "2", "-3", "x"]),
               "--margin": values, "--max-points": values},
              ("--residual", "--json", "--verify")))
def test_fuzz_seprank(argv):
    _run(["seprank", *argv])


@given(_flags({"--variant": st.sampled_from(["pure", "post-ln", "pre-ln", "post-ln-deesc-b",
                                             "x"]),
               "--depth": values, "--tokens": values, "--width": values, "--heads": values,
               "--tau": values, "--temperature": values, "--seeds": values, "--seed": values},
              ("--spectra", "--json", "--causal", "--ffn")))
def test_fuzz_similarity(argv):
    _run(["similarity", *argv])


@given(_flags({"--claim": st.sampled_from(["levine.1t-width", "levine.gpt3-too-deep", "nope",
                                           ""]),
               "--preset": st.sampled_from(["quick", "full", "huge"]),
               "--format": st.sampled_from(["table", "json", "markdown", "latex", "yaml"]),
               "--seed": values},
              ()))
def test_fuzz_verify(argv):
    if "--claim" not in argv:
        argv = [*argv, "--claim", "nope"]  # keep the fuzz fast: never run every claim
    _run(["verify", *argv])


@given(_flags({"--only": st.sampled_from(["nope", "", "x y"]),
               "--preset": st.sampled_from(["huge", "x"]), "--seed": values}, ()))
def test_fuzz_figures_bad_input(argv):
    if "--only" not in argv:
        argv = [*argv, "--only", "nope"]
    _run(["figures", "--out", "/nonexistent-dir-for-fuzz/figs", *argv])


@given(st.lists(st.one_of(st.sampled_from(["verify", "plan", "seprank", "similarity",
                                          "figures", "sweep", "--help-me", "-x"]), values),
                max_size=4))
def test_fuzz_arbitrary_argv(argv):
    if argv and argv[0] in ("verify", "figures", "seprank", "similarity", "plan"):
        argv = [argv[0], "--definitely-unknown-flag", *argv[1:]]
    _run(argv)
