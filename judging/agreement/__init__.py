"""Inter-assessor agreement (docs/agreement.md#overview): pure numpy/scipy, never Django.

- :mod:`~judging.agreement.tables`: statistics of one confusion matrix or rating-count matrix
  (Cohen's and weighted κ with SEs, pooled κ / Scott's π, Gwet's AC1, Krippendorff's α,
  Fleiss' κ, Voorhees overlap, and κ / pooled κ / AC1 of the labels binarized at the threshold);
- :mod:`~judging.agreement.inference`: Gwet's (2014) SEs of pooled κ, AC1/AC2 and Fleiss' κ (missing
  ratings allowed), z tests of κ against 0, PABAK and the prevalence and bias indices;
- :mod:`~judging.agreement.multi`: Light's and Conger's κ, Krippendorff's α at interval/ratio level;
- :mod:`~judging.agreement.conventions`: the legend of conventions printed with every report;
- :mod:`~judging.agreement.labels`: assessors' (topic, docno, grade) labels and their alignment;
- :mod:`~judging.agreement.report`: per pair and per group, per topic, the three pooled readings
  and the topic bootstrap;
- :mod:`~judging.agreement.systems`: system rankings under each assessor (τ-b, τ_AP);
- :mod:`~judging.agreement.summary`: the whole report and its JSON form;
- :mod:`~judging.agreement.summary_table`: the summary table every report leads with.
"""

from judging.agreement.conventions import conventions
from judging.agreement.inference import (
    Estimate,
    GroupInference,
    NullTest,
    PairInference,
    Prevalence,
    cohen_null_test,
    fleiss_null_test,
    gwet_raw,
    pabak,
    prevalence,
    units_of_table,
)
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
from judging.agreement.multi import (
    conger_kappa,
    krippendorff_alpha_values,
    krippendorff_alpha_values_table,
    light_kappa,
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
from judging.agreement.summary_table import SummaryRow, SummaryStat, summary_dict, summary_rows
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
    "Estimate",
    "GroupInference",
    "GroupReport",
    "GroupTopic",
    "Interval",
    "Kappa",
    "LabelSource",
    "Labels",
    "NullTest",
    "Overlap",
    "PairInference",
    "PairReport",
    "Pooled",
    "Prevalence",
    "Ratings",
    "SummaryRow",
    "SummaryStat",
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
    "cohen_null_test",
    "confusion_matrix",
    "conger_kappa",
    "conventions",
    "fleiss_kappa",
    "fleiss_null_test",
    "group_agreement",
    "gwet_ac1",
    "gwet_raw",
    "krippendorff_alpha",
    "krippendorff_alpha_table",
    "krippendorff_alpha_values",
    "krippendorff_alpha_values_table",
    "labels_from_mapping",
    "labels_from_qrels",
    "labels_from_triples",
    "labels_to_qrels",
    "light_kappa",
    "overlap",
    "pabak",
    "pair_agreement",
    "pooled_kappa",
    "prevalence",
    "rating_counts",
    "report_as_dict",
    "summary_dict",
    "summary_rows",
    "system_rankings",
    "table_agreement",
    "table_agreements",
    "units_of_table",
]
