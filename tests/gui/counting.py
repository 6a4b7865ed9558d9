"""A counting patch shared by the GUI tests that count work (issue 17: count, never time)."""

from __future__ import annotations


def record_calls(monkeypatch, owner, name, what):
    """Patch ``owner.name`` to append ``what(self, *args)`` to the returned list on each call,
    then run the original (a counting patch, undone with the test)."""
    seen: list = []
    original = getattr(owner, name)

    def recording(self, *args, **kwargs):
        seen.append(what(self, *args))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return seen
