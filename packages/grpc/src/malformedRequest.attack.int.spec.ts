import { credentials, Client, type ServiceError } from '@grpc/grpc-js';
import { silentLogger } from '@vesta/core';
import { createEmbeddedIdService } from '@vesta/embedded';
import { describe, expect, it } from 'vitest';
import { startGrpcServer } from './index.js';

/** A unary call of `method` carrying `bytes` as the request message, as a client of any language can send. */
function rawCall(client: Client, method: string, bytes: Buffer): Promise<ServiceError | Buffer> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/vesta.v1.Vesta/${method}`,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      (error, reply) => resolve(error ?? (reply as Buffer)),
    );
  });
}

describe('a request message that is not protobuf (attack11)', () => {
  it('is INVALID_ARGUMENT with the vesta-code trailer, as every failed call', async () => {
    const ids = await createEmbeddedIdService({ machineId: 9, logger: silentLogger });
    const server = await startGrpcServer({ service: ids, port: 0, logger: silentLogger });
    const client = new Client(server.url, credentials.createInsecure());
    try {
      // Field 1 as a fixed64 cut after 2 of its 8 bytes; a length-delimited field 31 of 255 bytes never sent.
      for (const [method, bytes] of [
        ['ExpId', Buffer.from([0x09, 0x01, 0x02])],
        ['GenId', Buffer.from([0xfa, 0x01, 0xff])],
      ] as const) {
        const error = await rawCall(client, method, bytes);
        expect(error).toBeInstanceOf(Error);
        const { code, details, metadata } = error as ServiceError;
        expect({ method, code, details, vestaCode: metadata.get('vesta-code')[0] }).toEqual({
          method,
          code: 3, // INVALID_ARGUMENT
          details: expect.any(String),
          vestaCode: 'INVALID_ARGUMENT',
        });
      }
    } finally {
      client.close();
      await server.close();
      await ids.close();
    }
  });
});
