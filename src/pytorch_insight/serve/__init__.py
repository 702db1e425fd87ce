"""Serving the store to other programs: read-only queries over a window's report (queries.py) and
the Model Context Protocol server that exposes them (mcp_server.py)."""
