"""Site spiders. They fetch and yield page items; they extract nothing themselves."""
