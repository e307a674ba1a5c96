"""Reports for people who are not at the console: Markdown or HTML (Jinja2, autoescaped).

A report is made from the same views the console shows, so it can never say
something the store does not. The regressions report remembers what it said
(an event), so the next one can lead with what changed, and stay quiet when
nothing did.
"""

from __future__ import annotations

import json
import re
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatepost.store import cases, glyphs, kernel, skills, views
from gatepost.store import evaluation as evaluator
from gatepost.store.kernel import InputError

if TYPE_CHECKING:
    from jinja2 import Environment, Template
    from sqlite_utils import Database

    from .compare import Steps


FORMATS = ("md", "html")
TEMPLATES = Path(__file__).parent / "templates"
# case.md.py beside case.md: the Python source Jinja2 compiles it to, a `.py` file so that its bytecode is kept as a
# module's is (compiled when the package is installed, kept in __pycache__ by the interpreter): compiling the
# source again costs a report about a millisecond
COMPILED_SUFFIX = ".py"
COMPILED_FORMAT = "gatepost-template/2"  # the stamp on the twin's last line (its code's lines are Jinja2's own)
# what Jinja2's compiled code depends on besides the template's text (the environment's syntax settings)
_COMPILE_SETTINGS = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
                     "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix",
                     "trim_blocks", "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized")
_BACKTICKS = re.compile(r"`+")
# every character that could format, link or embed HTML in inline Markdown, escaped with a backslash (single
# characters: str.translate maps each in C, where a pattern's substitution expands its template per match)
_MD_ESCAPED = str.maketrans({char: "\\" + char for char in "\\`*_{}[]<>#|~"})


def _md(value: object) -> str:
    """Inline Markdown text: every character that could format, link or embed HTML is escaped."""
    text = "" if value is None else str(value)
    return " ".join(text.split()).translate(_MD_ESCAPED)


def _as_text(value: object) -> str:
    """Content as a person reads it: text as it is, structured content as indented JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def _fence(value: object) -> str:
    """A fenced code block longer than any backtick run inside, so data cannot close it."""
    text = _as_text(value)
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def load_engine() -> None:
    """Import Jinja2, which rendering a report needs, at a moment the caller chooses: the CLI loads it as it
    loads a command's modules, with the cyclic collector paused. Rendering imports it anyway."""
    import jinja2  # noqa: F401


def _env() -> Environment:
    # Jinja2 imported here, by the one function that renders: every command that imports the store's views
    # and writes no report (most of them) starts without it (about a tenth of a read-only command's start)
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=FileSystemLoader(TEMPLATES),  # where _template reads a template and its compiled twin
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False, default=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = _md
    env.filters["fence"] = _fence
    env.filters["as_text"] = _as_text
    env.globals.update(SYMBOLS=glyphs.CLAIM, STATE_SYMBOLS=glyphs.REGRESSION)
    return env


def _stamp(env: Environment, name: str, source: str) -> str:
    """What a compiled template was made from: the template's text, its name (autoescape follows it), the
    environment's syntax settings and Jinja2's version (its compiled code calls Jinja2's runtime)."""
    import hashlib  # with Jinja2, which loads it too: a report as JSON starts without it (OpenSSL's load)

    import jinja2

    made_from = [jinja2.__version__, name, bool(env.autoescape(name) if callable(env.autoescape) else env.autoescape),
                 [getattr(env, setting) for setting in _COMPILE_SETTINGS], source]
    return hashlib.sha256(json.dumps(made_from).encode("utf-8")).hexdigest()


def compiled_template(name: str) -> str:
    """The text of template `name`'s compiled twin: the Python source Jinja2 compiles the template to, then a last
    line naming what it was made from (what write_compiled_templates writes). The stamp comes last so that the
    code's lines are where Jinja2's debug information says they are."""
    env = _env()
    source = (TEMPLATES / name).read_text(encoding="utf-8")
    code = env.compile(source, name, str(TEMPLATES / name), raw=True)
    return f"{code}\n{_stamp_line(env, name, source)}\n"


def _stamp_line(env: Environment, name: str, source: str) -> str:
    return f"# {COMPILED_FORMAT} {_stamp(env, name, source)}"


def write_compiled_templates() -> list[Path]:
    """Write (or refresh) the compiled twin of each report template (a part another includes, `_style.html`,
    is compiled by Jinja2 as it is included); those written."""
    written = []
    for path in sorted(TEMPLATES.iterdir()):
        if path.suffix in {".md", ".html"} and not path.name.startswith("_"):
            twin = path.with_name(path.name + COMPILED_SUFFIX)
            twin.write_text(compiled_template(path.name), encoding="utf-8")
            written.append(twin)
    return written


def _template(env: Environment, name: str) -> Template:
    """Template `name`, from its compiled twin when that was made from the template's current text with these
    settings and this Jinja2 (lexing, parsing and generating its code are most of a short report's rendering);
    else compiled from the text, so an edited template is never rendered stale.

    The twins ship in the package beside the templates (package data, made by write_compiled_templates; tests
    keep them current): code gatepost installs, never code found in a directory a user or an agent writes to.
    """
    path = TEMPLATES / name
    source = path.read_text(encoding="utf-8")
    twin = path.with_name(name + COMPILED_SUFFIX)
    if twin.is_file() and twin.read_text(encoding="utf-8").endswith(f"\n{_stamp_line(env, name, source)}\n"):
        # the twin's bytecode as the interpreter keeps a module's: read from __pycache__ while it matches the
        # twin's size and time, else compiled (and kept, where the interpreter writes bytecode)
        code = SourceFileLoader(name, str(twin)).get_code(name)
        if code is not None:
            template = env.template_class.from_code(env, code, env.make_globals(None))
            template.filename = str(path)  # an error names the template, as for one compiled from its text
            return template
    return env.get_template(name)


