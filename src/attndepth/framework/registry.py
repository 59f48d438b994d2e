"""The claims registry: registering a claim, finding the built-in ones, loading a user's.

A claim is registered beside its verify function with the :func:`claim` decorator,
which also declares its *theory* (a frozen :class:`~attndepth.framework.theories.Theory`
of the functions and constants it predicts with, which the verify function receives
as its ``theory`` argument), the simulation functions it calls, the test that
exercises it, its figure, and a *wrong theory*: replacements for names of its theory
that make the prediction false, so that a test can show the claim is able to fail
(``attndepth verify --explain ID`` prints all of it). A wrong theory or a rival is a
new theory object passed to the same verify function; nothing is written to any
module, and runs of one claim may overlap.

The built-in claims are defined in the topic modules of :mod:`attndepth.claims`, each
found by :func:`built_in_claim_modules`; installed packages add theirs through the
entry-point group :data:`ENTRY_POINT_GROUP`, a user's file through :func:`load_claims`.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
import pkgutil
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from attndepth.errors import (
    InvalidParameter,
    InvalidType,
    describe_exception,
)
from attndepth.framework.declarations import Check, Estimate, Rival
from attndepth.framework.families import Family
from attndepth.framework.judge import tolerance_text
from attndepth.framework.model import KINDS, PRESETS, Claim, Outcome
from attndepth.framework.sampling import FRAMEWORK_ARGUMENTS, verify_form
from attndepth.framework.theories import Theory
from attndepth.sandbox import no_process_exit

#: The package whose modules hold the built-in claims (every module of it is imported).
BUILT_IN_CLAIMS = "attndepth.claims"


@functools.cache
def built_in_claim_modules() -> tuple[str, ...]:
    """Every module of :data:`BUILT_IN_CLAIMS`, found (not listed), in the order of the
    theory document: each claim module declares ``SECTION``, its (section, place); a
    module that registers no claim (presets, architectures) declares none and comes last.
    """
    package = importlib.import_module(BUILT_IN_CLAIMS)
    names = [f"{BUILT_IN_CLAIMS}.{info.name}"
             for info in pkgutil.iter_modules(package.__path__)
             if not info.name.startswith("_")]
    sections = {name: getattr(importlib.import_module(name), "SECTION", (math.inf,))
                for name in names}
    return tuple(sorted(names, key=lambda name: (sections[name], name)))


_REGISTRY: dict[str, Claim] = {}
#: claim id -> the source :func:`load_claims` loaded it from.
_SOURCES: dict[str, str] = {}


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (ids are unique); returns it.

    Raises
    ------
    TypeError
        ``claim`` is not a :class:`~attndepth.framework.model.Claim`, or its verify is not callable.
    ValueError
        The id is taken, a preset is missing, or a ``wrong_theory`` or rival name
        is not a name of the claim's theory (or the verify function does not take
        ``theory``, so that no replacement could reach it).
    """
    _check_form(claim)
    _check_theory(claim)
    _check_declarations(claim)
    if not claim.tolerance:  # the bands and checks, in words: stated once, in them
        claim = dataclasses.replace(claim, tolerance=tolerance_text(claim.estimates,
                                                                    claim.checks)
                                    or "(none stated)")
    _REGISTRY[claim.id] = claim
    return claim


def _check_form(claim: Claim) -> None:
    """A Claim with a callable verify, a free id, a Family, every preset, and no parameter
    the framework passes itself."""
    if not isinstance(claim, Claim):
        raise InvalidType(f"register takes a Claim, got {type(claim).__name__}")
    if not callable(claim.verify):
        raise InvalidType(f"claim {claim.id!r}: verify must be callable")
    if claim.id in _REGISTRY:
        raise InvalidParameter(f"claim id {claim.id!r} is registered twice")
    if claim.family is not None and not isinstance(claim.family, Family):
        raise InvalidType(f"claim {claim.id!r}: family must be a Family, got "
                          f"{type(claim.family).__name__}")
    missing = set(PRESETS) - set(claim.presets)
    if missing:
        raise InvalidParameter(f"claim {claim.id!r} lacks presets {sorted(missing)}")
    named = {name for preset in claim.presets.values() for name in preset}
    if claim.family is not None:
        named |= {*claim.family.parameters, *claim.family.beyond, *claim.family.fixed}
    if named & FRAMEWORK_ARGUMENTS:
        raise InvalidParameter(f"claim {claim.id!r}: its presets or family set "
                               f"{sorted(named & FRAMEWORK_ARGUMENTS)}, which attndepth passes "
                               f"to the verify function itself: rename the parameter")


