"""The Scrapy shell: settings read once into frozen configs (:mod:`.config`), typed items,
item pipelines (:mod:`.pipelines`), feed exporters and routing, downloader middlewares, the
``scrapy crawl`` command and the crawl's health. Moves data between the pure packages and
counts; extraction, normalization, validation and entity logic live elsewhere."""
