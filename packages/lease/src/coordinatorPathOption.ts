import { z } from 'zod';

/**
 * A fleet's root in a coordinator's tree of keys or nodes: absolute, no trailing slash, no empty
 * or dot segments (`/vesta`, `/fleets/a`); `what` names it in the error (`an absolute ZooKeeper
 * path`, `a key prefix`).
 */
export function coordinatorPathOption(what: string): z.ZodString {
  const error = `must be ${what} like /vesta or /fleets/a`;
  return z
    .string({ error })
    .refine(
      (value) =>
        /^(\/[A-Za-z0-9._-]+)+$/.test(value) &&
        !value.split('/').some((segment) => segment === '.' || segment === '..'),
      { error },
    );
}
