"""Development aids: ``make demo`` (:mod:`.demo`) and the static file server for the demo site
and tests (:mod:`.devserver`). Nothing in a production crawl imports them."""
