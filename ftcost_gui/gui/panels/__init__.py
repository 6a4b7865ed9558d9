"""Form panels: one per input group, rows generated from field metadata."""

from .advanced_panel import AdvancedPanel
from .data_panel import DataPanel
from .form import FormPanel
from .form_tabs import FormTabs
from .hardware_panel import HardwarePanel
from .model_panel import ModelPanel
from .training_panel import TrainingPanel

__all__ = [
    "AdvancedPanel",
    "DataPanel",
    "FormPanel",
    "FormTabs",
    "HardwarePanel",
    "ModelPanel",
    "TrainingPanel",
]
