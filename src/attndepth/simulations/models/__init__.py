"""Attention models: softmax stacks (NumPy and JAX) and sphere dynamics. The analysed
linear-attention network is :mod:`attndepth.rank.network`; the trained models are in
:mod:`attndepth.simulations.training`."""
