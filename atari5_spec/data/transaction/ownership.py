"""Whose journal this is: every journal is sealed for one package folder on one host with a key kept outside it.

A journal in a package folder may have come with the files: git ignores
``.atari5-transaction/``, but ``git add -f`` commits it, and a clone, a
checkout or an unpacked archive brings it back. Recovery renames what a journal
names, so it acts only on a journal this user's atari5-spec wrote, on this
host, for this very folder:

* the journal records the host name and the package folder's real path;
* its ``seal`` is an HMAC-SHA256 of its whole content (every path, hash and
  staged file it names) under a random 256-bit key that atari5-spec keeps in
  the user's state folder (``$XDG_STATE_HOME/atari5-spec/journal.key``,
  default ``~/.local/state``), created on the first write, readable by the
  user only, never inside a package and never in git.

A journal from a clone (another folder), another machine (another host or
key), edited afterwards, or written where no key could be kept, is refused;
:func:`ownership_problem` says which. Standard library only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import socket
import stat
from pathlib import Path

KEY_NAME = "journal.key"
KEY_BYTES = 32


def key_path() -> Path:
    """Where this user's key is kept: ``$XDG_STATE_HOME/atari5-spec/journal.key`` (default ``~/.local/state``)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "atari5-spec" / KEY_NAME


def _read_key(path: Path) -> bytes | None:
    """The key, when ``path`` is a regular file of this user holding exactly KEY_BYTES bytes; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size != KEY_BYTES or \
                (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            return None
        key = handle.read(KEY_BYTES + 1)
    return key if len(key) == KEY_BYTES else None


def machine_key(create: bool) -> bytes | None:
    """This user's key (made on first use when ``create``); None when there is none and none can be kept."""
    path = key_path()
    key = _read_key(path)
    if key is not None or not create:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            os.write(fd, secrets.token_bytes(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)  # never replaces a key another process made meanwhile
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
    except OSError:  # no writable home: journals go unsealed, so an interrupted change needs a person
        return None
    return _read_key(path)


def _content(journal: dict) -> bytes:
    """The sealed bytes: the journal without its seal, in one canonical JSON form."""
    return json.dumps({k: v for k, v in journal.items() if k != "seal"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True).encode("ascii")


def sealed(journal: dict, root: Path) -> dict:
    """``journal`` with the host, the package folder and the seal that make it this machine's own."""
    journal = dict(journal, host=socket.gethostname(), package=os.path.realpath(root))
    key = machine_key(create=True)
    journal["seal"] = hmac.new(key, _content(journal), hashlib.sha256).hexdigest() if key is not None else None
    return journal


def _shown(value) -> str:
    text = str(value)
    return repr(text[:120] + ("..." if len(text) > 120 else ""))


def ownership_problem(journal: dict, root: Path) -> str | None:
    """Why ``journal`` is not one this user's atari5-spec wrote for the package at ``root`` on this host; None
    when it is."""
    seal = journal.get("seal")
    if not isinstance(seal, str):
        return "it carries no seal (atari5-spec seals every journal it writes)"
    host = socket.gethostname()
    if journal.get("host") != host:
        return f"it was written on the host {_shown(journal.get('host'))}, not on this one ({host!r})"
    if journal.get("package") != os.path.realpath(root):
        return (f"it was written for another package folder ({_shown(journal.get('package'))}): a journal copied "
                "with the files (a clone, a checkout, an archive)")
    key = machine_key(create=False)
    if key is None:
        return f"this user has no atari5-spec key ({key_path()}), so no journal here can be its own"
    expected = hmac.new(key, _content(journal), hashlib.sha256).hexdigest().encode("ascii")
    if not hmac.compare_digest(seal.encode("utf-8", "replace"), expected):
        return "its seal does not match its content (edited afterwards, or sealed with another user's key)"
    return None
