import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { IdConverter, IdType } from '@vesta/core';
import { sleep } from '@vesta/core/kit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { compiledFixture, FIXTURE_EXEC_ARGV, seeded } from '@vesta/testkit';
import { ZooKeeperAdmin } from './ZooKeeperAdmin.js';
import { eventually, testRoot } from './testing/zkTestKit.js';

const connect = inject('zookeeperConnect');
const REPO = resolve(import.meta.dirname, '../../..');
const SCRIPT = join(import.meta.dirname, 'testing/crashInstance.ts');
const SEED = Number(process.env['VESTA_CRASH_SEED'] ?? 0x5eed);
/** Machine ids 0-2 for 3 first instances plus, per round, a refused start and 1-2 replacements. */
const IDS = 3;
const ROUNDS = 4;
const TIMING = { sessionMs: 1200, refreshMs: 150, fenceMs: 600, reclaimMs: 2400 } as const;
/** Room for the starts' estimate of ZooKeeper's clock, on top of the reclaim delay. */
const RECLAIM_MARGIN_MS = 300;
/** From the last kill of a round to the replacements' start, about: the reclaim delay and the
 * margin. The live nodes go earlier, with the sessions (1.2 s). */
const RECLAIM_WAIT_MS = TIMING.reclaimMs + RECLAIM_MARGIN_MS;
/**
 * A replacement's clock runs this far behind its dead predecessor's: at its start its clock
 * still reads a time before the predecessor's last ids, so only the carried-over time mark
 * keeps its ids above them (the order check would pass by the host's clock alone otherwise).
 */
const BEHIND_MS = RECLAIM_WAIT_MS + 500;
/** The clocks set behind add up over the rounds; ZooKeeper's skew check must let them start. */
const MAX_SKEW_MS = (ROUNDS + 1) * BEHIND_MS;
const LOAD_TIMEOUT_MS = 20_000;
const START_TIMEOUT_MS = 10_000;
const converter = IdConverter.standard(0, IdType.MIN_GRANULARITY);

type Outcome = { readonly machineId: number } | { readonly refused: string };

/** One instance process and everything it said. */
interface Instance {
  readonly n: number;
  readonly child: ChildProcess;
  readonly ids: bigint[];
  /** Loaded, waiting for `go`. */
  readonly ready: Promise<void>;
  /** Its first ids were read. */
  readonly issued: Promise<void>;
  /** Its machine id, or the code it was refused with. */
  readonly outcome: Promise<Outcome>;
  readonly exited: Promise<void>;
  machineId: number | undefined;
  /** How the provider got the id: fresh, reclaimed... */
  how: string | undefined;
  /** performance.now() of its `lease` line, and of its exit (or `lost` line). */
  liveFrom: number;
  liveUntil: number;
  /** Told to start, and its clock minus the host's then. */
  started: boolean;
  offsetMs: number;
  lost: boolean;
  /** How it ended: `SIGKILL` (ours), `code 3` (refused), anything else is a failure. */
  exit: string | undefined;
  stderr: string;
}

const instances: Instance[] = [];

afterAll(async () => {
  await killAll();
});

function running(i: Instance): boolean {
  return i.child.exitCode === null && i.child.signalCode === null;
}

async function killAll(): Promise<void> {
  const left = instances.filter(running);
  for (const i of left) i.child.kill('SIGKILL');
  await Promise.race([Promise.all(left.map((i) => i.exited)), sleep(5000)]);
}

function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Marked handled: only the awaited ones matter, and those still see the rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The instance fixture, compiled for plain Node. */
let script: string;
beforeAll(async () => {
  script = await compiledFixture(SCRIPT);
});

