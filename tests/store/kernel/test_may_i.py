"""May I: the store answers what a person may decide on an item now, and if not why, by rehearsing the act
itself (its guarded pipeline and body, rolled back): the same answer as doing it, and nothing written."""

import os
import shutil
import sqlite3

from gatepost.store import flows
from gatepost.store.kernel import (
    UNCHECKED,
    GatepostError,
    append_event,
    ensure_producer,
    find_actor,
    last_seq,
    open_store,
    rehearse,
    rehearse_all,
    transaction,
)


def _dump(db) -> list[tuple]:
    return [*db.execute("SELECT seq, kind, subject_id FROM events ORDER BY seq"),
            *db.execute("SELECT id, status FROM proposals ORDER BY id"),
            *db.execute("SELECT id, status FROM manifest_drafts ORDER BY id")]


def _waiting_with(db, rule: str) -> str:
    for (pid,) in db.execute("SELECT id FROM proposals WHERE status = 'waiting' ORDER BY id"):
        verdict = flows.may(db, "proposal", pid, actor="ana", seen_seq=last_seq(db, "proposal", pid))["accepted"]
        if verdict.rule == rule:
            return str(pid)
    raise AssertionError(f"no waiting proposal the demo refuses by {rule}")


def test_may_answers_as_the_act_does_and_writes_nothing(demo_copy, tmp_path):
    db = open_store(demo_copy)
    before = _dump(db)
    pid = _waiting_with(db, "pending")  # another accepted change to its path is not recorded applied yet
    seq = last_seq(db, "proposal", pid)
    verdicts = flows.may(db, "proposal", pid, actor="ana", seen_seq=seq)
    assert not verdicts["accepted"] and verdicts["accepted"].rule == "pending"
    assert "on the same base and is not recorded applied" in verdicts["accepted"].why
    assert verdicts["declined"] and verdicts["needs_changes"]
    assert not flows.may(db, "proposal", pid, actor="dara", seen_seq=seq)["declined"]  # no proposal.review
    assert _dump(db) == before  # a rehearsal writes nothing
    # the act itself says the same
    try:
        flows.decide_on(db, "proposal", "accepted", pid, actor="ana", note="ok", seen_seq=seq)
    except GatepostError as exc:
        assert str(exc) == verdicts["accepted"].message
    else:
        raise AssertionError("the store accepted what may refused")
    flows.decide_on(db, "proposal", "declined", pid, actor="ana", note="not now", seen_seq=seq,
                    answers={"read_diff": "yes", "reversible": "yes", "confidence": "2"})  # the demo's queue rubric
    assert db.execute("SELECT status FROM proposals WHERE id = ?", [pid]).fetchone()[0] == "declined"
    # a decision is never edited: may says so now
    after = flows.may(db, "proposal", pid, actor="ana", seen_seq=last_seq(db, "proposal", pid))
    assert {v.rule for v in after.values()} == {"open"}
    db.close()


def test_an_older_look_is_refused_by_seen_seq(demo_copy):
    db = open_store(demo_copy)
    (draft,) = db.execute("SELECT id FROM manifest_drafts WHERE status = 'pending' ORDER BY id LIMIT 1").fetchone()
    seq = last_seq(db, "draft", draft)
    assert all(flows.may(db, "draft", draft, actor="ana", seen_seq=seq).values())
    stale = flows.may(db, "draft", draft, actor="ana", seen_seq=seq - 1)
    assert {v.rule for v in stale.values()} == {"seen-seq"}
    db.close()


def test_inside_a_transaction_a_rehearsal_is_a_savepoint_rolled_back(demo_copy):
    db = open_store(demo_copy)
    (skill,) = db.execute("SELECT skill FROM regression_states WHERE state = 'NEW_FAIL' ORDER BY skill").fetchone()
    events = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    with transaction(db):
        verdict = rehearse(db, lambda d: flows.decide_on(d, "skill", "acknowledge", skill, actor="bruno",
                                                         note="seen", seen_seq=None))
        assert db.conn.in_transaction
    assert verdict.allowed or verdict.rule == "lease"
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == events
    db.close()


