"""Pooling: choosing which documents to judge (campaign data and strategies arrive with issue 3)."""
