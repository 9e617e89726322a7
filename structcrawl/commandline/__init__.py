"""The subcommands of the ``structcrawl`` command line beyond ``extract`` (which lives in
:mod:`structcrawl.cli`, the entry point): ``crawl``, ``check``, ``demo``, ``deploy``,
``report``. Each module has ``add_arguments(parser)`` and ``run(args) -> exit code``."""
