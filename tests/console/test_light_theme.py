"""The light theme (ctrl+t) reads: white, not mid-grey, and every colour a word is written in stands at least
4.5:1 (WCAG AA) against what it is written on — the theme's colours, each widget's text as drawn, and the
terminal colours Rich's styles name (a yellow STABLE_FAIL, a cyan note)."""

from rich.color import Color as RichColor
from textual.color import Color

from gatepost.app import GatepostApp
from gatepost.theme import LIGHT, contrast, luminance
from tests.console_helpers import settle

AA = 4.5


async def test_the_light_theme_is_white_with_readable_colours(demo_here):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.theme == LIGHT and not app.current_theme.dark
        variables = app.get_css_variables()
        background = Color.parse(variables["background"])
        assert luminance(background.rgb) > 0.9  # white, not Textual's mid-grey #E0E0E0
        for name in ("foreground", "accent", "primary", "secondary", "warning", "error", "success",
                     "text-muted", "text-disabled", "footer-key-foreground"):
            colour = Color.parse(variables[name])
            for under in ("background", "surface", "panel"):
                ground = Color.parse(variables[under])
                assert contrast((ground + colour).rgb, ground.rgb) >= AA, (name, under, variables[name])


async def test_the_terminal_colours_read_on_the_light_theme(demo_here):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+t")
        await settle(pilot)
        ansi = app.ansi_theme
        background = Color.parse(app.get_css_variables()["background"]).rgb
        for name in ("red", "green", "yellow", "blue", "magenta", "cyan", "bright_red", "bright_green",
                     "bright_yellow", "bright_blue", "bright_magenta", "bright_cyan"):
            rgb = tuple(RichColor.parse(name).get_truecolor(ansi))
            assert contrast(rgb, background) >= AA, (name, rgb)


async def test_every_widget_on_every_screen_reads_in_the_light_theme(demo_here):
    app = GatepostApp(demo_here, person="ana")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        low = set()
        for key in "1234567":
            await pilot.press(key)
            await settle(pilot)
            for widget in app.screen.walk_children():
                style = widget.rich_style
                if style.color is None or style.bgcolor is None:
                    continue
                fg, bg = tuple(style.color.get_truecolor()), tuple(style.bgcolor.get_truecolor())
                if contrast(fg, bg) < AA:
                    low.add((key, type(widget).__name__, widget.id, fg, bg))
        assert not low


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
