"""Text from data is shown literally: no Rich markup, no terminal escapes, ever."""

import re

from rich.text import Text

# CSI / OSC / other ESC sequences, then any remaining C0/C1 control except newline and tab.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC
    r"|\x1b[@-Z\\-_]?"  # other two-byte escapes, or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(value: object) -> str:
    """The printable text of a value: escape sequences and control characters removed."""
    if value is None:
        return ""
    text = str(value)
    text = _ESCAPES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub(lambda m: "\N{REPLACEMENT CHARACTER}" if m.group() != "\x1b" else "", text)


def literal(value: object, style: str = "") -> Text:
    """A Rich Text that shows `value` exactly as data: markup like [bold] stays visible text."""
    return Text(clean(value), style=style)


def one_line(value: object, width: int = 80) -> str:
    """A cleaned single line, shortened with an ellipsis, for list cells."""
    text = " ".join(clean(value).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
