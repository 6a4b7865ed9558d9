"""ftcost: an offline estimator of what a fine-tuning run needs and costs."""

__version__ = "0.1.0"
