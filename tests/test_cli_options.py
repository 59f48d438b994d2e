"""Options derived from configuration dataclasses: one declaration, every subcommand."""

import argparse
from dataclasses import dataclass

import pytest

from attndepth.cli.options import add_settings, configure_from, option_name
from attndepth.simulations.settings import setting


@dataclass(frozen=True)
class Example:
    size: int = setting(description="a size", symbol="S")
    scale: float = setting(1.5, description="a scale")
    mode: str = setting("a", description="a mode", choices=("a", "b"))
    fast_path: bool = setting(False, description="a flag")


def parser_for(**keywords) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_settings(parser, Example, **keywords)
    return parser


def test_options_have_the_fields_names_types_defaults_and_choices():
    args = parser_for().parse_args(["--size", "3", "--fast-path"])
    assert configure_from(Example, args) == Example(size=3, fast_path=True)
    assert option_name("learning_rate") == "--learning-rate"
    with pytest.raises(argparse.ArgumentError):
        parser_for().parse_args(["--size", "3", "--mode", "c"])
    with pytest.raises(argparse.ArgumentError):  # ASCII digits only, as everywhere
        parser_for().parse_args(["--size", "٣"])


def test_a_command_may_require_a_setting_or_change_its_default():
    parser = parser_for(names=("size", "scale"), defaults={"scale": 4.0})
    assert configure_from(Example, parser.parse_args(["--size", "1"])).scale == 4.0
    with pytest.raises((SystemExit, argparse.ArgumentError)):  # argparse reports it
        parser_for(required=("scale",)).parse_args(["--size", "1"])


def test_a_flag_must_default_to_false():
    with pytest.raises(TypeError, match="flag"):
        add_settings(argparse.ArgumentParser(), Example, defaults={"fast_path": True})


def test_the_similarity_command_offers_every_stack_setting():
    from attndepth.cli.similarity import SIMILARITY_SETTINGS
    from attndepth.simulations.models.stacks import StackConfig
    from attndepth.simulations.settings import settings_of

    assert set(SIMILARITY_SETTINGS) == set(settings_of(StackConfig))
