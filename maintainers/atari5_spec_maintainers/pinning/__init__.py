"""atari5_spec_maintainers.pinning."""
