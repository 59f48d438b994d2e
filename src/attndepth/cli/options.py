"""Command-line options derived from configuration dataclasses (their settings).

A subcommand adds the settings (:mod:`attndepth.simulations.settings`) it
takes with :func:`add_settings` and builds the configuration with
:func:`configure_from`; the option names, types, defaults, choices and help
texts all come from the dataclass, and the dataclass validates the values (its
errors are the CLI's one-line messages).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING
from typing import Any

from attndepth.simulations.settings import configure, settings_of


def option_name(name: str) -> str:
    """``learning_rate`` → ``--learning-rate``."""
    return "--" + name.replace("_", "-")


def add_settings(parser: argparse.ArgumentParser, cls: type,
                 names: Sequence[str] | None = None, *, required: Sequence[str] = (),
                 defaults: Mapping[str, Any] | None = None) -> None:
    """Add one option per setting of ``cls``.

    Parameters
    ----------
    parser : the subcommand's parser.
    cls : a configuration dataclass with described fields.
    names : the settings to expose, in this order (default: all).
    required : settings the command requires although the dataclass has a default.
    defaults : the command's own defaults where they differ from the dataclass's.

    A ``bool`` setting whose default is False becomes a flag; an ``int`` takes
    ASCII digits only (:func:`attndepth.cli._parsing.integer`).
    """
    from attndepth.cli._parsing import integer

    defaults = defaults or {}
    for setting in settings_of(cls, names).values():
        flag = option_name(setting.name)
        default = defaults.get(setting.name, setting.default)
        if setting.kind is bool:
            if default is not False or setting.name in required:
                raise TypeError(f"{cls.__name__}.{setting.name}: a flag must default to False")
            parser.add_argument(flag, action="store_true", help=setting.description)
            continue
        converters: dict[type, Callable[[str], Any]] = {int: integer, float: float, str: str}
        convert = converters[setting.kind]
        needed = setting.name in required or default is MISSING
        parser.add_argument(flag, type=convert, required=needed,
                            default=None if needed else default, metavar=setting.symbol,
                            choices=setting.choices, help=setting.description)


def configure_from(cls: type, args: argparse.Namespace, **extra: Any) -> Any:
    """Build ``cls`` from the parsed options that are its settings, plus ``extra``."""
    return configure(cls, vars(args), **extra)
