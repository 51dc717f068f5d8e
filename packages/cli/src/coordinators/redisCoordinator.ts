import { VestaError } from '@vesta/core';
import { RedisAdmin, RedisMachineIdProvider } from '@vesta/redis';
import type { Coordinator } from './Coordinator.js';

/** `redis://[[user]:password@]host:port[/db][?prefix=p]` → the client's URL and the key prefix. */
function parse(text: string): { url: string; prefix: string | undefined } {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be redis://host:port[/db][?prefix=name], got ${JSON.stringify(text)}`,
      { cause },
    );
  }
  const unknown = [...url.searchParams.keys()].filter((name) => name !== 'prefix');
  if (unknown.length > 0) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator: unknown Redis URL parameter ${unknown.join(', ')} (only prefix)`,
    );
  }
  const prefix = url.searchParams.get('prefix') ?? undefined;
  url.search = '';
  return { url: url.toString(), prefix };
}

/** Redis leases (`@vesta/redis`). */
export const redisCoordinator: Coordinator = {
  schemes: ['redis', 'rediss'],
  form: 'redis://[[user]:password@]host:port[/db][?prefix=name]',
  provider(text, context) {
    const { url, prefix } = parse(text);
    return new RedisMachineIdProvider({
      url,
      key: context.key,
      ...(prefix === undefined ? {} : { prefix }),
      ...(context.stateDir === undefined ? {} : { stateDir: context.stateDir }),
      ...(context.logger === undefined ? {} : { logger: context.logger }),
    });
  },
  admin(text) {
    const { url, prefix } = parse(text);
    return new RedisAdmin({ url, ...(prefix === undefined ? {} : { prefix }) });
  },
};
