"""Separation rank, measured and certified: Levine et al. (2020), §3 and its appendices.

One home for everything that measures the separation rank of the analysed
linear-attention network (docs/theory.md §1). The proved bounds stay in
:mod:`attndepth.theory.separation_rank` (SymPy and exact integers); this
subpackage sits above the simulations and the theory and below the claims,
figures and command line, which read it.

- :mod:`~attndepth.rank.network` — the network f and its weights.
- :mod:`~attndepth.rank.partitions` — the partitions (P, Q) of the positions.
- :mod:`~attndepth.rank.arithmetic` — GF(p) products and ranks (FLINT, float64 GEMM LU).
- :mod:`~attndepth.rank.evaluation` — f and its homogeneous parts on grids of points.
- :mod:`~attndepth.rank.grids` — the configuration, the certificate, whole-matrix ranks.
- :mod:`~attndepth.rank.degree_blocks`, :mod:`~attndepth.rank.torus_blocks`,
  :mod:`~attndepth.rank.block_checkpoint` — the per-degree-block and torus-class methods.
- :mod:`~attndepth.rank.budget` — the time and input checks every method makes first.
- :mod:`~attndepth.rank.methods` — the registry: name → method, its frozen options, one
  ``measure(config, seed, options)`` returning one certificate type.
- :mod:`~attndepth.rank.measure` — ranks with their bounds; the atlas answers first.
- :mod:`~attndepth.rank.atlas_table`, :mod:`~attndepth.rank.atlas_classes` — the shipped
  atlas of certified ranks and the classes it is built from.
- :mod:`~attndepth.rank.knee`, :mod:`~attndepth.rank.p_side`,
  :mod:`~attndepth.rank.polynomial`, :mod:`~attndepth.rank.epsilon_rank` — the
  threshold knee, the P-side span, polynomial probes, and the ε-rank of softmax networks.
"""
