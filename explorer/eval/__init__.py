"""Benchmarks by name, their loaders, the one scoring loop and its reports, browsing and the overview."""