/** Starts an instance process with a new key; it loads and waits for {@link go}. */
function spawnInstance(root: string): Instance {
  const n = instances.length;
  // Plain node on the compiled fixture: the pid is the process that holds the ZooKeeper session
  // (the tsx CLI would run it in a grandchild, out of reach of a SIGKILL).
  const child = spawn(
    process.execPath,
    [
      ...FIXTURE_EXEC_ARGV,
      script,
      ...['--connect', connect, '--root', root, '--key', `crash-${n}-${randomUUID()}`],
      ...['--ids', String(IDS), '--session-ms', String(TIMING.sessionMs)],
      ...['--refresh-ms', String(TIMING.refreshMs), '--fence-ms', String(TIMING.fenceMs)],
      ...['--reclaim-ms', String(TIMING.reclaimMs), '--max-skew-ms', String(MAX_SKEW_MS)],
      // The first instances find a fresh tree: they wait one fence before the era opens.
      ...['--era-wait-ms', String(TIMING.fenceMs)],
    ],
    { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const ready = deferred<undefined>();
  const issued = deferred<undefined>();
  const outcome = deferred<Outcome>();
  const exited = deferred<undefined>();
  const instance: Instance = {
    n,
    child,
    ids: [],
    ready: ready.promise,
    issued: issued.promise,
    outcome: outcome.promise,
    exited: exited.promise,
    machineId: undefined,
    how: undefined,
    liveFrom: Number.NaN,
    liveUntil: Number.POSITIVE_INFINITY,
    started: false,
    offsetMs: 0,
    lost: false,
    exit: undefined,
    stderr: '',
  };
  instances.push(instance);
  child.stdin?.on('error', () => undefined);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    instance.stderr = (instance.stderr + chunk).slice(-4000);
  });
  let rest = '';
  const handle = (line: string): void => {
    if (/^[0-9]+$/.test(line)) {
      instance.ids.push(BigInt(line));
      issued.resolve(undefined);
    } else if (line === 'ready') {
      ready.resolve(undefined);
    } else if (line.startsWith('lease ')) {
      const [, machineId, how] = line.split(' ');
      instance.machineId = Number(machineId);
      instance.how = how;
      instance.liveFrom = performance.now();
    } else if (line.startsWith('machine ')) {
      outcome.resolve({ machineId: Number(line.slice('machine '.length)) });
    } else if (line.startsWith('refused ')) {
      outcome.resolve({ refused: line.slice('refused '.length) });
    } else if (line === 'lost') {
      instance.lost = true;
      instance.liveUntil = Math.min(instance.liveUntil, performance.now());
    }
  };
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    // A line cut short by the kill is dropped: it could be the prefix of an id.
    rest = lines.pop() ?? '';
    for (const line of lines) handle(line);
  });
  child.once('exit', (code, signal) => {
    instance.exit = signal ?? `code ${String(code)}`;
    if (instance.machineId !== undefined) {
      instance.liveUntil = Math.min(instance.liveUntil, performance.now());
    }
    const why = new Error(
      `instance ${n} exited (${signal ?? `code ${String(code)}`}) early:\n${instance.stderr}`,
    );
    ready.reject(why);
    issued.reject(why);
    outcome.reject(why);
    exited.resolve(undefined);
  });
  return instance;
}

/** Lets a loaded instance lease its machine id, its clock `offsetMs` off the host's. */
async function go(instance: Instance, offsetMs = 0): Promise<Outcome> {
  instance.started = true;
  instance.offsetMs = offsetMs;
  instance.child.stdin?.write(`go ${offsetMs}\n`);
  return within(instance.outcome, START_TIMEOUT_MS, `instance ${instance.n} to start`);
}

/** A real crash: SIGKILL, the ZooKeeper session left open, no final mark. */
async function kill(instance: Instance): Promise<void> {
  instance.child.kill('SIGKILL');
  await instance.exited;
}

/**
 * Resolves once ZooKeeper shows each of `machineIds` without a live owner and with its mark
 * older than the reclaim delay and the margin, by ZooKeeper's own clock: the moment a start may
 * reclaim them (waited for, not slept to).
 */
