#!/bin/sh
# Makes sure a real non-JS gRPC client is on this machine: Debian's python3-grpcio, and protoc to
# generate its stubs from the shipped .proto files (packages/cli/src/commands/grpcServer.int.spec.ts).
# The system's python3 (/usr/bin/python3) is the one Debian's packages serve. protoc's well-known
# types (google/protobuf/any.proto, imported by google/rpc/status.proto) come with libprotobuf-dev,
# which protobuf-compiler only recommends: installed without recommends, it is named here.
set -eu
. "$(dirname "$0")/lib/apt.sh"
present() {
  /usr/bin/python3 -c 'import grpc, google.protobuf' >/dev/null 2>&1 && command -v protoc >/dev/null 2>&1 &&
    [ -f /usr/include/google/protobuf/any.proto ]
}
apt_ensure "install python3-grpcio, python3-protobuf, protobuf-compiler and libprotobuf-dev" \
  python3-grpcio python3-protobuf protobuf-compiler libprotobuf-dev
