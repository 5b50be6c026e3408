#!/usr/bin/env bash
# Packs what a stopped batch (scripts/device/batch.sh) left in /tmp/batch-TAG into $OUT.
tag=$1
tar -C "/tmp/batch-$tag" -czf "${OUT:-/tmp/out}/bundle-$tag.tgz" . && ls -la "${OUT:-/tmp/out}"
