"""The loops domain's record tables: a loop's versions, the cases loops made and where changes landed.

Each is append-only: triggers refuse UPDATE and DELETE on its rows. The store's top floor (store/schema.py) hands
every domain's list to the kernel, which checks those triggers before a connection's first write and has verify
restore them; a module of its own so that the top floor loads nothing else of this domain on import.
"""

LOOPS_APPEND_ONLY = ("loop_versions", "loop_cases", "applications")
