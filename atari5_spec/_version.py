"""The code version: one leaf module every layer may import (it imports nothing)."""

__version__ = "0.1.0"
