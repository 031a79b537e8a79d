"""Pooling: which documents to judge. Stored pools and judging queues; pure strategies/ and diagnostics."""
