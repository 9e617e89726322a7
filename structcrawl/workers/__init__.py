"""Work a crawl hands to processes of its own, beside its event loop (pure functions whose
arguments and results are plain data). A worker process imports this package and what a
request's function needs (the parse of ``core``, the readers of ``visible``, trafilatura for a
main text), never Scrapy or Twisted, so a worker holds little memory."""
