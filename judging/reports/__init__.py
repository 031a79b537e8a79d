"""The agreement report, the adjudication queue and its decisions, and the exports' pages and API."""
