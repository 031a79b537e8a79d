# The compiled kernels of trec/_kernels.c; trec/kernels.py wraps them.
from collections.abc import Buffer

def read_plain_run(
    raw: Buffer, /
) -> tuple[list[bytes], bytes, int, bytearray, bytearray, bytearray, bytes, bytes] | None: ...
def hash_strings(values: Buffer, width: int, out: Buffer, /) -> None: ...
def join_build(offsets: Buffer, hashes: Buffer, slot_offsets: Buffer, slots: Buffer, /) -> None: ...
def join(
    slot_offsets: Buffer,
    slots: Buffer,
    e_hashes: Buffer,
    e_docnos: Buffer,
    e_width: int,
    e_rels: Buffer,
    q_topics: Buffer,
    q_hashes: Buffer,
    q_docnos: Buffer,
    q_width: int,
    nonpool: int,
    unjudged: int,
    out_rows: Buffer,
    out_grades: Buffer,
    /,
) -> None: ...
