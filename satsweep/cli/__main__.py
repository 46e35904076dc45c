"""``python -m satsweep.cli``: the `satsweep` command."""

import sys

from satsweep.cli import main

sys.exit(main())
