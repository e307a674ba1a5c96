"""A detail's lines read exactly as Rich draws them: the short way for a line that fits (issue 15: half the
time of a new item's lines) gives the same characters, styles and widths as Rich's own wrapping."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from gatepost.widgets.line_detail import _lines_of, _stripped, _wrapped, wrap_lines

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)
STYLES = ["", "bold", "dim italic", "red on blue", "underline cyan"]
CHARS = "ab yz09.,:-_→✔⚠●漢字é "


def _as_rich(text: Text, width: int, style: Style | None) -> list[list[tuple[str, Style | None]]]:
    options = CONSOLE.options.update(width=width, height=None, highlight=False)
    return [_runs(line) for line in CONSOLE.render_lines(text, options, style=style, pad=False)]


def _runs(segments: list[Segment]) -> list[tuple[str, Style | None]]:
    """What a person sees: the characters and their style, however Rich cut them into segments."""
    out: list[tuple[str, Style | None]] = []
    for seg in segments:
        if not seg.text:
            continue
        for ch in seg.text:
            out.append((ch, seg.style or Style.null()))
    return out


@st.composite
def texts(draw: st.DrawFn) -> Text:
    plain = draw(st.text(alphabet=CHARS, max_size=50))
    text = Text(plain, style=draw(st.sampled_from(STYLES)),
                justify=draw(st.sampled_from([None, "default", "left", "right", "center", "full"])))
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, len(plain)))
        end = draw(st.integers(start, len(plain)))
        text.stylize(draw(st.sampled_from(STYLES[1:])), start, end)
    return text


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(texts(), st.integers(1, 60), st.sampled_from([None, Style(bgcolor="grey23"), Style(bold=True)]))
def test_every_line_reads_as_rich_draws_it(text: Text, width: int, under: Style | None) -> None:
    strips = wrap_lines(CONSOLE, text, width, under)
    assert [_runs(list(strip)) for strip in strips] == _as_rich(text, width, under)
    assert all(strip.cell_length <= width for strip in strips)


def test_a_line_wider_than_the_pane_still_wraps_and_a_styled_title_keeps_its_style() -> None:
    long = Text("claim change.within_surface rests on guard_check clean by run-52", style="bold")
    assert [strip.text for strip in wrap_lines(CONSOLE, long, 30)] == [
        "claim change.within_surface ", "rests on guard_check clean by ", "run-52"]
    title = wrap_lines(CONSOLE, Text("Decisions", style="bold"), 40)
    assert len(title) == 1 and all(seg.style and seg.style.bold for seg in title[0] if seg.text)


ONE_CELL = "ab yz09.,:-_→✔⚠●é—·   "  # every character one cell: a line wider than its row is cut without Rich


@st.composite
def wide_lines(draw: st.DrawFn) -> Text:
    plain = draw(st.text(alphabet=ONE_CELL, min_size=1, max_size=120))
    text = Text(plain, style=draw(st.sampled_from(STYLES)))
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, len(plain)))
        end = draw(st.integers(start, len(plain)))
        text.stylize(draw(st.sampled_from(STYLES[1:])), start, end)
    return text


@settings(max_examples=200, deadline=None)
@given(wide_lines(), st.integers(1, 40), st.sampled_from([None, Style(bgcolor="grey23"), Style(bold=True)]))
def test_a_line_wider_than_its_row_is_cut_into_the_rows_rich_wraps_it_into(text: Text, width: int,
                                                                         under: Style | None) -> None:
    """The short way for a line that does not fit (words moved down, a word longer than the row folded, spaces
    past the row's end dropped) takes it and gives what Rich gives: the same characters and styles in each row."""
    if text.cell_len <= width:
        return
    assert _wrapped(CONSOLE, text, width) is not None  # the short way, not Rich's pipeline
    strips = wrap_lines(CONSOLE, text, width, under)
    assert [_runs(list(strip)) for strip in strips] == _as_rich(text, width, under)
    assert [strip.cell_length for strip in strips] == [len(runs) for runs in _as_rich(text, width, under)]


def test_a_wide_character_or_a_tab_is_left_to_rich() -> None:
    assert _wrapped(CONSOLE, Text("漢字 " * 20), 10) is None
    assert _wrapped(CONSOLE, Text("a\tb " * 20), 10) is None
    assert _wrapped(CONSOLE, Text("word " * 20, justify="full"), 10) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab \t", max_size=6), min_size=1, max_size=5), st.sampled_from(STYLES),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), st.sampled_from(STYLES[1:])), max_size=3))
def test_a_blocks_lines_without_its_trailing_whitespace_are_those_of_the_stripped_text(
        parts: list[str], style: str, spans: list[tuple[int, int, str]]) -> None:
    """A text block's lines are taken without the whitespace at its end from its lines, not from a stripped copy
    of the whole block: the same lines, characters, spans and styles."""
    text = Text("\n".join(parts), style=style)
    for start, end, span_style in spans:
        text.stylize(span_style, min(start, end), max(start, end))
    expected = _lines_of(_stripped(text))
    got = _lines_of(text, stripped=True)
    assert [(t.plain, t.spans, t.style) for t in got] == [(t.plain, t.spans, t.style) for t in expected]
    assert text.plain == "\n".join(parts)  # the block itself is left as it was
