import { VestaError } from '@vesta/core';
import type { Issue } from './startIdLoad.js';

/** What issues ids over TCP: an `IdClient` (genId/genIds) or a raw `ProtocolConnection`. */
export type TcpIdSource =
  | { genId(): Promise<bigint>; genIds(count: number): Promise<bigint[]> }
  | { generateOne(): Promise<bigint>; generate(count: number): Promise<bigint[]> };

/** The error code of a failed call; a client's NO_SERVER_AVAILABLE names the server's reason too. */
function codeOf(error: unknown): string {
  if (!VestaError.is(error)) throw error;
  return VestaError.is(error.cause) ? `${error.code}<-${error.cause.code}` : error.code;
}

/**
 * Test helper: requests through `source`, alternating one id and a batch of `batch` ids; a
 * failed call's outcome is its VestaError code, anything else is thrown (a network failure).
 */
export function tcpIssue(source: TcpIdSource, batch: number): Issue {
  return async (round) => {
    try {
      if ('genIds' in source) {
        return round % 2 === 0
          ? { ids: [String(await source.genId())] }
          : { ids: (await source.genIds(batch)).map(String) };
      }
      return round % 2 === 0
        ? { ids: [String(await source.generateOne())] }
        : { ids: (await source.generate(batch)).map(String) };
    } catch (error) {
      return { error: codeOf(error) };
    }
  };
}
