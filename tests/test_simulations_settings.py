"""Settings: a configuration field declared once, read back with its type, default and help."""

from dataclasses import MISSING, dataclass

import pytest

from attndepth.errors import InvalidParameter
from attndepth.simulations.models.stacks import VARIANTS, StackConfig
from attndepth.simulations.settings import configure, setting, settings_of


@dataclass(frozen=True)
class Example:
    size: int = setting(description="a size", symbol="S")
    scale: float = setting(1.5, description="a scale")
    mode: str = setting("a", description="a mode", choices=("a", "b"))
    window: int | None = setting(None, description="an optional window")
    flag: bool = setting(False, description="a flag")
    internal: int = 0


def test_settings_carry_type_default_help_and_choices():
    found = settings_of(Example)
    assert list(found) == ["size", "scale", "mode", "window", "flag"]  # not the internal field
    assert found["size"].kind is int and found["size"].required and found["size"].symbol == "S"
    assert found["scale"].default == 1.5 and not found["scale"].required
    assert found["mode"].choices == ("a", "b")
    assert found["window"].kind is int and found["window"].optional
    assert found["flag"].kind is bool and found["flag"].default is False
    assert found["size"].default is MISSING


def test_settings_of_a_chosen_subset_keep_its_order_and_name_the_unknown():
    assert list(settings_of(Example, ["flag", "size"])) == ["flag", "size"]
    with pytest.raises(InvalidParameter, match="no setting.*internal"):
        settings_of(Example, ["internal"])


def test_a_setting_must_be_a_scalar():
    @dataclass(frozen=True)
    class Bad:
        sizes: tuple = setting((), description="not a scalar")

    with pytest.raises(TypeError, match="must be one of bool"):
        settings_of(Bad)


def test_configure_takes_the_settings_and_leaves_other_keys():
    built = configure(Example, {"size": 3, "other": "ignored", "flag": True}, scale=2.0)
    assert built == Example(size=3, scale=2.0, flag=True)


def test_stack_config_describes_every_scalar_field():
    found = settings_of(StackConfig)
    assert found["variant"].choices == VARIANTS
    # every field but the user sublayer (Python code) and the resolved block
    assert set(found) == {f for f in StackConfig.__dataclass_fields__} - {"sublayer", "block"}
    # and the values are still checked by the dataclass
    with pytest.raises(InvalidParameter, match="width"):
        configure(StackConfig, {"width": 0})