def _check_theory(claim: Claim) -> None:
    """The theory a Theory, and every name a wrong theory or rival replaces one of its
    names, read by a verify function that takes ``theory``."""
    if not isinstance(claim.theory, Theory):
        raise InvalidType(f"claim {claim.id!r}: theory must be a Theory (Theory.of makes one), "
                          f"got {type(claim.theory).__name__}")
    try:
        takes_theory = verify_form(claim.verify).takes_theory
    except InvalidType as error:
        raise InvalidType(f"claim {claim.id!r}: {error}") from None
    replaced = [*claim.wrong_theory, *(name for rival in claim.rivals for name in rival.replace)]
    unknown = sorted(set(replaced) - set(claim.theory))
    if unknown:
        raise InvalidParameter(f"claim {claim.id!r}: wrong_theory or rival names {unknown} are not "
                               f"names of its theory ({sorted(claim.theory) or 'none declared'}): "
                               f"declare them, e.g. theory=Theory(my_rate, LIMIT=2)")
    if replaced and not takes_theory:
        raise InvalidParameter(f"claim {claim.id!r}: its wrong theory or rivals replace "
                               f"{sorted(set(replaced))}, so its verify function must take "
                               f"theory and read them from it: def {claim.verify.__name__}("
                               f"seed, theory, ...): ... theory.{replaced[0]} ...")


def _check_declarations(claim: Claim) -> None:
    """The kind, the estimates, the checks and the rivals, each of its type, no two
    reading one value, each rival competing on an estimate the claim has."""
    if claim.kind not in KINDS:
        raise InvalidParameter(f"claim {claim.id!r}: kind must be one of {KINDS}, got "
                               f"{claim.kind!r}")
    estimates = claim.estimates
    if claim.estimate is not None and (not estimates or not all(
            isinstance(e, Estimate) for e in estimates)):
        raise InvalidType(f"claim {claim.id!r}: estimate must be an Estimate or a tuple of them")
    if not isinstance(claim.checks, tuple) or not all(isinstance(c, Check)
                                                      for c in claim.checks):
        raise InvalidType(f"claim {claim.id!r}: checks must be a tuple of Check objects")
    if claim.kind == "consistency" and any(check.proof for check in claim.checks):
        raise InvalidParameter(f"claim {claim.id!r}: a consistency check proves nothing of "
                               f"the theory; its checks cannot be proof=True")
    keys = [e.measured for e in estimates] + [c.key for c in claim.checks]
    if len(set(keys)) != len(keys):
        raise InvalidParameter(f"claim {claim.id!r}: two estimates or checks read the same "
                               f"value ({sorted(k for k in set(keys) if keys.count(k) > 1)})")
    for rival in claim.rivals:
        if not isinstance(rival, Rival):
            raise InvalidType(f"claim {claim.id!r}: rivals must be Rival objects, got "
                              f"{type(rival).__name__}")
        if rival.predicted is not None and claim.estimate is None:
            raise InvalidParameter(f"claim {claim.id!r}: rival {rival.name!r} predicts from the "
                                   f"outcome values, which needs an estimate (or use replace)")
    for rival in claim.rivals:
        if rival.against is not None and rival.against not in {e.measured for e in estimates}:
            raise InvalidParameter(f"claim {claim.id!r}: rival {rival.name!r} competes on "
                                   f"{rival.against!r}, which no estimate of the claim "
                                   f"measures ({', '.join(e.measured for e in estimates)})")


