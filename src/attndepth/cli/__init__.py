"""The ``attndepth`` command line: :func:`attndepth.cli.main.main` and one module per
subcommand."""
