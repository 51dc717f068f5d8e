import { caught } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { parseHostListUrl } from './parseHostListUrl.js';

describe('parseHostListUrl', () => {
  it.each([
    ['etcd://a:1,b:2/vesta/prod', { endpoints: 'a:1,b:2', root: '/vesta/prod' }],
    ['etcd://a:1/', { endpoints: 'a:1' }],
    ['etcd://a:1', { endpoints: 'a:1' }],
  ])('reads %s', (url, parsed) => {
    expect(parseHostListUrl(url, 'etcd', 'endpoints')).toEqual(parsed);
  });

  it.each(['etcd://', 'zookeeper://a:1', 'etcd://a:1?x=1'])(
    'refuses %j with INVALID_OPTIONS naming the form',
    (url) => {
      const error = caught(() => parseHostListUrl(url, 'etcd', 'endpoints'));
      expect(error.code).toBe('INVALID_OPTIONS');
      expect(error.message).toContain('etcd://host:port[,host:port][/root]');
    },
  );
});
