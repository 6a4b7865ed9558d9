"""Validation harness: measures the real frameworks (PyTorch, Transformers, PEFT) on CPU.

A tool of the repository, never imported by the app. ``python -m validation.measure`` writes the
records in ``docs/data/measured/``; ``tests/core/test_measured.py`` checks the core against them
without torch.
"""
