"""The pure core every other package builds on: one parsed page (:mod:`.document`), payload
classification (:mod:`.payload`), the record shape (:mod:`.records`), per-page bounds
(:mod:`.limits`), link discovery (:mod:`.links`) and secret redaction (:mod:`.redact`,
:mod:`.logsafety`). Imports nothing from Scrapy nor from any other structcrawl package."""
