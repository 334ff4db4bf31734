"""thresher's own detection rules: a rule book as data (``book``), the values it reads
(``values``) and the matcher that runs it on a file's lines (``matcher``)."""
