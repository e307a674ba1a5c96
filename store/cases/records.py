"""The cases domain's record tables: a case's decisions, its evidence and its candidate's revisions.

Each is append-only: triggers refuse UPDATE and DELETE on its rows. The store's top floor (store/schema.py) hands
every domain's list to the kernel, which checks those triggers before a connection's first write and has verify
restore them; a module of its own so that the top floor loads nothing else of this domain on import.
"""

CASES_APPEND_ONLY = ("decisions", "evidence", "candidate_revisions")