async function reclaimable(root: string, machineIds: readonly number[]): Promise<void> {
  const admin = new ZooKeeperAdmin({ connect, root });
  const ready = await eventually(
    async () => {
      const rows = await admin.list();
      return machineIds.every((id) =>
        rows.some((r) => r.machineId === id && !r.alive && r.ageMs > RECLAIM_WAIT_MS),
      );
    },
    2 * RECLAIM_WAIT_MS + START_TIMEOUT_MS,
  );
  if (!ready) throw new Error(`machine ids ${machineIds.join(', ')} never became reclaimable`);
}

/** The machine ids the outcomes got, in order; a refusal shows as its code. */
function machineIds(outcomes: readonly Outcome[]): (number | string)[] {
  return outcomes
    .map((o) => ('machineId' in o ? o.machineId : o.refused))
    .sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));
}

describe('ZooKeeperMachineIdProvider when instance processes really crash', () => {
  it(
    'never issues an id twice, never gives a machine id to two live processes, and orders a reclaimed id after its dead owner, over real SIGKILLs',
    // ROUNDS bound the loop, each step has its own deadline (within), and the whole test this one:
    // the rounds take 25-30 s on a busy 2-core machine.
    { timeout: 120_000 },
    async () => {
      const rand = seeded(SEED);
      const root = testRoot();
      const startedAt = performance.now();
      const plans = Array.from({ length: ROUNDS }, () => ({ victims: rand() < 0.5 ? 1 : 2 }));
      const spawnRound = (victims: number) => ({
        probe: spawnInstance(root),
        replacements: Array.from({ length: victims }, () => spawnInstance(root)),
      });
      let kills = 0;
      let reclaims = 0;
      let refusals = 0;
      let rounds = 0;

      // The first instances start at once and race for the fresh ids.
      const first = Array.from({ length: IDS }, () => spawnInstance(root));
      await within(Promise.all(first.map((i) => i.ready)), LOAD_TIMEOUT_MS, 'the first to load');
      let next = spawnRound(plans[0]?.victims ?? 1);
      expect(machineIds(await Promise.all(first.map((i) => go(i))))).toEqual([0, 1, 2]);
      expect(first.map((i) => i.how)).toEqual(['fresh', 'fresh', 'fresh']);
      let live = [...first];

      for (const [r, plan] of plans.entries()) {
        const { probe, replacements } = next;
        await within(
          Promise.all([probe, ...replacements].map((i) => i.ready)),
          LOAD_TIMEOUT_MS,
          `round ${r} to load`,
        );
        const dead: Instance[] = [];
        for (let v = 0; v < plan.victims; v++) {
          await sleep(v === 0 ? 100 + rand() * 900 : 100 + rand() * 400);
          live.sort((a, b) => (a.machineId ?? 0) - (b.machineId ?? 0));
          // A second victim shares the first one's clock, so one offset suits both replacements.
          const candidates = live.filter((i) => v === 0 || i.offsetMs === dead[0]?.offsetMs);
          const victim = candidates[Math.floor(rand() * candidates.length)];
          if (victim === undefined) break;
          await within(victim.issued, START_TIMEOUT_MS, `instance ${victim.n} to issue`);
          await kill(victim);
          kills++;
          dead.push(victim);
          live = live.filter((i) => i !== victim);
        }

        // Every id is held by a live process or by a dead one whose session may still be open
        // and whose mark is younger than the reclaim delay.
        expect(await go(probe), `round ${r}: a start right after the kill`).toEqual({
          refused: 'MACHINE_ID_EXHAUSTED',
        });
        refusals++;
        // The next round's processes load while this one waits out the reclaim delay.
        const after = plans[r + 1];
        if (after !== undefined) next = spawnRound(after.victims);
        await reclaimable(
          root,
          dead.map((i) => i.machineId ?? -1),
        );

        // Surplus replacements (a second victim with the same clock was not found) stay unused.
        const used = replacements.slice(0, dead.length);
        const offsetMs = (dead[0]?.offsetMs ?? 0) - BEHIND_MS;
        const taken = machineIds(await Promise.all(used.map((i) => go(i, offsetMs))));
        expect(taken, `round ${r}: the replacements' ids`).toEqual(
          dead.map((i) => i.machineId ?? -1).sort((a, b) => a - b),
        );
        expect(used.map((i) => i.how)).toEqual(used.map(() => 'reclaimed'));
        reclaims += used.length;
        live.push(...used);
        for (const spare of replacements.slice(dead.length)) spare.child.kill('SIGKILL');
        rounds++;
      }
      // The last replacements issue, then everything stops.
      await within(
        Promise.all(live.map((i) => i.issued)),
        START_TIMEOUT_MS,
        'the last replacements to issue',
      );
      await killAll();
      const wallMs = Math.round(performance.now() - startedAt);

      const owners = instances.filter((i) => i.machineId !== undefined);
      const seen = new Set<bigint>();
      let duplicates = 0;
      let foreign = 0;
      const span = new Map<Instance, { min: number; max: number }>();
      for (const owner of owners) {
        let min = Number.POSITIVE_INFINITY;
        let max = Number.NEGATIVE_INFINITY;
        for (const id of owner.ids) {
          if (seen.has(id)) duplicates++;
          seen.add(id);
          const fields = converter.expId(id);
          if (fields.machine !== owner.machineId || fields.genMethod !== 0) foreign++;
          min = Math.min(min, fields.time);
          max = Math.max(max, fields.time);
        }
        if (owner.ids.length > 0) span.set(owner, { min, max });
      }

      const twoLive: string[] = [];
      const outOfOrder: string[] = [];
      let handovers = 0;
      for (let machineId = 0; machineId < IDS; machineId++) {
        const holders = owners
          .filter((i) => i.machineId === machineId)
          .sort((a, b) => a.liveFrom - b.liveFrom);
        let before: { n: number; max: number } | undefined;
        for (const [k, holder] of holders.entries()) {
          const previous = holders[k - 1];
          if (previous !== undefined && holder.liveFrom < previous.liveUntil) {
            twoLive.push(`machine ${machineId}: instances ${previous.n} and ${holder.n}`);
          }
          const own = span.get(holder);
          if (own === undefined) continue;
          if (before !== undefined) {
            handovers++;
            if (own.min <= before.max) {
              outOfOrder.push(
                `machine ${machineId}: instance ${holder.n} issued at time ${own.min}, instance ${before.n} up to ${before.max}`,
              );
            }
          }
          if (before === undefined || own.max > before.max) before = { n: holder.n, max: own.max };
        }
      }

      const figures = {
        seed: SEED,
        rounds,
        starts: instances.filter((i) => i.started).length,
        kills,
        reclaims,
        refusals,
        handovers,
        ids: seen.size,
        wallMs,
      };
      writeFileSync(
        process.env['VESTA_CRASH_REPORT'] ?? '/dev/null',
        `${JSON.stringify(figures)}\n`,
      );
      expect(duplicates, 'ids issued twice').toBe(0);
      expect(foreign, "ids that are not of their process's machine id").toBe(0);
      expect(twoLive).toEqual([]);
      expect(outOfOrder).toEqual([]);
      expect(
        owners.filter((i) => i.lost).map((i) => i.n),
        'leases lost while alive',
      ).toEqual([]);
      expect(
        instances
          .filter((i) => i.exit !== 'SIGKILL' && i.exit !== 'code 3')
          .map((i) => `instance ${i.n}: ${String(i.exit)}\n${i.stderr}`),
        'processes that died on their own',
      ).toEqual([]);
      // Not vacuous: real kills, refusals and reclaims, with ids on both sides of each handover.
      expect(rounds).toBe(ROUNDS);
      expect(kills).toBeGreaterThanOrEqual(ROUNDS);
      expect(refusals).toBe(ROUNDS);
      expect(reclaims).toBe(kills);
      expect(handovers).toBeGreaterThanOrEqual(ROUNDS);
      expect(owners.every((i) => i.ids.length > 0)).toBe(true);
    },
  );
});