def _render(name: str, fmt: str, **context: Any) -> str:
    if fmt not in FORMATS:
        raise InputError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    env = _env()
    return _template(env, f"{name}.{fmt}").render(**context)


def case_report(db: Database, case_id: str, fmt: str = "md") -> str:
    """The decision record of one case: candidate, basis, revision, claims with their why, evidence, decisions."""
    view = cases.case_view(db, case_id)
    return _render("case", fmt, case=view)


def suite_report(db: Database, run_id: str, fmt: str = "md", *, steps: Steps | None = None) -> str:
    """One evaluation run: pass rates with intervals, the paired delta with its p-value, verdict, warnings,
    flaky tasks, the suite's pass rate over its runs (an SVG chart in HTML, drawn by the template from numbers,
    no script) and every task, candidate beside baseline. `steps` is called as each of its four steps begins
    (a run of 100,000 tasks takes seconds)."""
    def step(name: str, done: int) -> None:
        if steps is not None:
            steps(name, done, 4)

    step("the run", 0)
    run = evaluator.get_run(db, run_id)
    if run is None:
        raise InputError(f"RUN_ID: no evaluation run {run_id!r} in this store")
    step("its statistics and the suite's trend", 1)
    figures = evaluator.run_statistics(db, run_id)
    flaky = {(f["task_id"], f["side"]) for f in (figures or {}).get("flaky", [])}
    # the comparisons (and the evaluation statistics under them) reached through the face: only a suite's
    # report draws its trend, and the other reports start without them
    trend = views.suite_trend(db, run["suite_id"], skill=run["skill_id"])  # the suite's pass rate over its runs
    step("each task", 2)
    tasks = evaluator.run_tasks(db, run_id)
    step("the report", 3)
    return _render("suite", fmt, run=run, tasks=tasks, figures=figures, flaky=flaky,
                   flaky_words=evaluator.flaky_words, trend=trend, chart=views.trend_svg(trend), spark=views.sparkline(trend),
                   rate_words=evaluator.rate_words)


def _previous_snapshot(db: Database, consumer: str | None = None, since: int | None = None) -> dict[str, Any] | None:
    """What the previous report said: this consumer's own newest report (`--as`), the states as of event
    `since` (`--since SEQ`), or, with neither, the newest report anyone made (the shared mark)."""
    if since is not None:
        row = db.execute("SELECT at FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT 1", [int(since)]).fetchone()
        return {"states": skills.states_at(db, since), "at": row[0] if row else "", "seq": int(since)}
    where, params = "kind = 'report.regressions'", []
    if consumer:
        where += " AND actor = ?"
        params.append(consumer)
    row = db.execute(f"SELECT payload, at, seq FROM events WHERE {where} ORDER BY seq DESC LIMIT 1", params).fetchone()
    return {"states": json.loads(row[0])["states"], "at": row[1], "seq": row[2]} if row else None


def regression_changes(previous: dict[str, Any] | None, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Skills whose state differs from the previous report's (new skills included)."""
    before = previous["states"] if previous else {}
    changes = []
    for row in rows:
        old = before.get(row["skill"])
        if old != row["state"]:
            changes.append({"skill": row["skill"], "before": old, "after": row["state"], "severity": row["severity"]})
    for skill in sorted(set(before) - {r["skill"] for r in rows}):
        changes.append({"skill": skill, "before": before[skill], "after": None, "severity": None})
    return changes


REGRESSIONS_SCHEMA = "gatepost.regressions/1"


def regressions_data(db: Database, *, consumer: str | None = None, since: int | None = None) -> dict[str, Any]:
    """The regressions report's facts: skills by state with failing assertions and triage (who, note), and
    what changed since this consumer's previous report (or since event `since`)."""
    rows = skills.show_states(db)
    messages = skills.failing_messages(db)
    for row in rows:
        if row["failing"]:
            row["failing"] = messages.get(row["skill"]) or row["failing"]
        row["triage"] = skills.triage(db, row["skill"])
    previous = _previous_snapshot(db, consumer, since)
    return {"schema": REGRESSIONS_SCHEMA, "consumer": consumer, "previous": previous,
            "changes": regression_changes(previous, rows), "skills": rows}


def regressions_report(db: Database, fmt: str = "md", *, remember: bool = True, consumer: str | None = None,
                       since: int | None = None) -> str:
    """Skills by state with their failing assertions, led by what changed since the previous report.

    Each consumer (`--as ci-nightly`, `--as ana`) keeps its own "since last report" mark: the report is
    an event by that consumer, so CI's daily run never uses up the maintainer's change. `fmt` json gives
    the facts as a JSON document (schema gatepost.regressions/1).
    """
    data = regressions_data(db, consumer=consumer, since=since)
    rows, previous, changes = data["skills"], data["previous"], data["changes"]
    if fmt == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    else:
        text = _render("regressions", fmt, rows=rows, changes=changes, previous=previous)
    if remember:  # the consumer's "since last report" mark: an act of its own (a named, printable consumer)
        with kernel.guarded(db, "report regressions", actor=consumer, known=False) as act:
            act.event("report.regressions", subject_type="report", subject_id="regressions",
                      payload={"states": {r["skill"]: r["state"] for r in rows}, "format": fmt})
    return text
