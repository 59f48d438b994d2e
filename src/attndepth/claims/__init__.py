"""The registered claims, one module per topic (listed in
:data:`attndepth.framework.registry.CLAIM_MODULES`)."""
