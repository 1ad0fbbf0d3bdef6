"""Published values of [Grigoryan] (docs/REFERENCES.md); times are MATLAB seconds on one desktop: compare shapes."""

from __future__ import annotations

import math

#: How outputs name the paper (reports, tables, figure legends): never a file name.
NAME = "Grigoryan 2019"
#: How reports and help texts cite it: the key of docs/REFERENCES.md, where the full citation is.
REFERENCE = "[Grigoryan] (E. Grigoryan, arXiv:1912.05935; nqc's docs/REFERENCES.md)"

#: Time regression log10(1000 t) = A + B log10(n), t the mean completion time in seconds.
A = -0.628927
B = 0.781568
#: Correlation coefficient reported with the fit.
R = 0.9998
#: n range the paper fitted (n = 50 ... 10^8).
FIT_N_MIN = 50
FIT_N_MAX = 100_000_000

#: Mean and t90mean completion time (s) at n = 1000 (10^6 compositions).
MEAN_S_AT_1000 = 0.062
T90MEAN_S_AT_1000 = 0.0277

#: Share of cases with 0, 1, 2, 3 and > 3 backtracks by n (n = 5000 gives no '> 3').
BACKTRACK_SHARES = {
    1000: {"bt0": 0.6050, "bt1": 0.2272, "bt2": 0.0921, "bt3": 0.0395, "bt_more": 0.0362},
    5000: {"bt0": 0.6192, "bt1": 0.2187, "bt2": 0.0907, "bt3": 0.0377},
}

#: Share of cases without backtracking: above 35% for n in 7..10^5, above 50% for 320..22500.
NO_BACKTRACK_FLOORS = [(7, 100_000, 0.35), (320, 22_500, 0.50)]

#: Claims on the false negative share: (n_min, n_max exclusive, bound); (n_min, None, None): none seen.
FALSE_NEGATIVE_CLAIMS = [(1, 100, 1e-4), (100, 800, 1e-5), (800, None, None)]

#: Mean share of the n queens that the first randSet & randSet pass places on an empty board.
RANDSET_FIRST_PASS = {10: 0.605701, 100: 0.6005, 1_000_000: 0.599777, 10_000_000: 0.5997}


def predicted_time_s(n: float, a: float = A, b: float = B) -> float:
    """Mean completion time in seconds that log10(1000 t) = a + b log10(n) predicts."""
    return 10.0 ** (a + b * math.log10(n)) / 1000.0
