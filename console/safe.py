"""Text from data is shown literally: no Rich markup, no terminal escapes, no hidden characters, ever.

`inert` is the one function every screen cell, CLI line, report and JSON document goes
through: complete terminal escape sequences (CSI, OSC, DCS, 8-bit CSI) are removed whole,
every other C0/C1 control, DEL and lone ESC becomes a visible `\\x1b`-style escape, bidi
controls and zero-width characters become visible `<U+202E>` marks, and in one-line
fields the newline becomes `\\n`.
"""

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.text import Text


class Later:
    """A regular expression compiled the first time it is used.

    A class of characters beyond Latin-1 compiles to a table of every 16-bit code (about 0.3 ms each): printable
    text needs none of the output layer's patterns (`printable`), so each is compiled when first needed.
    tests/store/kernel/test_linear_patterns.py finds these beside the compiled ones.
    """

    __slots__ = ("source", "_compiled")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source)
        return self._compiled


# Complete CSI / OSC / other ESC sequences, removed whole. An unterminated OSC or DCS is not
# removed (it would hide the rest of the text): its ESC is shown escaped instead.
_ESCAPES = Later(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"  # OSC ... BEL or ST
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)"  # DCS / SOS / PM / APC ... ST
    r"|\x1b[@-OQ-WYZ\\]"  # other two-byte escapes (not the openers of CSI, OSC, DCS, SOS, PM, APC)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI (other C1 controls are shown escaped one by one)
)
# Bidi controls and zero-width characters: they reorder or hide text, so they are shown as marks.
BIDI_AND_INVISIBLE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c" \
                     "\u200b\u200c\u200d\u2060\ufeff\u2028\u2029"
# Every character made visible: C0 controls (newline and tab handled apart), DEL, C1, bidi, zero-width.
# Lone surrogates (from a JSON "\\ud800") cannot even be encoded: shown as marks too.
_UNSAFE = Later("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff" + BIDI_AND_INVISIBLE + "]")
_UNSAFE_ONE_LINE = Later("[\x00-\x1f\x7f-\x9f\ud800-\udfff" + BIDI_AND_INVISIBLE + "]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"<U+{code:04X}>"


def printable(text: str, *, keep: str = "") -> bool:
    """Whether `text` holds only characters `str.isprintable` accepts, besides those in `keep`: then no pattern of
    the output layer matches it. Every character they change (C0 and C1 controls, DEL, ESC and 8-bit CSI, lone
    surrogates, the bidi and zero-width marks, the line and paragraph separators) is one `isprintable` refuses
    (tests/console/commands/test_cli_output.py checks each), so most text is shown without compiling or running
    them."""
    for char in keep:
        text = text.replace(char, " ")
    return text.isprintable()


def inert(value: object, *, one_line: bool = False) -> str:
    """The text of `value` safe to show anywhere: nothing in it can drive a terminal or hide text.

    one_line: newline, carriage return and tab are escaped too, so a field cannot forge a line.
    """
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if printable(text, keep="" if one_line else "\n\t"):
        return text  # nothing the patterns below would change
    text = _ESCAPES.compiled().sub("", text)
    if one_line:
        return _UNSAFE_ONE_LINE.compiled().sub(_shown, text)
    text = text.replace("\r\n", "\n")
    return _UNSAFE.compiled().sub(_shown, text)


def clean(value: object) -> str:
    """The printable text of a value (multi-line): `inert`, the same function the CLI prints through."""
    return inert(value)


def inert_json(document: str) -> str:
    """A stored JSON document as it is shown: every string in it made inert, then encoded again.

    JSON writes a control character as `\\u001b`, which `inert` cannot tell from text: an escape sequence
    in a payload would stay on screen as its printable remains ("\\u001b[31m"). Decoded first, it is
    removed as it is everywhere else. A document that is not JSON is shown as text."""
    try:
        value = json.loads(document)
    except ValueError:
        return clean(document)

    def made_inert(item: Any) -> Any:
        if isinstance(item, str):
            return inert(item)
        if isinstance(item, list):
            return [made_inert(v) for v in item]
        if isinstance(item, dict):
            return {inert(k): made_inert(v) for k, v in item.items()}
        return item

    return json.dumps(made_inert(value), ensure_ascii=False, sort_keys=True)


def literal(value: object, style: str = "") -> "Text":
    """A Rich Text that shows `value` exactly as data: markup like [bold] stays visible text."""
    # Imported here, not at the top: the CLI prints through this module and never needs Rich.
    from rich.text import Text

    return Text(clean(value), style=style)


def literal_line(value: object, style: str) -> "Text":
    """`literal(value, style)` for a widget's whole content (a Static's line): the style as a span over the
    text, not the Text's own style, which Textual draws by CSS colour names (cyan #00ffff, red #ff0000: 1.2:1 and
    4:1 on the light theme's white) where a span takes the theme's terminal colours."""
    from rich.text import Text

    return Text.assemble(literal(value, style=style))


def one_line(value: object, width: int = 80) -> str:
    """A cleaned single line, shortened with an ellipsis, for list cells."""
    text = " ".join(clean(value).split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
