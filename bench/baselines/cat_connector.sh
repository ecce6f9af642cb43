#!/bin/sh
# The connector behind the live row of bench/run.sh: its `read` writes the transcript named by
# CONFORM_BENCH_RECORDS to stdout, so conform reads it from a pipe as from any connector.
# `conform run --only read` with a catalog calls nothing else.
case $1 in
read) exec cat "$CONFORM_BENCH_RECORDS" ;;
*) echo "cat_connector: only read is supported" >&2 && exit 1 ;;
esac
