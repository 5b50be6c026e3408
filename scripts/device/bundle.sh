#!/usr/bin/env bash
# Packs what a stopped batch (scripts/device/batch.sh) left in /tmp/batch-TAG into $OUT, with the
# journals of resumable runs (/tmp/fs-NAME), so that a run cut off by the call's limit loses nothing.
tag=$1
for j in /tmp/fs-*/run.json.journal.jsonl; do
  [[ -f $j ]] && mkdir -p "/tmp/batch-$tag/journals" && cp "$j" "/tmp/batch-$tag/journals/$(basename "$(dirname "$j")").journal.jsonl"
done
tar -C "/tmp/batch-$tag" -czf "${OUT:-/tmp/out}/bundle-$tag.tgz" . && ls -la "${OUT:-/tmp/out}"
