"""GPU catalogs in the window (import each from its module; no module here imports another
upward: text < service < table_model < editor_layout < editor_catalogs < editor; prices,
which_gpu_model < which_gpu_view < which_gpu_tab; addon uses them all).

- ``service``: ``CatalogService``, the effective catalog every view uses (one per window).
- ``editor`` (+ ``editor_layout``, ``editor_catalogs``, ``effective_view``, ``table_model``): the
  catalog manager dialog.
- ``prices``: the price check after a file is opened.
- ``which_gpu_tab`` (+ ``which_gpu_view``, ``which_gpu_model``, ``cost_chart``): "Which GPU".
- ``addon``: ``CatalogUi(services, catalogs)``, what the window installs.
"""
