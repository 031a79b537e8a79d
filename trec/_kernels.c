/*
 * trec._kernels: the compiled fast path for reading a run file and joining it with the qrels.
 *
 * It is only a fast path. Python keeps the reference implementation of everything here
 * (trec/arrow_runs.py + trec/runs.py for reading, engine/evaluate.py's JoinIndex for the join),
 * and the tests check that both give the same run, bit for bit, and the same join
 * (tests/trec/test_kernels.py). Whenever a file is not plainly laid out, read_plain_run
 * returns None and the strict tokenizer reads it and words any error with its line.
 *
 * read_plain_run(raw) -> None or a tuple describing the run in canonical order:
 *   - a file is "plain" when every line is exactly six non-empty fields joined by single
 *     spaces and ended by a newline, no byte up to space appears anywhere else, no '#'
 *     appears, and every score matches [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)? with a finite value;
 *   - scores are the correctly rounded doubles of their decimals: m / 10^f when m < 2^53 and
 *     f <= 22 (Clinger's fast path, exact), PyOS_string_to_double otherwise (as float() does);
 *   - the canonical order is trec_eval's: topic ascending by bytes, score descending, docno
 *     descending by strcmp; a docno listed twice in a topic makes the result None (the strict
 *     path then reports it with both line numbers);
 *   - docno hashes equal trec.order.hash_strings.
 *
 * join(...) looks up each (qrels topic, docno) of a run in its topic's open-addressing table
 * of the qrels (built by join_build), confirming each candidate's docno byte for byte.
 *
 * The scans run without the GIL, so threads reading several runs in one process overlap.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define K1 0x9E3779B97F4A7C15ULL
#define K2 0xBF58476D1CE4E5B9ULL
#define TOPIC_MIX 0xD6E8FEB86659FD93ULL
#define MAX_EXACT (1ULL << 53)

static const double POW10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* ------------------------------------------------------------------------------ hashing */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define LITTLE_GNU 1
#endif

static inline uint64_t hash_step(uint64_t h, uint64_t c) {
    uint64_t m = (h ^ c) * K1;
    m ^= m >> 31;
    return m;
}

static inline uint64_t hash_bytes(const unsigned char *p, Py_ssize_t len) {
    /* trec.order.hash_strings: big-endian 8-byte chunks of the zero-padded value; all-zero
       chunks (padding) leave the state unchanged. */
    uint64_t h = 0x51ED27ULL;
    Py_ssize_t i = 0;
#ifdef LITTLE_GNU
    for (; i + 8 <= len; i += 8) {
        uint64_t c;
        memcpy(&c, p + i, 8);
        c = __builtin_bswap64(c);
        if (c != 0) h = hash_step(h, c);
    }
#endif
    for (; i < len; i += 8) {
        uint64_t c = 0;
        for (int k = 0; k < 8; k++) {
            c <<= 8;
            if (i + k < len) c |= p[i + k];
        }
        if (c != 0) h = hash_step(h, c);
    }
    h *= K2;
    h ^= h >> 29;
    return h;
}

/* the first byte at or after p that is a space, a control byte or end */
static inline const unsigned char *field_end(const unsigned char *p, const unsigned char *end) {
#ifdef LITTLE_GNU
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        /* a flag in the lowest byte below 33 (exact for the lowest flagged byte) */
        uint64_t t = (x - 0x2121212121212121ULL) & ~x & 0x8080808080808080ULL;
        if (t) return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p > 32) p++;
    return p;
}

static inline uint64_t mix_slot(uint64_t key) {
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDULL;
    key ^= key >> 33;
    return key;
}

/* ------------------------------------------------------------------------------ reading */

typedef struct {
    double score;
    uint64_t hash;
    uint32_t docno_at;     /* offset of the docno in the buffer */
    uint32_t score_at;     /* offset of the score (read again when it needs float()) */
    int32_t topic;         /* topic index in first-appearance order */
    uint16_t docno_len;
    uint8_t score_len;
    uint8_t slow;          /* the score needs PyOS_string_to_double */
} Line;

typedef struct {
    Py_ssize_t at;
    int32_t len;
} Topic;

typedef struct {
    const unsigned char *buf;
    Py_ssize_t size;
    Line *lines;
    Py_ssize_t n;
    Topic *topics;
    Py_ssize_t ntopics;
    Py_ssize_t cap_topics;
    int32_t *topic_slots;    /* open addressing over topic ids */
    Py_ssize_t topic_mask;
    Py_ssize_t max_docno;
    Py_ssize_t slow;
    Py_ssize_t tag_at, tag_len, last_tag_at, last_tag_len;
} Scan;

static int topic_slots_grow(Scan *s) {
    Py_ssize_t size = (s->topic_mask + 1) * 2;
    int32_t *slots = malloc(sizeof(int32_t) * size);
    if (!slots) return -1;
    for (Py_ssize_t i = 0; i < size; i++) slots[i] = -1;
    for (Py_ssize_t t = 0; t < s->ntopics; t++) {
        uint64_t h = mix_slot(hash_bytes(s->buf + s->topics[t].at, s->topics[t].len));
        Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)(size - 1));
        while (slots[i] >= 0) i = (i + 1) & (size - 1);
        slots[i] = (int32_t)t;
    }
    free(s->topic_slots);
    s->topic_slots = slots;
    s->topic_mask = size - 1;
    return 0;
}

