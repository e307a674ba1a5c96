"""Rubrics: the questions a protocol asks every person who decides one of its cases.

A rubric is a short YAML list, held in the protocol (`rubric:` inline) or in a file the protocol names
(`rubric: rubrics/case-decision.yaml`, relative to the protocol file). Each question is answered yes/no, or
on a scale 1..N:

```yaml
- {key: reproduced, question: "Did you reproduce the improvement yourself?"}
- {key: clarity, question: "How clear is the changed text?", scale: 5}
```

Answers are required before deciding (rule `rubric`, a refusal), checked for their form (yes/no, or a whole
number 1..N: bad input), and stored with the decision. Pure: no SQL; the decision act checks and writes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gatepost.store import kernel
from gatepost.store.kernel import InputError

from .twins import is_own, own_yaml_data

RUBRIC = "rubric"  # the rule a decision without its answers is refused by
YES, NO = "yes", "no"
MAX_QUESTIONS = 20
MAX_SCALE = 10
KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
QUESTION_KEYS = {"key", "question", "scale"}


def _is_key(value: Any) -> bool:
    """A short lower-case name: a letter, then letters, digits or `_`; at most 40 characters."""
    return isinstance(value, str) and 0 < len(value) <= 40 and value[0].isalpha() and set(value) <= KEY_CHARS


@dataclass(frozen=True)
class Question:
    """One rubric question: answered yes/no (`scale` None) or by a whole number 1..scale."""

    key: str
    question: str
    scale: int | None = None

    @property
    def expects(self) -> str:
        """What an answer may be, as a person reads it: `yes or no`, `1..5`."""
        return f"1..{self.scale}" if self.scale else f"{YES} or {NO}"

    def answer(self, value: Any, *, field: str) -> str | int:
        """`value` as stored (yes/no, or an int of the scale); anything else is bad input naming `field`."""
        text = str(value).strip().lower() if value is not None else ""
        if self.scale is None:
            if text in (YES, NO):
                return text
        elif text.isdigit() and 1 <= int(text) <= self.scale:
            return int(text)
        raise InputError(f"{field}: {self.key} expects {self.expects}, got {value!r}")


@dataclass(frozen=True)
class Rubric:
    """The questions, in the order they are asked; `source` names where they were read (errors name it)."""

    questions: tuple[Question, ...]
    source: str

    def keys(self) -> list[str]:
        return [q.key for q in self.questions]

    def check(self, answers: Mapping[str, Any] | None, *, field: str = "--answer") -> tuple[dict[str, str | int],
                                                                                          list[str]]:
        """The answers as stored, in the rubric's order, and the keys left unanswered. An answer to no question
        of the rubric, or in the wrong form, is bad input naming `field`."""
        given = dict(answers or {})
        unknown = sorted(set(given) - set(self.keys()))
        if unknown:
            raise InputError(f"{field}: {unknown[0]} is no question of the rubric (its questions: "
                             f"{', '.join(self.keys())})")
        out: dict[str, str | int] = {}
        missing: list[str] = []
        for q in self.questions:
            if q.key in given and str(given[q.key]).strip():
                out[q.key] = q.answer(given[q.key], field=field)
            else:
                missing.append(q.key)
        return out, missing


def _fail(source: str, where: str, message: str) -> InputError:
    return InputError(f"{source}: {where}: {message}" if where else f"{source}: {message}")


def parse_rubric(data: Any, source: str, *, where: str = "rubric") -> Rubric:
    """Validate a rubric's data: a non-empty list of questions, each `{key, question, scale?}`."""
    if not isinstance(data, list) or not data:
        raise _fail(source, where, f"expected a non-empty list of questions, got {type(data).__name__}")
    if len(data) > MAX_QUESTIONS:
        raise _fail(source, where, f"expected at most {MAX_QUESTIONS} questions, got {len(data)}")
    questions: list[Question] = []
    for i, item in enumerate(data):
        at = f"{where}[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, at, f"expected a mapping {{key, question, scale?}}, got {type(item).__name__}")
        unknown = sorted(str(k) for k in set(item) - QUESTION_KEYS)
        if unknown:
            raise _fail(source, f"{at}.{unknown[0]}", f"unknown key (expected one of {', '.join(sorted(QUESTION_KEYS))})")
        key = item.get("key")
        if not _is_key(key):
            raise _fail(source, f"{at}.key", f"expected a short lower-case name such as reproduced, got {key!r}")
        if key in {q.key for q in questions}:
            raise _fail(source, f"{at}.key", f"{key} is asked twice")
        text = item.get("question")
        if not isinstance(text, str) or not text.strip() or "\n" in text.strip():
            raise _fail(source, f"{at}.question", f"expected one line of text, got {text!r}")
        scale = item.get("scale")
        if scale is not None and (not isinstance(scale, int) or isinstance(scale, bool)
                                  or not 2 <= scale <= MAX_SCALE):
            raise _fail(source, f"{at}.scale", f"expected a whole number 2..{MAX_SCALE} (answers 1..scale), "
                                               f"got {scale!r}")
        questions.append(Question(str(key), text.strip(), scale))
    return Rubric(tuple(questions), source)


def rubric_from(value: Any, protocol_source: str) -> Rubric | None:
    """A protocol's `rubric:`: an inline list, or a file named relative to the protocol file (None: none)."""
    if value is None:
        return None
    if isinstance(value, str):
        name = value.strip()
        if not name or Path(name).is_absolute() or ".." in Path(name).parts:
            raise _fail(protocol_source, "rubric", f"expected a file beside the protocol such as "
                                                   f"rubrics/review.yaml, got {value!r}")
        path = Path(protocol_source).parent / name
        if not path.is_file():
            raise _fail(protocol_source, "rubric", f"no rubric file {name} beside the protocol")
        data = (own_yaml_data(path, what="rubric file") if is_own(path)  # gatepost's own: from its twin
                else kernel.load_yaml_file(path, what="rubric file"))
        return parse_rubric(data, str(path), where="")
    return parse_rubric(value, protocol_source)


def answers_text(answers: Mapping[str, Any] | None, questions: Iterable[Question] = ()) -> str:
    """`reproduced yes · clarity 4/5`: a decision's answers on one line, in the rubric's order when given."""
    if not answers:
        return ""
    scale = {q.key: q.scale for q in questions}
    order = [k for k in scale if k in answers] + [k for k in answers if k not in scale]
    return " · ".join(f"{k} {answers[k]}" + (f"/{scale[k]}" if scale.get(k) else "") for k in order)


def parse_answer_options(values: Iterable[str], *, field: str = "--answer") -> dict[str, str]:
    """`--answer KEY=VALUE`, repeated, as a mapping; a malformed or repeated one is bad input."""
    out: dict[str, str] = {}
    for raw in values:
        key, sep, value = raw.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"{field}: expected KEY=VALUE, got {raw!r}")
        if key in out:
            raise InputError(f"{field}: {key} is answered twice")
        out[key] = value.strip()
    return out
