"""Judging: the assessor page, assignments, judgments, adjudication, consensus, agreement and exports."""
