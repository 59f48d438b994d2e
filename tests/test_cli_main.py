
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attndepth.cli.main import main


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["verify", "--claim", "nope"],
        ["verify", "--preset", "huge"],
        ["verify", "--seed", "-3"],
        ["verify", "--seed", "x"],
        ["verify", "--format", "yaml"],
        ["figures", "--only", "nope"],
        ["frobnicate"],
    ],
)
def test_bad_input_exits_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() and len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def test_interrupt_is_one_line_and_130(monkeypatch, capsys):
    import attndepth.cli.main as cli

    def interrupted(args):
        raise KeyboardInterrupt

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda command=None: parser)
    parser._subparsers._group_actions[0].choices["plan"].set_defaults(handler=interrupted)
    assert cli.main(["plan", "--params", "1e9"]) == 130
    assert "interrupted" in capsys.readouterr().err


def _subparsers():
    from attndepth.cli.main import build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    return parser, choices


def test_every_option_of_every_command_has_help_and_examples():
    parser, commands = _subparsers()
    assert parser.epilog.startswith("examples:")
    for name, command in commands.items():
        assert command.description, name
        examples = [line for line in command.epilog.splitlines() if line.startswith("  ")]
        assert 2 <= len(examples) <= 4, name
        assert all(line.strip().startswith(f"attndepth {name}") for line in examples), name
        for action in command._actions:
            if action.option_strings and action.dest != "help":
                assert action.help, f"{name} {action.option_strings[0]} has no help"
        text = command.format_help()
        for action in command._actions:
            if action.option_strings and action.default not in (None, False) \
                    and action.dest != "help":
                assert f"default: {action.default}" in " ".join(text.split()), \
                    f"{name} {action.option_strings[0]}"


NON_ASCII_DIGITS = st.text(st.characters(categories=["Nd"]).filter(lambda c: not c.isascii()),
                           min_size=1, max_size=3)


@given(st.one_of(NON_ASCII_DIGITS, st.sampled_from(["4_0", "1_000", "٣", "４"])))
def test_integers_and_numbers_are_ascii_only(text):
    for argv in (["seprank", "--width", text, "--depth", "1"],
                 ["similarity", "--variant", "pure", "--depth", text, "--tokens", "2",
                  "--width", "2"],
                 ["verify", "--seed", text], ["plan", "--params", text]):
        assert main(argv) == 2


@pytest.mark.slow
@settings(max_examples=10)
@given(st.integers(65, 10**6).map(str) | st.sampled_from(["0", "-3", "two", "٣", " "]))
def test_bad_thread_settings_are_one_line(setting):
    import os
    import subprocess
    import sys

    env = {**os.environ, "ATTNDEPTH_THREADS": setting}
    # measured (--recompute): the atlas's answer would use no thread at all
    run = subprocess.run([sys.executable, "-m", "attndepth.cli.main", "seprank", "--width", "2",
                          "--depth", "1", "--recompute"], capture_output=True, text=True,
                         env=env)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "ATTNDEPTH_THREADS" in run.stderr


def test_mistyped_ids_and_options_get_a_did_you_mean(capsys):
    assert main(["verify", "--claim", "yuzhang.linear-rate-postn"]) == 2
    assert "did you mean yuzhang.linear-rate-postln" in capsys.readouterr().err
    assert main(["verify", "--claim", "mine.rate"]) == 2
    assert "load the file that defines it with --claims FILE" in capsys.readouterr().err
    assert main(["similarity", "--variant", "post-ln", "--depth", "2", "--tokens", "2",
                 "--width", "4", "--skipscale", "2"]) == 2
    err = capsys.readouterr().err
    assert "did you mean --skip-scale?" in err and len(err.strip().splitlines()) == 1


def test_an_option_of_another_command_is_never_suggested(capsys):
    """The did-you-mean draws on the options of the command that ran: `verify --json`
    once answered 'did you mean --json?' (an option of five other commands)."""
    import argparse
    import re

    parser = _subparsers()[0]
    paths = []
    for name, sub in _subparsers()[1].items():  # every command and store/atlas action
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        paths += ([(name, None)] if not nested
                  else [(name, action) for action in nested[0].choices])
    everything = {o for p in parser._parsers() for a in p._actions for o in a.option_strings}
    for name, action in paths:
        parser._parsed = argparse.Namespace(command=name, action=action)
        own = {o for p in parser._chosen() for a in p._actions for o in a.option_strings}
        assert len(parser._chosen()) == (2 if action is None else 3)
        for option in sorted(everything - own):
            text = parser._suggestion(f"unrecognized arguments: {option}")
            for guess in re.findall(r"did you mean (\S+)", text):
                assert guess.rstrip("?") in own, (name, action, option, text)
    assert main(["verify", "--json", "out.json"]) == 2
    err = capsys.readouterr().err
    assert "did you mean --format json?" in err and len(err.strip().splitlines()) == 1
    assert main(["verify", "--full"]) == 2
    assert "did you mean --preset full?" in capsys.readouterr().err


def test_each_command_is_registered_by_the_module_named_for_it():
    import argparse
    import importlib

    from attndepth.cli.main import COMMANDS, build_parser

    for command, module in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(sub)
        assert list(sub.choices) == [command], module
        parser = build_parser(command)
        choices = next(a for a in parser._actions if a.dest == "command").choices
        assert list(choices) == [command]
    assert list(next(a for a in build_parser()._actions if a.dest == "command").choices) == \
        list(COMMANDS)


def test_an_atlas_answer_does_not_wait_for_the_claims():
    # seprank builds only its own parser: the claims, SciPy's statistics and the registry
    # stay unimported (they took 0.8 of the 1.4 s an atlas answer cost)
    import subprocess
    import sys

    code = ("import sys; from attndepth.cli.main import main; "
            "code = main(['seprank', '--width', '2', '--depth', '1', '--tokens', '2']); "
            "print(code, 'attndepth.framework.registry' in sys.modules, "
            "'scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip().splitlines()[-1] == "0 False False", done.stdout
