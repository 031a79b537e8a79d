"""The assessor's judging page and API: my assignments, the documents to read, judgments saved at once."""
