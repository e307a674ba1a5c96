"""gatepost's system of record: the SQLite store and the rules over it (no Textual here)."""
