"""Measurements on stacks: token similarity, escalation, collapse, alignment,
spectral gaps, and fits of growth rates."""
