"""Operations: deploying to scrapyd (:mod:`.deploy`) and scheduled crawls (:mod:`.schedule`,
with cron expressions, schedule files and a small scrapyd client)."""
