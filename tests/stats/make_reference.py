"""Reference values for tests/stats_test.cc's significance tests, computed
independently of graphprof: scipy 1.10 (Debian's python3-scipy) for the
Mann-Whitney U test, Student's t and Welch's test; brute-force enumeration
for the exact U distribution and the Hodges-Lehmann interval; a direct
numpy formula for Benjamini-Hochberg.

    /usr/bin/python3 tests/stats/make_reference.py

prints the values pasted into stats_test.cc (with this command beside them).
"""
import itertools

import numpy as np
from scipy import stats

CASES = {
    "exact_no_ties": ([1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]),
    "exact_mixed": ([3.1, 1.2, 5.5], [2.2, 4.4, 6.6, 7.7]),
    "exact_interleaved": ([1.5, 3.5, 5.5, 7.5, 9.5, 2.25, 8.75], [2.0, 4.0, 6.0, 8.0]),
    "ties_asymptotic": ([1, 2, 2, 3, 3, 3, 4, 5, 6, 7], [2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9]),
}
rng = np.random.default_rng(20261201)
CASES["normal_asymptotic"] = (list(np.round(rng.normal(100, 10, 15), 3)), list(np.round(rng.normal(108, 10, 12), 3)))


def cxx(v):
    return "{" + ", ".join(repr(float(x)) for x in v) + "}"


for name, (a, b) in CASES.items():
    r = stats.mannwhitneyu(a, b, alternative="two-sided", method="auto")
    print(f"// {name}: a={cxx(a)} b={cxx(b)}")
    print(f"//   U={r.statistic!r} p={r.pvalue!r}")
r = stats.mannwhitneyu(CASES["normal_asymptotic"][0], CASES["normal_asymptotic"][1], method="exact")
print(f"// normal_asymptotic, method=exact: p={r.pvalue!r}")


# Exact null distribution of U by enumeration: every way to pick which of
# the n + m ranks belong to the first sample.
def exact_cdf(n, m):
    counts = {}
    for chosen in itertools.combinations(range(n + m), n):
        u = sum(r for r in chosen) - n * (n - 1) // 2  # ranks 0-based: U = sum(ranks) - n(n-1)/2
        counts[u] = counts.get(u, 0) + 1
    total = sum(counts.values())
    cdf, acc = [], 0
    for u in range(n * m + 1):
        acc += counts.get(u, 0)
        cdf.append(acc / total)
    return cdf


for n, m in [(3, 4), (4, 5), (5, 5)]:
    print(f"// exact cdf n={n} m={m}: {cxx(exact_cdf(n, m))}")


# Hodges-Lehmann on (a, b): median of b_j - a_i, and the exact interval from
# the enumerated distribution: c = largest count with P(U < c) <= 0.025.
def hodges_lehmann(a, b, conf=0.95):
    d = sorted(y - x for x in a for y in b)
    est = float(np.median(d))
    cdf = exact_cdf(len(a), len(b))
    c = 0
    while c < len(d) // 2 and cdf[c] <= (1 - conf) / 2:
        c += 1
    lo = d[c - 1] if c >= 1 else float("-inf")
    hi = d[len(d) - c] if c >= 1 else float("inf")
    return est, lo, hi


for name in ["exact_no_ties", "exact_mixed", "exact_interleaved"]:
    a, b = CASES[name]
    print(f"// hodges_lehmann {name}: {hodges_lehmann(a, b)}")

# Benjamini-Hochberg: Benjamini & Hochberg (1995)'s 15 p-values.
p = np.array([0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240, 0.4262,
              0.5719, 0.6528, 0.7590, 1.000])
order = np.argsort(p)
ranked = p[order] * len(p) / np.arange(1, len(p) + 1)
q = np.minimum.accumulate(ranked[::-1])[::-1]
out = np.empty_like(q)
out[order] = np.minimum(q, 1)
print(f"// bh q: {cxx(out)}")

for t, df in [(2.0, 3.5), (-1.3, 7.0), (0.4, 1.0), (4.5, 2.2), (-10.0, 30.0)]:
    print(f"// t.cdf({t}, {df}) = {stats.t.cdf(t, df)!r}")
for pr, df in [(0.975, 4.0), (0.975, 2.3), (0.025, 10.0), (0.999, 1.5)]:
    print(f"// t.ppf({pr}, {df}) = {stats.t.ppf(pr, df)!r}")

a = [10.1, 9.7, 10.4, 10.0]
b = [10.9, 11.3, 10.6]
w = stats.ttest_ind(b, a, equal_var=False)
va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
diff = np.mean(b) - np.mean(a)
half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
print(f"// welch a={cxx(a)} b={cxx(b)}: t={w.statistic!r} p={w.pvalue!r} df={df!r} ci=({diff - half!r}, {diff + half!r})")
