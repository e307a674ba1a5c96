"""Demo part: a colleague who signs her decisions with an SSH key.

chen registers an SSH public key before she works, then moves to a new key with a rotation
statement signed by the old one (the Audit screen marks it `key replaced (signed)`, `gatepost verify`
lists it), so each of her decisions in the demo (proposals marked, regressions acknowledged) carries a
signature over its event's hash made with the new key, which `gatepost verify` checks. The keys below
are demo-only keys, published with gatepost: they prove nothing outside a demo store. They are fixed
(not generated) so the demo stays the same store whenever it is built (ed25519 signatures are
deterministic). Without ssh-keygen on the machine, or when the person running the demo is chen, the
demo quietly signs nothing.
"""

import atexit
import os
import random
import tempfile
from pathlib import Path

from sqlite_utils import Database

from gatepost.store.kernel import (
    find_actor,
    parse_public_key,
    register_key,
    same_actor,
    set_signing_key,
    sign_rotation,
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
# chen's second key, which her first one vouches for (a rotation statement)
DEMO_NEW_PUBLIC_KEY = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICkzjE1i6WPw/Hz97LPwulR4x1m3xss9Q1gIogUlVIPy "
                       "chen (gatepost demo only, second key)")
DEMO_NEW_PRIVATE_KEY = """-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACApM4xNYulj8Px8/eyz8LpUeMdZt8bLPUNYCKIFJVSD8gAAAKgbpLzBG6S8
wQAAAAtzc2gtZWQyNTUxOQAAACApM4xNYulj8Px8/eyz8LpUeMdZt8bLPUNYCKIFJVSD8g
AAAEC1lsBdFG5Aijmt4Za9EQQm2LYbpJtYHO32Uu0DyLnfFikzjE1i6WPw/Hz97LPwulR4
x1m3xss9Q1gIogUlVIPyAAAAJWNoZW4gKGdhdGVwb3N0IGRlbW8gb25seSwgc2Vjb25kIG
tleSk=
-----END OPENSSH PRIVATE KEY-----
"""  # a demo-only key: never register it in a real store


def _key_file(text: str = DEMO_PRIVATE_KEY, name: str = "chen") -> Path:
    """A demo key in a private temporary file (ssh-keygen reads keys from files), removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="gatepost-demo-key-"))
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(text)

    def remove() -> None:
        path.unlink(missing_ok=True)
        folder.rmdir()

    atexit.register(remove)
    return path


def populate(db: Database, rng: random.Random, person: str) -> str:
    if same_actor(person, SIGNER) or not signing_available() or find_actor(db, SIGNER) is None:
        return ""
    old = _key_file()
    register_key(db, SIGNER, DEMO_PUBLIC_KEY, by=person, where="the demo key",
                 note="chen signs her decisions (a demo-only key)")
    statement = sign_rotation(old, parse_public_key(DEMO_NEW_PUBLIC_KEY)["fingerprint"])
    register_key(db, SIGNER, DEMO_NEW_PUBLIC_KEY, by=person, where="the demo's second key", rotation=statement,
                 note="chen's new laptop: the new key is vouched for by the old one")
    set_signing_key(_key_file(DEMO_NEW_PRIVATE_KEY, "chen-2"), actor=SIGNER)  # only chen's decisions, here
    return f"{SIGNER} signs her decisions with an SSH key (rotated once)"
