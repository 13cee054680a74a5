#!/usr/bin/env bash
# Regenerates the checked-in Java of kvstore.thrift (package org.kvstore.thrift) with the Debian
# thrift-compiler 0.17.0 (apt-get install thrift-compiler). ThriftGeneratedCodeTest runs this
# generator into target/ and fails when the checked-in code differs.
#   generate.sh [OUTPUT_JAVA_ROOT]    default: kvstore-server/src/main/java
# Python bindings for a client: thrift --gen py -out DIR kvstore.thrift (see docs/thrift.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../java}"
# libthrift 0.20 is the newest runtime that 0.17-generated code compiles against (CLIENTS.md 7.4);
# the @Generated annotation is suppressed because JDK 17 has no javax.annotation.
gen="java:generated_annotations=suppress"
version="$(thrift --version)"
if [[ "$version" != "Thrift version 0.17.0" ]]; then
  echo "generate.sh: need thrift 0.17.0 (Debian thrift-compiler), found: $version" >&2
  exit 1
fi
rm -rf "$out/org/kvstore/thrift"
mkdir -p "$out"
thrift --gen "$gen" -out "$out" "$here/kvstore.thrift"
