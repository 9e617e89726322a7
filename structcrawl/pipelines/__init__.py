"""Item pipelines, in the order they run (see ``ITEM_PIPELINES`` in settings)."""

from structcrawl.pipelines.bodystore import BodyStorePipeline
from structcrawl.pipelines.entities import EntityPipeline
from structcrawl.pipelines.extraction import ExtractionPipeline

__all__ = ["BodyStorePipeline", "EntityPipeline", "ExtractionPipeline"]
