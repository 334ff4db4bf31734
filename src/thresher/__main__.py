"""``python -m thresher``."""

from thresher.cli import main

main()
