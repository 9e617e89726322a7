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
