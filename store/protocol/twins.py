"""JSON twins of gatepost's own YAML files: its protocols and their rubric files, read without a YAML parser.

Each YAML file under `protocols/` ships with a twin beside it (`1.json` beside `1.yaml`): the same data, with
the YAML text it was made from. Reading it costs a read-only command no YAML parser (PyYAML's
import alone is about a third of `import click`: benchmarks/cli_startup.py); a twin that does not name the
YAML's current text is ignored and the YAML read, so an edited protocol is never read stale (compared as
text: nothing is hashed, and a command that reads a protocol does not load hashlib). Only gatepost's
own files are read this way: a twin sits beside its YAML with the same permissions, so it adds no new trust,
while a twin beside someone else's file could hold other data than the YAML it names.
tests/store/protocol/test_protocol_twin.py keeps each twin current.
"""

import json
from pathlib import Path
from typing import Any

from gatepost.store import kernel
from gatepost.store.kernel import read_text

PROTOCOLS_DIR = Path(__file__).parent / "protocols"
TWIN_FORMAT = "protocol-twin/2"


def own_yaml_data(path: Path, *, what: str) -> Any:
    """The data of one of gatepost's own YAML files: from its twin when current, else parsed from the YAML."""
    text = read_text(path, what=what)
    twin_path = path.with_suffix(".json")
    if twin_path.exists():
        twin = kernel.parse_json(read_text(twin_path, what=f"{what} twin"), source=str(twin_path))
        if isinstance(twin, dict) and twin.get("format") == TWIN_FORMAT and twin.get("yaml") == text:
            return twin["data"]
    return kernel.parse_yaml(text, source=str(path))  # through the face: PyYAML loads only here


def is_own(path: Path) -> bool:
    """A file among gatepost's own protocols (whose twin may be read)."""
    return path.resolve().is_relative_to(PROTOCOLS_DIR.resolve())


def protocol_twin(path: str | Path) -> str:
    """The JSON twin of the YAML file at `path`, as write_protocol_twins writes it."""
    text = read_text(path, what="protocol file")
    data = kernel.parse_yaml(text, source=str(path))
    twin = {"format": TWIN_FORMAT, "yaml": text, "data": data}
    return json.dumps(twin, ensure_ascii=False, indent=1) + "\n"


def write_protocol_twins() -> list[Path]:
    """Write (or refresh) the twin of each of gatepost's own YAML files (protocols and rubrics); those written."""
    written = []
    for path in sorted(PROTOCOLS_DIR.rglob("*.yaml")):
        kernel.write_text_atomic(path.with_suffix(".json"), protocol_twin(path))
        written.append(path.with_suffix(".json"))
    return written
