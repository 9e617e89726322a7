"""Item pipelines, in the order they run (see ``ITEM_PIPELINES`` in settings)."""

from structcrawl.crawl.pipelines.bodies import BodyStorePipeline
from structcrawl.crawl.pipelines.entities import EntityPipeline
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline

__all__ = ["BodyStorePipeline", "EntityPipeline", "ExtractionPipeline"]
