"""gatepost's system of record: the SQLite store and the rules over it (no Textual here).

Importing it sets the store's ordered migrations (schema.py) into the kernel, which runs them when a
store is opened.
"""

from . import schema

__all__ = ["schema"]
