"""The theory layer: each claim's statement as SymPy expressions and exact formulas.

Nothing here simulates. Two verbs name two kinds of function: ``confirm_*``
returns whether SymPy (or exact integer arithmetic) confirms an identity or a
derivation step, and is what a claim lists as its proof; ``check_*`` (in
:mod:`attndepth.validation` and elsewhere) raises a clear error on
bad input and returns the checked value.
"""
