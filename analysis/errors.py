"""The one exception the analysis raises for bad input; the command line prints its message."""


class AnalysisError(Exception):
    """Bad input (missing, unreadable or incompatible result files, impossible fits).

    The message names the file or value at fault and is printed as
    ``nqc-analysis: error: MESSAGE`` with exit code 1.
    """
