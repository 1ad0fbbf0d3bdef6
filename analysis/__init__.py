"""nqc's analysis of result files: [Grigoryan]'s Table 1, the time regression and the figures
(analysis/README.md lists the modules)."""

# The project's version (CMakeLists.txt's; tests/cli/test_install.sh checks they agree).
__version__ = "0.1.0"
#: How to run the analysis in messages and reports: Debian's Python, which has its packages.
COMMAND = "/usr/bin/python3 -m analysis"

from analysis.errors import AnalysisError  # noqa: E402

__all__ = ["AnalysisError", "COMMAND", "load_cases", "__version__"]


def __getattr__(name):
    """``analysis.load_cases``, imported lazily: without h5py the command line says so in one line."""
    if name == "load_cases":
        from analysis.load import load_cases  # pylint: disable=import-outside-toplevel

        return load_cases
    raise AttributeError(f"module 'analysis' has no attribute {name!r}")
