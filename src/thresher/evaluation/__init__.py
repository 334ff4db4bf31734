"""Measuring thresher against labelled corpora: secrets (``secrets``, its figures and text
report; the corpus reader ``corpus``) and dependencies (``deps``, ``deps_text``; the
corpus reader ``depcorpus``). Above the scan: an evaluation runs ``thresher.scan``; nothing
on the scan path imports this package."""
