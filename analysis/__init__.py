"""nqc's analysis of result files: [Grigoryan]'s Table 1, the time regression and the figures.

Modules, one purpose each: ``load`` (result files into one pandas DataFrame), ``groups``
(runs and ``--by`` groups of cases), ``table`` (Table 1 per n), ``compare`` (groups side by
side, time ratios), ``instances`` (instance runs by file and diags), ``fit`` (least squares of
log10(1000 t) on log10(n)), ``figures`` (PNG, PDF, SVG figures), ``timeline`` (when each rank
ran its cases, busy shares per rank and host), ``randset`` (the randSet &
randSet histogram data), ``report`` (report.md), ``cli`` (``python3 -m analysis``). ``paper``
holds the published values we compare with.
"""

# The project's version (CMakeLists.txt's project(nqc VERSION ...): tests/cli/test_install.sh
# checks that they are equal).
__version__ = "0.1.0"

from analysis.errors import AnalysisError

__all__ = ["AnalysisError", "load_cases", "__version__"]


def __getattr__(name):
    """``analysis.load_cases``, imported when first asked for: ``python3 -m analysis`` under a
    Python without h5py then says so in one line (``__main__``) instead of a traceback."""
    if name == "load_cases":
        from analysis.load import load_cases  # pylint: disable=import-outside-toplevel

        return load_cases
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")
