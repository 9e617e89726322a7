"""Item pipelines, in the order they run (see ``ITEM_PIPELINES`` in settings)."""

from structcrawl.pipelines.bodystore import BodyStorePipeline
from structcrawl.pipelines.extraction import ExtractionPipeline

__all__ = ["BodyStorePipeline", "ExtractionPipeline"]
