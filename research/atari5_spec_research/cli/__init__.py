"""atari5_spec_research.cli."""
