"""Both themes read: the dark one (the default) and the light one (ctrl+t, white, not mid-grey). Every colour a
word is written in stands at least 4.5:1 (WCAG AA) against what it is written on: the colours each theme defines
(checked from the definitions themselves, so a low-contrast colour added to gatepost.theme fails here), the
terminal colours Rich's styles name (a red FAIL, a cyan note), dim text, and every character each screen draws."""

import pytest
from rich.color import Color as RichColor
from textual.color import Color
from textual.screen import ModalScreen

from gatepost.app import GatepostApp
from gatepost.theme import DARK, LIGHT, THEMES, contrast, luminance, readable_dim
from tests.console_helpers import settle

AA = 4.5
GROUNDS = ("background", "surface", "panel", "footer-background")
# what text is written in (primary and secondary are borders and grounds; text takes text-primary/-secondary)
TEXT = ("foreground", "text-muted", "text-disabled", "accent", "warning", "error", "success", "text-primary",
        "text-secondary", "text-accent", "text-warning", "text-error", "text-success", "footer-key-foreground",
        "footer-description-foreground")
ANSI = ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_black", "bright_red", "bright_green",
        "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan")


def _pairs(name: str) -> list[tuple[str, str, float]]:
    """(text, ground, ratio) for every text colour of a theme's definition on every ground it defines."""
    theme, ansi = THEMES[name]
    variables = theme.to_color_system().generate()
    grounds = {g: Color.parse(variables[g]) for g in GROUNDS}
    pairs = []
    for ground_name, ground in grounds.items():
        for text in TEXT:
            colour = ground + Color.parse(variables[text])
            pairs.append((text, ground_name, contrast(colour.rgb, ground.rgb)))
            pairs.append((f"dim {text}", ground_name, contrast(readable_dim(colour.rgb, ground.rgb), ground.rgb)))
        for word in ANSI:
            rgb = tuple(RichColor.parse(word).get_truecolor(ansi))
            pairs.append((word, ground_name, contrast(rgb, ground.rgb)))
            pairs.append((f"dim {word}", ground_name, contrast(readable_dim(rgb, ground.rgb), ground.rgb)))
    cursor = Color.parse(variables["block-cursor-background"])
    on_cursor = cursor + Color.parse(variables["block-cursor-foreground"])
    pairs.append(("block-cursor-foreground", "block-cursor-background", contrast(on_cursor.rgb, cursor.rgb)))
    primary = Color.parse(variables["primary"])
    on_primary = primary + Color.parse(variables["button-color-foreground"])  # a dialog's confirm button
    pairs.append(("button-color-foreground", "primary", contrast(on_primary.rgb, primary.rgb)))
    return pairs


@pytest.mark.parametrize("name", [DARK, LIGHT])
def test_every_text_colour_a_theme_defines_reads_on_every_ground_it_defines(name):
    low = [(text, ground, round(ratio, 2)) for text, ground, ratio in _pairs(name) if ratio < AA]
    assert low == []


def test_dim_text_is_blended_toward_its_ground_but_never_under_4_5_to_1():
    white, grey = (255, 255, 255), (26, 26, 26)
    assert readable_dim(grey, white) != grey  # still dimmed where it can be
    orange = (138, 59, 0)  # the light accent: Textual's dim (two thirds) takes it to 3.5:1
    assert contrast(readable_dim(orange, white), white) >= AA


async def test_the_console_opens_dark_and_ctrl_t_makes_it_white(demo_here):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.theme == DARK and app.current_theme.dark
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.theme == LIGHT and not app.current_theme.dark
        background = Color.parse(app.get_css_variables()["background"])
        assert luminance(background.rgb) > 0.9  # white, not Textual's mid-grey #E0E0E0


def _low_contrast_text(app: GatepostApp, key: str) -> set[tuple]:
    """Every run of characters the screen draws (box and block drawing aside: borders, scrollbars) whose colour
    is under 4.5:1 on its background; behind a dialog, the screen it covers is faded on purpose and left out."""
    screen = app.screen
    low = set()
    for y, strip in enumerate(screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            width = segment.cell_length
            drawn = "".join(c for c in text if not c.isspace() and not 0x2500 <= ord(c) <= 0x259F)
            if drawn and style is not None and style.color is not None and style.bgcolor is not None:
                behind = isinstance(screen, ModalScreen) and screen.get_widget_at(x, y)[0] is screen
                fg = tuple(style.color.get_truecolor(app.ansi_theme))
                bg = tuple(style.bgcolor.get_truecolor(app.ansi_theme))
                if not behind and contrast(fg, bg) < AA:
                    low.add((app.theme, key, text.strip()[:24], fg, bg, round(contrast(fg, bg), 2)))
            x += width
    return low


@pytest.mark.slow
async def test_every_character_every_screen_draws_reads_in_both_themes(demo_here):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        low = set()
        for theme in (DARK, LIGHT):
            if app.theme != theme:
                await pilot.press("ctrl+t")
            for key in "1234567":
                await pilot.press(key)
                await settle(pilot)
                low |= _low_contrast_text(app, key)
            await pilot.press("question_mark")  # the help, over Audit
            await settle(pilot)
            low |= _low_contrast_text(app, "?")
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            await pilot.press("i")  # a note dialog, its confirm button
            await settle(pilot)
            low |= _low_contrast_text(app, "2 i")
            await pilot.press("escape")
            await settle(pilot)
        assert low == set()


async def test_a_detail_drawn_before_the_switch_takes_the_light_theme_s_colours(demo_here):
    """The detail's titles ("What each claim rests on") are drawn from a component style the stylesheet updates
    after the widget's own: they kept the dark theme's orange (#ffa62b, 1.9:1 on white)."""
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(140, 42)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        dark_accent = app.get_css_variables()["accent"].lower()
        await pilot.press("ctrl+t")
        await settle(pilot)
        drawn = app.export_screenshot().lower()
        assert "what each claim rests on" in drawn.replace("&#160;", " ")
        assert dark_accent not in drawn and dark_accent.replace("#ff", "#fe") not in drawn


# the rubric asked before a decision's note (the demo's open eval.gated_change/2 case, fourth from the end of the
# open cases) and the pairwise view of the newest run's first task: as tests/console/test_layout_snapshots.py opens them
@pytest.mark.slow
@pytest.mark.parametrize("view,keys", [("rubric", ("2", "end", "up", "up", "up", "i")), ("pairwise", ("3", "t", "P"))])
async def test_every_character_of_the_rubric_and_the_pairwise_view_reads_in_both_themes(demo_here, view, keys):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        low = set()
        for theme in (DARK, LIGHT):
            if app.theme != theme:
                await pilot.press("ctrl+t")
                await settle(pilot)
            for key in keys:
                await pilot.press(key)
                await settle(pilot)
            assert type(app.screen).__name__ == {"rubric": "RubricDialog", "pairwise": "PairwiseView"}[view], app.screen
            low |= _low_contrast_text(app, view)
            await pilot.press("escape")
            await settle(pilot)
        assert low == set()
