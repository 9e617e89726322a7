"""The end-of-crawl quality report (JSON + self-contained HTML) and its thresholds."""

from structcrawl.report.aggregate import QualityAggregator, check_thresholds, page_outcome
from structcrawl.report.html import render_html

__all__ = ["QualityAggregator", "check_thresholds", "page_outcome", "render_html"]
