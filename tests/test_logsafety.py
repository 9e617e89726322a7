from __future__ import annotations

import logging

from structcrawl.core import logsafety


def test_log_records_are_redacted(caplog):
    logsafety.install()
    logsafety.install()  # idempotent
    logger = logging.getLogger("scrapy.crawler")
    with caplog.at_level(logging.INFO):
        logger.info(
            "Overridden settings:\n%(settings)s",
            {
                "settings": {
                    "AWS_SECRET_ACCESS_KEY": "s3cr3t",
                    "HTTPPROXY_AUTH": "x",
                    "LOG_LEVEL": "INFO",
                    "FEED_URI": "s3://u:pw@bucket/x",
                }
            },
        )
        logger.info("request headers Authorization: Bearer abc.def and Cookie: sid=1")
        logger.info("proxy %s", "http://user:pass@proxy.example:8080")
    text = caplog.text
    for secret in ("s3cr3t", "Bearer abc", "sid=1", "user:pass", "u:pw"):
        assert secret not in text
    assert "LOG_LEVEL" in text and "INFO" in text and "proxy.example:8080" in text


def test_logged_objects_and_tracebacks_are_redacted(caplog):
    from scrapy import Request

    logsafety.install()
    logger = logging.getLogger("scrapy.core.scraper")
    url = "https://bob:hunter2@shop.example/p?x=1"
    with caplog.at_level(logging.INFO):
        logger.info("Crawled %(request)s", {"request": Request(url)})
        logger.info("Fetching %s", Request(url))
        try:
            raise ValueError(f"could not fetch {url}")
        except ValueError:
            logger.exception("failed")
        logger.error(ValueError(f"bad {url}"))
    text = caplog.text
    assert "hunter2" not in text and "bob:" not in text
    assert text.count("https://[REDACTED]@shop.example/p?x=1") == 4
    assert "Traceback (most recent call last)" in text
