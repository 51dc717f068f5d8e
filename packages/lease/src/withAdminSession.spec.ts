import { describe, expect, it } from 'vitest';
import { VestaError } from '@vesta/core';
import { withAdminSession } from './LeaseAdmin.js';

/** A session on a connection that records whether it was closed. */
function session(code?: 'ZOOKEEPER_UNAVAILABLE') {
  const connection = { closed: false };
  return {
    connection,
    session: {
      store: 'ZooKeeper',
      ...(code === undefined ? {} : { code }),
      open: () => connection,
      close: (c: typeof connection) => (c.closed = true),
    },
  };
}

describe('withAdminSession', () => {
  it('gives the work its connection and closes it after', async () => {
    const { connection, session: s } = session();
    await expect(withAdminSession(s, async (c) => c === connection)).resolves.toBe(true);
    expect(connection.closed).toBe(true);
  });

  it('passes a VestaError on as it is, and still closes', async () => {
    const { connection, session: s } = session();
    const error = new VestaError('NOT_FOUND', 'machine id 3 is not allocated');
    await expect(withAdminSession(s, () => Promise.reject(error))).rejects.toBe(error);
    expect(connection.closed).toBe(true);
  });

  it('turns any other failure into the session’s code, naming the store, keeping the cause', async () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const failed = await withAdminSession(session('ZOOKEEPER_UNAVAILABLE').session, () =>
      Promise.reject(cause),
    ).catch((e: unknown) => e);
    expect(failed).toMatchObject({
      code: 'ZOOKEEPER_UNAVAILABLE',
      message: 'ZooKeeper request failed: Error: connect ECONNREFUSED 127.0.0.1:1',
      cause,
    });
    const plain = await withAdminSession(session().session, () =>
      Promise.reject(new Error('x')),
    ).catch((e: unknown) => e);
    expect(plain).toMatchObject({ code: 'COORDINATOR_UNAVAILABLE' });
  });
});
