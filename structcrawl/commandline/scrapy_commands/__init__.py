"""Scrapy commands of the project (``COMMANDS_MODULE = "structcrawl.commandline.scrapy_commands"``
in ``structcrawl/settings.py``; a project using the add-on may name it too)."""
