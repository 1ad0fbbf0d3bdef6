"""``/usr/bin/python3 -m analysis``: see analysis/README.md."""

import sys

try:
    from analysis.cli import main
except ImportError as e:  # a Python without the Debian stack (a pyenv or venv python3 on PATH)
    missing = getattr(e, "name", None) or str(e)
    sys.stderr.write(
        f"nqc-analysis: error: {sys.executable} has no module {missing}: use Debian's /usr/bin/python3 "
        "(apt install python3-h5py python3-pandas python3-statsmodels python3-matplotlib)\n"
    )
    sys.exit(1)

sys.exit(main())