/* the index of topic id [at, at+len), adding it when new; -1 when out of memory */
static int32_t topic_of(Scan *s, Py_ssize_t at, int32_t len) {
    uint64_t h = mix_slot(hash_bytes(s->buf + at, len));
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)s->topic_mask);
    while (s->topic_slots[i] >= 0) {
        Topic *t = &s->topics[s->topic_slots[i]];
        if (t->len == len && memcmp(s->buf + t->at, s->buf + at, len) == 0) return s->topic_slots[i];
        i = (i + 1) & s->topic_mask;
    }
    if (s->ntopics == s->cap_topics) {
        Py_ssize_t cap = s->cap_topics * 2;
        Topic *grown = realloc(s->topics, sizeof(Topic) * cap);
        if (!grown) return -1;
        s->topics = grown;
        s->cap_topics = cap;
    }
    int32_t t = (int32_t)s->ntopics++;
    s->topics[t].at = at;
    s->topics[t].len = len;
    s->topic_slots[i] = t;
    if (2 * s->ntopics > s->topic_mask) {
        if (topic_slots_grow(s) < 0) return -1;
    }
    return t;
}

/* 1 when [p, p+len) is [+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?; the fast value in *out when
   it is exact (no exponent, mantissa < 2^53, at most 22 fraction digits), else *slow = 1 */
static int parse_score(const unsigned char *p, Py_ssize_t len, double *out, int *slow) {
    Py_ssize_t i = 0;
    int neg = 0;
    if (i < len && (p[i] == '+' || p[i] == '-')) {
        neg = p[i] == '-';
        i++;
    }
    uint64_t mant = 0;
    int digits = 0, frac = 0, sig = 0, big = 0;
    while (i < len && p[i] >= '0' && p[i] <= '9') {
        if (mant || p[i] != '0') sig++;
        if (sig > 18) big = 1;
        else mant = mant * 10 + (uint64_t)(p[i] - '0');
        i++;
        digits++;
    }
    if (i < len && p[i] == '.') {
        i++;
        while (i < len && p[i] >= '0' && p[i] <= '9') {
            if (mant || p[i] != '0') sig++;
            if (sig > 18) big = 1;
            else mant = mant * 10 + (uint64_t)(p[i] - '0');
            i++;
            digits++;
            frac++;
        }
    }
    if (digits == 0) return 0;
    int exponent = 0;
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-')) i++;
        Py_ssize_t start = i;
        while (i < len && p[i] >= '0' && p[i] <= '9') i++;
        if (i == start) return 0;
        exponent = 1;
    }
    if (i != len) return 0;
    if (exponent || big || mant > MAX_EXACT || frac > 22) {
        *slow = 1;
        return 1;
    }
    double v = (double)mant / POW10[frac];
    *out = neg ? -v : v;
    *slow = 0;
    return 1;
}

