"""The evaluation engine: measures, evaluation, significance and estimates over plain Python and numpy.

Pure: imports only ``trec`` and the scientific stack, never Django, so notebooks and the command
line use it without settings. See docs/measures.md and docs/architecture.md.
"""
