#!/bin/sh
# Copies the Swift runtime libraries a binary loads from the toolchain (libswiftCore,
# Foundation, Dispatch and what they load) into a directory, normally the binary's own: its
# RUNPATH ends in $ORIGIN, so an installed `traffic` runs on a machine without the Swift
# toolchain. The libraries of Debian packages (SQLite, Cairo, libpq, libcurl, libxml2...)
# are not copied: the target installs those packages (docs/operations.md lists them).
#
# usage: dist/copy-swift-runtime.sh BINARY DIRECTORY
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BINARY DIRECTORY" >&2
  exit 64
fi
binary=$1
directory=$2
listed=$(ldd "$binary") || { echo "$0: cannot list the libraries of $binary" >&2; exit 1; }
core=$(printf '%s\n' "$listed" | awk '$1 == "libswiftCore.so" { print $3 }')
if [ -z "$core" ] || [ ! -f "$core" ]; then
  echo "$0: $binary does not load a libswiftCore.so of a toolchain" >&2
  exit 1
fi
runtime=$(dirname "$core")/
# A library found beside the binary already (an install over an install) is left alone.
printf '%s\n' "$listed" | awk -v runtime="$runtime" 'index($3, runtime) == 1 { print $3 }' |
  while read -r library; do
    install -m 644 "$library" "$directory/"
  done
