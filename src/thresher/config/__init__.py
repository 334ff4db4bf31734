"""Configuration: settings and their layers (``settings``), the files they are read from
(``files``), and which of the scanned repository's files a run may trust (``trust``)."""
