"""Presentation without Qt: the words and numbers a user reads, for the window, report and CLI.

- ``text``: formatters beyond units (counts, scientific notation, shares);
- ``figures``: headline texts, breakdown rows, the status line;
- ``sections``: the estimate as titled (label, value) sections (the CLI's table), spot advice;
- ``explain``: 'How this is computed' as blocks; ``blocks`` renders blocks to HTML or Markdown;
- ``tables``: the scenario comparison, the inputs that matter, prices, assumptions.

May import ``core`` and ``io``; never Qt, ``charts``, ``report``, ``gui`` or ``cli``.
"""
