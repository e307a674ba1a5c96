"""Demo part: a colleague who signs her decisions with an SSH key (issue 12, item 4).

chen registers an SSH public key before she works, so each of her decisions in the demo (proposals
marked, regressions acknowledged) carries a signature over its event's hash, which `gatepost verify`
checks. The key below is a demo-only key, published with gatepost: it proves nothing outside a demo
store. It is fixed (not generated) so the demo stays the same store whenever it is built (ed25519
signatures are deterministic). Without ssh-keygen on the machine, or when the person running the
demo is chen, the demo quietly signs nothing.
"""

import atexit
import os
import random
import tempfile
from pathlib import Path

from sqlite_utils import Database

from gatepost.store.kernel import (
    find_actor,
    register_key,
    same_actor,
    set_signing_key,
    signing_available,
)

ORDER = 1  # after the people exist, before anyone decides
SIGNER = "chen"
DEMO_PUBLIC_KEY = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDtef8DZvF+CbAslZtCY4acLeNCk74e7STQnw3fzUXem "
                   "chen (gatepost demo only)")
DEMO_PRIVATE_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACA7Xn/A2bxfgmwLJWbQmOGnC3jQpO+Hu0k0J8N381F3pgAAAKDEBmpmxAZq
ZgAAAAtzc2gtZWQyNTUxOQAAACA7Xn/A2bxfgmwLJWbQmOGnC3jQpO+Hu0k0J8N381F3pg
AAAEDUuJeY9baGQ0NC57K+RcrQI4JZfswgvpfcW2telvYJSDtef8DZvF+CbAslZtCY4acL
eNCk74e7STQnw3fzUXemAAAAGWNoZW4gKGdhdGVwb3N0IGRlbW8gb25seSkBAgME
-----END OPENSSH PRIVATE KEY-----
"""  # a demo-only key: never register it in a real store


def _key_file() -> Path:
    """The demo key in a private temporary file (ssh-keygen reads keys from files), removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="gatepost-demo-key-"))
    path = folder / "chen"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(DEMO_PRIVATE_KEY)

    def remove() -> None:
        path.unlink(missing_ok=True)
        folder.rmdir()

    atexit.register(remove)
    return path


def populate(db: Database, rng: random.Random, person: str) -> str:
    if same_actor(person, SIGNER) or not signing_available() or find_actor(db, SIGNER) is None:
        return ""
    set_signing_key(_key_file(), actor=SIGNER)  # only chen's decisions, in this process
    register_key(db, SIGNER, DEMO_PUBLIC_KEY, by=person, where="the demo key",
                 note="chen signs her decisions (a demo-only key)")
    return f"{SIGNER} signs her decisions with an SSH key"
