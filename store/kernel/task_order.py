"""A run's tasks in review order, kept as a projection of task_results so a page is an index range scan.

Opening a run used to aggregate and sort every task result of it in Python (seconds and hundreds of MB
at 100,000 tasks). Here each task of a run gets one row in `run_task_order`, written when the run's
results are stored: its attempts collapsed per side (passed, judged, best score, attempts, flaky), its
flags against the previous run of the same suite and skill, and `pos`, its place in the order a
reviewer reads (changed since the previous run, then candidate ≠ baseline, then the rest, each in
import order). `run_task_counts` keeps the counts per split. "Previous run" can change when an older
run is stored later, so storing a run also rebuilds the run that follows it.
"""

from sqlite_utils import Database

ORDER_TABLE = "run_task_order"
COUNTS_TABLE = "run_task_counts"

_DDL = [
    f"""CREATE TABLE IF NOT EXISTS {ORDER_TABLE} (
        run_id TEXT NOT NULL REFERENCES evaluation_runs(id),
        pos INTEGER NOT NULL,          -- 0-based place in review order within the run
        task_id TEXT NOT NULL,
        ord INTEGER NOT NULL,          -- import order: the task's first task_results.id
        split TEXT,
        c_attempts INTEGER NOT NULL,   -- 0: the candidate did not run this task
        c_passed INTEGER,              -- pass@k (any attempt passed); NULL when not run
        c_judged INTEGER,
        c_score REAL,
        c_mock INTEGER,
        b_attempts INTEGER NOT NULL,
        b_passed INTEGER,
        b_judged INTEGER,
        b_score REAL,
        b_mock INTEGER,
        prev_passed INTEGER,           -- the candidate in the previous run; NULL: not in it / no previous run
        changed INTEGER NOT NULL,      -- the candidate's pass/fail changed since the previous run
        differs INTEGER NOT NULL,      -- candidate and baseline differ in pass/fail
        failing INTEGER NOT NULL,      -- the candidate did not pass
        flaky INTEGER NOT NULL,        -- a side both passed and failed this task's attempts
        PRIMARY KEY (run_id, pos)
    ) WITHOUT ROWID""",
    f"CREATE UNIQUE INDEX IF NOT EXISTS idx_{ORDER_TABLE}_task ON {ORDER_TABLE} (run_id, task_id)",
    f"CREATE INDEX IF NOT EXISTS idx_{ORDER_TABLE}_split ON {ORDER_TABLE} (run_id, split, pos)",
    f"CREATE INDEX IF NOT EXISTS idx_{ORDER_TABLE}_failing ON {ORDER_TABLE} (run_id, pos) WHERE failing = 1",
    f"CREATE INDEX IF NOT EXISTS idx_{ORDER_TABLE}_differs ON {ORDER_TABLE} (run_id, pos) WHERE differs = 1",
    f"CREATE INDEX IF NOT EXISTS idx_{ORDER_TABLE}_flaky ON {ORDER_TABLE} (run_id, pos) WHERE flaky = 1",
    f"""CREATE TABLE IF NOT EXISTS {COUNTS_TABLE} (
        run_id TEXT NOT NULL REFERENCES evaluation_runs(id),
        split TEXT NOT NULL,           -- '' for tasks without a split
        previous_run TEXT,
        tasks INTEGER NOT NULL,
        failing INTEGER NOT NULL,
        changed INTEGER NOT NULL,
        changed_now_pass INTEGER NOT NULL,
        differs INTEGER NOT NULL,
        flaky INTEGER NOT NULL,
        PRIMARY KEY (run_id, split)
    ) WITHOUT ROWID""",
]

