"""The kernel every domain stands on: the store file, schema, hash-chained events, actors and
capabilities, leases, the clock, safe file reading, errors, and the one guarded pipeline.

What other packages may use is re-exported here; the modules behind it are this package's own.
"""

from .actors import (
    CAPABILITIES,
    KINDS,
    NEVER_FOR_PRODUCERS,
    PERSON_CAPABILITIES,
    add_actor,
    capabilities_of,
    ensure_producer,
    get_actor,
    list_actors,
    require,
)
from .clock import (
    now_iso,
    parse_iso,
)
from .db import (
    BUSY_TIMEOUT_MS,
    DEFAULT_DB,
    open_store,
    resolve_path,
    schema_version,
    transaction,
)
from .errors import (
    ConflictError,
    GatepostError,
    InputError,
    RefusedError,
    StoreError,
)
from .events import (
    append_event,
    check_unchanged,
    count_events,
    event_actors,
    event_kinds,
    last_seq,
    list_events,
)
from .files import (
    MAX_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_YAML_ALIASES,
    load_yaml_file,
    parse_json,
    parse_toml,
    parse_yaml,
    read_input,
    read_stdin,
    read_text,
    write_text_atomic,
)
from .leases import (
    DEFAULT_TTL,
    check_free,
    held_by_others,
    holder,
    release,
    take,
)
from .schema import (
    APPEND_ONLY,
    MIGRATION_SET,
    known_migration_names,
    latest_version,
    m001_initial,
    m002_leases,
    migrations,
)
from .task_order import (
    neighbour_run,
    refresh_task_order,
)

__all__ = [
    "APPEND_ONLY",
    "BUSY_TIMEOUT_MS",
    "CAPABILITIES",
    "ConflictError",
    "DEFAULT_DB",
    "DEFAULT_TTL",
    "GatepostError",
    "InputError",
    "KINDS",
    "MAX_FILE_BYTES",
    "MAX_INT_DIGITS",
    "MAX_YAML_ALIASES",
    "MIGRATION_SET",
    "NEVER_FOR_PRODUCERS",
    "PERSON_CAPABILITIES",
    "RefusedError",
    "StoreError",
    "add_actor",
    "append_event",
    "capabilities_of",
    "check_free",
    "check_unchanged",
    "count_events",
    "ensure_producer",
    "event_actors",
    "event_kinds",
    "get_actor",
    "held_by_others",
    "holder",
    "known_migration_names",
    "last_seq",
    "latest_version",
    "list_actors",
    "list_events",
    "load_yaml_file",
    "m001_initial",
    "m002_leases",
    "migrations",
    "neighbour_run",
    "now_iso",
    "open_store",
    "parse_iso",
    "parse_json",
    "parse_toml",
    "parse_yaml",
    "read_input",
    "read_stdin",
    "read_text",
    "refresh_task_order",
    "release",
    "require",
    "resolve_path",
    "schema_version",
    "take",
    "transaction",
    "write_text_atomic",
]
