"""The names a write leaves in a data package while it runs: the lock file and the staging folder.

Kept apart from :mod:`atari5_spec.data.transaction` so that opening a package (one ``stat`` of each, in
:func:`atari5_spec.data.datapackage.package_root`) does not import the transaction machinery.
"""

LOCK_NAME = ".atari5.lock"
STAGING_NAME = ".atari5-transaction"
