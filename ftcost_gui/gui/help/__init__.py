"""Help that works offline: the user guide, the keyboard shortcuts, "What is …?" answers one
click from the fields and figures that use them, and the first window's example banner.

Installed by ``gui/app.build_window`` (``HelpUi``); nothing here reaches the network.
"""
