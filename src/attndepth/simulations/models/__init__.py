"""Attention models: softmax stacks (NumPy and JAX), the analysed linear-attention
network, sphere dynamics, trainable models and their synthetic tasks."""
