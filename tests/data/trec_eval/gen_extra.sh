#!/bin/bash
# Regenerate extra/ with a trec_eval 10.0 binary: gen_extra.sh /path/to/trec_eval
# Run from this folder (the command lines name test/...).
set -e
TE=${1:?path to trec_eval}
mkdir -p extra
gunzip -kf test/results.comment.test.gz
grep -v '^#' extra_cases.txt | while IFS=$'\t' read -r out args; do
    # shellcheck disable=SC2086
    "$TE" $args > "$out"
done
rm -f test/results.comment.test
