"""Configuration fields that describe themselves, so that a setting is declared once.

A configuration dataclass (:class:`~attndepth.simulations.models.stacks.StackConfig`,
:class:`~attndepth.simulations.training.jax_model.TrainingSettings`,
:class:`~attndepth.rank.grids.SeparationRankConfig`) declares each
user-facing field with :func:`setting`: its default, a one-line description in
the words of the model (never of a command line), the symbol it is written with
and, where the values are a closed set, the choices. :func:`settings_of` reads the
fields back with their resolved types. The command line
(:mod:`attndepth.cli.options`) derives its options from them and the sweeps
(:mod:`attndepth.simulations.sweeps.observables`) their parameter schemas, so a
default, a description or a choice is never restated. Values are checked once,
by the dataclass's own ``__post_init__`` (with :mod:`attndepth.validation`).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from attndepth.errors import InvalidParameter

#: The field types a setting may have (each optionally ``| None``).
SCALAR_TYPES: tuple[type, ...] = (bool, int, float, str)


@dataclass(frozen=True)
class Setting:
    """One described field of a configuration dataclass.

    Attributes
    ----------
    name : the field's name (``learning_rate``; the option ``--learning-rate``).
    kind : its scalar type, one of :data:`SCALAR_TYPES`.
    default : its default; ``MISSING`` when the field has none (required).
    optional : whether ``None`` is allowed (an annotation ``kind | None``).
    description : one line: what the value is and its range, naming other settings
        by their names.
    symbol : the symbol the value is written with (``L``, ``d``; None: none).
    choices : the allowed values of a string setting (None: any).
    """

    name: str
    kind: type
    default: Any
    optional: bool
    description: str
    symbol: str | None = None
    choices: tuple[str, ...] | None = None

    @property
    def required(self) -> bool:
        """Whether the field has no default."""
        return self.default is MISSING


def setting(default: Any = MISSING, *, description: str, symbol: str | None = None,
            choices: Sequence[str] | None = None) -> Any:
    """A dataclass field carrying its description (and symbol, choices) in its metadata.

    Parameters
    ----------
    default : the field's default; omit it for a required field.
    description : one line describing the value and its range.
    symbol : the symbol the value is written with.
    choices : the allowed values of a string field.

    Returns
    -------
    A :func:`dataclasses.field`.
    """
    metadata = {"description": description, "symbol": symbol,
                "choices": None if choices is None else tuple(choices)}
    return field(default=default, metadata=metadata)


def _scalar_type(cls: type, name: str, annotation: Any) -> tuple[type, bool]:
    """(kind, optional) of an annotation ``kind`` or ``kind | None``."""
    arguments = typing.get_args(annotation)
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        kinds = [a for a in arguments if a is not type(None)]
        if len(kinds) == 1 and len(arguments) == 2 and kinds[0] in SCALAR_TYPES:
            return kinds[0], True
    elif annotation in SCALAR_TYPES:
        return annotation, False
    raise TypeError(f"{cls.__name__}.{name}: a setting must be one of bool, int, float, str "
                    f"(or that | None), not {annotation!r}")


def settings_of(cls: type, names: Sequence[str] | None = None) -> dict[str, Setting]:
    """The described fields of a configuration dataclass, in declaration order.

    Parameters
    ----------
    cls : a dataclass whose fields were declared with :func:`setting`.
    names : the fields wanted, in this order (default: every described field).

    Returns
    -------
    dict
        Field name → :class:`Setting`.

    Raises
    ------
    InvalidParameter
        When ``names`` holds a field that is not a described setting of ``cls``.
    """
    hints = typing.get_type_hints(cls)
    described = {}
    for spec in fields(cls):
        if "description" not in spec.metadata:
            continue
        kind, optional = _scalar_type(cls, spec.name, hints[spec.name])
        described[spec.name] = Setting(spec.name, kind, spec.default, optional,
                                       spec.metadata["description"], spec.metadata["symbol"],
                                       spec.metadata["choices"])
    if names is None:
        return described
    unknown = [name for name in names if name not in described]
    if unknown:
        raise InvalidParameter(f"{cls.__name__} has no setting(s) {', '.join(unknown)} "
                               f"(known: {', '.join(described)})")
    return {name: described[name] for name in names}


def configure(cls: type, values: typing.Mapping[str, Any], **extra: Any) -> Any:
    """Build ``cls`` from the entries of ``values`` that are its settings, plus ``extra``.

    Parameters
    ----------
    cls : a configuration dataclass (its ``__post_init__`` validates the values).
    values : a mapping holding (at least) the settings wanted; other keys are ignored.
    **extra : fields given directly (they override ``values``).

    Returns
    -------
    An instance of ``cls``.
    """
    chosen = {name: values[name] for name in settings_of(cls) if name in values}
    return cls(**{**chosen, **extra})
