"""``python -m structcrawl.render``: print the Chromium the render handler would use (exit 0),
or what was tried and what to do (exit 1). ``make demo`` / ``make test`` use it."""

import sys

from structcrawl.render.browser import main

sys.exit(main())
