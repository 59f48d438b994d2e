"""The registered claims, one module per topic: every module here is imported, in the
order of the theory document (each declares ``SECTION``;
:func:`attndepth.framework.registry.built_in_claim_modules`)."""
