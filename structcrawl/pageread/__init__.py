"""A page read whole on one parse, in a worker process beside the crawl's event loop, and what
the crawl keeps of it (:mod:`structcrawl.pageread.whole`): the render judgement, the records,
the visible page's readings and what the resolution and the checks read of the tree, for a
page the crawl then never parses (:class:`structcrawl.core.document.LazyDocument`). Pure:
nothing of Scrapy."""
