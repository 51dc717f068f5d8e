import { MAX_SEGMENT_KEY_LENGTH } from '@vesta/core/kit';
import { Command, Option } from 'commander';
import type { SegmentStore } from '@vesta/segment';
import { reportCommandError } from './reportCommandError.js';
import { segmentStoreOf } from './segmentStoreFlag.js';
import { wholeBigFlag } from './wholeFlag.js';

interface StoreFlags {
  store: string;
}

/** Runs `work` on the store of `--store`, closing it whatever happens; errors as `vesta segment: CODE`. */
async function withStore(flags: StoreFlags, work: (store: SegmentStore) => Promise<void>) {
  try {
    const store = await segmentStoreOf(flags.store, '--store');
    try {
      await work(store);
    } finally {
      await store.close();
    }
  } catch (error) {
    reportCommandError('segment', error);
  }
}

function storeOption(command: Command): Command {
  return command.addOption(
    new Option('--store <url>', 'the segment store: postgres://... or redis://...')
      .env('VESTA_SEGMENT_STORE')
      .makeOptionMandatory(),
  );
}

/** `vesta segment`: list, create and set the step of segment mode's keys in a store. */
export function segmentCommand(): Command {
  const keys = storeOption(
    new Command('keys').description("list the keys: name, step, and the next fresh range's start"),
  ).action((flags: StoreFlags) =>
    withStore(flags, async (store) => {
      for (const { key, step, max } of await store.keys()) {
        console.log(JSON.stringify({ key, step, next: String(max) }));
      }
    }),
  );
  const create = storeOption(
    new Command('create')
      .description('create a key (nothing changes when it exists: "created" says which)')
      .argument(
        '<key>',
        `the key: 1 to ${MAX_SEGMENT_KEY_LENGTH} code points without control characters, lone surrogates or noncharacters`,
      )
      .requiredOption(
        '--step <n>',
        'the size of a range claimed at once (the smallest the services ask)',
      )
      .option('--start <n>', 'the first number', '0'),
  ).action((key: string, flags: StoreFlags & { step: string; start: string }) =>
    withStore(flags, async (store) => {
      const step = Number(wholeBigFlag('--step', flags.step, 1n));
      const start = wholeBigFlag('--start', flags.start, 0n);
      const created = await store.createKey(key, { step, start });
      console.log(JSON.stringify({ key, created, step, start: String(start) }));
    }),
  );
  const setStep = storeOption(
    new Command('set-step')
      .description("set a key's step (services take it from their next claim)")
      .argument('<key>', 'the key')
      .argument('<step>', 'the new step'),
  ).action((key: string, rawStep: string, flags: StoreFlags) =>
    withStore(flags, async (store) => {
      const step = Number(wholeBigFlag('the step', rawStep, 1n));
      await store.setStep(key, step);
      console.log(JSON.stringify({ key, step }));
    }),
  );
  return new Command('segment').addCommand(keys).addCommand(create).addCommand(setStep);
}
