"""One transaction mechanism for every command that writes into a data package.

Modelled on git's ``index.lock`` and SQLite's atomic commit:

1. **Lock.** ``<package>/.atari5.lock`` is created and locked (``flock``)
   *before* the package is read for the change, and names the holder's
   command and process. A second writer waits a bounded time
   (``ATARI5_LOCK_TIMEOUT`` seconds, default 300) and is then refused with a
   message naming the holder. The kernel releases the lock of a process that
   dies, so a lock file left by a killed process is stale by construction:
   the next writer takes it over and says so.
2. **Stage.** Every new file (and new folder, e.g. a coefficient version) is
   written and fsynced under ``<package>/.atari5-transaction/new/``; the
   current version of every file to be replaced is kept as a hard link (or a
   copy) under ``old/``.
3. **Commit record.** ``journal.json`` lists every target with its old and new
   sha256; it is written to a temporary name, fsynced and renamed, and the
   folder is fsynced. Its presence is the commit point.
4. **Apply.** Each staged file is renamed over its target (atomic), and the
   targets' folders are fsynced. An error while applying restores the old
   files by renames (no free space needed), continuing past failed restores.
5. **Done.** The journal is removed (the end of the commit), then the
   staging folder; the lock file is removed last.

**Recovery.** The next command that writes (``contribute add``, ``fit``,
``evaluate --pin-calibration``, the import scripts) or ``atari5-spec
recover`` takes the lock, finds the journal and brings every target to the
new state (roll forward, the normal case: everything needed is staged and
fsynced) or, when that is impossible, back to the old one; it says so on
standard error. A command that only reads writes nothing: it waits for a
commit under way and refuses an interrupted one, naming ``atari5-spec
recover`` (:func:`refuse_interrupted`, called by :func:`package_root`).

**Only its own journals.** A journal may have come with the files (``git
add -f`` commits the ignored staging folder). Before anything is renamed,
recovery checks that every path the journal names passes the one path
policy (:func:`atari5_spec.data.paths.target_reason`: no absolute path, no
``..``, no link, nothing under ``.git/``), that each staged file is the
target's own ``new/<n>``, and that the journal is sealed for this package
folder on this host with this user's key (:mod:`.ownership`); anything else
is refused with a message, nothing written. A staging folder without a
journal is an uncommitted change: it is removed and the package is untouched.
A target matching neither its old nor its new hash (edited by hand meanwhile)
stops the recovery with a message naming it, and so does a staged or kept
old file whose sha256 is not the one the journal records (checked for every
file before anything is renamed): a damaged staging folder is never installed. ``validate`` reports an
interrupted commit as a problem with the fix (``atari5-spec recover``).

No temporary file outlives a finished or recovered command; nothing is
written to the system's temporary folder (``contribute add`` validates the
merged tables in memory).

Where things are (one module per idea): :mod:`.lock` (the write lock),
:mod:`.files` (durable writes, hashes), :mod:`.journal` (the staging folder,
the commit record, its checks and the renames that apply or undo it),
:mod:`.ownership` (the seal that makes a journal this machine's own), :mod:`.commit`
(:class:`Transaction`, :func:`package_transaction`) and :mod:`.recovery`
(:func:`recover` and what readers use to see one consistent state).

API: ``with package_transaction(root, "contribute add") as change: ...read the
package...; change.commit(files, new_dirs)``; :func:`recover`;
:func:`pending_commit`. :func:`atari5_spec_maintainers.versioning.apply_changes`
commits through the transaction the caller holds (or opens one).
"""

from .commit import Transaction, package_transaction
from .journal import STAGING_NAME, RecoveryError, generation, pending_commit
from .lock import LOCK_NAME, PackageLockedError
from .recovery import finished_by_recovery, read_consistently, recover, refuse_interrupted

__all__ = ["LOCK_NAME", "STAGING_NAME", "PackageLockedError", "Transaction", "package_transaction", "recover",
           "pending_commit", "RecoveryError", "finished_by_recovery", "generation", "read_consistently",
           "refuse_interrupted"]
