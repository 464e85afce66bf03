"""atari5-spec's maintainers' tools: contributions checked and merged, the review bot, pinning, release checks,
the export and the web home.

>>> import atari5_spec_maintainers as maintainers
>>> callable(maintainers.check_submission) and callable(maintainers.build_site)
True

Each name is imported on first use.
"""

from __future__ import annotations

_LAZY = {
    "check_submission": ("contributions", "check_submission"),
    "add_submission": ("contributions", "add_submission"),
    "build_site": ("site.build", "build_site"),
    "export": ("release", "export"),
}

__all__ = list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
