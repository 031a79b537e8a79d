"""The campaign kernel: campaigns, topics, runs, documents, members, imported judgments; access; imports."""
