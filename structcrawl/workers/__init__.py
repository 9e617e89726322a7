"""Work a crawl hands to processes of its own, beside its event loop (pure functions whose
arguments and results are plain data). A worker process imports this package alone: nothing
here imports the rest of structcrawl, Scrapy or Twisted, so a worker holds little memory."""
