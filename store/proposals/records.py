"""The proposals domain's record tables: a proposal's gate results.

Each is append-only: triggers refuse UPDATE and DELETE on its rows. The store's top floor (store/schema.py) hands
every domain's list to the kernel, which checks those triggers before a connection's first write and has verify
restore them; a module of its own so that the top floor loads nothing else of this domain on import.
"""

PROPOSALS_APPEND_ONLY = ("gate_results",)
