"""Inter-assessor agreement (docs/agreement.md#overview): pure numpy/scipy, never Django.

- :mod:`~judging.agreement.tables`: statistics of one confusion matrix or rating-count matrix
  (Cohen's and weighted κ with SEs, pooled κ / Scott's π, Gwet's AC1, Krippendorff's α,
  Fleiss' κ, Voorhees overlap, and κ / pooled κ / AC1 of the labels binarized at the threshold);
- :mod:`~judging.agreement.labels`: assessors' (topic, docno, grade) labels and their alignment;
- :mod:`~judging.agreement.report`: per pair and per group, per topic, the three pooled readings
  and the topic bootstrap;
- :mod:`~judging.agreement.systems`: system rankings under each assessor (τ-b, τ_AP);
- :mod:`~judging.agreement.summary`: the whole report and its JSON form.
"""

from judging.agreement.labels import (
    Labels,
    LabelSource,
    Ratings,
    align,
    as_labels,
    labels_from_mapping,
    labels_from_qrels,
    labels_from_triples,
    labels_to_qrels,
)
from judging.agreement.report import (
    BINARY_STATISTICS,
    GROUP_STATISTICS,
    KAPPA_STATISTICS,
    PAIR_STATISTICS,
    READINGS,
    GroupReport,
    GroupTopic,
    Interval,
    PairReport,
    Pooled,
    assessor_pairs,
    group_agreement,
    pair_agreement,
)
from judging.agreement.summary import AgreementReport, BootstrapSettings, agreement_report, report_as_dict
from judging.agreement.systems import DEFAULT_MEASURES, SystemCorrelation, SystemRankings, system_rankings
from judging.agreement.tables import (
    Binary,
    Confusion,
    Kappa,
    Overlap,
    TableAgreement,
    agreement_weights,
    binary_agreement,
    cohen_kappa,
    confusion_matrix,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_table,
    overlap,
    pooled_kappa,
    rating_counts,
    table_agreement,
    table_agreements,
)

__all__ = [
    "BINARY_STATISTICS",
    "DEFAULT_MEASURES",
    "GROUP_STATISTICS",
    "KAPPA_STATISTICS",
    "PAIR_STATISTICS",
    "READINGS",
    "AgreementReport",
    "Binary",
    "BootstrapSettings",
    "Confusion",
    "GroupReport",
    "GroupTopic",
    "Interval",
    "Kappa",
    "LabelSource",
    "Labels",
    "Overlap",
    "PairReport",
    "Pooled",
    "Ratings",
    "SystemCorrelation",
    "SystemRankings",
    "TableAgreement",
    "agreement_report",
    "agreement_weights",
    "align",
    "as_labels",
    "assessor_pairs",
    "binary_agreement",
    "cohen_kappa",
    "confusion_matrix",
    "fleiss_kappa",
    "group_agreement",
    "gwet_ac1",
    "krippendorff_alpha",
    "krippendorff_alpha_table",
    "labels_from_mapping",
    "labels_from_qrels",
    "labels_from_triples",
    "labels_to_qrels",
    "overlap",
    "pair_agreement",
    "pooled_kappa",
    "rating_counts",
    "report_as_dict",
    "system_rankings",
    "table_agreement",
    "table_agreements",
]
