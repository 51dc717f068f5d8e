"""A Python gRPC client (Debian's python3-grpcio, gRPC C-core) that never reads its stream.

Usage: stalled_reader.py TARGET. Starts GenIds(10,000,000) and reads none of it: what the server
issues goes to C-core's receive window. Prints "started" once the call is made, then waits until
its stdin closes (the spec kills it).
"""

import sys

import grpc

channel = grpc.insecure_channel(sys.argv[1])
gen_ids = channel.unary_stream("/vesta.v1.Vesta/GenIds")
# GenIdsRequest { count: 10000000 }, bytes as protoc writes them: field 1, varint.
call = gen_ids(b"\x08\x80\xad\xe2\x04")
print("started", flush=True)
sys.stdin.read()
call.cancel()
