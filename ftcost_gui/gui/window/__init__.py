"""The main window and its collaborators (import each from its module).

``main_window`` lays out and wires; ``actions`` is the table of actions and the menus built from
it; ``files``, ``exports``, ``scenario_bar``, ``results_area`` and ``charts_area`` own one job
each. What an add-on may use of the window is ``gui/services.py``, outside this package.
"""
