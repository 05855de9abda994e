"""Rates with Wilson 95 % intervals, for the Python evaluation scripts (scripts/eval/stats.ts is the
TypeScript twin)."""
import math


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k, n):
    """`k/n, p % (low–high)`"""
    low, high = wilson(k, n)
    return f"{k}/{n}, {100 * k / n:.1f} % ({100 * low:.1f}–{100 * high:.1f})"
