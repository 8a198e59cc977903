"""Captions as language: spaCy parses, segments and swaps, phrase trees, spaCy's vectors through torch."""
