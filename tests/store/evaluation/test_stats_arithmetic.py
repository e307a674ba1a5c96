"""The statistics module against published values, and the properties every interval must have."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gatepost.store.evaluation import stats


def test_wilson_three_of_four_matches_the_published_interval():
    # scipy.stats.binomtest(3, 4).proportion_ci(method="wilson") -> 0.3006, 0.9544
    low, high = stats.wilson(3, 4)
    assert round(low, 4) == 0.3006 and round(high, 4) == 0.9544


def test_wilson_newcombe_1998a_examples():
    # Newcombe (1998a) Table I, method 3: 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605
    assert [round(x, 4) for x in stats.wilson(81, 263)] == [0.2553, 0.3662]
    assert [round(x, 4) for x in stats.wilson(15, 148)] == [0.0624, 0.1605]
    assert stats.wilson(0, 10)[0] == 0.0 and stats.wilson(10, 10)[1] == 1.0
    assert [round(x, 4) for x in stats.wilson(0, 10)] == [0.0, 0.2775]


def test_sign_test_five_of_five_one_way():
    assert stats.sign_test(5, 0) == pytest.approx(0.0625)
    assert stats.sign_test(0, 5) == pytest.approx(0.0625)
    assert stats.sign_test(6, 0) == pytest.approx(0.03125)
    assert stats.sign_test(0, 0) == 1.0
    assert stats.sign_test(3, 3) == 1.0
    # binomtest(2, 10, 0.5).pvalue == 0.109375
    assert stats.sign_test(2, 8) == pytest.approx(0.109375)


def test_newcombe_unpaired_reference_example():
    d, low, high = stats.newcombe_unpaired(56, 70, 48, 80)
    assert round(d, 4) == 0.2 and round(low, 4) == 0.0524 and round(high, 4) == 0.3339


def test_newcombe_paired_reference_example():
    delta, low, high = stats.newcombe_paired(59, 6, 16, 80)
    assert round(delta, 4) == -0.0621 and round(low, 4) == -0.1186 and round(high, 4) == -0.0046


def test_minimum_detectable_effect():
    assert stats.min_discordant(0.05) == 6
    assert stats.minimum_detectable(5) is None
    assert stats.minimum_detectable(12) == 0.5
    assert stats.min_discordant(0.01) == 8


def test_pass_at_k_and_pass_hat_k():
    assert stats.pass_at_k(4, 2, 2) == pytest.approx(1 - 1 / 6)
    assert stats.pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert stats.pass_hat_k(3, 3, 3) == 1.0 and stats.pass_at_k(3, 0, 3) == 0.0


def test_words_for_a_noisy_and_a_decided_delta():
    noisy = stats.compare(stats.Pairs.of([True] * 4 + [False] * 3, [True] * 3 + [False] * 4))
    assert noisy["decided"] is None and stats.inside_noise(noisy)
    assert noisy["words"].startswith("+14 pp (95 % CI ")
    assert "too few tasks to tell; 7 tasks detect only ±86 pp" in noisy["words"]
    decided = stats.compare(stats.Pairs.of([True] * 10, [True] * 2 + [False] * 8))
    assert decided["decided"] == "better" and decided["p_value"] == 0.0078
    assert "better beyond the noise" in decided["words"] and not stats.inside_noise(decided)
    tiny = stats.compare(stats.Pairs.of([True] * 4, [False] * 4))
    assert tiny["decided"] is None and "4 tasks cannot decide any change" in tiny["words"]


def test_words_for_identical_sides_over_many_tasks_say_no_change_not_too_few_tasks():
    same = stats.compare(stats.Pairs(both=60_000, only_candidate=0, only_baseline=0, neither=60_000))
    assert same["decided"] is None and stats.inside_noise(same)  # no change is not an improvement
    assert "too few tasks" not in same["words"] and "±0 pp" not in same["words"]  # it said both, beside "CI 0 to 0"
    assert same["words"] == ("0 pp (95 % CI 0 to 0, p = 1) — no change of 1 pp or more either way; "
                             "120000 tasks detect ±0.005 pp at α = 0.05")
    # a few differing tasks over many: undecided, yet the interval still rules out a point either way
    few = stats.compare(stats.Pairs(both=5_000, only_candidate=5, only_baseline=0, neither=4_995))
    assert "no change of 1 pp or more either way; 10000 tasks detect ±0.06 pp" in few["words"]
    # a smaller suite whose interval reaches past a point still has too few tasks to tell
    some = stats.compare(stats.Pairs(both=100, only_candidate=0, only_baseline=0, neither=100))
    assert "too few tasks to tell; 200 tasks detect only ±3 pp" in some["words"]
    assert stats.detect_words(120_000) == "120000 tasks detect only ±0.005 pp at α = 0.05"


def test_rule_checks():
    assert stats.check_rule(None, None) == ("significant", 0.05)
    assert stats.check_rule("strict", None) == ("strict", 0.05)
    assert stats.check_rule("significant", 0.1) == ("significant", 0.1)
    with pytest.raises(ValueError, match="decision_rule"):
        stats.check_rule("lenient", None)
    with pytest.raises(ValueError, match="alpha"):
        stats.check_rule("significant", 1.5)


counts = st.integers(min_value=0, max_value=200)


@given(st.integers(min_value=1, max_value=500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_contains_the_rate_and_stays_in_range(kn):
    k, n = kn
    low, high = stats.wilson(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0


@given(st.integers(min_value=1, max_value=60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.integers(min_value=2, max_value=10))
def test_wilson_narrows_with_more_tasks(kn, times):
    k, n = kn
    low, high = stats.wilson(k, n)
    low2, high2 = stats.wilson(k * times, n * times)
    assert high2 - low2 < high - low


@given(counts, counts, counts, counts)
def test_paired_interval_contains_the_delta_and_stays_in_range(a, b, c, d):
    if a + b + c + d == 0:
        return
    delta, low, high = stats.newcombe_paired(a, b, c, d)
    assert -1.0 <= low <= delta + 1e-12 and delta - 1e-12 <= high <= 1.0


@given(counts, counts, counts, counts, st.integers(min_value=2, max_value=6))
def test_paired_interval_narrows_with_more_tasks(a, b, c, d, times):
    if a + b + c + d == 0:
        return
    _, low, high = stats.newcombe_paired(a, b, c, d)
    _, low2, high2 = stats.newcombe_paired(a * times, b * times, c * times, d * times)
    assert high2 - low2 <= high - low + 1e-12


@given(st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.integers(1, 200).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_unpaired_interval_contains_the_difference(first, second):
    (x1, n1), (x2, n2) = first, second
    d, low, high = stats.newcombe_unpaired(x1, n1, x2, n2)
    assert -1.0 <= low <= d + 1e-12 and d - 1e-12 <= high <= 1.0


@given(st.integers(0, 60), st.integers(0, 60))
def test_sign_test_is_a_symmetric_probability(b, c):
    p = stats.sign_test(b, c)
    assert 0.0 < p <= 1.0 and p == stats.sign_test(c, b)


@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_is_at_least_pass_hat_k(nck):
    n, c, k = nck
    assert 0.0 <= stats.pass_hat_k(n, c, k) <= stats.pass_at_k(n, c, k) <= 1.0
