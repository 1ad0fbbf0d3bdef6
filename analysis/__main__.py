"""``/usr/bin/python3 -m analysis``: see analysis/README.md."""

import sys

from analysis.cli import main

sys.exit(main())