/* Split the buffer into lines of six fields; 0 when it is not plain (or on no memory: -1). */
#ifdef LITTLE_GNU
static const uint64_t POW10I[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* the leading decimal digits (0 to 8) of the 8 bytes at p, and their value */
static inline int digits8(const unsigned char *p, uint64_t *value) {
    uint64_t x;
    memcpy(&x, p, 8);
    /* a flag on every byte that is not '0'..'9' (exact for the lowest flagged byte) */
    uint64_t t = ((x + 0x4646464646464646ULL) | (x - 0x3030303030303030ULL)) & 0x8080808080808080ULL;
    int k = t ? __builtin_ctzll(t) >> 3 : 8;
    if (k == 0) {
        *value = 0;
        return 0;
    }
    if (k < 8) x = (x << (8 * (8 - k))) | (0x3030303030303030ULL >> (8 * k)); /* left-pad with '0' */
    x -= 0x3030303030303030ULL;
    x = (x * 10) + (x >> 8);
    x = (((x & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
         (((x >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
    *value = x;
    return k;
}
#endif

/* parse_score for the usual score, [+-]?\d{0,7}(\.\d{0,7})?, eight bytes at a time; anything
   else (and any score near the end of the buffer) goes to parse_score */
static inline int fast_score(const unsigned char *p, Py_ssize_t len, const unsigned char *end, double *out,
                             int *slow) {
#ifdef LITTLE_GNU
    if (end - p >= 24) {
        Py_ssize_t i = 0;
        int neg = 0;
        if (p[0] == '+' || p[0] == '-') {
            neg = p[0] == '-';
            i = 1;
        }
        uint64_t whole, frac = 0;
        int kw = digits8(p + i, &whole), kf = 0;
        if (kw < 8) {
            i += kw;
            if (i < len && p[i] == '.') {
                kf = digits8(p + i + 1, &frac);
                i += 1 + kf;
            }
            if (kf < 8 && kw + kf > 0 && i == len) {
                double v = (double)(whole * POW10I[kf] + frac) / POW10[kf];
                *out = neg ? -v : v;
                *slow = 0;
                return 1;
            }
        }
    }
#else
    (void)end;
#endif
    return parse_score(p, len, out, slow);
}

/* The line's six fields, checked: each non-empty, single spaces between, a newline after the
   last. sep[] are the positions of the six bytes up to space that end them. */
static inline int line_fields(const unsigned char *buf, Py_ssize_t start, const Py_ssize_t *sep,
                              Py_ssize_t *at, Py_ssize_t *len) {
    Py_ssize_t prev = start;
    for (int f = 0; f < 6; f++) {
        if (sep[f] == prev || buf[sep[f]] != (f < 5 ? ' ' : '\n')) return 0;
        at[f] = prev;
        len[f] = sep[f] - prev;
        prev = sep[f] + 1;
    }
    return 1;
}

/* What a line's fields make of it; 0 when not plain, -1 on no memory. */
static inline int take_line(Scan *s, const unsigned char *buf, Py_ssize_t n, const Py_ssize_t *at,
                            const Py_ssize_t *len, Py_ssize_t *prev_qid_at, int32_t *prev_qid_len,
                            int32_t *prev_topic) {
    Line *ln = &s->lines[n];
    if (len[2] > 65535 || len[4] > 255 || len[0] > 65535) return 0;
    ln->docno_at = (uint32_t)at[2];
    ln->docno_len = (uint16_t)len[2];
    ln->score_at = (uint32_t)at[4];
    ln->score_len = (uint8_t)len[4];
    int slow = 0;
    if (!fast_score(buf + at[4], len[4], buf + s->size, &ln->score, &slow)) return 0;
    ln->slow = (uint8_t)slow;
    s->slow += slow;
    if (len[2] > s->max_docno) s->max_docno = len[2];
    ln->hash = hash_bytes(buf + at[2], len[2]);
    if (*prev_qid_len == len[0] && memcmp(buf + *prev_qid_at, buf + at[0], len[0]) == 0) {
        ln->topic = *prev_topic;
    } else {
        int32_t t = topic_of(s, at[0], (int32_t)len[0]);
        if (t < 0) return -1;
        ln->topic = *prev_topic = t;
        *prev_qid_at = at[0];
        *prev_qid_len = (int32_t)len[0];
    }
    if (n == 0) {
        s->tag_at = at[5];
        s->tag_len = len[5];
    }
    s->last_tag_at = at[5];
    s->last_tag_len = len[5];
    return 1;
}

#if defined(__SSE2__)
/* bit i set when byte block+i is up to space (bits past the end are clear) */
static inline uint64_t separator_mask(const unsigned char *buf, Py_ssize_t block, Py_ssize_t size) {
    const __m128i space = _mm_set1_epi8(32);
    uint64_t mask = 0;
    if (size - block >= 64) {
        for (int k = 0; k < 4; k++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(buf + block + 16 * k));
            __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(x, space), x);
            mask |= (uint64_t)(uint16_t)_mm_movemask_epi8(low) << (16 * k);
        }
        return mask;
    }
    for (Py_ssize_t i = block; i < size; i++)
        if (buf[i] <= 32) mask |= 1ULL << (i - block);
    return mask;
}

/* Split the buffer into lines of six fields; 0 when it is not plain (or on no memory: -1).
   The bytes up to space are found 64 at a time as a bit mask, and each line takes the next six. */
static int scan_lines(Scan *s, const unsigned char *buf, Py_ssize_t size) {
    Py_ssize_t n = 0, prev_qid_at = 0, start = 0, block = 0;
    int32_t prev_qid_len = -1, prev_topic = -1;
    uint64_t mask = separator_mask(buf, 0, size);
    while (start < size) {
        Py_ssize_t sep[6], at[6], len[6];
        for (int f = 0; f < 6; f++) {
            while (mask == 0) {
                block += 64;
                if (block >= size) return 0; /* fewer than six fields on the last line */
                mask = separator_mask(buf, block, size);
            }
            sep[f] = block + __builtin_ctzll(mask);
            mask &= mask - 1;
        }
        if (!line_fields(buf, start, sep, at, len)) return 0;
        int took = take_line(s, buf, n, at, len, &prev_qid_at, &prev_qid_len, &prev_topic);
        if (took <= 0) return took;
        n++;
        start = sep[5] + 1;
    }
    s->n = n;
    return n > 0;
}
#else
static int scan_lines(Scan *s, const unsigned char *buf, Py_ssize_t size) {
    const unsigned char *p = buf, *end = buf + size;
    Py_ssize_t n = 0, prev_qid_at = 0;
    int32_t prev_qid_len = -1, prev_topic = -1;
    while (p < end) {
        Py_ssize_t sep[6], at[6], len[6];
        Py_ssize_t start = p - buf;
        for (int f = 0; f < 6; f++) {
            p = field_end(p, end);
            if (p == end) return 0; /* no newline at the end */
            sep[f] = p - buf;
            p++;
        }
        if (!line_fields(buf, start, sep, at, len)) return 0;
        int took = take_line(s, buf, n, at, len, &prev_qid_at, &prev_qid_len, &prev_topic);
        if (took <= 0) return took;
        n++;
    }
    s->n = n;
    return n > 0;
}
#endif

/* strcmp of two docnos (no NUL inside: bytes are > 32) */
static inline int docno_cmp(const unsigned char *a, int32_t la, const unsigned char *b, int32_t lb) {
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c) return c;
    return (la > lb) - (la < lb);
}

/* <0 when row a comes before row b within a topic: score descending, docno descending */
static inline int canon_cmp(const Scan *s, int32_t a, int32_t b) {
    const Line *x = &s->lines[a], *y = &s->lines[b];
    if (x->score > y->score) return -1;
    if (x->score < y->score) return 1;
    return -docno_cmp(s->buf + x->docno_at, x->docno_len, s->buf + y->docno_at, y->docno_len);
}

/* A stable merge sort of int32 row indices under CMP(scan, a, b) (insertion sort below 16;
   a merge is skipped when the halves are already in order), defined once per comparison so
   that each is inlined. */
#define DEFINE_MERGE_SORT(NAME, CMP)                                                     \
    static void NAME(const Scan *s, int32_t *v, int32_t *tmp, Py_ssize_t n) {            \
        if (n < 16) {                                                                    \
            for (Py_ssize_t i = 1; i < n; i++) {                                         \
                int32_t x = v[i];                                                        \
                Py_ssize_t j = i;                                                        \
                while (j > 0 && CMP(s, x, v[j - 1]) < 0) {                               \
                    v[j] = v[j - 1];                                                     \
                    j--;                                                                 \
                }                                                                        \
                v[j] = x;                                                                \
            }                                                                            \
            return;                                                                      \
        }                                                                                \
        Py_ssize_t h = n / 2;                                                            \
        NAME(s, v, tmp, h);                                                              \
        NAME(s, v + h, tmp, n - h);                                                      \
        if (CMP(s, v[h - 1], v[h]) <= 0) return;                                         \
        memcpy(tmp, v, sizeof(int32_t) * h);                                             \
        Py_ssize_t i = 0, j = h, k = 0;                                                  \
        while (i < h && j < n) v[k++] = CMP(s, v[j], tmp[i]) < 0 ? v[j++] : tmp[i++];   \
        while (i < h) v[k++] = tmp[i++];                                                 \
    }

/* rows of a topic into canonical order */
DEFINE_MERGE_SORT(merge_sort, canon_cmp)

static inline int topic_cmp(const Scan *s, int32_t a, int32_t b) {
    const Topic *x = &s->topics[a], *y = &s->topics[b];
    return docno_cmp(s->buf + x->at, x->len, s->buf + y->at, y->len);
}

/* topic indices sorted by their ids' bytes (ids are distinct) */
DEFINE_MERGE_SORT(sort_topics, topic_cmp)

/* Put the rows in canonical order (perm), topics sorted (order[code] = first-appearance index),
   and look for a docno listed twice in a topic: 1 if one is, 0 if none, -1 on no memory. */
static int order_rows(Scan *s, int32_t *order, int64_t *offsets, int32_t *perm) {
    Py_ssize_t n = s->n, nt = s->ntopics;
    int32_t *code_of = malloc(sizeof(int32_t) * nt);
    int32_t *tmp = malloc(sizeof(int32_t) * ((n > nt ? n : nt) / 2 + 1));
    if (!code_of || !tmp) {
        free(code_of);
        free(tmp);
        return -1;
    }
    for (Py_ssize_t t = 0; t < nt; t++) order[t] = (int32_t)t;
    sort_topics(s, order, tmp, nt);
    for (Py_ssize_t c = 0; c < nt; c++) code_of[order[c]] = (int32_t)c;
    memset(offsets, 0, sizeof(int64_t) * (nt + 1));
    for (Py_ssize_t i = 0; i < n; i++) offsets[code_of[s->lines[i].topic] + 1]++;
    for (Py_ssize_t c = 0; c < nt; c++) offsets[c + 1] += offsets[c];
    int64_t *fill = malloc(sizeof(int64_t) * (nt + 1));
    if (!fill) {
        free(code_of);
        free(tmp);
        return -1;
    }
    memcpy(fill, offsets, sizeof(int64_t) * (nt + 1));
    for (Py_ssize_t i = 0; i < n; i++) perm[fill[code_of[s->lines[i].topic]]++] = (int32_t)i;
    free(fill);
    free(code_of);
    int dup = 0;
    Py_ssize_t longest = 0;
    for (Py_ssize_t c = 0; c < nt; c++) {
        Py_ssize_t a = offsets[c], b = offsets[c + 1];
        if (b - a > longest) longest = b - a;
        int sorted = 1;
        for (Py_ssize_t i = a + 1; i < b; i++) {
            if (canon_cmp(s, perm[i - 1], perm[i]) > 0) {
                sorted = 0;
                break;
            }
        }
        if (!sorted) merge_sort(s, perm + a, tmp, b - a);
    }
    free(tmp);
    /* duplicates: one hash table per topic, sized for the longest topic */
    Py_ssize_t size = 16;
    while (size < 2 * longest) size *= 2;
    int32_t *slots = malloc(sizeof(int32_t) * size);
    if (!slots) return -1;
    for (Py_ssize_t c = 0; c < nt && !dup; c++) {
        Py_ssize_t a = offsets[c], b = offsets[c + 1];
        Py_ssize_t tsize = 16;
        while (tsize < 2 * (b - a)) tsize *= 2;
        for (Py_ssize_t i = 0; i < tsize; i++) slots[i] = -1;
        for (Py_ssize_t i = a; i < b && !dup; i++) {
            const Line *x = &s->lines[perm[i]];
            Py_ssize_t j = (Py_ssize_t)(mix_slot(x->hash) & (uint64_t)(tsize - 1));
            while (slots[j] >= 0) {
                const Line *y = &s->lines[slots[j]];
                if (y->hash == x->hash && y->docno_len == x->docno_len &&
                    memcmp(s->buf + y->docno_at, s->buf + x->docno_at, x->docno_len) == 0) {
                    dup = 1;
                    break;
                }
                j = (j + 1) & (tsize - 1);
            }
            slots[j] = perm[i];
        }
    }
    free(slots);
    return dup;
}

static PyObject *read_plain_run(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t size = view.len;
    PyObject *result = NULL;
    Scan s;
    memset(&s, 0, sizeof(s));
    s.buf = buf;
    s.size = size;
    int32_t *perm = NULL, *order = NULL;
    int64_t *offsets = NULL;
    int ok = 1;
    if (size == 0 || buf[size - 1] != '\n' || memchr(buf, '#', size) != NULL) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    /* a line is at least six one-byte fields and their six separators */
    Py_ssize_t lines = size / 12 + 1;
    if (size >= (Py_ssize_t)UINT32_MAX) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    s.lines = malloc(sizeof(Line) * lines);
    s.cap_topics = 64;
    s.topics = malloc(sizeof(Topic) * s.cap_topics);
    s.topic_mask = 127;
    s.topic_slots = malloc(sizeof(int32_t) * 128);
    if (!s.lines || !s.topics || !s.topic_slots) goto nomem;
    for (int i = 0; i < 128; i++) s.topic_slots[i] = -1;
    int scanned;
    Py_BEGIN_ALLOW_THREADS
    scanned = scan_lines(&s, buf, size);
    Py_END_ALLOW_THREADS
    if (scanned < 0) goto nomem;
    if (scanned == 0) {
        ok = 0;
        goto done;
    }
    /* the scores that are not exact in double arithmetic, as float() parses them */
    if (s.slow) {
        char small[64];
        for (Py_ssize_t i = 0; i < s.n; i++) {
            Line *ln = &s.lines[i];
            if (!ln->slow) continue;
            char *text = ln->score_len < 63 ? small : PyMem_Malloc(ln->score_len + 1);
            if (!text) goto nomem;
            memcpy(text, buf + ln->score_at, ln->score_len);
            text[ln->score_len] = 0;
            char *stop = NULL;
            double v = PyOS_string_to_double(text, &stop, NULL);
            int whole = stop == text + ln->score_len;
            if (text != small) PyMem_Free(text);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                ok = 0;
                goto done;
            }
            if (!whole) {
                ok = 0;
                goto done;
            }
            ln->score = v;
        }
    }
    for (Py_ssize_t i = 0; i < s.n; i++) {
        if (!isfinite(s.lines[i].score)) {
            ok = 0;
            goto done;
        }
    }
    perm = malloc(sizeof(int32_t) * s.n);
    order = malloc(sizeof(int32_t) * s.ntopics);
    offsets = malloc(sizeof(int64_t) * (s.ntopics + 1));
    if (!perm || !order || !offsets) goto nomem;
    int dup;
    Py_BEGIN_ALLOW_THREADS
    dup = order_rows(&s, order, offsets, perm);
    Py_END_ALLOW_THREADS
    if (dup < 0) goto nomem;
    if (dup) {
        ok = 0;
        goto done;
    }
    {
        Py_ssize_t width = s.max_docno > 0 ? s.max_docno : 1;
        PyObject *docnos = PyByteArray_FromStringAndSize(NULL, s.n * width);
        PyObject *scores = PyByteArray_FromStringAndSize(NULL, s.n * (Py_ssize_t)sizeof(double));
        PyObject *hashes = PyByteArray_FromStringAndSize(NULL, s.n * (Py_ssize_t)sizeof(uint64_t));
        PyObject *offs = PyBytes_FromStringAndSize((const char *)offsets, sizeof(int64_t) * (s.ntopics + 1));
        PyObject *topics = PyList_New(s.ntopics);
        if (!docnos || !scores || !hashes || !offs || !topics) {
            Py_XDECREF(docnos);
            Py_XDECREF(scores);
            Py_XDECREF(hashes);
            Py_XDECREF(offs);
            Py_XDECREF(topics);
            goto fail;
        }
        for (Py_ssize_t c = 0; c < s.ntopics; c++) {
            Topic *t = &s.topics[order[c]];
            PyObject *b = PyBytes_FromStringAndSize((const char *)buf + t->at, t->len);
            if (!b) {
                Py_DECREF(docnos);
                Py_DECREF(scores);
                Py_DECREF(hashes);
                Py_DECREF(offs);
                Py_DECREF(topics);
                goto fail;
            }
            PyList_SET_ITEM(topics, c, b);
        }
        char *d = PyByteArray_AS_STRING(docnos);
        double *sc = (double *)PyByteArray_AS_STRING(scores);
        uint64_t *hs = (uint64_t *)PyByteArray_AS_STRING(hashes);
        Py_BEGIN_ALLOW_THREADS
        memset(d, 0, s.n * width);
        for (Py_ssize_t i = 0; i < s.n; i++) {
            const Line *ln = &s.lines[perm[i]];
            memcpy(d + i * width, buf + ln->docno_at, ln->docno_len);
            sc[i] = ln->score;
            hs[i] = ln->hash;
        }
        Py_END_ALLOW_THREADS
        result = Py_BuildValue(
            "(NNnNNNy#y#)", topics, offs, width, docnos, scores, hashes,
            (const char *)buf + s.tag_at, s.tag_len, (const char *)buf + s.last_tag_at, s.last_tag_len);
    }
    goto done;
nomem:
    PyErr_NoMemory();
fail:
    ok = 1;
    result = NULL;
done:
    free(s.lines);
    free(s.topics);
    free(s.topic_slots);
    free(perm);
    free(order);
    free(offsets);
    PyBuffer_Release(&view);
    if (!ok) Py_RETURN_NONE;
    return result;
}

/* ------------------------------------------------------------------------------ judgments */

/* The next separator (a byte up to space) at or after *pos, by the 64-byte masks of scan_lines
   (or byte by byte without SSE2); size when there is none. */
typedef struct {
    const unsigned char *buf;
    Py_ssize_t size, block;
    uint64_t mask;
} Seps;

static inline void seps_init(Seps *it, const unsigned char *buf, Py_ssize_t size) {
    it->buf = buf;
    it->size = size;
    it->block = 0;
#if defined(__SSE2__)
    it->mask = separator_mask(buf, 0, size);
#else
    it->mask = 0;
#endif
}

static inline Py_ssize_t seps_next(Seps *it, Py_ssize_t from) {
#if defined(__SSE2__)
    (void)from;
    while (it->mask == 0) {
        it->block += 64;
        if (it->block >= it->size) return it->size;
        it->mask = separator_mask(it->buf, it->block, it->size);
    }
    Py_ssize_t at = it->block + __builtin_ctzll(it->mask);
    it->mask &= it->mask - 1;
    return at;
#else
    const unsigned char *p = field_end(it->buf + from, it->buf + it->size);
    return p - it->buf;
#endif
}

/* [+-]?\d{1,18} as an int64 */
static inline int parse_grade(const unsigned char *p, Py_ssize_t len, int64_t *out) {
    Py_ssize_t i = 0;
    int neg = 0;
    if (len > 0 && (p[0] == '+' || p[0] == '-')) {
        neg = p[0] == '-';
        i = 1;
    }
    if (len - i < 1 || len - i > 18) return 0;
    int64_t v = 0;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

#define MAX_FIELDS 8

/* One pass over the lines of a file of `fields` fields: 0 when a line is not `fields` non-empty
   fields joined by single spaces and ended by a newline, or field `int_field` is not a grade.
   With `out` NULL it measures (lines, widest value of each field); else it copies the values. */
static Py_ssize_t judgment_pass(const unsigned char *buf, Py_ssize_t size, int fields, int int_field,
                                Py_ssize_t *widths, char **out, int64_t *ints) {
    Seps it;
    seps_init(&it, buf, size);
    Py_ssize_t start = 0, n = 0, pos = 0;
    while (start < size) {
        Py_ssize_t prev = start;
        for (int f = 0; f < fields; f++) {
            Py_ssize_t sep = seps_next(&it, pos);
            if (sep >= size || sep == prev || buf[sep] != (f < fields - 1 ? ' ' : '\n')) return 0;
            Py_ssize_t len = sep - prev;
            if (f == int_field) {
                int64_t v;
                if (!parse_grade(buf + prev, len, &v)) return 0;
                if (ints) ints[n] = v;
            } else if (out) {
                memcpy(out[f] + n * widths[f], buf + prev, len);
            } else if (len > widths[f]) {
                widths[f] = len;
            }
            prev = pos = sep + 1;
        }
        start = prev;
        n++;
    }
    return n;
}

/* read_plain_judgments(raw, fields, int_field) -> None or (rows, [(width, bytearray) or
   bytearray of int64 for int_field, one per field]) */
static PyObject *read_plain_judgments(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    int fields, int_field;
    if (!PyArg_ParseTuple(args, "y*ii", &view, &fields, &int_field)) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t size = view.len;
    if (fields < 1 || fields > MAX_FIELDS || int_field >= fields || size == 0 || buf[size - 1] != '\n' ||
        memchr(buf, '#', size) != NULL) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    Py_ssize_t widths[MAX_FIELDS] = {0};
    Py_ssize_t n;
    Py_BEGIN_ALLOW_THREADS
    n = judgment_pass(buf, size, fields, int_field, widths, NULL, NULL);
    Py_END_ALLOW_THREADS
    if (n == 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    PyObject *columns = PyList_New(fields);
    char *out[MAX_FIELDS] = {0};
    int64_t *ints = NULL;
    if (!columns) goto fail;
    for (int f = 0; f < fields; f++) {
        PyObject *col;
        if (f == int_field) {
            col = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
            if (!col) goto fail;
            ints = (int64_t *)PyByteArray_AS_STRING(col);
            PyList_SET_ITEM(columns, f, col);
        } else {
            PyObject *data = PyByteArray_FromStringAndSize(NULL, n * widths[f]);
            if (!data) goto fail;
            out[f] = PyByteArray_AS_STRING(data);
            memset(out[f], 0, n * widths[f]);
            col = Py_BuildValue("(nN)", widths[f], data);
            if (!col) goto fail;
            PyList_SET_ITEM(columns, f, col);
        }
    }
    Py_BEGIN_ALLOW_THREADS
    judgment_pass(buf, size, fields, int_field, widths, out, ints);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return Py_BuildValue("(nN)", n, columns);
fail:
    Py_XDECREF(columns);
    PyBuffer_Release(&view);
    return NULL;
}

/* ------------------------------------------------------------------------------ joining */

/* join_build(offsets int64[nt+1], hashes uint64[n], slot_offsets int64[nt+1], slots uint64 writable):
   topic t's judgments [offsets[t], offsets[t+1]) go into their own table, slots
   [slot_offsets[t], slot_offsets[t+1]) (a power of two, at least twice the judgments): a run's
   lines come topic by topic, so each topic's probes stay in one small table in the CPU's cache.
   A slot holds the hash's upper 32 bits and the judgment's index + 1 (0 = empty). */
static PyObject *join_build(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ov, hv, sov, sv;
    if (!PyArg_ParseTuple(args, "y*y*y*w*", &ov, &hv, &sov, &sv)) return NULL;
    Py_ssize_t nt = ov.len / 8 - 1, n = hv.len / 8;
    const int64_t *offsets = ov.buf, *so = sov.buf;
    const uint64_t *hashes = hv.buf;
    uint64_t *slots = sv.buf;
    int bad = nt < 0 || sov.len != ov.len || n >= (Py_ssize_t)UINT32_MAX - 1 ||
              (nt >= 0 && (offsets[nt] != n || so[nt] * 8 != sv.len));
    for (Py_ssize_t t = 0; !bad && t < nt; t++) {
        int64_t size = so[t + 1] - so[t];
        if (offsets[t] > offsets[t + 1] || (size & (size - 1)) || size < 2 * (offsets[t + 1] - offsets[t]))
            bad = 1;
    }
    if (!bad) {
        Py_BEGIN_ALLOW_THREADS
        memset(slots, 0, sv.len);
        for (Py_ssize_t t = 0; t < nt; t++) {
            uint64_t *table = slots + so[t];
            uint64_t mask = (uint64_t)(so[t + 1] - so[t]) - 1;
            for (int64_t e = offsets[t]; e < offsets[t + 1]; e++) {
                uint64_t j = hashes[e] & mask;
                while (table[j]) j = (j + 1) & mask;
                table[j] = (hashes[e] & 0xFFFFFFFF00000000ULL) | (uint64_t)(e + 1);
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&ov);
    PyBuffer_Release(&hv);
    PyBuffer_Release(&sov);
    PyBuffer_Release(&sv);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "join_build: mismatched arrays");
        return NULL;
    }
    Py_RETURN_NONE;
}

static inline int same_docno(const unsigned char *a, Py_ssize_t wa, const unsigned char *b, Py_ssize_t wb) {
    /* equal as NUL-padded fixed-width values of widths wa and wb */
    Py_ssize_t w = wa < wb ? wa : wb, i = 0;
#ifdef LITTLE_GNU
    for (; i + 8 <= w; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return 0;
    }
#endif
    for (; i < w; i++)
        if (a[i] != b[i]) return 0;
    for (i = w; i < wa; i++)
        if (a[i]) return 0;
    for (i = w; i < wb; i++)
        if (b[i]) return 0;
    return 1;
}

/* join(slot_offsets, slots, e_hashes, e_docnos, e_width, e_rels, q_topics, q_hashes, q_docnos,
        q_width, nonpool, unjudged, out_rows writable, out_grades writable): out_rows[i] = the
   judgment whose topic and docno equal query i's, -1 where none does (a query topic < 0
   matches nothing); out_grades[i] its grade, unjudged when it is negative, nonpool when absent */
static PyObject *join(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sov, sv, ehv, edv, erv, qtv, qhv, qdv, orv, ogv;
    Py_ssize_t ew, qw;
    long long nonpool, unjudged;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ny*y*y*y*nLLw*w*", &sov, &sv, &ehv, &edv, &ew, &erv, &qtv, &qhv,
                          &qdv, &qw, &nonpool, &unjudged, &orv, &ogv))
        return NULL;
    Py_ssize_t nt = sov.len / 8 - 1;
    Py_ssize_t ne = ehv.len / 8;
    Py_ssize_t nq = qtv.len / 8;
    int bad = nt < 0 || ew < 1 || edv.len != ne * ew || erv.len != ne * 8 || qhv.len != nq * 8 || qw < 1 ||
              qdv.len != nq * qw || orv.len != nq * 8 || ogv.len != nq * 8 ||
              (nt >= 0 && ((const int64_t *)sov.buf)[nt] * 8 != sv.len);
    if (!bad) {
        const int64_t *so = sov.buf, *qt = qtv.buf, *er = erv.buf;
        const uint64_t *slots = sv.buf, *qh = qhv.buf;
        const unsigned char *ed = edv.buf, *qd = qdv.buf;
        int64_t *rows = orv.buf, *grades = ogv.buf;
        Py_BEGIN_ALLOW_THREADS
        /* A run's lines come topic by topic: each stretch of one topic probes that topic's
           table only (small enough to stay in the CPU's cache once touched). The slot of the
           line AHEAD lines on is prefetched, so the first touches of a table overlap. */
        enum { AHEAD = 16 };
        Py_ssize_t i = 0;
        while (i < nq) {
            int64_t t = qt[i];
            Py_ssize_t end = i + 1;
            while (end < nq && qt[end] == t) end++;
            if (t < 0 || t >= nt || so[t + 1] == so[t]) {
                for (; i < end; i++) {
                    rows[i] = -1;
                    grades[i] = nonpool;
                }
                continue;
            }
            const uint64_t *table = slots + so[t];
            const uint64_t mask = (uint64_t)(so[t + 1] - so[t]) - 1;
            const int same_width = ew == qw;
            for (; i < end; i++) {
                if (i + AHEAD < end) __builtin_prefetch(table + (qh[i + AHEAD] & mask));
                int64_t found = -1;
                uint64_t h = qh[i], j = h & mask, slot;
                const unsigned char *want = qd + i * qw;
                while ((slot = table[j]) != 0) {
                    if ((slot >> 32) == (h >> 32)) {
                        int64_t e = (int64_t)(slot & 0xFFFFFFFFULL) - 1;
                        if (same_width ? memcmp(ed + e * ew, want, (size_t)ew) == 0
                                       : same_docno(ed + e * ew, ew, want, qw)) {
                            found = e;
                            break;
                        }
                    }
                    j = (j + 1) & mask;
                }
                rows[i] = found;
                grades[i] = found < 0 ? nonpool : (er[found] < 0 ? unjudged : er[found]);
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&sov);
    PyBuffer_Release(&sv);
    PyBuffer_Release(&ehv);
    PyBuffer_Release(&edv);
    PyBuffer_Release(&erv);
    PyBuffer_Release(&qtv);
    PyBuffer_Release(&qhv);
    PyBuffer_Release(&qdv);
    PyBuffer_Release(&orv);
    PyBuffer_Release(&ogv);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "join: mismatched arrays");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *hash_strings(PyObject *self, PyObject *args) {
    (void)self;
    /* hash_strings(values bytes, width, out uint64 writable): trec.order.hash_strings of
       NUL-padded fixed-width values */
    Py_buffer vv, ov;
    Py_ssize_t w;
    if (!PyArg_ParseTuple(args, "y*nw*", &vv, &w, &ov)) return NULL;
    Py_ssize_t n = ov.len / 8;
    int bad = w < 1 || vv.len != n * w;
    if (!bad) {
        const unsigned char *v = vv.buf;
        uint64_t *out = ov.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n; i++) {
            const unsigned char *p = v + i * w;
            Py_ssize_t len = w;
            while (len > 0 && p[len - 1] == 0) len--;
            /* a NUL inside the value: hash_strings skips zero chunks, which hash_bytes
               reproduces chunk by chunk */
            out[i] = hash_bytes(p, len);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&vv);
    PyBuffer_Release(&ov);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "hash_strings: mismatched arrays");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* rel_sums(rel int64, offsets int64 (topics + 1), level, nonpool, num_rel int64, num_nonrel int64,
            disc float64, cutoffs int64 ascending, infap_eps, out float64 writable (7 + 2 * cutoffs) x topics):
   the standard measures' per-topic sums in one pass over a run's judgments, topic t owning
   rel[offsets[t]:offsets[t+1]] in rank order, nonpool the grade of a document absent from the
   qrels (any other negative grade is pooled but unjudged). Rows of out:
     0 AP's Σ ordinal/rank      1 bpref's Σ term        2 infAP's Σ term     3 DCG (rel > 0)
     4 relevant retrieved       5 rank of the first relevant (0: none)   6 relevant in the top R
     7 + j  relevant in the top cutoffs[j]      7 + nc + j  DCG of the top cutoffs[j]
   Every term is the numpy kernel's own expression (engine/measures/trec_eval.py), in the same
   order of operations, and each sum adds its terms in rank order as np.bincount does, so every
   value equals the numpy path's bit for bit; disc[r] is numpy's log2(r + 1) and infap_eps infAP's
   epsilon (engine/measures/base.py INFAP_EPSILON), both passed in: no measure's constant lives here. */
static PyObject *rel_sums(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer rv, ov, nrv, nnv, dv, cv, outv;
    long long level, nonpool;
    double eps;
    if (!PyArg_ParseTuple(args, "y*y*LLy*y*y*y*dw*", &rv, &ov, &level, &nonpool, &nrv, &nnv, &dv, &cv, &eps, &outv))
        return NULL;
    Py_ssize_t nt = ov.len / 8 - 1, n = rv.len / 8, nd = dv.len / 8, nc = cv.len / 8;
    const int64_t *rel = rv.buf, *offsets = ov.buf, *numrel = nrv.buf, *numnonrel = nnv.buf, *cut = cv.buf;
    const double *disc = dv.buf;
    double *out = outv.buf;
    int bad = nt < 0 || nrv.len != nt * 8 || nnv.len != nt * 8 || outv.len != (7 + 2 * nc) * nt * 8 ||
              (nt >= 0 && (offsets[0] != 0 || offsets[nt] != n));
    for (Py_ssize_t t = 0; !bad && t < nt; t++)
        if (offsets[t] > offsets[t + 1] || offsets[t + 1] - offsets[t] >= nd) bad = 1;
    for (Py_ssize_t j = 0; !bad && j < nc; j++)
        if (cut[j] < 1 || (j > 0 && cut[j] <= cut[j - 1])) bad = 1;
    if (!bad) {
        Py_BEGIN_ALLOW_THREADS
        const double eps2 = 2 * eps;
        for (Py_ssize_t t = 0; t < nt; t++) {
            const double R = (double)numrel[t], N = (double)numnonrel[t];
            const double minNR = N < R ? N : R;
            const int64_t Ri = numrel[t];
            double ap = 0.0, bpref = 0.0, infap = 0.0, dcg = 0.0, first = 0.0, at_R = 0.0;
            int64_t ordinal = 0, nonrel_above = 0, pooled_above = 0;
            Py_ssize_t j = 0; /* the next cutoff not yet passed */
            const int64_t start = offsets[t], end = offsets[t + 1];
            for (int64_t i = start; i < end; i++) {
                const int64_t r = rel[i], rank = i - start + 1;
                while (j < nc && rank > cut[j]) { /* the top cut[j] are summed: keep them */
                    out[(7 + j) * nt + t] = (double)ordinal;
                    out[(7 + nc + j) * nt + t] = dcg;
                    j++;
                }
                if (rank == Ri + 1) at_R = (double)ordinal;
                if (r >= level) {
                    ordinal++;
                    if (ordinal == 1) first = (double)rank;
                    ap += (double)ordinal / (double)rank;
                    const double na = (double)nonrel_above;
                    bpref += nonrel_above > 0 ? 1.0 - (na < R ? na : R) / minNR : 1.0;
                    if (rank == 1) {
                        infap += 1.0;
                    } else {
                        const double fj = (double)(rank - 1), ra = (double)(ordinal - 1);
                        infap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((double)pooled_above / fj) *
                                                         ((ra + eps) / (ra + na + eps2));
                    }
                } else if (r >= 0) {
                    nonrel_above++;
                }
                if (r > 0) dcg += (double)r / disc[rank];
                if (r != nonpool) pooled_above++;
            }
            if (end - start <= Ri) at_R = (double)ordinal;
            for (; j < nc; j++) {
                out[(7 + j) * nt + t] = (double)ordinal;
                out[(7 + nc + j) * nt + t] = dcg;
            }
            out[0 * nt + t] = ap;
            out[1 * nt + t] = bpref;
            out[2 * nt + t] = infap;
            out[3 * nt + t] = dcg;
            out[4 * nt + t] = (double)ordinal;
            out[5 * nt + t] = first;
            out[6 * nt + t] = Ri > 0 ? at_R : 0.0;
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&rv);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&nrv);
    PyBuffer_Release(&nnv);
    PyBuffer_Release(&dv);
    PyBuffer_Release(&cv);
    PyBuffer_Release(&outv);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "rel_sums: mismatched arrays");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"read_plain_run", read_plain_run, METH_VARARGS,
     "read_plain_run(raw) -> (topics, offsets, width, docnos, scores, hashes, tag, runid) or None"},
    {"read_plain_judgments", read_plain_judgments, METH_VARARGS,
     "read_plain_judgments(raw, fields, int_field) -> (rows, columns) or None"},
    {"join_build", join_build, METH_VARARGS, "join_build(offsets, hashes, slot_offsets, slots): fill the join tables"},
    {"join", join, METH_VARARGS, "join(slot_offsets, slots, e_hashes, e_docnos, e_width, e_rels, q_topics, q_hashes, q_docnos, q_width, nonpool, unjudged, out_rows, out_grades)"},
    {"hash_strings", hash_strings, METH_VARARGS, "hash_strings(values, width, out)"},
    {"rel_sums", rel_sums, METH_VARARGS,
     "rel_sums(rel, offsets, level, nonpool, num_rel, num_nonrel, disc, cutoffs, infap_eps, out): the standard measures' sums"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "trec._kernels",
    "Compiled fast paths for reading runs and joining them with qrels (see trec/kernels.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
