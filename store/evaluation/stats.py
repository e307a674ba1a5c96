"""The arithmetic of evidence people can weigh: intervals for rates and deltas, exact tests, pass@k.

Pure functions over counts (no SQL, no I/O), so that every number a screen, a report or `--json`
shows comes from one place and is pinned by tests to published values:

- a pass rate: the Wilson score interval (Wilson 1927; Newcombe 1998a, method 3);
- a candidate-vs-baseline delta over the same tasks: Newcombe's hybrid score interval for paired
  proportions (Newcombe 1998b, method 10) and the exact two-sided sign test (McNemar's exact test)
  on the tasks whose outcome differs;
- a difference of two independent rates: Newcombe's hybrid score interval (1998a, method 10);
- the smallest delta a suite of n tasks could show at level alpha (the minimum detectable effect);
- pass@k and pass^k per task from c passing attempts out of n (Chen et al. 2021; Yao et al. 2024).

Pure Python on purpose: the only distribution needed is the standard normal quantile
(`statistics.NormalDist`) and exact binomial sums (`math.comb`); scipy would add ~100 MB for two
functions. The tests check each function against the published worked examples.
"""

from dataclasses import dataclass
from math import comb, exp, lgamma, log, sqrt
from statistics import NormalDist
from typing import Any

LEVEL = 0.95
ALPHA = 0.05
DECISION_RULES = ("strict", "significant")
NO_CHANGE = 0.005  # an interval within half a point either way shows as "0 to 0": no change of a point or more
DEFAULT_RULE = "significant"  # a comparison counts only when the data decide it; strict is a visible choice
MAX_REGRESSION = 0.10  # the held-out drop a suite must be able to detect before "held" can count
MUST_DETECT = 0.5  # the change a tuning split should be able to decide; `suite validate` warns above it
EXACT_SIGN_TEST_MAX = 20_000  # differing tasks summed exactly in integers (~0.08 s at the limit)


def z_for(level: float = LEVEL) -> float:
    """The two-sided standard normal quantile for a confidence level (1.959964 for 95 %)."""
    if not 0 < level < 1:
        raise ValueError(f"level: expected a number between 0 and 1, got {level!r}")
    return float(NormalDist().inv_cdf(1 - (1 - level) / 2))


def wilson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval for k successes out of n; (0, 1) when n is 0 (nothing is known)."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"expected 0 <= k <= n, got k={k!r} n={n!r}")
    if n == 0:
        return 0.0, 1.0
    z = z_for(level)
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denominator = 1 + z * z / n
    low = (centre - spread) / denominator
    high = (centre + spread) / denominator
    # exact at the edges (floating point leaves 1e-17 residues there)
    return (0.0 if k == 0 else max(0.0, low)), (1.0 if k == n else min(1.0, high))


def sign_test(b: int, c: int) -> float:
    """Exact two-sided sign test (McNemar's exact test) on b pairs one way and c the other; 1.0 if none.

    Up to EXACT_SIGN_TEST_MAX differing tasks the binomial tail is summed in integers and divided once
    (a float of 2**n overflows near 1,024); above it, in logarithms from the largest term down until
    the rest cannot move a double (relative error ~1e-11 at 100,000, far below the 4 places shown).
    """
    if b < 0 or c < 0:
        raise ValueError(f"expected counts >= 0, got {b!r} and {c!r}")
    n = b + c
    if n == 0:
        return 1.0
    m = min(b, c)
    if 2 * m >= n:
        return 1.0
    if n <= EXACT_SIGN_TEST_MAX:
        term = tail = 1
        for i in range(m):  # C(n, i + 1) from C(n, i), exactly
            term = term * (n - i) // (i + 1)
            tail += term
        return min(1.0, 2 * tail / (1 << n))  # int / int: correctly rounded, never an overflow
    ratio = total = 1.0
    for i in range(m, 0, -1):  # C(n, i - 1) / C(n, m), down from the largest term of the tail
        ratio *= i / (n - i + 1)
        total += ratio
        if ratio < 1e-17 * total:
            break
    log_p = log(2) + lgamma(n + 1) - lgamma(m + 1) - lgamma(n - m + 1) + log(total) - n * log(2)
    return min(1.0, exp(log_p))


def newcombe_unpaired(x1: int, n1: int, x2: int, n2: int, level: float = LEVEL) -> tuple[float, float, float]:
    """p1 - p2 for two independent proportions and Newcombe's hybrid score interval (1998a, method 10)."""
    if n1 <= 0 or n2 <= 0:
        raise ValueError("expected n1 > 0 and n2 > 0")
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, level)
    l2, u2 = wilson(x2, n2, level)
    d = p1 - p2
    low = d - sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, max(-1.0, low), min(1.0, high)


