"""Training the JAX models on their synthetic tasks: the model and its training loop, the
tasks, the settings. Built on :mod:`attndepth.simulations.models` and
:mod:`attndepth.simulations.measures` (the loop records the token similarity).
"""
