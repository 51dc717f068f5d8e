import { createRequire } from 'node:module';
import { castGrpcError, Etcd3 } from 'etcd3';
import protobuf from 'protobufjs';

/** A key as protobufjs decodes it (revisions are longs: `String()` gives them exactly). */
export interface RawKeyValue {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly modRevision: object;
  readonly createRevision: object;
}

export interface RangeAnswer {
  readonly header: { readonly revision: object };
  readonly kvs: RawKeyValue[];
  readonly count: object;
  readonly more: boolean;
}

export interface TxnAnswer {
  readonly header: { readonly revision: object };
  readonly succeeded: boolean;
  readonly responses: readonly {
    readonly responseRange?: RangeAnswer | null;
    readonly responseTxn?: TxnAnswer | null;
  }[];
}

let proto: protobuf.Root | undefined;

/**
 * The etcd3 client with KV calls of its own, requests and answers as protobufjs objects of etcd's
 * `rpc.proto`: etcd3 converts each key of an answer to a plain object and four strings, three
 * times the CPU of protobufjs's decoding left as it is.
 */
export class EtcdClient extends Etcd3 {
  kvTxn(request: object, deadline: number): Promise<TxnAnswer> {
    return this.#call('Txn', request, deadline);
  }

  kvRange(request: object, deadline: number): Promise<RangeAnswer> {
    return this.#call('Range', request, deadline);
  }

  async #call<T>(method: 'Txn' | 'Range', request: object, deadline: number): Promise<T> {
    proto ??= protobuf.loadSync(createRequire(import.meta.url).resolve('etcd3/proto/rpc.proto'));
    const type = (t: string) => (proto as protobuf.Root).lookupType(`etcdserverpb.${method}${t}`);
    const [req, res] = [type('Request'), type('Response')];
    const body = Buffer.from(req.encode(req.fromObject(request)).finish());
    const answer = await this.pool.withConnection(
      'KV',
      ({ client, metadata }) =>
        new Promise<Buffer>((resolve, reject) => {
          const raw = (b: Buffer) => b;
          client.makeUnaryRequest(
            `/etcdserverpb.KV/${method}`,
            raw,
            raw,
            body,
            metadata,
            { deadline },
            (error, r) =>
              error !== null || r === undefined
                ? reject(castGrpcError(error ?? new Error()))
                : resolve(r),
          );
        }),
    );
    return res.decode(answer) as T;
  }
}
