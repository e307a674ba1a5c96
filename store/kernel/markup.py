"""YAML and TOML read as strictly as files.py reads JSON: bounded YAML, no duplicate keys, one-line errors.

They live apart from files.py because their libraries cost a start-up import (PyYAML about 12 ms of CPU,
tomllib 3 ms, against about 40 ms for `python -c "import click"`): a command that reads no YAML or TOML file,
such as `gatepost case list` (the protocol comes from its JSON twin: store/protocol/interpreter.py), never
imports this module.
"""

import tomllib
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError
from .files import (
    MAX_YAML_ALIASES,
    MAX_YAML_DEPTH,
    MAX_YAML_NODES,
    _digits_reason,
    _first_line,
    _shown,
    read_text,
    refuse_surrogates,
)

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # pure Python without libyaml


class _GuardedLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    """The safe loader (libyaml's when present) whose mappings refuse a key given twice."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping whose keys are all different: a repeated key is an error, not a silent overwrite."""
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _value in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` may be overridden on purpose
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # unhashable: the base class reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {_shown(key)} (each key may appear once)", key_node.start_mark)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


def _yaml_budget(text: str) -> None:
    """Walk the document's events (no node is built) and refuse it past the node, depth or alias budget."""
    events: Any = _BaseLoader(text)  # its C parser's methods carry no annotations
    nodes = depth = aliases = 0
    try:
        while True:
            event = events.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (a YAML alias bomb?)")
            elif isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                nodes += 1
                if nodes > MAX_YAML_NODES:
                    raise yaml.YAMLError(f"more than {MAX_YAML_NODES:,} nodes (the limit for a gatepost file)")
                if not isinstance(event, yaml.ScalarEvent):
                    depth += 1
                    if depth > MAX_YAML_DEPTH:
                        raise yaml.YAMLError(f"nested more than {MAX_YAML_DEPTH} levels deep")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    finally:
        events.dispose()


def parse_yaml(text: str, *, source: str) -> Any:
    """One YAML document (safe types only, within the budget); errors become one line with the position."""
    try:
        _yaml_budget(text)
        value = yaml.load(text, Loader=_GuardedLoader)  # noqa: S506 - a SafeLoader (C or Python)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{source}: not valid YAML{where}: {exc.problem or exc.context}") from None
    except RecursionError:
        raise InputError(f"{source}: not valid YAML: nested too deeply") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:  # an alias bomb; a date such as 2026-13-01
        reason = _digits_reason(exc) if isinstance(exc, ValueError) else _first_line(exc)
        raise InputError(f"{source}: not valid YAML: {reason}") from None
    if "\\" in text:  # only an escape in a double-quoted scalar can make a lone surrogate
        refuse_surrogates(value, source=source)
    return value


def parse_toml(text: str, *, source: str) -> dict[str, Any]:
    """One TOML document (tomllib refuses duplicate keys); integers over MAX_INT_DIGITS are refused; one line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML ({_first_line(exc)})") from None
    except RecursionError:
        raise InputError(f"{source}: not valid TOML: nested too deeply") from None
    except ValueError as exc:  # int() past Python's digit limit
        raise InputError(f"{source}: not valid TOML: {_digits_reason(exc)}") from None


def load_yaml_file(path: str | Path, *, what: str = "YAML file") -> Any:
    return parse_yaml(read_text(path, what=what), source=str(path))
