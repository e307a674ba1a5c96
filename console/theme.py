"""The console's light theme: dark text on white, every colour a word is written in readable on it.

Textual's own light theme is mid-grey (#E0E0E0) with an orange accent (#ffa62b, 1.6:1 on it), and the terminal
colours Rich's styles name (yellow, cyan, green: a state, a claim, a flag) are drawn from a palette whose yellow
is 2.3:1 on white. Here each colour text is written in, Textual's and the terminal's, stands at least 4.5:1
against the backgrounds it is written on (WCAG AA for body text); `contrast` is the ratio the tests check.
"""

from rich.terminal_theme import TerminalTheme
from textual.theme import Theme

LIGHT = "gatepost-light"
DARK = "textual-dark"

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
