"""TREC file formats (runs, qrels, prels, topics) and the one canonical ranking order. Pure: no Django."""

from trec.errors import FormatError
from trec.order import canonical_order
from trec.prels import MQPrel, StratifiedPrel, read_mq_prel, read_prel, write_mq_prel, write_prel
from trec.qrels import Qrels, read_qrels, write_qrels
from trec.runs import RankedRun, read_run, run_name_from_path, write_run
from trec.topics import Topic, read_topics, write_topics

__all__ = [
    "FormatError",
    "MQPrel",
    "Qrels",
    "RankedRun",
    "StratifiedPrel",
    "Topic",
    "canonical_order",
    "read_mq_prel",
    "read_prel",
    "read_qrels",
    "read_run",
    "read_topics",
    "run_name_from_path",
    "write_mq_prel",
    "write_prel",
    "write_qrels",
    "write_run",
    "write_topics",
]
