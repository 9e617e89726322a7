"""Record validation: per-type JSON Schemas (Google's structured-data requirements), the
schema.org vocabulary, and checks of the semantic data against what the page shows.

Pure package: nothing here imports Scrapy. The item pipeline is
:class:`structcrawl.crawl.pipelines.validation.ValidationPipeline`.
"""

from structcrawl.validate.validator import ValidationResult, Validator
from structcrawl.validate.visible import check_visible

__all__ = ["ValidationResult", "Validator", "check_visible"]
