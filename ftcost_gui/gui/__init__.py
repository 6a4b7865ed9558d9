"""The desktop window (PySide6 + pyqtgraph). Nothing here is imported by core, io or the CLI."""
