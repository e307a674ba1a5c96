"""The overview: what waits for whom, each line opening its list already filtered."""

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from gatepost.links import LINK_KINDS
from gatepost.safe import literal, one_line
from gatepost.screens.base import GatepostScreen
from gatepost.store.discussion import mention_count, mentions_of
from gatepost.store.glyphs import DRAFT, OUTCOME, REGRESSION, WARNING
from gatepost.store.views import counts, team_progress

MENTIONS_SHOWN = 5  # the newest comments that mention the person; `gatepost comment --mentioning` lists all

# (mode, filter key, filter value, label, counts group, counts key, symbol)
LINES = [
    ("Waiting for a decision", [
        ("cases", "status", "needs_decision", "cases a reviewer can decide now", "cases", "needs_decision", "◆"),
        ("cases", "status", "design_review", "cases waiting on a design review", "cases", "design_review", "◇"),
        ("cases", "status", "contradicted", "decisions on cases contradicted by later evidence", "contradicted",
         "cases", WARNING),
        ("proposals", "status", "contradicted", "accepted proposals contradicted by later evidence", "contradicted",
         "proposals", WARNING),
        ("manifests", "status", "contradicted", "approved drafts contradicted by a later run", "contradicted",
         "drafts", WARNING),
        ("cases", "status", "kept_not_landed", "kept changes never recorded applied", "cases", "kept_not_landed",
         "⇣"),
        ("cases", "status", "open", "open cases", "cases", "open", "○"),
        ("proposals", "status", "waiting", "proposals waiting for a person", "proposals", "waiting", "✉"),
        ("manifests", "status", "pending", "manifest drafts waiting for review", "drafts", "pending", DRAFT["pending"]),
    ]),
    ("Regressions", [
        ("regressions", "state", "NEW_FAIL", "NEW_FAIL: passing last run, failing now", "regressions", "NEW_FAIL", REGRESSION["NEW_FAIL"]),
        ("regressions", "state", "CHRONIC", "CHRONIC: failing more than 3 runs in a row", "regressions", "CHRONIC", REGRESSION["CHRONIC"]),
        ("regressions", "state", "STABLE_FAIL", "STABLE_FAIL: manifest may mismatch", "regressions", "STABLE_FAIL", REGRESSION["STABLE_FAIL"]),
        ("regressions", "state", "NEW_PASS", "NEW_PASS: failing last run, passing now", "regressions", "NEW_PASS", REGRESSION["NEW_PASS"]),
        ("regressions", "state", "PASS", "PASS", "regressions", "PASS", REGRESSION["PASS"]),
    ]),
    ("Closed cases", [
        ("cases", "outcome", "kept", "kept", "outcomes", "kept", OUTCOME["kept"]),
        ("cases", "outcome", "rejected", "rejected", "outcomes", "rejected", OUTCOME["rejected"]),
        ("cases", "outcome", "proposed", "proposed to a person", "outcomes", "proposed", OUTCOME["proposed"]),
        ("cases", "outcome", "inconclusive", "inconclusive", "outcomes", "inconclusive", OUTCOME["inconclusive"]),
    ]),
    ("Proposals and evaluations", [
        ("proposals", "status", "needs_changes", "proposals sent back for changes", "proposals", "needs_changes", "↺"),
        ("results", "", "", "evaluation runs", "runs", "evaluation_runs", "▤"),
    ]),
]


class Lines(OptionList, inherit_bindings=False):
    """The overview's lines: the keys move between lines and open one; an OptionList's sideways scrolling keys
    (left, right, ctrl+pageup/pagedown) mean nothing here, and help listed them."""

    BINDINGS = [
        Binding("down", "cursor_down", "Next line", show=False),
        Binding("up", "cursor_up", "Previous line", show=False),
        Binding("home", "first", "First line", show=False),
        Binding("end", "last", "Last line", show=False),
        Binding("pagedown", "page_down", "A screen down", show=False),
        Binding("pageup", "page_up", "A screen up", show=False),
        Binding("enter", "select", "Open the list it counts", show=False),
    ]


