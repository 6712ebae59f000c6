"""Signed results: Ed25519 keys, and the signatures of replays and journal records (issue 25).

`verify` without a key checks that a replay is consistent: every move legal, the result the
game's own. It cannot tell a result the referee wrote from one edited after the match so that
it still adds up. A signing key can: the referee signs what it writes, and `verify --key
PUBLIC` fails on any byte changed, removed, added or moved since (docs/replays.md).

- A replay's result record carries `signature`: {"key": the key's id, "prior": the first 16
  hex digits of the SHA-256 of every line before the result, "sig": base64 Ed25519}. The
  signature covers `REPLAY` + that SHA-256 (all of it) + the result line's own bytes without
  the signature field (which is written last: `,"signature":{...}}`).
- A journal line carries `signature` likewise, with `JOURNAL`, the SHA-256 of every journal line
  before it (a chain: a line removed, added or moved breaks every signature after it), and its
  own bytes without the signature field. A match record also names its replay's `replay_sha256`,
  the SHA-256 of the replay's (uncompressed) lines, so a replay replaced by another is caught.

Keys are PEM files: the private key PKCS#8 (mode 0600), the public one SubjectPublicKeyInfo
beside it as `PATH.pub` (both as `openssl pkey` reads them). A key's id, named in every
signature, is the first 16 hex digits of the SHA-256 of its raw public key.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import UsageError

KEY_FILE = "sign.key"  # a tournament's own private key, in its output directory
PUBLIC_FILE = "sign.pub"  # its public key, published beside the standings
PUBLIC_SUFFIX = ".pub"
FIELD = "signature"
#: what each kind of signature signs first: a replay's signature never passes for a journal line's
REPLAY = b"referee replay result v1\0"
JOURNAL = b"referee journal record v1\0"

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _ed25519():
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519


def key_id(public: bytes) -> str:
    """The public id of a key from its 32 raw public bytes."""
    return hashlib.sha256(b"referee signing key id\0" + public).hexdigest()[:16]


@functools.lru_cache(maxsize=8)
def _private(seed: bytes):
    return _ed25519().Ed25519PrivateKey.from_private_bytes(seed)


@functools.lru_cache(maxsize=8)
def _public(raw: bytes):
    return _ed25519().Ed25519PublicKey.from_public_bytes(raw)


@dataclass(frozen=True, repr=False)
class Signer:
    """A private signing key (never printed: its repr shows only its id). Picklable: a
    tournament's workers sign the replays they write."""

    seed: bytes  # the 32 raw private bytes
    source: str = ""

    def __repr__(self) -> str:
        return f"Signer(id={self.id}, source={self.source})"

    @functools.cached_property
    def public(self) -> bytes:
        """The 32 raw bytes of the public key."""
        from cryptography.hazmat.primitives import serialization

        return _private(self.seed).public_key().public_bytes(serialization.Encoding.Raw,
                                                             serialization.PublicFormat.Raw)

    @property
    def id(self) -> str:
        """The key's public id."""
        return key_id(self.public)

    def sign(self, message: bytes) -> str:
        """The base64 Ed25519 signature of `message`."""
        return base64.b64encode(_private(self.seed).sign(message)).decode("ascii")

    def signature(self, kind: bytes, prior: bytes, body: bytes) -> dict[str, str]:
        """The `signature` field of a line whose bytes without it are `body` (newline included),
        after lines whose SHA-256 is `prior`."""
        return {"key": self.id, "prior": prior.hex()[:16], "sig": self.sign(kind + prior + body)}

    def public_pem(self) -> bytes:
        """The public key as PEM."""
        return Verifier(self.public, self.source).pem()


@dataclass(frozen=True)
class Verifier:
    """A public key: checks signatures."""

    public: bytes  # the 32 raw public bytes
    source: str = ""

    @property
    def id(self) -> str:
        """The key's public id."""
        return key_id(self.public)

    def pem(self) -> bytes:
        """The public key as PEM."""
        from cryptography.hazmat.primitives import serialization

        return _public(self.public).public_bytes(serialization.Encoding.PEM,
                                                 serialization.PublicFormat.SubjectPublicKeyInfo)

    def check(self, kind: bytes, prior: bytes, line: bytes) -> str | None:
        """Why the signed `line` (its bytes, newline or not) does not verify after lines whose
        SHA-256 is `prior`, or None if it does."""
        split = split_signed(line)
        if isinstance(split, str):
            return split
        body, field = split
        if field.get("key") != self.id:
            return f"signed by another key (id {field.get('key')}, not {self.id})"
        if field.get("prior") != prior.hex()[:16]:
            return "the records before it were edited, removed, added or reordered"
        from cryptography.exceptions import InvalidSignature

        try:
            signature = base64.b64decode(str(field.get("sig")), validate=True)
            _public(self.public).verify(signature, kind + prior + body)
        except (binascii.Error, ValueError):
            return "its signature is malformed"
        except InvalidSignature:
            return "it was edited since it was signed (its signature does not match)"
        return None


