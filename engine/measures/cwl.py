"""The C/W/L framework's measures as cwl_eval computes them: INST, INSQ, SDCG, NERR8-NERR11, BPM."""

from __future__ import annotations
