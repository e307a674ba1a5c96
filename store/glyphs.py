"""The marks gatepost prints for a state: one table for the CLI, the console and the reports.

A person learns ✔ and ✘ once; the same state must be drawn with the same mark wherever it is shown (a
claim in `gatepost case show`, on the Cases screen and in a Markdown report). This module imports
nothing, so every floor of the store (cases' claim strip, the reports) and the console's light modules
can read it without a cycle and without opening a store. Colours are the console's business, not here.
"""

PASS = "✔"  # a claim TRUE, a check passed, a draft approved, a case kept
FAIL = "✘"  # a claim FALSE, a check failed, a draft rejected, a case rejected, a queue stopped
UNKNOWN = "?"  # a claim UNKNOWN, a case inconclusive
UNCHECKED = "·"  # nothing to say: a value the table has no mark for, an assertion not checked

# on a list's rows, before the first cell
CHANGED = "●"  # changed since this person last opened it
ASSIGNED = "→"  # assigned to this person
WARNING = "⚠"  # a decision later evidence contradicts; elsewhere any warning
HELD = "⚑"  # someone else holds the item's lease

CLAIM: dict[str, str] = {"TRUE": PASS, "FALSE": FAIL, "UNKNOWN": UNKNOWN}
REGRESSION: dict[str, str] = {"NEW_FAIL": FAIL, "CHRONIC": "‼", "STABLE_FAIL": "≈", "NEW_PASS": "↑", "PASS": PASS}
DRAFT: dict[str, str] = {"pending": "✎", "approved": PASS, "rejected": FAIL, "superseded": "↷"}
OUTCOME: dict[str, str] = {"kept": PASS, "rejected": FAIL, "proposed": "→", "inconclusive": UNKNOWN}
ACKNOWLEDGED = "✓"  # a regression's failure a person acknowledged (lighter than PASS: it still fails)
