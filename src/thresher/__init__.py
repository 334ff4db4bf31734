"""thresher: separate real leaked credentials from scanner noise."""

__version__ = "0.1.0"