def newcombe_paired(a: int, b: int, c: int, d: int, level: float = LEVEL) -> tuple[float, float, float]:
    """The difference of paired proportions (b - c) / n and Newcombe's interval for it (1998b, method 10).

    The table is [[a, b], [c, d]] with rows the first measure (pass, fail) and columns the second:
    a = both pass, b = only the first passes, c = only the second passes, d = neither. The
    difference is first minus second. The correlation term phi is 0 when a margin is empty; a
    positive AD - BC is reduced by N/2 first, as Newcombe specifies (his Table II's 59/6/16/80
    gives -0.1186 to -0.0046 only so).
    """
    n = a + b + c + d
    if min(a, b, c, d) < 0 or n == 0:
        raise ValueError("expected counts >= 0 and at least one pair")
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, level)
    l2, u2 = wilson(a + c, n, level)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    product = float(a * d - b * c)
    if product > 0:  # Newcombe's phi: a positive AD - BC is shrunk by N/2 (never below 0)
        product = max(product - n / 2, 0.0)
    phi = product / sqrt(margins) if margins else 0.0
    delta = (b - c) / n
    dl1, du1, dl2, du2 = p1 - l1, u1 - p1, p2 - l2, u2 - p2
    low = delta - sqrt(max(0.0, dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2))
    high = delta + sqrt(max(0.0, du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2))
    return delta, max(-1.0, low), min(1.0, high)