def claim(id: str, *, source: str, statement: str, tolerance: str = "",
          presets: Mapping[str, Mapping[str, Any]],
          theory: Theory | Mapping[str, Any] | tuple[Callable[..., Any], ...] | None = None,
          simulation: tuple[Callable[..., Any], ...] = (), test: str = "",
          figure: str | None = None, wrong_theory: Mapping[str, Any] | None = None,
          conjecture: bool = False, family: Family | None = None, by_default: bool = True,
          estimate: Estimate | tuple[Estimate, ...] | None = None,
          rivals: tuple[Rival, ...] = (),
          kind: str = "theory",
          checks: tuple[Check, ...] = (),
          ) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Decorator: register the decorated verify function as claim ``id``.

    The keyword arguments are the :class:`~attndepth.framework.model.Claim` attributes;
    ``theory`` may be a :class:`~attndepth.framework.theories.Theory`, a tuple of
    functions (named by their ``__name__``) or a mapping of names, and every name of
    ``wrong_theory`` and of the rivals' ``replace`` must be one of its names. The verify
    function measures; the framework judges its values by the ``estimate`` and the
    ``checks`` (:mod:`attndepth.framework.judge`), and words the tolerance from them
    when ``tolerance`` is not given.

    Examples
    --------
    A claim in a user's file (``attndepth verify --claims mine.py``)::

        @claim("mine.two", source="arithmetic", statement="1 + 1 = 2",
               presets={"quick": {}, "full": {}},
               theory=Theory(TWO=2), wrong_theory={"TWO": 3},
               checks=(Check("error", "|1 + 1 − TWO|", at_most=0),))
        def verify_two(seed, theory):
            return Outcome(values={"error": abs(1 + 1 - theory.TWO)})
    """
    def decorate(verify: Callable[..., Outcome]) -> Callable[..., Outcome]:
        try:
            declared = Theory.of(theory)
        except (InvalidType, InvalidParameter) as error:
            raise type(error)(f"claim {id!r}: {error}") from None
        register(Claim(id=id, source=source, statement=statement, tolerance=tolerance,
                       verify=verify, presets=MappingProxyType(dict(presets)),
                       theory=declared, simulation=tuple(simulation), test=test,
                       figure=figure, wrong_theory=MappingProxyType(dict(wrong_theory or {})),
                       conjecture=conjecture, family=family, by_default=by_default,
                       estimate=estimate, rivals=tuple(rivals), kind=kind,
                       checks=checks))
        return verify
    return decorate


#: Entry-point group through which installed packages register claims: each entry
#: point names a module whose import registers them (``[project.entry-points]``).
ENTRY_POINT_GROUP = "attndepth.framework.registry"
_entry_points_loaded = False


def all_claims() -> dict[str, Claim]:
    """Every registered claim, by id.

    The built-in claims come first, module by module in the order of
    :func:`built_in_claim_modules` (whichever a program imported first), then those of
    installed packages that declare the entry-point group
    :data:`ENTRY_POINT_GROUP`, then any loaded with :func:`load_claims`, in
    registration order.
    """
    global _entry_points_loaded
    modules = built_in_claim_modules()
    if not _entry_points_loaded:
        _entry_points_loaded = True
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            try:
                entry.load()
            except Exception as error:  # a broken plug-in must not break the toolkit
                raise InvalidParameter(f"claims entry point {entry.name!r} ({entry.value}) failed "
                                       f"to load: {type(error).__name__}: {error}") from None
    built_in = {module: index for index, module in enumerate(modules)}
    return dict(sorted(_REGISTRY.items(),  # stable: registration order within a module
                       key=lambda item: built_in.get(item[1].module,
                                                     len(built_in))))


def default_claims() -> list[str]:
    """Ids of the claims ``attndepth verify`` runs when none is named (registry order)."""
    return [claim_id for claim_id, found in all_claims().items() if found.by_default]


def load_claims(source: str) -> list[str]:
    """Import a user's claims from a ``.py`` file or an importable module.

    Parameters
    ----------
    source : str
        A path to a Python file, or a dotted module name. Importing it must
        register claims (with :func:`claim` or :func:`register`).

    Returns
    -------
    list of str
        The ids the source registered (in order).

    Raises
    ------
    ValueError
        The file does not exist, the module cannot be imported, importing it
        raised, or it registered no claim.
    """
    all_claims()  # built-ins and plug-ins first
    path = Path(source)
    is_file = source.endswith(".py") or path.exists()
    if is_file and not path.is_file():
        raise InvalidParameter(f"claims file {source} does not exist or is not a file")
    name = _file_module_name(path) if is_file else source
    try:
        if is_file:
            _execute_claims_file(path, name, source)
        else:
            _import_claims_module(source)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - sys.exit() or anything in a user's file
        raise InvalidParameter(f"loading claims from {source} failed: "
                               f"{describe_exception(error)}") from None
    ids = [found.id for found in _REGISTRY.values() if found.module == name]
    if not ids:
        raise InvalidParameter(f"{source} registered no claim (decorate a function with "
                               f"attndepth.claim)")
    for claim_id in ids:  # how another process (a dask worker) loads the same claims
        _SOURCES[claim_id] = str(path.resolve()) if is_file else source
    return ids


def _file_module_name(path: Path) -> str:
    """The module name a claims file is imported under: one per resolved path."""
    import hashlib

    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    return f"attndepth_user_claims_{digest}"


#: module name of a claims file -> sha256 of the bytes it was executed from.
_FILE_DIGESTS: dict[str, str] = {}


def _execute_claims_file(path: Path, name: str, source: str) -> None:
    """Execute a claims file unless this very content is loaded and its claims registered.

    Loading a file again is idempotent while the file and the registry are unchanged; an
    edited file, or one whose claims left the registry, is executed afresh and its claims
    replace the ones it registered before (restored if the new content fails to load).
    """
    import hashlib
    import importlib.util
    import sys

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    previous = {key: found for key, found in _REGISTRY.items() if found.module == name}
    if (name in sys.modules and _FILE_DIGESTS.get(name) == digest and previous):
        return
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # a .py file always has one
        raise InvalidParameter(f"claims file {source} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    old_module = sys.modules.get(name)
    for key in previous:
        del _REGISTRY[key]
    sys.modules[name] = module
    try:
        with no_process_exit():  # the file's os._exit: its failure, not ours
            spec.loader.exec_module(module)
    except BaseException:
        for key in [key for key, found in _REGISTRY.items() if found.module == name]:
            del _REGISTRY[key]
        _REGISTRY.update(previous)
        if old_module is None:
            del sys.modules[name]
        else:
            sys.modules[name] = old_module
        raise
    _FILE_DIGESTS[name] = digest


def _import_claims_module(name: str) -> None:
    """Import a claims module; one imported before whose claims left the registry is
    executed again (a module is not re-executed while its claims are registered: edit and
    reload it with :func:`importlib.reload` after removing them)."""
    import importlib
    import sys

    with no_process_exit():
        module = sys.modules.get(name)
        if module is not None and not any(found.module == name
                                          for found in _REGISTRY.values()):
            importlib.reload(module)
        else:
            importlib.import_module(name)


def claim_source(claim_id: str) -> str | None:
    """The file or module a user's claim was loaded from with :func:`load_claims` (None for
    attndepth's own claims and for claims registered by the caller's own imports)."""
    return _SOURCES.get(claim_id)


def get_claim(claim_id: str) -> Claim:
    """The claim with this id, or ``ValueError`` listing the known ids."""
    if not isinstance(claim_id, str):
        raise InvalidType(f"a claim id is a string, got {type(claim_id).__name__}")
    claims = all_claims()
    if claim_id not in claims:
        raise InvalidParameter(f"unknown claim {claim_id!r}{_unknown_hint(claim_id, claims)}")
    return claims[claim_id]


def _unknown_hint(claim_id: str, claims: Mapping[str, Claim]) -> str:
    """Did-you-mean for a mistyped id; for an id from another namespace, a ``--claims`` hint."""
    import difflib

    if not isinstance(claim_id, str):
        return f"; known: {', '.join(claims)}"
    close = difflib.get_close_matches(claim_id, list(claims), n=3, cutoff=0.6)
    if close:
        return f"; did you mean {' or '.join(close)}?"
    namespaces = {known.split(".", 1)[0] for known in claims}
    if "." in claim_id and claim_id.split(".", 1)[0] not in namespaces:
        return ("; it is not built in: load the file that defines it with --claims FILE "
                "(attndepth verify --list shows the known ids)")
    return f"; known: {', '.join(claims)}"


def is_users(found: Claim) -> bool:
    """Whether a claim comes from a user's file or module, not from attndepth itself."""
    return not (found.module == "attndepth" or found.module.startswith("attndepth."))
