"""The conventions behind the agreement numbers that the numbers themselves do not show, as a legend."""

from __future__ import annotations

from collections.abc import Sequence

from judging.agreement.inference import PARADOX_KAPPA, PARADOX_P_E, PARADOX_P_O


def conventions(
    *, scale: Sequence[int] | None, negative: str, threshold: int, bootstrap: int, confidence: float
) -> dict[str, str]:
    """``{key: sentence}``: printed with the text report, the ``conventions`` entry of the JSON."""
    pct = f"{100 * confidence:g}%"
    if scale is None:
        weights = (
            "weighted kappa, AC2 and ordinal alpha weigh grades by their POSITION among the grades "
            "seen in each table (a topic's own grades per topic, the pair's over all topics, every grade "
            "given for the group), not by their value: with grades {0,1,3} the "
            "distance 0-1 counts as much as 1-3 (docs/agreement.md#weighted-kappa: linear kappa 0.5294 "
            "there, 0.5205 with --scale 0,1,2,3); "
            "give --scale to weigh by the whole scale"
        )
    else:
        weights = (
            f"weighted kappa, AC2 and ordinal alpha weigh grades by their position on the scale "
            f"{','.join(str(x) for x in scale)} (--scale), unused grades included"
        )
    missing = (
        "negative grades mean pooled but not judged: that assessor did not label the item"
        if negative == "missing"
        else "negative grades are ordinary labels, ordered below 0"
    )
    return {
        "weights": weights,
        "missing": missing
        + "; a pair's statistics use the items both judged (items judged by one are counted, left out); "
        "Fleiss kappa uses the items every assessor judged, Krippendorff alpha those judged by two or "
        "more, the missing-data Fleiss kappa and AC1 (Gwet 2014) every judged item",
        "binary": f"binarized statistics, overlap, PABAK and the prevalence/bias indices: relevant = "
        f"grade >= {threshold}",
        "asymptotic": f"asymptotic SEs: Cohen kappa Fleiss, Cohen & Everitt 1969; pooled kappa, AC1, AC2, "
        f"Fleiss kappa Gwet 2014 linearisation (no finite-population correction); CIs are Wald {pct} "
        "(normal), clipped to the coefficient's range ([-1, 1]; Fleiss kappa [-1/(m-1), 1], m raters); "
        "an SE that is 0 in exact arithmetic prints as 0",
        "tests": "z tests against 0 use the SE under kappa = 0: Fleiss, Cohen & Everitt 1969 (Cohen), "
        "Fleiss, Nee & Landis 1979 (Fleiss, complete items); p two-sided, normal",
        "bootstrap": (
            f"bootstrap: the unit resampled is the TOPIC (with replacement, {bootstrap} resamples), "
            f"percentile {pct} CIs of every pooled reading, Krippendorff alpha's included"
            if bootstrap > 0
            else "no bootstrap (--bootstrap B resamples topics for percentile CIs, Krippendorff alpha's "
            "only CI)"
        ),
        "paradox": f"kappa paradox (Feinstein & Cicchetti 1990): flagged when P_o >= {PARADOX_P_O:g}, "
        f"kappa < {PARADOX_KAPPA:g} and P_e >= {PARADOX_P_E:g} (high agreement, low kappa, because skewed "
        "prevalence makes chance agreement high), for a pair's Cohen kappa, the group's Fleiss kappa and the "
        "binarized table's kappa; then read AC1 and PABAK beside kappa",
        "undefined": "nan / null / — = undefined (no shared item, or P_e = 1: a single category)",
    }
