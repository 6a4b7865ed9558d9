"""The main window and its collaborators (import each from its module).

``main_window`` lays out and wires; ``actions`` is the table of actions and menus; ``files``,
``exports``, ``scenario_bar`` and ``charts_area`` own one job each; ``services`` is what an add-on
(model import, GPU catalogs) may use of the window.
"""