class OverviewScreen(GatepostScreen):
    """Counts from the store, grouped by who must act; Enter opens the filtered list."""

    DEFAULT_CSS = """
    OverviewScreen #overview-intro { padding: 1 2 0 2; }
    OverviewScreen OptionList { height: 1fr; margin: 1 2; border: round $primary; }
    """

    def body(self) -> ComposeResult:
        with Vertical():
            yield Static(id="overview-intro")
            yield Lines(id="overview-lines")

    def on_mount(self) -> None:
        self.refresh_data()

    def on_screen_resume(self) -> None:
        self.refresh_if_changed()

    def refresh_data(self) -> None:
        self._read_counts()

    @work(thread=True, exclusive=True, group="counts")
    def _read_counts(self) -> None:
        with self.gp_app.reading() as db:
            data, team = counts(db), team_progress(db)
            who = self.gp_app.person
            mentions = (mention_count(db, who), mentions_of(db, who, limit=MENTIONS_SHOWN))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show, data, team, mentions)

    def _show(self, data: dict[str, Any], team: list[Any],
              mentions: tuple[int, list[dict[str, Any]]] = (0, [])) -> None:
        who = self.gp_app.person
        caps = self.gp_app.capabilities
        intro = Text()
        intro.append("gatepost", style="bold")
        intro.append(f" · store {self.gp_app.db_path}\n")
        intro.append(f"You are {who}: ")
        intro.append(", ".join(caps) if caps else "not a known actor of this store, so you can browse but not decide",
                     style="italic" if not caps else "")
        self.query_one("#overview-intro", Static).update(intro)
        options = self.query_one("#overview-lines", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        total, newest = mentions
        if total:  # first: comments that mention this person (`@name`); they assign nothing, each opens its item
            options.add_option(Option(Text(f"Mentions of you ({total}, newest first)", style="bold underline"),
                                      disabled=True))
            for row in newest:
                line = literal(f"  @ {row['subject_type']}:{one_line(row['subject_id'], 24)}  ", style="bold")
                line.append_text(literal(f"{row['author'] or '?'}: {one_line(row['note'], 60)}"))
                options.add_option(Option(line, id=f"open|{row['event_seq']}|{row['subject_type']}:{row['subject_id']}"))
            options.add_option(Option(Text(""), disabled=True))
        for heading, lines in LINES:
            options.add_option(Option(Text(heading, style="bold underline"), disabled=True))
            for mode, key, value, label, group, count_key, symbol in lines:
                n = data[group].get(count_key, 0)
                line = Text(f"  {symbol} ")
                line.append(f"{n:>6,}", style="bold" if n else "dim")
                line.append(f"  {label}", style="" if n else "dim")
                options.add_option(Option(line, id=f"{mode}|{key}|{value}"))
            options.add_option(Option(Text(""), disabled=True))
        if team:  # per person: assigned, waiting, done today (gatepost assign, gatepost team)
            options.add_option(Option(Text("Team: assigned · waiting · done today", style="bold underline"),
                                      disabled=True))
            for row in team:
                line = Text("  ")
                line.append(f"{row['assigned']:>3} · {row['waiting']:>3} · {row['done_today']:>3}  ",
                            style="bold" if row["waiting"] else "dim")
                line.append_text(literal(row["person"], style="bold cyan" if row["person"] == who else ""))
                options.add_option(Option(line, disabled=True))
        if highlighted is not None and highlighted < options.option_count:
            options.highlighted = highlighted
        elif options.option_count > 1:
            options.highlighted = 1
        self.first_page_drawn()

    @on(OptionList.OptionSelected, "#overview-lines")
    def _open(self, event: OptionList.OptionSelected) -> None:
        mode, key, value = (event.option.id or "||").split("|", 2)
        if mode == "open":  # a mention (`open|seq|KIND:ID`): the item it is about
            kind, _, item = value.partition(":")
            self.gp_app.open_item(LINK_KINDS[kind], item)
            return
        self.gp_app.open_list(mode, **({key: value} if key else {}))