def signed_line(signer: Signer, kind: bytes, prior: bytes, body: bytes) -> bytes:
    """`body` (a JSON object's line, newline included) with its signature as the last field."""
    field = _encode(signer.signature(kind, prior, body)).encode()
    return body[:-2] + b',"' + FIELD.encode() + b'":' + field + b"}\n"


def split_signed(line: bytes) -> tuple[bytes, dict[str, Any]] | str:
    """(the line's bytes without its signature field, newline included; that field), or why
    the line holds no signature as the referee writes it."""
    line = line.rstrip(b"\r\n")
    try:
        record = json.loads(line)
    except ValueError:
        return "it is not JSON"
    field = record.get(FIELD) if isinstance(record, dict) else None
    if not isinstance(field, dict):
        return "it is not signed"
    suffix = b',"' + FIELD.encode() + b'":' + _encode(field).encode() + b"}"
    if not line.endswith(suffix) or not all(isinstance(v, str) for v in field.values()):
        return "its signature is not where the referee writes it (the line's last field)"
    return line[: -len(suffix)] + b"}\n", field


# -- key files ---------------------------------------------------------------------------------------


def generate() -> Signer:
    """A new random signing key."""
    from cryptography.hazmat.primitives import serialization

    key = _ed25519().Ed25519PrivateKey.generate()
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                             serialization.NoEncryption())
    return Signer(seed, "fresh")


def _private_pem(signer: Signer) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return _private(signer.seed).private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption())


def public_path(path: str | os.PathLike) -> Path:
    """Where the public key of private key file `path` goes: `PATH.pub`."""
    return Path(f"{os.fspath(path)}{PUBLIC_SUFFIX}")


def write_key(path: str | os.PathLike, signer: Signer, force: bool = False) -> Path:
    """Write `signer` to `path` (mode 0600; an existing file only with `force`) and its public
    key to `path.pub`; returns the public key's path. UsageError if it cannot."""
    path = Path(path)
    _write_private(path, signer, force)
    try:
        write_public(public_path(path), signer)
    except OSError as exc:
        raise UsageError(f"cannot write the public key {public_path(path)}: {exc.strerror or exc}") from None
    return public_path(path)


def _write_private(path: Path, signer: Signer, force: bool = False) -> None:
    """Write the private key to `path`, mode 0600 (an existing file only with `force`)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise UsageError(f"{path} exists: give another path, or --force to replace that key") from None
    except OSError as exc:
        raise UsageError(f"cannot write the key {path}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, 0o600)  # a file replaced with --force keeps no looser mode of its own
        with os.fdopen(fd, "wb") as f:
            f.write(_private_pem(signer))
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        raise UsageError(f"cannot write the key {path}: {exc.strerror or exc}") from None


def write_public(path: Path, signer: Signer) -> None:
    """Write `signer`'s public key to `path` (replacing it: it is public)."""
    partial = path.with_name(f".{path.name}.part-{os.getpid()}")
    partial.write_bytes(signer.public_pem())
    os.replace(partial, path)


def load_signer(path: str | os.PathLike) -> Signer:
    """The private key in `path` (as `referee keygen` writes it); UsageError if it is none."""
    from cryptography.hazmat.primitives import serialization

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the signing key {path}: {exc.strerror or exc}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        hint = " (that is a public key: sign with the private one)" if b"PUBLIC KEY" in data else ""
        raise UsageError(f"{path} is not a private key written by `referee keygen`{hint}") from None
    if not isinstance(key, _ed25519().Ed25519PrivateKey):
        raise UsageError(f"{path} is not an Ed25519 key (`referee keygen` writes one)")
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                             serialization.NoEncryption())
    return Signer(seed, os.path.abspath(path))  # absolute: the sandboxes of every worker hide it


def load_verifier(path: str | os.PathLike) -> Verifier:
    """The public key in `path` (`PATH.pub`, or a tournament's sign.pub); UsageError if it is none."""
    from cryptography.hazmat.primitives import serialization

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the public key {path}: {exc.strerror or exc}") from None
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError):
        hint = " (a private key? give its .pub)" if b"PRIVATE KEY" in data else ""
        raise UsageError(f"{path} is not a public key written by `referee keygen`{hint}") from None
    if not isinstance(key, _ed25519().Ed25519PublicKey):
        raise UsageError(f"{path} is not an Ed25519 public key")
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return Verifier(raw, str(path))


def for_directory(out: Path) -> Signer:
    """A tournament's own key: `out/sign.key`, made (mode 0600) on its first run (`publish`
    writes its public key)."""
    path = out / KEY_FILE
    if not path.exists():
        _write_private(path, generate())
    return load_signer(path)


def publish(out: Path, signer: Signer) -> Path:
    """Write `out/sign.pub`, the public key the tournament's results verify with, if it is not
    there already; its path. UsageError if it cannot."""
    path = out / PUBLIC_FILE
    try:
        if not path.is_file() or path.read_bytes() != signer.public_pem():
            write_public(path, signer)
    except OSError as exc:
        raise UsageError(f"cannot write the public key {path}: {exc.strerror or exc}") from None
    return path
