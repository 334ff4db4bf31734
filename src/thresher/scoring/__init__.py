"""The calibrated offline scorer: features, the shipped model, the escalation policy.

Training lives in ``thresher.scoring.train`` (numpy, a development dependency);
everything a scan imports here is pure Python.
"""
