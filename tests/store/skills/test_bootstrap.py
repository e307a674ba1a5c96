"""Bootstrap drafts: the sample, p25 with linear interpolation, the 80% headings, refusals."""

import json

import pytest

from gatepost.store.kernel import InputError, RefusedError, add_actor
from gatepost.store.skills import (
    DEFAULT_FORBIDDEN,
    REFUSAL_MARKERS,
    active_version,
    bootstrap,
    import_manifest,
    list_drafts,
    percentile,
    propose,
    record_run,
    sample_failures,
)


@pytest.mark.parametrize("values,p,expected", [
    ([100, 200, 300, 400, 500], 25, 200),
    ([500, 100, 400, 200, 300], 25, 200),  # order does not matter
    ([10, 20, 30, 40], 25, 17.5),  # rank 0.75 between 10 and 20
    ([312, 401, 455, 460, 1000, 1200], 25, 414.5),  # rank 1.25: 401 + 0.25 * 54
    ([7], 25, 7),
    ([1, 2, 3], 0, 1),
    ([1, 2, 3], 100, 3),
    ([1, 3], 50, 2),
])
def test_percentile_linear_interpolation(values, p, expected):
    assert percentile(values, p) == pytest.approx(expected)


def _runs(db, skill, outputs, status="ok", start=1):
    for i, text in enumerate(outputs, start=start):
        record_run(db, skill, text, actor="run-52", status=status, at=f"2026-05-{i:02d}T08:00:00Z")


@pytest.fixture
def people(db):
    add_actor(db, "run-52", "producer", ["evidence.record"])
    add_actor(db, "bruno", "person", ["manifest.review"])
    return db


def _doc(words: int, *sections: str) -> str:
    body = "\n".join(f"## {s}\n" + " ".join(["word"] * 3) for s in sections)
    filler = " ".join(["word"] * (words - 3 * len(sections) - len(" ".join(sections).split())))
    return body + "\n" + filler


def test_bootstrap_samples_the_last_five_successful_runs(people):
    db = people
    _runs(db, "paper-pick", [_doc(900, "Central claim")] * 3)  # older: not sampled
    _runs(db, "paper-pick", ["I cannot do that"] * 2, status="error", start=20)  # errors: never sampled
    counts = [312, 401, 455, 460, 520]
    sections = [("Central claim", "Read order", "Why it's worth it"), ("Central claim", "Read order"),
                ("Central claim", "Read order", "Why it's worth it"), ("Central claim", "read order"),
                ("Central claim", "Where it might be wrong")]
    _runs(db, "paper-pick", [_doc(n, *s) for n, s in zip(counts, sections, strict=True)], start=10)
    draft = bootstrap(db, "paper-pick", actor="bruno")
    ev = draft["evidence"]
    assert [r["id"] for r in ev["runs"]] == [f"paper-pick-{n:04d}" for n in (10, 9, 8, 7, 6)]
    assert sorted(ev["word_counts"]) == counts
    assert ev["min_words"]["value"] == 401 and draft["assertions"]["min_words"] == 401
    # Central claim in 5/5, Read order in 4/5 (case-insensitive): 80% is enough, Why it's worth it in 2/5: below 80%
    assert draft["assertions"]["required_patterns"] == ["Central claim", "Read order"]
    assert ev["headings_needed"] == 4
    assert len(ev["headings"]["Why it's worth it"]) == 2
    assert draft["assertions"]["forbidden_patterns"] == list(DEFAULT_FORBIDDEN)
    assert draft["status"] == "pending" and draft["origin"] == "bootstrap"
    assert active_version(db, "paper-pick") is None  # never auto-approved
    assert list_drafts(db)[1] == 1


def test_p25_is_interpolated_and_rounded_down_with_a_smaller_sample(people):
    db = people
    _runs(db, "hn-digest", [_doc(n, "Top stories") for n in (10, 20, 30, 41)])
    assertions, evidence = propose(db, "hn-digest", sample=4)
    assert evidence["min_words"]["value"] == pytest.approx(17.5)
    assert assertions["min_words"] == 17
    assert assertions["required_patterns"] == ["Top stories"]


def test_default_forbidden_patterns_seen_in_the_sample_are_left_out(people):
    db = people
    _runs(db, "rss-digest", ["It is important to note the feed moved. " + _doc(50, "Feeds")] + [_doc(50, "Feeds")] * 4)
    assertions, evidence = propose(db, "rss-digest")
    assert "it is important to note" not in assertions["forbidden_patterns"]
    assert list(evidence["forbidden_dropped"]) == ["it is important to note"]
    assert "as an AI" in assertions["forbidden_patterns"]


def test_fewer_runs_than_needed_is_refused_and_stores_nothing(people):
    db = people
    _runs(db, "token-movers", [_doc(100, "Top movers")] * 4)
    _runs(db, "token-movers", ["boom"], status="error", start=9)
    with pytest.raises(RefusedError) as err:
        bootstrap(db, "token-movers", actor="bruno")
    assert str(err.value) == ("bootstrap token-movers: refused: 4 successful runs recorded, bootstrap needs the last 5"
                              " (1 left out: token-movers-0005: recorded error)")
    assert list_drafts(db, status=None)[1] == 0


def test_unknown_skill_is_refused(people):
    with pytest.raises(InputError, match="no skill 'nope'"):  # bad input (exit 2), not a refusal: issue 17 #4
        bootstrap(people, "nope", actor="bruno")