def test_a_read_only_store_answers_as_its_writes_do(demo_copy, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = shutil.copy(demo_copy, folder / "ro.db")
    os.chmod(path, 0o444)
    os.chmod(folder, 0o555)
    try:
        db = open_store(path)
        (pid,) = db.execute("SELECT id FROM proposals WHERE status = 'waiting' ORDER BY id LIMIT 1").fetchone()
        verdict = flows.may(db, "proposal", pid, actor="ana")["declined"]
        if os.geteuid() != 0:  # root writes through any mode bits
            assert not verdict and "read-only" in verdict.why
        db.close()
    finally:
        os.chmod(folder, 0o755)


def test_another_writer_holding_the_store_leaves_the_act_unchecked_not_refused(demo_copy):
    other = sqlite3.connect(demo_copy)
    other.execute("BEGIN IMMEDIATE")
    db = open_store(demo_copy)
    try:
        (pid,) = db.execute("SELECT id FROM proposals WHERE status = 'waiting' ORDER BY id LIMIT 1").fetchone()
        verdict = flows.may(db, "proposal", pid, actor="ana")["declined"]
        assert verdict.allowed and verdict.rule == UNCHECKED
    finally:
        other.rollback()
        other.close()
        db.close()


def test_design_review_is_a_decision_on_an_open_case_only(demo_copy):
    db = open_store(demo_copy)
    (closed,) = db.execute("SELECT id FROM cases WHERE status = 'closed' ORDER BY id LIMIT 1").fetchone()
    verdict = flows.may(db, "case", closed, actor="ana", names=["design_passed"])["design_passed"]
    assert not verdict and verdict.rule == "open" and "closed" in verdict.why
    db.close()


def test_a_rehearsal_leaves_the_damage_scan_to_the_act(demo_copy):
    """The scan of the whole file before a connection's first write (PRAGMA quick_check) is the act's: a
    rehearsal, whose writes are rolled back, skips it (on a large store it was most of the console's first
    page), and the connection's first real write still scans."""
    db = open_store(demo_copy)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    case_id = db.execute("SELECT id FROM cases WHERE status = 'open' ORDER BY id").fetchone()[0]
    verdicts = flows.may(db, "case", case_id, actor="ana", seen_seq=last_seq(db, "case", case_id))
    assert verdicts and not any("quick_check" in s for s in statements), "a rehearsal scanned the store"
    assert any("INSERT INTO events" in s for s in statements), "the rehearsal did not run the act"
    statements.clear()
    with transaction(db):
        append_event(db, "note.added", actor="ana", subject_type="case", subject_id=case_id, payload={})
    assert any("quick_check" in s for s in statements), "the connection's first write did not scan the store"


def test_a_rehearsal_reads_the_triggers_again_only_when_the_schema_changed(demo_copy):
    """Every item the console shows rehearses its decisions (six for a case): the append-only triggers are read
    from the schema once, and again only when it changed. A trigger dropped by another connection after a
    rehearsal found them all is still refused, by the next rehearsal and by the act."""
    db = open_store(demo_copy)
    case_id = db.execute("SELECT id FROM cases WHERE status = 'open' ORDER BY id").fetchone()[0]
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    flows.may(db, "case", case_id, actor="ana", seen_seq=last_seq(db, "case", case_id))
    before = flows.may(db, "case", case_id, actor="ana", seen_seq=last_seq(db, "case", case_id))
    allowed = [name for name, v in before.items() if v]
    assert allowed, "nothing to rehearse up to its write"
    reads = [s for s in statements if "sqlite_master" in s and "trigger" in s]
    assert len(reads) == 1, f"the triggers were read {len(reads)} times for 12 rehearsals"
    other = sqlite3.connect(demo_copy)
    other.execute("DROP TRIGGER events_no_update")
    other.commit()
    other.close()
    verdicts = flows.may(db, "case", case_id, actor="ana", seen_seq=last_seq(db, "case", case_id))
    assert all(not verdicts[name] and "append-only triggers are missing (events_no_update)" in verdicts[name].why
               for name in allowed)
    db.close()


def test_the_rehearsals_of_a_case_read_the_actor_the_case_and_its_evidence_once(demo_copy):
    """A case's six decisions are rehearsed in one transaction: the reads each act makes before it writes (who
    acts and what they hold, the case, its evidence and their evaluation) are made once for all six, and each
    act still runs whole (an allowed one writes its event, rolled back)."""
    db = open_store(demo_copy)
    case_id = db.execute("SELECT id FROM cases WHERE status = 'open' ORDER BY id").fetchone()[0]
    seq = last_seq(db, "case", case_id)
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    verdicts = flows.may(db, "case", case_id, actor="ana", seen_seq=seq)
    db.conn.set_trace_callback(None)
    assert len(verdicts) == 6 and any(verdicts.values())

    def count(fragment: str) -> int:
        return sum(fragment in s for s in statements)

    assert count("BEGIN IMMEDIATE") == 1
    assert count("FROM capabilities WHERE actor") == 1
    assert count("SELECT * FROM cases WHERE id") == 1
    assert count("SELECT * FROM evidence WHERE case_id") == 1
    assert count("INSERT INTO events") == sum(bool(v) for v in verdicts.values())


def test_shared_reads_answer_as_each_act_rehearsed_alone_over_the_demo(demo_copy):
    """What may answers with the reads shared is what each decision answers rehearsed on its own, for every
    item of the demo and every person (the answers and their whys)."""
    db = open_store(demo_copy)
    items = {"case": "SELECT id FROM cases", "proposal": "SELECT id FROM proposals",
             "draft": "SELECT id FROM manifest_drafts", "skill": "SELECT skill FROM regression_states"}
    people = [name for (name,) in db.execute("SELECT name FROM actors WHERE kind = 'person' ORDER BY name")]
    before = _dump(db)
    checked = 0
    for subject, sql in items.items():
        for (key,) in db.execute(sql).fetchall():
            seq = last_seq(db, subject, key)
            for person in people:
                shared = flows.may(db, subject, key, actor=person, seen_seq=seq)
                for name, verdict in shared.items():
                    alone = flows.may(db, subject, key, actor=person, seen_seq=seq, names=[name])[name]
                    assert verdict == alone, f"{person} {name} {subject} {key}: shared {verdict}, alone {alone}"
                    checked += 1
    assert checked > 1000
    assert _dump(db) == before
    db.close()


def test_a_read_after_a_rehearsal_wrote_is_read_again(demo_copy):
    """A rehearsal that wrote reads what it wrote, and the next rehearsal starts from the store as it was."""
    db = open_store(demo_copy)
    seen: dict[str, object] = {}

    def look(d) -> None:
        seen["before"] = find_actor(d, "zed")

    def add_then_look(d) -> None:
        ensure_producer(d, "zed")
        seen["after"] = find_actor(d, "zed")

    def look_again(d) -> None:
        seen["again"] = find_actor(d, "zed")

    verdicts = rehearse_all(db, {"look": look, "add": add_then_look, "again": look_again})
    assert all(verdicts.values())
    assert seen["before"] is None and seen["again"] is None
    assert seen["after"] is not None and seen["after"]["name"] == "zed"
    assert find_actor(db, "zed") is None
    db.close()


def test_a_rehearsed_mismatch_flag_draws_no_draft(demo_copy):
    """Flagging a manifest mismatch also draws a draft from the skill's runs when they allow one; what drawing
    it meets never refuses the flag, so a rehearsal of the flag stops before it (drawing one reads and checks
    every sampled run), and answers as the flag does."""
    db = open_store(demo_copy)
    skill = None
    for (name,) in db.execute("SELECT skill FROM regression_states ORDER BY skill").fetchall():
        db.execute("BEGIN IMMEDIATE")
        try:
            _seq, draft, _why = flows.decide_on(db, "skill", "mismatch", name, actor="bruno", note="looks off")
        except GatepostError:
            draft = None
        finally:
            db.execute("ROLLBACK")
        if draft is not None:
            skill = name
            break
    assert skill is not None, "no skill of the demo draws a draft when flagged"
    statements: list[str] = []
    db.conn.set_trace_callback(statements.append)
    verdict = flows.may(db, "skill", skill, actor="bruno", seen_seq=last_seq(db, "skill", skill))["mismatch"]
    db.conn.set_trace_callback(None)
    assert verdict.allowed
    assert any("INSERT INTO events" in s for s in statements)
    assert not any("manifest_drafts" in s and "INSERT" in s for s in statements)
    db.close()
