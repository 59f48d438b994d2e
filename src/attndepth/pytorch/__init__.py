"""The claims' measurements on PyTorch models: GPT-2, BERT, LLaMA, ``torch.nn`` stacks and
a user's own module, at initialisation or from a checkpoint, and trained models.

- :mod:`~attndepth.pytorch.loading` — importing torch (and Hugging Face ``transformers``)
  with the install hint when absent; seeded generators.
- :mod:`~attndepth.pytorch.observe` — :func:`~attndepth.pytorch.observe.observe`: the
  per-layer hidden states (and attention) of any stack of blocks, as float64 NumPy, with
  the catalogue's observables per layer, through the functions the claims use.
- :mod:`~attndepth.pytorch.architectures` — GPT-2, BERT, LLaMA and
  ``torch.nn.TransformerEncoder`` stacks built from hand-typed configurations (no
  download), with their own initialisation, and their random inputs.
- :mod:`~attndepth.pytorch.stack_module` — attndepth's own post-LN and pre-LN stacks as
  ``torch.nn.TransformerEncoder`` modules with the same weights: the bridge's proof that
  a torch measurement and a stack measurement measure the same thing.
- :mod:`~attndepth.pytorch.pretrained` — trained models by name from pinned packages,
  their weights checked by SHA-256, or from a path; the same architecture at its own
  initialisation; weights rounded as GGUF's Q4_1 stores them.
- :mod:`~attndepth.pytorch.text_sample` — the shipped public-domain text, cut into seeded
  windows of tokens; random tokens as the control.
- :mod:`~attndepth.pytorch.profiles` — a model's per-layer observables over a sample of
  windows, with their 99 % intervals.

Only this subpackage imports torch, and only inside functions: ``import attndepth`` never
needs it. Install: ``pip install "attndepth[torch]"`` (and ``"attndepth[hf]"`` for the
Hugging Face architectures, ``"attndepth[trained]"`` and the model packages for the
trained models, docs/pytorch.md §5).
"""