def test_cli_bootstrap_json_and_refusal(people, cli):
    _runs(people, "hn-digest", [_doc(n, "Top stories", "Also") for n in (100, 120, 140, 160, 180)])
    result = cli("bootstrap", "--skill", "hn-digest", "--json", "--as", "bruno")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "pending" and data["assertions"]["min_words"] == 120
    assert data["evidence"]["word_counts"] == [180, 160, 140, 120, 100]
    refused = cli("bootstrap", "--skill", "hn-digest", "--sample", "9")
    assert refused.exit_code == 3
    assert "5 successful runs recorded, bootstrap needs the last 9" in refused.output


def test_a_sample_too_small_to_mean_anything_is_bad_input(people, cli):
    with pytest.raises(InputError, match="--sample: expected at least 3"):
        propose(people, "hn-digest", sample=2)
    assert cli("bootstrap", "--skill", "hn-digest", "--sample", "1").exit_code == 2


def test_a_refusal_among_the_last_runs_is_left_out_and_its_markers_stay_forbidden(people, cli):
    """Of the last five runs one is a refusal recorded ok: it is not sampled, says why, and shapes nothing."""
    db = people
    _runs(db, "token-movers", [_doc(n, "Top movers") for n in (210, 230, 250, 270, 290)])
    _runs(db, "token-movers", ["I cannot do this as an AI."], start=20)  # the newest run, recorded ok
    draft = bootstrap(db, "token-movers", actor="bruno")
    ev = draft["evidence"]
    assert "token-movers-0006" not in [r["id"] for r in ev["runs"]] and len(ev["runs"]) == 5
    assert ev["left_out"] == [{"id": "token-movers-0006", "at": "2026-05-20T08:00:00.000000Z", "status": "ok",
                               "why": "a refusal: holds 'I cannot', 'as an AI'"}]
    assert draft["assertions"]["min_words"] == 230  # p25 of the five real runs, not the refusal's 7 words
    for marker in REFUSAL_MARKERS:
        assert marker in draft["assertions"]["forbidden_patterns"]
    assert ev["forbidden_dropped"] == {}
    # p25 may fail the shortest sampled run by design, never the newest because of a refusal
    assert [f["run_id"] for f in sample_failures(db, draft)] == ["token-movers-0001"]
    shown = cli("bootstrap", "--skill", "token-movers", "--as", "bruno")
    assert "left out token-movers-0006: a refusal: holds 'I cannot', 'as an AI'" in shown.output


def test_a_refusal_in_a_sampled_run_never_drops_its_marker(people):
    """Even where every sampled run holds a filler phrase, a refusal marker is never dropped."""
    db = people
    _runs(db, "rss-digest", ["It's worth noting that feeds moved. " + _doc(50, "Feeds")] * 5)
    assertions, evidence = propose(db, "rss-digest")
    assert list(evidence["forbidden_dropped"]) == ["it's worth noting that"]
    assert all(m in assertions["forbidden_patterns"] for m in REFUSAL_MARKERS)


def test_runs_failing_the_active_manifest_and_family_refusals_are_left_out(people):
    db = people
    import_manifest(db, "m.yaml", actor="bruno",
                    text="token-movers:\n  min_words: 100\n  must_quote_changes: true\n")
    good = "## Top movers\n" + " ".join(["word"] * 120) + "\nBTC +4.2% (24h)"
    _runs(db, "token-movers", [good] * 5)
    _runs(db, "token-movers", ["## Top movers\nshort +1%"], start=10)  # fails min_words of the active manifest
    _runs(db, "token-movers", [good + "\nThis is not financial advice."], start=11)  # the markets family's refusal
    assertions, evidence = propose(db, "token-movers")
    whys = {r["id"]: r["why"] for r in evidence["left_out"]}
    assert whys["token-movers-0007"] == "a refusal: holds 'not financial advice'"
    assert whys["token-movers-0006"].startswith("fails the active manifest v1: min_words:")
    assert "not financial advice" in assertions["forbidden_patterns"]
    assert evidence["checked_against"] == 1


def test_review_marks_a_speculative_manifest_and_flags_words_of_style(people, cli, tmp_path):
    """The seed's rules: bootstrap before writing speculatively; keep the forbidden list to refusals."""
    manifest = tmp_path / "m.yaml"
    manifest.write_text("weekly-outlook:\n  min_words: 300\n  forbidden_patterns: [exciting, consider, as an AI, TODO]\n"
                        "hn-digest:\n  min_words: 10\n  forbidden_patterns: [I cannot]\n")
    _runs(people, "hn-digest", [_doc(40, "Top stories")])
    imported = cli("manifest", "import", str(manifest), "--as", "bruno")
    assert imported.exit_code == 0, imported.output
    lines = imported.output.splitlines()
    assert "  warning: speculative: no run of weekly-outlook is recorded" in "\n".join(lines)
    assert "bootstrap before writing speculatively" in imported.output
    assert "'exciting' is an ordinary word of style" in imported.output
    assert "'consider' is an ordinary word of style" in imported.output
    assert "'as an AI'" not in imported.output and "'TODO'" not in imported.output  # a marker, a placeholder
    assert "no run of hn-digest" not in imported.output  # it has runs: observed, not speculative
    shown = cli("manifest", "show", "weekly-outlook")
    assert "warning: speculative" in shown.output
    # once the skill has a run, the manifest is no longer speculative; the style words stay flagged
    _runs(people, "weekly-outlook", [_doc(400, "OUTLOOK")], start=20)
    shown = cli("manifest", "show", "weekly-outlook")
    assert "speculative" not in shown.output and "'exciting' is an ordinary word of style" in shown.output
