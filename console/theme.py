"""The console's two themes, dark (the default) and light (ctrl+t), every colour a word is written in readable.

Textual's own light theme is mid-grey (#E0E0E0) with an orange accent (#ffa62b, 1.6:1 on it); its dark theme
writes muted text at 3.4:1, the highlighted row at 3.8:1 and the terminal's red (a FAIL, a high severity) at
3.6:1; and the terminal colours Rich's styles name (yellow, cyan, green: a state, a claim, a flag) are drawn
from palettes whose yellow is 2.3:1 on white. Here each colour text is written in, Textual's and the
terminal's, stands at least 4.5:1 against the backgrounds it is written on (WCAG AA for body text); `contrast`
is the ratio the tests check, `THEMES` the pairs of each theme they check it on.

Text styled "dim" is drawn by Textual as its colour blended two thirds of the way from the background, which
takes a red or an accent under 4.5:1; `ReadableTruecolor` blends it only as far as it stays at 4.5:1.
"""

from functools import lru_cache

from rich.color import Color as RichColor
from rich.style import Style
from rich.terminal_theme import TerminalTheme
from textual.constants import DIM_FACTOR
from textual.filter import ANSIToTruecolor
from textual.theme import Theme

LIGHT = "gatepost-light"
DARK = "gatepost-dark"
AA = 4.5  # WCAG AA: body text against what it is written on

# Textual's dark theme (textual-dark) with the colours text is written in raised to 4.5:1 on the panel
# (#242F38, the darkest-but-bluest ground: key bar, title bars) and the highlighted row a deeper blue under
# white text
DARK_THEME = Theme(
    name=DARK,
    primary="#0178D4",
    secondary="#2070B0",  # Textual's #004578 is 1.4:1 on the panel, and the text it derives from it 3.4:1
    accent="#FFA62B",
    warning="#FFA62B",
    error="#F47388",
    success="#4EBF71",
    foreground="#E0E0E0",
    dark=True,
    variables={
        "text-muted": "#A8A8A8",  # Textual's: the text 60% over the background (3.4:1 on the panel)
        "text-disabled": "#9C9C9C",  # a Select's prompt ("any outcome"): read, though greyed
        "footer-key-foreground": "#FFA62B",
        "footer-description-foreground": "#E0E0E0",
        "block-cursor-foreground": "#FFFFFF",
        "block-cursor-background": "#0A5FAD",  # primary (#0178D4) under the text is 3.8:1
        "button-color-foreground": "#FFFFFF",  # a dialog's confirm button on the primary: the text at 87% is 3.8:1
        "block-cursor-blurred-background": "#0A5FAD 60%",
    },
)

LIGHT_THEME = Theme(
    name=LIGHT,
    primary="#0B4A8B",
    secondary="#0A5C7A",
    accent="#8A3B00",
    warning="#7A4D00",
    error="#A3122A",
    success="#1B6B2E",
    foreground="#1A1A1A",
    background="#FFFFFF",
    surface="#F6F6F6",
    panel="#ECEEF2",
    boost="#E6E8EC",
    dark=False,
    variables={
        "text-muted": "#4D4D4D",  # Textual's default: the text 60% over the background (3.3:1 on the surface)
        "text-disabled": "#5C5C5C",  # a Select's prompt ("any outcome"): read, though greyed
        "footer-key-foreground": "#0B4A8B",
        "footer-description-foreground": "#1A1A1A",
        "input-selection-background": "#0B4A8B 25%",
        "block-cursor-foreground": "#FFFFFF",
        "button-color-foreground": "#FFFFFF",  # a dialog's confirm button on the primary
        "block-cursor-background": "#0B4A8B",
        "block-cursor-blurred-background": "#0B4A8B 40%",
    },
)

# the terminal's eight colours (and their bright twins) as Rich styles name them, on white: black, red, green,
# yellow, blue, magenta, cyan, white (the last a mid grey, never a colour text is written in on white)
LIGHT_ANSI = TerminalTheme(
    (255, 255, 255),
    (26, 26, 26),
    [(26, 26, 26), (163, 18, 42), (27, 107, 46), (122, 77, 0), (11, 74, 139), (122, 31, 143), (0, 95, 115),
     (96, 96, 96)],
    [(70, 70, 70), (176, 30, 50), (30, 115, 50), (130, 82, 0), (20, 80, 150), (130, 40, 150), (0, 100, 120),
     (90, 90, 90)],
)


# the terminal's colours on the dark grounds: Textual's (Monokai) with its red and magenta (#F4005F, 3.3:1 on the
# panel), blue and bright black raised
DARK_ANSI = TerminalTheme(
    (18, 18, 18),
    (224, 224, 224),
    [(26, 26, 26), (255, 107, 138), (152, 224, 36), (253, 151, 31), (169, 139, 255), (255, 107, 160),
     (88, 209, 235), (196, 197, 181)],
    [(154, 154, 144), (255, 125, 150), (152, 224, 36), (224, 213, 97), (180, 155, 255), (255, 125, 175),
     (88, 209, 235), (246, 246, 239)],
)

# each theme with its terminal colours and the grounds text is written on (background, surface, panel)
THEMES: dict[str, tuple[Theme, TerminalTheme]] = {DARK: (DARK_THEME, DARK_ANSI), LIGHT: (LIGHT_THEME, LIGHT_ANSI)}


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio of two colours, 1 to 21."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@lru_cache(4096)
def readable_dim(color: tuple[int, int, int], ground: tuple[int, int, int]) -> tuple[int, int, int]:
    """`color` blended toward `ground` as Textual dims it (DIM_FACTOR of the way back from the ground), but no
    further than 4.5:1; a colour already under 4.5:1 at full strength stays as it is. Kept by its two colours: the
    line filter's own cache is keyed by whole styles, and a table cell's style names its row and column, so each
    dim cell of a first page worked out the blend again (a tenth of drawing a table)."""
    def blend(factor: float) -> tuple[int, int, int]:
        return (round(ground[0] + (color[0] - ground[0]) * factor), round(ground[1] + (color[1] - ground[1]) * factor),
                round(ground[2] + (color[2] - ground[2]) * factor))
    factor = DIM_FACTOR
    while factor < 1 and contrast(blend(factor), ground) < AA:
        factor = min(1.0, factor + 0.02)
    return blend(factor)


class ReadableTruecolor(ANSIToTruecolor):
    """Textual's ANSI-to-truecolor line filter, with dim text blended only as far as it stays readable."""

    @lru_cache(1024)  # noqa: B019 - one filter per theme, kept for the app's life (GatepostApp.get_line_filters)
    def truecolor_style(self, style: Style, background: RichColor) -> Style:
        if not style.dim or style.color is None:
            return super().truecolor_style(style, background)
        drawn = super().truecolor_style(style + Style(dim=False), background)
        ground = drawn.bgcolor if drawn.bgcolor is not None else background
        if drawn.color is None or drawn.color.triplet is None or ground.triplet is None:
            return drawn
        (r, g, b), (gr, gg, gb) = drawn.color.triplet, ground.triplet
        return drawn + Style(color=RichColor.from_rgb(*readable_dim((r, g, b), (gr, gg, gb))))
