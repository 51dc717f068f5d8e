import { VestaError } from '../errors/VestaError.js';
import { describe, expect, it } from 'vitest';
import { coordinatorFailure } from './coordinatorFailure.js';

describe('coordinatorFailure', () => {
  it('keeps a VestaError as it is', () => {
    const error = new VestaError('NOT_FOUND', 'machine id 3 is not allocated');
    expect(coordinatorFailure(error, 'etcd')).toBe(error);
  });

  it('turns anything else into the given code, naming the store and keeping the cause', () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const failure = coordinatorFailure(cause, 'ZooKeeper', 'ZOOKEEPER_UNAVAILABLE');
    expect(failure).toMatchObject({
      code: 'ZOOKEEPER_UNAVAILABLE',
      message: 'ZooKeeper request failed: Error: connect ECONNREFUSED 127.0.0.1:1',
      cause,
    });
    expect(coordinatorFailure('boom', 'etcd').code).toBe('COORDINATOR_UNAVAILABLE');
  });
});
