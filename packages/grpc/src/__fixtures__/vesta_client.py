"""A gRPC client of the Vesta service in Python (Debian's python3-grpcio), for the suite.

Usage: vesta_client.py TARGET STUBS_DIR. STUBS_DIR holds the modules protoc generated from the
package's proto/ (vesta/v1, google/rpc) and grpc-health-check's health/v1. Prints one JSON
object with what each call answered; the spec checks it against the server.
"""

import json
import sys

sys.path.insert(0, sys.argv[2])

import grpc  # noqa: E402
from google.rpc import error_details_pb2, status_pb2  # noqa: E402
from health.v1 import health_pb2  # noqa: E402
from vesta.v1 import vesta_pb2  # noqa: E402

P = "/vesta.v1.Vesta/"


def unary(channel, method, request, response):
    return channel.unary_unary(
        P + method,
        request_serializer=request.SerializeToString,
        response_deserializer=response.FromString,
    )


def streamed(channel, method, request, response):
    return channel.unary_stream(
        P + method,
        request_serializer=request.SerializeToString,
        response_deserializer=response.FromString,
    )


def failure(call):
    """The status, the trailer vesta-code and the ErrorInfo of a failed call."""
    try:
        call()
    except grpc.RpcError as error:
        trailers = dict(error.trailing_metadata() or ())
        status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
        info = error_details_pb2.ErrorInfo()
        status.details[0].Unpack(info)
        return {
            "status": error.code().name,
            "vestaCode": trailers.get("vesta-code"),
            "reason": info.reason,
            "domain": info.domain,
            "typeUrl": status.details[0].type_url,
        }
    return None


def main():
    channel = grpc.insecure_channel(sys.argv[1])
    out = {}
    gen_id = unary(channel, "GenId", vesta_pb2.GenIdRequest, vesta_pb2.GenIdResponse)
    out["id"] = str(gen_id(vesta_pb2.GenIdRequest()).id)

    ids = []
    messages = 0
    gen_ids = streamed(channel, "GenIds", vesta_pb2.GenIdsRequest, vesta_pb2.IdBatch)
    for batch in gen_ids(vesta_pb2.GenIdsRequest(count=50000)):
        messages += 1
        ids.extend(batch.ids)
    out["ids"] = {
        "count": len(ids),
        "messages": messages,
        "unique": len(set(ids)),
        "increasing": all(a < b for a, b in zip(ids, ids[1:])),
        "first": str(ids[0]),
        "last": str(ids[-1]),
    }

    gen_uuid = unary(channel, "GenUuid", vesta_pb2.GenUuidRequest, vesta_pb2.GenUuidResponse)
    uuid = gen_uuid(vesta_pb2.GenUuidRequest())
    out["uuid"] = {"text": uuid.uuid, "bytes": uuid.value.hex()}
    uuids = []
    gen_uuids = streamed(channel, "GenUuids", vesta_pb2.GenUuidsRequest, vesta_pb2.UuidBatch)
    for batch in gen_uuids(vesta_pb2.GenUuidsRequest(count=5000)):
        uuids.extend(batch.uuids)
    out["uuids"] = {
        "count": len(uuids),
        "unique": len(set(uuids)),
        "increasing": all(a < b for a, b in zip(uuids, uuids[1:])),
        "last": uuids[-1],
    }

    exp_uuid = unary(channel, "ExpUuid", vesta_pb2.ExpUuidRequest, vesta_pb2.ExpUuidResponse)
    fields = exp_uuid(vesta_pb2.ExpUuidRequest(uuid=uuid.uuid))
    out["uuidFields"] = {
        "version": fields.version,
        "vesta": fields.vesta,
        "machine": fields.machine,
        "genMethod": fields.gen_method,
        "hasCounter": fields.HasField("counter"),
    }

    exp_id = unary(channel, "ExpId", vesta_pb2.ExpIdRequest, vesta_pb2.ExpIdResponse)
    decoded = exp_id(vesta_pb2.ExpIdRequest(id=ids[-1]))
    out["decoded"] = {
        "id": str(decoded.id),
        "machine": decoded.machine,
        "seq": decoded.seq,
        "time": str(decoded.time),
        "genMethod": decoded.gen_method,
        "type": decoded.type,
        "version": decoded.version,
        "date": decoded.date,
    }
    make_id = unary(channel, "MakeId", vesta_pb2.MakeIdRequest, vesta_pb2.MakeIdResponse)
    out["made"] = str(make_id(vesta_pb2.MakeIdRequest(time=5, seq=3)).id)
    trans_time = unary(channel, "TransTime", vesta_pb2.TransTimeRequest, vesta_pb2.TransTimeResponse)
    out["transTime"] = trans_time(vesta_pb2.TransTimeRequest(time=90)).date
    info = unary(channel, "Info", vesta_pb2.InfoRequest, vesta_pb2.InfoResponse)
    reply = info(vesta_pb2.InfoRequest())
    out["info"] = {"machine": reply.machine, "genMethod": reply.gen_method, "typeName": reply.type_name}

    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    serving = health_pb2.HealthCheckResponse.ServingStatus.Name
    out["health"] = {
        name: serving(check(health_pb2.HealthCheckRequest(service=name)).status)
        for name in ("", "vesta.v1.Vesta")
    }

    out["errors"] = {
        "zeroCount": failure(lambda: list(gen_ids(vesta_pb2.GenIdsRequest(count=0)))),
        "unknownGenerator": failure(lambda: gen_id(vesta_pb2.GenIdRequest(generator="orders"))),
        "machineOutOfRange": failure(
            lambda: make_id(vesta_pb2.MakeIdRequest(time=5, seq=3, machine=5000))
        ),
    }
    print(json.dumps(out))


main()
