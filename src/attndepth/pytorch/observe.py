"""Observe a PyTorch model layer by layer: hidden states, attention, the catalogue's observables.

A transformer is a stack of blocks X_{ℓ+1} = B_ℓ(X_ℓ). :func:`observe` runs the model once
under ``torch.no_grad()`` with forward hooks on its blocks and returns

- ``states``: X_0 (the first block's input) and every block's output, as one float64
  array (layers + 1, batch, tokens, width) — the raw residual stream, before any final
  norm the model applies after its last block;
- ``attention``: every block's attention matrices (layers, batch, heads, tokens, tokens),
  where the model gives them (Hugging Face models built with eager attention, and
  ``torch.nn.MultiheadAttention``, asked for its weights by a hook), else None;
- :meth:`Observation.observables`: per layer, t_sim = ‖ΠX‖²/‖X‖² (Yu & Zhang 2023, §3),
  the mean pairwise cosine, log(t_sim/t_div), the stable rank ‖X‖_F²/‖X‖₂², the growth
  ‖X_ℓ‖_F/‖X_0‖_F of the residual stream, and per block the attention's row entropy and
  σ₂ = ‖(I−Π)P(I−Π)‖₂ (Dong et al. 2021, §2) — the functions of
  :mod:`attndepth.simulations.measures.similarity` that the claims use on attndepth's
  own stacks — and what the trained-network papers read per layer
  (:mod:`attndepth.simulations.measures.layer_change`): each block's relative update and
  angular distance, the hidden states' variance, the first token's norm against the
  others' and its attention mass (a sink).

The blocks are the modules named by ``blocks``, else the longest ``torch.nn.ModuleList``
whose members are all of one class (``h`` in GPT-2, ``encoder.layer`` in BERT, ``layers``
in LLaMA and in ``torch.nn.TransformerEncoder``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attndepth.errors import InvalidParameter, InvalidType, describe_exception, shown
from attndepth.pytorch.loading import check_device, load_torch, torch_dtype
from attndepth.simulations.measures.layer_change import (
    angular_distance,
    first_token_norm_ratio,
    hidden_variance,
    relative_update,
    sink_mass,
)
from attndepth.simulations.measures.similarity import (
    attention_entropy,
    attention_sigma2,
    mean_pairwise_cosine,
    similarity_and_log_odds,
    stable_rank,
)

#: The observables an observation's table shows, in order (:meth:`Observation.observables`).
SUMMARY_COLUMNS = ("t_sim", "cosine", "stable_rank", "norm_growth", "relative_update",
                   "angular_distance", "first_token_ratio", "attention_entropy", "s2",
                   "sink_mass")


@dataclass(frozen=True)
class Observation:
    """What :func:`observe` saw.

    Attributes
    ----------
    states : float64 (layers + 1, batch, tokens, width): the first block's input, then
        every block's output.
    attention : float64 (layers, batch, heads, tokens, tokens), or None where the model
        gives no attention weights.
    blocks : the blocks' names in the model (``model.named_modules()``).
    attention_note : why ``attention`` is None (empty when it is not).
    mask : (batch, tokens) bool, True where a token is real, or None when every token is;
        padded tokens are left out of every observable.
    layout_note : how the model's layout was turned into (batch, tokens, width) (empty
        when it already was).
    """

    states: np.ndarray
    attention: np.ndarray | None
    blocks: tuple[str, ...]
    attention_note: str = ""
    mask: np.ndarray | None = None
    layout_note: str = ""

    @property
    def layers(self) -> int:
        """The number of blocks L."""
        return len(self.blocks)

    def _summary(self) -> tuple[str, list[str], list[list[str]]]:
        """A caption, the column names and one row per layer (means over the batch)."""
        found = self.observables()
        names = [n for n in SUMMARY_COLUMNS if n in found]
        rows = []
        for layer in range(self.layers + 1):
            row = [str(layer), "input" if layer == 0 else self.blocks[layer - 1]]
            for name in names:
                values = found[name]
                index = layer if values.shape[0] == self.layers + 1 else layer - 1
                row.append("" if index < 0 else f"{float(np.mean(values[index])):.4g}")
            rows.append(row)
        _, batch, tokens, width = self.states.shape
        padded = f", {int((~self.mask).sum())} padded tokens left out" \
            if self.mask is not None else ""
        caption = (f"Observation: {self.layers} blocks, batch {batch}, {tokens} tokens, width "
                   f"{width}{padded}; attention "
                   f"{'observed' if self.attention is not None else 'none'}")
        return caption, ["layer", "block", *names], rows

    def __repr__(self) -> str:
        caption, header, rows = self._summary()
        widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows,
                                                                           strict=True)]
        lines = [caption, "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True))
                  for row in rows]
        return "\n".join(line.rstrip() for line in lines)

    def _repr_html_(self) -> str:
        from attndepth.html_table import html_table

        caption, header, rows = self._summary()
        return html_table(caption, rows, header, footer="means over the batch; "
                          ".observables() gives every sequence")

    def observables(self) -> dict[str, np.ndarray]:
        """The catalogue's observables per layer.

        Returns
        -------
        dict of name -> float64 array
            ``t_sim``, ``cosine``, ``log_odds``, ``stable_rank``, ``norm_growth``
            (‖X_ℓ‖_F / ‖X_0‖_F), ``variance`` and ``first_token_ratio``
            (:mod:`~attndepth.simulations.measures.layer_change`): (layers + 1, batch);
            ``relative_update`` and ``angular_distance`` per block: (layers, batch); with
            attention, ``attention_entropy`` (nats, mean over rows and heads), ``s2``
            (mean over heads) and ``sink_mass`` (the first token's attention mass):
            (layers, batch).
        """
        if self.mask is None:
            return _observables(self.states, self.attention)
        # padded tokens left out: each sequence on its own real tokens
        each = [_observables(self.states[:, b:b + 1][:, :, kept],
                             None if self.attention is None else
                             self.attention[:, b:b + 1][:, :, :, kept][..., kept])
                for b, kept in enumerate(self.mask)]
        return {name: np.concatenate([found[name] for found in each], axis=1)
                for name in each[0] if all(name in found for found in each)}


def _observables(X: np.ndarray, attention: np.ndarray | None) -> dict[str, np.ndarray]:
    """The observables of states X (layers + 1, batch, tokens, width) and attention."""
    norms = np.sqrt(np.sum(X * X, axis=(-2, -1)))
    similarity, odds = similarity_and_log_odds(X)
    found = {"t_sim": similarity, "log_odds": odds,
             "stable_rank": stable_rank(X),
             "norm_growth": norms / np.maximum(norms[:1], np.finfo(np.float64).tiny)}
    found["variance"] = hidden_variance(X)
    if X.shape[0] >= 2:
        found["relative_update"] = relative_update(X)
        found["angular_distance"] = angular_distance(X)
    if X.shape[-2] >= 2:
        found["cosine"] = mean_pairwise_cosine(X)
        found["first_token_ratio"] = first_token_norm_ratio(X)
    if attention is not None:
        found["attention_entropy"] = attention_entropy(attention).mean(axis=-1)
        found["s2"] = attention_sigma2(attention).mean(axis=-1)
        if X.shape[-2] >= 2:
            found["sink_mass"] = sink_mass(attention)
    return found


def _holds_attention(module: Any) -> bool:
    """Whether ``module`` holds an attention: a ``torch.nn.MultiheadAttention``, or a
    module whose class name says attention (``GPT2Attention``, ``BertSelfAttention``)."""
    torch = load_torch()
    return any(isinstance(inner, torch.nn.MultiheadAttention)
               or "attention" in type(inner).__name__.lower()
               or type(inner).__name__.lower().endswith("attn")
               for inner in module.modules())


def find_blocks(model: Any) -> list[tuple[str, Any]]:
    """The blocks of a model: the ``ModuleList`` whose members share one class, those that
    hold an attention first (a list of the blocks' norms is not the blocks), then the
    longest.

    Parameters
    ----------
    model : torch.nn.Module

    Returns
    -------
    list of (name, module), in order.

    Raises
    ------
    InvalidParameter
        When the model has no such list, saying what to pass instead.
    """
    torch = load_torch()
    if not isinstance(model, torch.nn.Module):
        raise InvalidType(f"model must be a torch.nn.Module, got {type(model).__name__}")
    best: list[tuple[str, Any]] = []
    best_key = (False, 0)
    for name, module in model.named_modules():
        if not isinstance(module, torch.nn.ModuleList) or not len(module) \
                or len({type(member) for member in module}) != 1:
            continue
        key = (_holds_attention(module[0]), len(module))
        if key > best_key:
            best_key = key
            best = [(f"{name}.{index}" if name else str(index), member)
                    for index, member in enumerate(module)]
    if not best:
        raise InvalidParameter(
            f"cannot find the blocks of {type(model).__name__} (no ModuleList of one kind of "
            f"module); pass blocks=[...]: the modules, or their names in "
            f"model.named_modules(), whose outputs are the hidden states")
    return best


def _named_blocks(model: Any, blocks: Sequence[Any] | None) -> list[tuple[str, Any]]:
    """``blocks`` as (name, module) pairs: modules of the model, or their names."""
    if blocks is None:
        return find_blocks(model)
    torch = load_torch()
    if isinstance(blocks, str | bytes) or not isinstance(blocks, Sequence) or not blocks:
        raise InvalidParameter(f"blocks must be a non-empty list of modules or module names, "
                               f"got {blocks!r}")
    names = {id(module): name for name, module in model.named_modules()}
    found = []
    for block in blocks:
        if isinstance(block, str):
            try:
                found.append((block, model.get_submodule(block)))
            except AttributeError:
                raise InvalidParameter(f"the model has no module named {block!r}; its "
                                       f"modules are named as in model.named_modules()") from None
        elif isinstance(block, torch.nn.Module) and id(block) in names:
            found.append((names[id(block)], block))
        else:
            raise InvalidParameter(f"each block must be a module of the model or its name, "
                                   f"got {type(block).__name__}")
    return found


def _tensor(output: Any, what: str) -> Any:
    """The hidden states in a block's output: the tensor, or the first of a tuple."""
    torch = load_torch()
    if isinstance(output, tuple | list) and output:
        output = output[0]
    if hasattr(output, "last_hidden_state"):
        output = output.last_hidden_state
    if not isinstance(output, torch.Tensor) or output.dim() != 3:
        raise InvalidParameter(f"{what} is not a (batch, tokens, width) tensor; pass blocks=[...] "
                               f"naming the modules whose outputs are the hidden states")
    return output


def _first_input(args: tuple, kwargs: Mapping[str, Any]) -> Any:
    """The hidden states a block receives: its first positional argument, else the first
    tensor among ``hidden_states``, ``src``, ``x`` and its other keywords."""
    if args:
        return args[0]
    for key in ("hidden_states", "src", "x", "input", *kwargs):
        if key in kwargs:
            return kwargs[key]
    return None


def _is_huggingface(model: Any) -> bool:
    return hasattr(model, "config") and hasattr(model, "main_input_name")


def _call(model: Any, inputs: Any, want_attention: bool) -> Any:
    """Run the model on ``inputs``: a mapping of keywords, token ids or embeddings."""
    torch = load_torch()
    keywords: dict[str, Any] = {}
    if _is_huggingface(model) and want_attention:
        keywords["output_attentions"] = True
    if isinstance(inputs, Mapping):
        return model(**inputs, **keywords)
    if _is_huggingface(model):
        name = "input_ids" if not torch.is_floating_point(inputs) else "inputs_embeds"
        return model(**{name: inputs}, **keywords)
    return model(inputs)


def _to_torch(inputs: Any, dtype: Any, device: str, checked: bool = True) -> Any:
    """Inputs on the device: token ids stay integers, floating inputs take ``dtype`` (and
    must be finite, unless they are among a mapping's keywords: a mask holds −inf)."""
    torch = load_torch()
    if isinstance(inputs, Mapping):
        return {key: _to_torch(value, dtype, device, checked=False)
                for key, value in inputs.items()}
    if isinstance(inputs, np.ndarray):
        inputs = torch.tensor(inputs)  # a copy: the caller's array may be read-only
    if not isinstance(inputs, torch.Tensor):
        if checked:
            raise InvalidType(f"inputs must be a tensor, an array or a mapping of keyword "
                              f"arguments, got {type(inputs).__name__}")
        return inputs
    if torch.is_floating_point(inputs):
        if checked and not bool(torch.isfinite(inputs).all()):
            raise InvalidParameter("inputs must contain only finite values")
        return inputs.to(device=device, dtype=dtype)
    return inputs.to(device=device)


def _model_in(model: Any, dtype: Any, device: str, attention: bool = False) -> Any:
    """The model in ``dtype`` on ``device``, with eager attention when the attention is
    asked for: itself when it already is, else a copy (the caller's model is never
    changed). A Hugging Face model built with another implementation (``sdpa``, which
    returns no weights) is switched to ``eager`` on the copy: the same function of its
    weights, computed explicitly."""
    parameters = list(model.parameters()) + list(model.buffers())
    floating = [p for p in parameters if p.is_floating_point()]
    switch = attention and _is_huggingface(model) and hasattr(
        model, "set_attn_implementation") and getattr(
        model.config, "_attn_implementation", "eager") not in (None, "eager")
    if not switch and all(p.dtype == dtype and p.device.type == device.split(":")[0]
                          for p in floating):
        return model
    copied = copy.deepcopy(model).to(device=device, dtype=dtype)
    if switch:
        copied.set_attn_implementation("eager")
    return copied


def observe(model: Any, inputs: Any, *, blocks: Sequence[Any] | None = None,
            dtype: str = "float64", device: str = "cpu",
            attention: bool | str | type | Callable[[Any], Any] = True,
            mask: Any = None) -> Observation:
    """Run ``model`` once on ``inputs`` and return every block's hidden states.

    Parameters
    ----------
    model : torch.nn.Module
        A stack of blocks: a Hugging Face model, a ``torch.nn.TransformerEncoder``, a
        user's own module. Run in eval mode (dropout off; its mode is restored after),
        under ``torch.no_grad()``. A model not already in ``dtype`` on ``device`` is
        copied there; the caller's model is not changed.
    inputs : tensor, array or mapping
        Token ids (integer, (batch, tokens)), embeddings (floating, (batch, tokens,
        width)), or the keyword arguments of the model's forward.
        :func:`~attndepth.pytorch.architectures.random_inputs` draws them from a seed.
    blocks : list of modules or names, optional
        The modules whose outputs are the hidden states (default: :func:`find_blocks`).
    dtype : ``float64`` (default) or ``float32``.
    device : ``cpu`` or ``cuda``.
    attention : bool, str, class or function
        Whether to ask for the attention matrices (True: a Hugging Face model's own, or
        the one ``torch.nn.MultiheadAttention`` of each block), or which module computes
        them in a model of your own: a pattern of module names (``"*.attn"``,
        :func:`fnmatch.fnmatch` on ``model.named_modules()``) or a module class, matching
        one module in each block, whose output holds the (batch, heads, tokens, tokens)
        weights (alone, or in a tuple); or a function ``weights(block)`` called after the
        forward pass for each block, returning them (e.g. an attribute your attention
        stores).
    mask : (batch, tokens) bool, optional
        True where a token is real; default: the inputs' own ``attention_mask``
        (Hugging Face) or ``src_key_padding_mask`` (``torch.nn``, True where padding).
        Padded tokens are left out of every observable.

    The states observed must be one stream: each block receives the output of the
    block before it (checked), and a model that runs sequence-first (``torch.nn``'s
    ``batch_first=False``) has its states returned as (batch, tokens, width), with a
    note (``Observation.layout_note``).

    Returns
    -------
    Observation
        ``states`` (layers + 1, batch, tokens, width) float64; ``attention`` (layers,
        batch, heads, tokens, tokens) or None.

    Raises
    ------
    InvalidType
        For a model that is not a ``torch.nn.Module``.
    InvalidParameter
        For a model whose blocks cannot be found or whose blocks do not return (batch,
        tokens, width) states (naming what to pass), and for non-finite inputs or states.
    """
    torch = load_torch()
    if not isinstance(model, torch.nn.Module):
        raise InvalidType(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not (isinstance(attention, bool | str | type) or callable(attention)):
        raise InvalidType(f"attention must be True, False, a module-name pattern, a module "
                          f"class or a function of a block, got {type(attention).__name__}")
    device = check_device(device)
    precision = torch_dtype(dtype)
    run = _model_in(model, precision, device, attention is True)
    named = _named_blocks(run, blocks) if run is model else _named_blocks(
        run, [name for name, _ in _named_blocks(model, blocks)])
    tokens_kept = _mask(inputs, mask)
    named_attention = not isinstance(attention, bool)
    selected = (_selected_attention(run, named, attention)
                if isinstance(attention, str | type) else None)
    entered: list[tuple[int, Any]] = []  # (block index, input), in the order the forward ran
    ran: list[tuple[int, Any]] = []  # (block index, output), in the order the forward ran
    weights: dict[int, Any] = {}
    handles = []
    for index, (name, block) in enumerate(named):
        handles.append(block.register_forward_pre_hook(
            lambda module, args, kwargs, index=index: entered.append(
                (index, _first_input(args, kwargs))), with_kwargs=True))
        handles.append(block.register_forward_hook(
            lambda module, args, output, name=name, index=index: ran.append(
                (index, _tensor(output, f"the output of block {name!r}")))))
        if selected is not None:
            handles.extend(_output_hooks(selected[index], index, weights))
        elif attention is True:
            handles.extend(_attention_hooks(block, index, weights))
    training = run.training
    run.eval()
    try:
        with torch.no_grad():
            result = _call(run, _to_torch(inputs, precision, device), attention is True)
    except (RuntimeError, IndexError, TypeError, ValueError) as error:
        if isinstance(error, InvalidParameter | InvalidType):
            raise
        raise InvalidParameter(f"the model's forward pass failed on these inputs "
                               f"({describe_exception(error)}){_input_hint(inputs)}") from None
    finally:
        for handle in handles:
            handle.remove()
        run.train(training)
    order = [index for index, _ in ran]
    if sorted(order) == list(range(len(named))) and order != sorted(order):
        run_order = ", ".join(repr(named[index][0]) for index in order)
        raise InvalidParameter(f"the blocks are not given in the order the forward runs them "
                               f"(it ran {shown(run_order, 200, quote=False)}): pass "
                               f"blocks=[...] in that order, so that states[0] is the first "
                               f"block's input")
    if len(entered) != len(named) or len(ran) != len(named):
        raise InvalidParameter(f"in one forward pass the {len(named)} blocks were entered "
                               f"{len(entered)} times and gave {len(ran)} outputs (a "
                               f"block run twice, or not at all): pass blocks=[...] naming "
                               f"the blocks the forward runs once each, in order")
    outputs = [state for _, state in ran]
    first = _tensor(entered[0][1], "the first block's input")
    for (name, _), state in zip(named, outputs, strict=True):
        if state.shape != first.shape:
            raise InvalidParameter(f"the output of block {name!r} is not a (batch, tokens, "
                                   f"width) state of the input's shape {tuple(first.shape)}: "
                                   f"pass blocks=[...] naming the modules whose outputs are "
                                   f"the hidden states")
    _check_stream(named, [state for _, state in entered], outputs)
    stacked = np.stack([state.detach().to("cpu", torch.float64).numpy()
                        for state in (first, *outputs)])
    if not np.all(np.isfinite(stacked)):
        raise InvalidParameter("the model's hidden states are not finite (overflow or NaN) "
                               "at these inputs")
    layout = ""
    if _sequence_first(named):  # (tokens, batch, width), as torch.nn's batch_first=False
        stacked = np.ascontiguousarray(stacked.swapaxes(1, 2))
        layout = ("the model runs sequence-first (batch_first=False): its (tokens, batch, "
                  "width) states are returned as (batch, tokens, width)")
    if named_attention and not isinstance(attention, bool | str | type):
        weights = _weights_from(attention, named)
    found = (_attention(None if named_attention else result, weights, len(named))
             if attention is not False else None)
    if named_attention and found is None:
        raise InvalidParameter(
            f"attention={shown(attention, 60)} gave no (batch, heads, tokens, tokens) "
            f"weights for every block ({len(weights)} of {len(named)}): name the module "
            f"whose output holds them, or pass a function weights(block) that returns them")
    if found is not None and found.shape[1] != stacked.shape[1] or \
            found is not None and found.shape[-1] != stacked.shape[2]:
        raise InvalidParameter(f"the attention weights ({found.shape[1]} sequences of "
                               f"{found.shape[-1]} tokens) do not match the states "
                               f"({stacked.shape[1]} sequences of {stacked.shape[2]} tokens): "
                               f"the model's layout is not (batch, tokens, width); pass "
                               f"blocks=[...] whose outputs are")
    if tokens_kept is not None and tokens_kept.shape != stacked.shape[1:3]:
        raise InvalidParameter(f"the mask has shape {tokens_kept.shape}, the states "
                               f"(batch, tokens) {stacked.shape[1:3]}")
    return Observation(states=stacked, attention=found, blocks=tuple(name for name, _ in named),
                       attention_note="" if found is not None else
                       _why_no_attention(run, attention is not False), mask=tokens_kept,
                       layout_note=layout)


def _check_stream(named: list[tuple[str, Any]], inputs: list[Any], outputs: list[Any]) -> None:
    """Each block must receive the output of the block before it: the states observed are
    then the stream the blocks pass on (a list of the blocks' norms, blocks that are not
    consecutive, or a block fed something else is refused, naming the module)."""
    torch = load_torch()
    for k in range(1, len(named)):
        given = inputs[k]
        if not isinstance(given, torch.Tensor) or given.shape != outputs[k - 1].shape \
                or not torch.equal(given, outputs[k - 1]):
            raise InvalidParameter(
                f"block {named[k][0]!r} does not receive the output of block "
                f"{named[k - 1][0]!r}: the modules observed are not consecutive steps of "
                f"one stream (norms, sublayers, or blocks with something between them), so "
                f"their outputs are not the hidden states; pass blocks=[...] naming the "
                f"model's layers in run order")


def _sequence_first(named: list[tuple[str, Any]]) -> bool:
    """Whether the blocks take (tokens, batch, width): a ``torch.nn.MultiheadAttention``
    inside them built with ``batch_first=False``."""
    torch = load_torch()
    return any(isinstance(inner, torch.nn.MultiheadAttention) and not inner.batch_first
               for _, block in named for inner in block.modules())


def _mask(inputs: Any, mask: Any) -> np.ndarray | None:
    """The real tokens, (batch, tokens) bool: ``mask`` (True where a token is real), else
    a Hugging Face ``attention_mask`` (1 real, 0 padding) or a ``src_key_padding_mask``
    (True where padding) among the inputs; None when every token is real."""
    torch = load_torch()
    if mask is None and isinstance(inputs, Mapping):
        if inputs.get("attention_mask") is not None:
            mask = inputs["attention_mask"]
        elif inputs.get("src_key_padding_mask") is not None:
            padding = inputs["src_key_padding_mask"]
            mask = ~padding if isinstance(padding, torch.Tensor) else ~np.asarray(padding)
    if mask is None:
        return None
    if isinstance(mask, torch.Tensor):
        mask = mask.detach().to("cpu").numpy()
    kept = np.asarray(mask)
    if kept.ndim != 2 or kept.dtype.kind not in "biu" or not np.isin(kept, (0, 1)).all():
        raise InvalidParameter(f"mask must be (batch, tokens) of booleans (or 0/1), True "
                               f"where a token is real; got {kept.dtype} of shape "
                               f"{kept.shape}")
    kept = kept.astype(bool)
    if not kept.any(axis=1).all():
        raise InvalidParameter("every sequence needs at least one real token in the mask")
    return None if kept.all() else kept


def _input_hint(inputs: Any) -> str:
    """What to check when the forward fails: floating token ids, say."""
    torch = load_torch()
    if isinstance(inputs, torch.Tensor | np.ndarray) and inputs.ndim == 2 and (
            np.issubdtype(inputs.dtype, np.floating) if isinstance(inputs, np.ndarray)
            else torch.is_floating_point(inputs)):
        return ": (batch, tokens) inputs of floats; token ids must be integers"
    return ": check the inputs' type and shape"


def _selected_attention(run: Any, named: list[tuple[str, Any]],
                        selector: str | type) -> list[Any]:
    """The module each block computes its attention in: the one module inside it whose
    name matches the pattern, or that is of the class (refused unless exactly one)."""
    import fnmatch

    chosen = []
    for name, block in named:
        inside = [(f"{name}.{inner}" if inner else name, module)
                  for inner, module in block.named_modules()]
        found = [module for full, module in inside
                 if (fnmatch.fnmatchcase(full, selector) if isinstance(selector, str)
                     else isinstance(module, selector))]
        if len(found) != 1:
            what = (f"no module named like {shown(selector, 60)}" if isinstance(selector, str)
                    else f"no {selector.__name__}")
            raise InvalidParameter(
                f"block {name!r} holds {len(found) or what}"
                f"{' matching modules' if found else ''}: attention= must pick exactly one "
                f"module in each block (its names: {shown([n for n, _ in inside], 120)})")
        chosen.append(found[0])
    return chosen


def _output_hooks(module: Any, index: int, weights: dict[int, Any]) -> list[Any]:
    """Keep the (batch, heads, n, n) weights in ``module``'s output (alone or in a tuple);
    a ``torch.nn.MultiheadAttention`` is asked for them per head."""
    torch = load_torch()

    def keep(module: Any, args: tuple, output: Any) -> None:
        for item in (output if isinstance(output, tuple | list) else (output,)):
            if isinstance(item, torch.Tensor) and item.dim() == 4 \
                    and item.shape[-1] == item.shape[-2]:
                weights[index] = item
                return

    hooks = [module.register_forward_hook(keep)]
    if isinstance(module, torch.nn.MultiheadAttention):
        hooks.append(module.register_forward_pre_hook(
            lambda module, args, kwargs: (args, {**kwargs, "need_weights": True,
                                                 "average_attn_weights": False}),
            with_kwargs=True))
    return hooks


def _weights_from(function: Callable[[Any], Any], named: list[tuple[str, Any]]
                  ) -> dict[int, Any]:
    """``function(block)`` for each block, contained: what it raises is one error."""
    from attndepth.sandbox import user_code

    found = {}
    for index, (name, block) in enumerate(named):
        with user_code(f"the attention function on block {name!r}"):
            found[index] = function(block)
    return found


def _attention_hooks(block: Any, index: int, weights: dict[int, Any]) -> list[Any]:
    """Hooks that ask the block's ``torch.nn.MultiheadAttention`` for its per-head weights
    and keep them (``torch.nn`` stacks call it with ``need_weights=False``)."""
    torch = load_torch()
    found = [module for module in block.modules()
             if isinstance(module, torch.nn.MultiheadAttention)]
    if len(found) != 1:
        return []

    def ask(module: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        return args, {**kwargs, "need_weights": True, "average_attn_weights": False}

    def keep(module: Any, args: tuple, output: Any) -> None:
        weights[index] = output[1]

    return [found[0].register_forward_pre_hook(ask, with_kwargs=True),
            found[0].register_forward_hook(keep)]


def _why_no_attention(model: Any, asked: bool) -> str:
    """One line: why an observation holds no attention matrices, and what would give them."""
    if not asked:
        return "not asked for (attention=False)"
    implementation = getattr(getattr(model, "config", None), "_attn_implementation", None)
    if implementation not in (None, "eager"):
        return (f"{type(model).__name__} computes attention with {implementation!r}, which "
                f"returns no weights: build it with attn_implementation='eager'")
    return ("its blocks return no attention weights (no output_attentions, and not exactly "
            "one torch.nn.MultiheadAttention per block)")


def _attention(result: Any, weights: dict[int, Any], layers: int) -> np.ndarray | None:
    """Attention matrices from the model's output (Hugging Face ``attentions``) or the
    hooks, as float64 (layers, batch, heads, n, n); None when not every block gave them."""
    torch = load_torch()
    found = getattr(result, "attentions", None) if result is not None else None
    if found is None and len(weights) == layers:
        found = [weights[index] for index in range(layers)]
    if found is None or len(found) != layers or any(
            not isinstance(P, torch.Tensor) or P.dim() != 4 for P in found):
        return None
    return np.stack([P.detach().to("cpu", torch.float64).numpy() for P in found])