# One run's rows, from its task_results (:run) and the previous run's candidate passes (:prev).
_FILL = f"""
WITH g AS (
    SELECT task_id, MIN(id) AS ord, MAX(id) AS last_id,
        SUM(side = 'candidate') AS c_attempts,
        MAX(CASE WHEN side = 'candidate' THEN COALESCE(passed, 0) END) AS c_passed,
        MIN(CASE WHEN side = 'candidate' THEN COALESCE(passed, 0) END) AS c_min,
        MAX(CASE WHEN side = 'candidate' THEN judged END) AS c_judged,
        MAX(CASE WHEN side = 'candidate' THEN score END) AS c_score,
        MAX(CASE WHEN side = 'candidate' THEN mock END) AS c_mock,
        SUM(side = 'baseline') AS b_attempts,
        MAX(CASE WHEN side = 'baseline' THEN COALESCE(passed, 0) END) AS b_passed,
        MIN(CASE WHEN side = 'baseline' THEN COALESCE(passed, 0) END) AS b_min,
        MAX(CASE WHEN side = 'baseline' THEN judged END) AS b_judged,
        MAX(CASE WHEN side = 'baseline' THEN score END) AS b_score,
        MAX(CASE WHEN side = 'baseline' THEN mock END) AS b_mock
    FROM task_results WHERE run_id = :run GROUP BY task_id
), p AS (
    SELECT task_id, MAX(COALESCE(passed, 0)) AS passed
    FROM task_results WHERE run_id = :prev AND side = 'candidate' GROUP BY task_id
), f AS (
    SELECT g.*, p.passed AS prev_passed,
        (p.passed IS NOT NULL AND g.c_attempts > 0 AND (p.passed > 0) != (g.c_passed > 0)) AS changed,
        ((CASE WHEN g.c_attempts > 0 THEN g.c_passed > 0 END) IS NOT
         (CASE WHEN g.b_attempts > 0 THEN g.b_passed > 0 END)) AS differs
    FROM g LEFT JOIN p ON p.task_id = g.task_id
)
INSERT INTO {ORDER_TABLE} (run_id, pos, task_id, ord, split, c_attempts, c_passed, c_judged, c_score, c_mock,
    b_attempts, b_passed, b_judged, b_score, b_mock, prev_passed, changed, differs, failing, flaky)
SELECT :run, ROW_NUMBER() OVER (ORDER BY CASE WHEN changed THEN 0 WHEN differs THEN 1 ELSE 2 END, ord) - 1,
    task_id, ord, (SELECT split FROM task_results WHERE id = last_id),
    c_attempts, c_passed, c_judged, c_score, c_mock, b_attempts, b_passed, b_judged, b_score, b_mock,
    prev_passed, changed, differs, COALESCE(c_passed, 0) = 0,
    (c_attempts > 0 AND c_min = 0 AND c_passed = 1) OR (b_attempts > 0 AND b_min = 0 AND b_passed = 1)
FROM f ORDER BY 2
"""

_COUNT = f"""
INSERT INTO {COUNTS_TABLE} (run_id, split, previous_run, tasks, failing, changed, changed_now_pass, differs, flaky)
SELECT :run, COALESCE(split, ''), :prev, COUNT(*), SUM(failing), SUM(changed), SUM(changed AND c_passed = 1),
    SUM(differs), SUM(flaky)
FROM {ORDER_TABLE} WHERE run_id = :run GROUP BY COALESCE(split, '')
"""

# The run of the same suite and skill just before / just after a run, by (start time, id): the
# same comparison as evaluation.previous_run.
_NEIGHBOUR = """
SELECT id FROM evaluation_runs WHERE suite_id IS ? AND skill_id IS ? AND id != ?
  AND (COALESCE(started_at, '') {op} ? OR (COALESCE(started_at, '') = ? AND id {op} ?))
ORDER BY COALESCE(started_at, '') {direction}, id {direction} LIMIT 1
"""


def create_task_order_tables(db: Database) -> None:
    """The projection's tables and indexes (the migration calls this)."""
    for statement in _DDL:
        db.execute(statement)


def _neighbour(db: Database, run_id: str, *, after: bool) -> str | None:
    row = db.execute("SELECT suite_id, skill_id, COALESCE(started_at, '') FROM evaluation_runs WHERE id = ?",
                     [run_id]).fetchone()
    if not row:
        return None
    suite_id, skill_id, started = row
    sql = _NEIGHBOUR.format(op=">" if after else "<", direction="ASC" if after else "DESC")
    found = db.execute(sql, [suite_id, skill_id, run_id, started, started, run_id]).fetchone()
    return found[0] if found else None


def _rebuild(db: Database, run_id: str) -> None:
    previous = _neighbour(db, run_id, after=False)
    db.execute(f"DELETE FROM {ORDER_TABLE} WHERE run_id = ?", [run_id])
    db.execute(f"DELETE FROM {COUNTS_TABLE} WHERE run_id = ?", [run_id])
    params = {"run": run_id, "prev": previous}
    db.execute(_FILL, params)
    db.execute(_COUNT, params)


def refresh_task_order(db: Database, run_id: str) -> None:
    """Write a stored run's review order and counts, and rebuild the next run of its suite and skill.

    Call it inside the transaction that stores the run's task results. When the run is older than
    one already stored, that newer run's previous run is now this one: its Δ flags and order change.
    """
    _rebuild(db, run_id)
    following = _neighbour(db, run_id, after=True)
    if following is not None:
        _rebuild(db, following)


def backfill_task_order(db: Database) -> None:
    """Build the projection for every stored run (a store from before it existed)."""
    for (run_id,) in db.execute("SELECT id FROM evaluation_runs ORDER BY rowid").fetchall():
        _rebuild(db, run_id)
