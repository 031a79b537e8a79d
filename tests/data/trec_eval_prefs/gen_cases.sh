#!/bin/sh
# Regenerate generated/<case>.out.gz with trec_eval 10.0: sh gen_cases.sh /path/to/trec_eval
# (run in this folder; gzipped inputs are decompressed to a temporary folder first, since
# trec_eval reads plain text only).
set -e
TE=${1:?usage: gen_cases.sh /path/to/trec_eval}
TMP=$(mktemp -d)
mkdir -p "$TMP/test" generated
cp ../trec_eval/test/* "$TMP/test/"   # trec_eval's own test files, kept once with the quicktest suite
for f in test/*; do
  case "$f" in *.gz) gzip -dc "$f" > "$TMP/${f%.gz}" ;; *) cp "$f" "$TMP/$f" ;; esac
done
grep -v '^#' cases.txt | while IFS='	' read -r name args expected; do
  [ -n "$expected" ] && continue
  (cd "$TMP" && $TE $(echo "$args" | sed 's/\.gz//g')) | gzip -9 -n > "generated/$name.out.gz"
done
rm -rf "$TMP"