def min_discordant(alpha: float = ALPHA) -> int:
    """The fewest differing tasks, all one way, that the exact sign test decides at alpha (6 at 0.05)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a number between 0 and 1, got {alpha!r}")
    m = 1
    while sign_test(m, 0) > alpha:
        m += 1
    return m


def minimum_detectable(tasks: int, alpha: float = ALPHA) -> float | None:
    """The smallest |delta| n tasks can decide at alpha (min_discordant / n), or None if they cannot at all."""
    m = min_discordant(alpha)
    return None if tasks < m else m / tasks


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from c passing attempts of n: the chance at least one of k draws passes."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"expected 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return (comb(n, k) - comb(n - c, k)) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k from c passing attempts of n: the chance all of k draws pass (tau-bench's reliability)."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"expected 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


# --- what the console, the reports and --json carry --------------------------------------------
def pp(value: float, *, sign: bool = True) -> str:
    """A rate difference in percentage points as people write it: +14, −19, 0 (U+2212 for minus)."""
    number = round(value * 100)
    if number == 0:
        return "0"
    text = f"{abs(number)}"
    if number < 0:
        return "\u2212" + text
    return ("+" + text) if sign else text


def pp_magnitude(value: float) -> str:
    """A size in percentage points that is never shown as 0 when it is not: 86, 1, 0.06, 0.005.

    A large suite's smallest detectable change is a fraction of a point; rounded, it read "±0 pp".
    """
    if abs(value) * 100 >= 1:
        return pp(value, sign=False)
    return f"{abs(value) * 100:.1g}"


def rate_summary(passed: int, tasks: int, level: float = LEVEL) -> dict[str, Any]:
    """A pass rate with its Wilson interval, as --json carries it."""
    low, high = wilson(passed, tasks, level)
    return {"passed": passed, "tasks": tasks, "rate": round(passed / tasks, 4) if tasks else 0.0,
            "low": round(low, 4), "high": round(high, 4), "level": level}


def rate_words(summary: dict[str, Any]) -> str:
    """'57 % (95 % CI 25 to 84, 4 of 7)'."""
    level = round(summary["level"] * 100)
    return (f"{round(summary['rate'] * 100)} % ({level} % CI {round(summary['low'] * 100)} to "
            f"{round(summary['high'] * 100)}, {summary['passed']} of {summary['tasks']})")


@dataclass(frozen=True)
class Pairs:
    """The four counts of a paired comparison over the same tasks."""

    both: int  # both pass
    only_candidate: int  # the candidate passes, the baseline fails
    only_baseline: int  # the baseline passes, the candidate fails
    neither: int

    @classmethod
    def of(cls, candidate: list[bool], baseline: list[bool]) -> "Pairs":
        """Count pairs of per-task outcomes (the same tasks, in the same order)."""
        if len(candidate) != len(baseline):
            raise ValueError("expected the same tasks on both sides")
        pairs = list(zip(candidate, baseline, strict=True))
        return cls(sum(1 for c, b in pairs if c and b), sum(1 for c, b in pairs if c and not b),
                   sum(1 for c, b in pairs if b and not c), sum(1 for c, b in pairs if not c and not b))

    @property
    def tasks(self) -> int:
        return self.both + self.only_candidate + self.only_baseline + self.neither


def compare(pairs: Pairs, *, alpha: float = ALPHA, level: float = LEVEL) -> dict[str, Any]:
    """A candidate-vs-baseline delta over the same tasks, with its interval, p-value and decision.

    `decided` is "better" or "worse" when the exact sign test on the differing tasks is at or below
    alpha, else None; `words` says it as the console does.
    """
    n = pairs.tasks
    if n == 0:
        return {"tasks": 0, "delta": 0.0, "low": -1.0, "high": 1.0, "p_value": 1.0, "alpha": alpha,
                "level": level, "decided": None, "min_detectable": None, "pairs": _pairs_json(pairs),
                "words": "no tasks: nothing to compare"}
    delta, low, high = newcombe_paired(pairs.both, pairs.only_candidate, pairs.only_baseline, pairs.neither, level)
    p = sign_test(pairs.only_candidate, pairs.only_baseline)
    decided = None
    if p <= alpha:
        decided = "better" if pairs.only_candidate > pairs.only_baseline else "worse"
    result: dict[str, Any] = {
        "tasks": n, "delta": round(delta, 4), "low": round(low, 4), "high": round(high, 4),
        "p_value": round(p, 4), "alpha": alpha, "level": level, "decided": decided,
        "min_detectable": (round(m, 4) if (m := minimum_detectable(n, alpha)) is not None else None),
        "pairs": _pairs_json(pairs),
    }
    result["words"] = delta_words(result)
    return result


def _pairs_json(pairs: Pairs) -> dict[str, int]:
    return {"both_pass": pairs.both, "only_candidate": pairs.only_candidate,
            "only_baseline": pairs.only_baseline, "both_fail": pairs.neither}


def delta_words(comparison: dict[str, Any]) -> str:
    """'+14 pp (95 % CI −19 to +47) — too few tasks to tell; 7 tasks detect only ±86 pp'.

    An undecided delta whose whole interval is within half a point either way (it reads "CI 0 to 0") is
    not a matter of too few tasks: the tasks rule out any change of a point or more, and say so.
    """
    level = round(comparison["level"] * 100)
    head = (f"{pp(comparison['delta'])} pp ({level} % CI {pp(comparison['low'])} to {pp(comparison['high'])}, "
            f"p = {comparison['p_value']:.3g})")
    n, alpha = comparison["tasks"], comparison["alpha"]
    mde = minimum_detectable(n, alpha)  # exact: the stored figure is rounded to 4 places
    if comparison["decided"] == "better":
        return f"{head} — better beyond the noise at \u03b1 = {alpha:g}"
    if comparison["decided"] == "worse":
        return f"{head} — worse beyond the noise at \u03b1 = {alpha:g}"
    if mde is not None and -NO_CHANGE < comparison["low"] and comparison["high"] < NO_CHANGE:
        return (f"{head} — no change of 1 pp or more either way; "
                f"{n} tasks detect \u00b1{pp_magnitude(mde)} pp at \u03b1 = {alpha:g}")
    if mde is None:
        tail = f"{n} task{'s' if n != 1 else ''} cannot decide any change at \u03b1 = {alpha:g}"
    elif abs(comparison["delta"]) < mde:
        tail = f"{n} tasks detect only \u00b1{pp_magnitude(mde)} pp"
    else:
        return f"{head} — inside the noise: the exact test does not decide at \u03b1 = {comparison['alpha']:g}"
    return f"{head} — too few tasks to tell; {tail}"


def inside_noise(comparison: dict[str, Any]) -> bool:
    """True when the exact test does not decide the delta at alpha: a claim resting on it rests on noise.

    The score interval can leave out 0 while the exact test does not decide (3 of 3 differing tasks:
    the interval is +3 to +88 pp, p = 0.25); gatepost decides by the exact test, so that counts as noise.
    """
    return comparison["decided"] is None


def check_rule(rule: str | None, alpha: float | None) -> tuple[str, float]:
    """A decision rule and its level, checked; (significant, 0.05) when not given."""
    rule = rule or DEFAULT_RULE
    if rule not in DECISION_RULES:
        raise ValueError(f"decision_rule: expected one of {', '.join(DECISION_RULES)}, got {rule!r}")
    alpha = ALPHA if alpha is None else alpha
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a number between 0 and 1 (e.g. 0.05), got {alpha!r}")
    return rule, float(alpha)


def rule_words(rule: str, alpha: float) -> str:
    """How a comparison was decided, as a case shows it beside the record."""
    if rule == "strict":
        return "strict: noise may pass"
    return f"significant at \u03b1 = {alpha:g}"


def detect_words(tasks: int, alpha: float = ALPHA, *, what: str = "tasks") -> str:
    """'7 tuning tasks detect only ±86 pp' or '3 tuning tasks cannot decide any change at α = 0.05'."""
    mde = minimum_detectable(tasks, alpha)
    if mde is None:
        what = what.removesuffix("s") if tasks == 1 else what
        return f"{tasks} {what} cannot decide any change at \u03b1 = {alpha:g}"
    return f"{tasks} {what} detect only \u00b1{pp_magnitude(mde)} pp at \u03b1 = {alpha:g}"


def can_detect(tasks: int, change: float, alpha: float = ALPHA) -> bool:
    """Whether `tasks` paired tasks can decide a change of `change` (a fraction) at alpha."""
    mde = minimum_detectable(tasks, alpha)
    return mde is not None and mde <= change + 1e-9
