import { Snowflake as SapphireSnowflake } from '@sapphire/snowflake';
import FlakeId from 'flake-idgen';
import { Snowflake as NodejsSnowflake } from 'nodejs-snowflake';

/** A generator measured beside ours: each used the way its README shows. */
export interface Peer {
  readonly name: string;
  /** What its own layout allows, as its docs or code state it. */
  readonly capacity: string;
  /** A fresh generator's next id. */
  readonly create: () => () => bigint;
}

const EPOCH_MS = Date.UTC(2025, 0, 1);

export const PEERS: readonly Peer[] = [
  {
    name: '@sapphire/snowflake 3.5 `generate()`',
    capacity: '4,096 per ms (12-bit increment)',
    create: () => {
      const snowflake = new SapphireSnowflake(EPOCH_MS);
      return () => snowflake.generate();
    },
  },
  {
    name: 'flake-idgen 1.4 `next()`',
    capacity: '4,096 per ms (12-bit sequence)',
    create: () => {
      const flake = new FlakeId({ id: 7, epoch: EPOCH_MS });
      // Without a callback next() throws when a millisecond's sequence is used up; retrying
      // is the synchronous caller's only option.
      return () => {
        for (;;) {
          try {
            return flake.next().readBigUInt64BE(0);
          } catch {
            // sequence used up in this millisecond: try again
          }
        }
      };
    },
  },
  {
    name: 'nodejs-snowflake 2.0 `getUniqueID()`',
    capacity: '1,024,000 per s (its docs)',
    create: () => {
      const snowflake = new NodejsSnowflake({ custom_epoch: EPOCH_MS, instance_id: 7 });
      return () => snowflake.getUniqueID() as bigint;
    },
  },
];
