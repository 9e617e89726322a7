"""Rendering only what needs it: a download handler that sends JS-only pages to a browser.

* :mod:`structcrawl.render.routing` (pure): JS-only detection of HTTP responses, URL
  templates, the per-site template learner, the routing decision and the wait plan;
* :mod:`structcrawl.render.rules` (pure): the render rule of a URL, from the site rules
  (:mod:`structcrawl.rules`, one loader for extraction and rendering);
* :mod:`structcrawl.render.browser` (pure): locating Chromium, its launch options;
* :mod:`structcrawl.render.capture`: what runs in the browser page (actions, the bounded
  wait, network JSON capture, the rendering context) and the ``network-json`` records;
* :mod:`structcrawl.render.handler`: the Scrapy download handler
  (``DOWNLOAD_HANDLERS = {"http": "structcrawl.render.handler.RenderDownloadHandler", ...}``).

Importing this package imports no Scrapy code; the handler is loaded by its path.
"""

from structcrawl.render.browser import BrowserLocation, launch_options, locate_chromium
from structcrawl.render.routing import (
    REASONS,
    Route,
    ShellVerdict,
    TemplateLearner,
    WaitPlan,
    decide,
    judge_html,
    judge_response,
    url_template,
)
from structcrawl.render.rules import RenderRules, load_render_rules

__all__ = [
    "REASONS",
    "BrowserLocation",
    "RenderRules",
    "Route",
    "ShellVerdict",
    "TemplateLearner",
    "WaitPlan",
    "decide",
    "judge_html",
    "judge_response",
    "launch_options",
    "load_render_rules",
    "locate_chromium",
    "url_template",
]
