"""File → Measure Dataset…: the dialog, its worker thread and the add-on that installs it."""
