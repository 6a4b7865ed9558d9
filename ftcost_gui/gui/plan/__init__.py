"""The Plan and What fits results tabs (issue 14): ``addon.PlanUi``."""
