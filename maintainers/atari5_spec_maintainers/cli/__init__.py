"""atari5_spec_maintainers.cli."""
