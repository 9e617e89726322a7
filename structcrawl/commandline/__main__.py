"""``python -m structcrawl.commandline``: the ``structcrawl`` command."""

import sys

from structcrawl.commandline import main

sys.exit(main())
