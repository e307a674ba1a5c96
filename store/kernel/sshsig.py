"""SSH signatures (SSHSIG, as `ssh-keygen -Y sign` writes them) checked in this process.

`gatepost verify` checks every signed decision: starting `ssh-keygen -Y verify` once per signature cost
about 4 ms each. This reads the armored signature and checks it with the `cryptography` package, by
OpenSSH's PROTOCOL.sshsig: the signed data is

    "SSHSIG" || string(namespace) || string(reserved) || string(hash_algorithm) || string(H(message))

and the signature is the key's own signature of that data. Ed25519, ECDSA (nistp256/384/521) and RSA
(rsa-sha2-256/512) keys are checked here; any other key type (a FIDO `sk-` key) answers None from
`check`, and the caller asks ssh-keygen.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

MAGIC = b"SSHSIG"
HASHES = ("sha256", "sha512")  # hashlib's names of the message hashes SSHSIG allows
CURVES = ("nistp256", "nistp384", "nistp521")
RSA_HASHES = ("rsa-sha2-256", "rsa-sha2-512")
KNOWN = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521")


class Malformed(ValueError):
    """The bytes are not what the format says."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.at + n > len(self.data):
            raise Malformed("truncated")
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def uint32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def string(self) -> bytes:
        return self.take(self.uint32())

    def mpint(self) -> int:
        return int.from_bytes(self.string(), "big", signed=True)

    def done(self) -> bool:
        return self.at == len(self.data)


def _string(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


@dataclass(frozen=True)
class Signature:
    public_key: bytes  # the key blob the signature names
    namespace: str
    hash_algorithm: str
    sig_type: str
    sig: bytes


def parse(armored: str) -> Signature:
    """The fields of an armored SSH signature; Malformed when it is not one."""
    lines = [ln.strip() for ln in armored.strip().splitlines() if ln.strip()]
    if not lines or lines[0] != "-----BEGIN SSH SIGNATURE-----" or lines[-1] != "-----END SSH SIGNATURE-----":
        raise Malformed("not an armored SSH signature")
    try:
        blob = base64.b64decode("".join(lines[1:-1]), validate=True)
    except (binascii.Error, ValueError):
        raise Malformed("its body is not base64") from None
    r = _Reader(blob)
    if r.take(6) != MAGIC:
        raise Malformed("no SSHSIG magic")
    if r.uint32() != 1:
        raise Malformed("an SSHSIG version other than 1")
    public_key, namespace, _reserved, hash_algorithm, wrapped = r.string(), r.string(), r.string(), r.string(), r.string()
    if not r.done():
        raise Malformed("trailing bytes")
    inner = _Reader(wrapped)
    sig_type, sig = inner.string(), inner.string()
    if not inner.done():
        raise Malformed("trailing bytes in its signature")
    try:
        return Signature(public_key, namespace.decode("ascii"), hash_algorithm.decode("ascii"),
                         sig_type.decode("ascii"), sig)
    except UnicodeDecodeError:
        raise Malformed("a field that is not ASCII") from None


def key_type(public_key: bytes) -> str:
    """The type named inside a key blob ("ssh-ed25519", ...); Malformed when unreadable."""
    try:
        return _Reader(public_key).string().decode("ascii")
    except UnicodeDecodeError:
        raise Malformed("a key type that is not ASCII") from None


def supported(public_key: bytes) -> bool:
    """Whether `check` can answer for this key blob in this process."""
    try:
        return key_type(public_key) in KNOWN
    except Malformed:
        return False


def _verify(public_key: bytes, sig_type: str, sig: bytes, data: bytes) -> bool:
    # cryptography imported here, where a signature is checked: a command that checks none (every read but
    # verify) starts without it
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    r = _Reader(public_key)
    kind = r.string().decode("ascii")
    if kind == "ssh-ed25519":
        raw = r.string()
        if sig_type != kind or not r.done() or len(raw) != 32:
            return False
        Ed25519PublicKey.from_public_bytes(raw).verify(sig, data)
        return True
    if kind == "ssh-rsa":
        e, n = r.mpint(), r.mpint()
        if sig_type not in RSA_HASHES or not r.done() or e <= 0 or n <= 0:
            return False
        digest: hashes.HashAlgorithm = hashes.SHA256() if sig_type == "rsa-sha2-256" else hashes.SHA512()
        rsa.RSAPublicNumbers(e, n).public_key().verify(sig, data, padding.PKCS1v15(), digest)
        return True
    if kind.startswith("ecdsa-sha2-"):
        curve_name, point = r.string().decode("ascii"), r.string()
        if sig_type != kind or not r.done() or curve_name not in CURVES or kind != f"ecdsa-sha2-{curve_name}":
            return False
        curve, digest = {"nistp256": (ec.SECP256R1(), hashes.SHA256()), "nistp384": (ec.SECP384R1(), hashes.SHA384()),
                         "nistp521": (ec.SECP521R1(), hashes.SHA512())}[curve_name]
        parts = _Reader(sig)
        rs, ss = parts.mpint(), parts.mpint()
        if not parts.done():
            return False
        key = ec.EllipticCurvePublicKey.from_encoded_point(curve, point)
        key.verify(encode_dss_signature(rs, ss), data, ec.ECDSA(digest))
        return True
    return False


def check(message: bytes, armored: str, public_key: bytes, namespace: str) -> str | None:
    """None when `armored` is `public_key`'s SSHSIG of `message` in `namespace`, else why not.

    Raises LookupError for a key type this module does not check (the caller asks ssh-keygen).
    """
    if not supported(public_key):
        raise LookupError("key type not checked in process")
    try:
        sig = parse(armored)
    except Malformed as exc:
        return f"the signature is unreadable ({exc})"
    if sig.public_key != public_key:
        return "the signature was made with another key"
    if sig.namespace != namespace:
        return f"the signature is for namespace {sig.namespace!r}, not {namespace!r}"
    if sig.hash_algorithm not in HASHES:
        return f"unknown hash algorithm {sig.hash_algorithm!r}"
    import hashlib  # here, not at the top: a command that only reads never hashes (loading OpenSSL: ~2.5 ms)

    digest = hashlib.new(sig.hash_algorithm, message).digest()
    data = (MAGIC + _string(namespace.encode("ascii")) + _string(b"") + _string(sig.hash_algorithm.encode("ascii"))
            + _string(digest))
    # with _verify's imports: only where a signature is checked
    from cryptography.exceptions import InvalidSignature

    try:
        if _verify(public_key, sig.sig_type, sig.sig, data):
            return None
        return f"a {sig.sig_type} signature does not match a {key_type(public_key)} key"
    except InvalidSignature:
        return "the signature does not verify"
    except (Malformed, ValueError, UnicodeDecodeError) as exc:
        return f"the signature or key is malformed ({exc})"
