"""The build: the one typed pass over a tree's skills (lint findings, manifest entries,
lock tables and archive entries from one read of each file) and ``build()`` itself."""
