import { Bench } from 'tinybench';

/** One task of a raw-cost run: `run` issues `idsPerCall` ids per call. */
export interface BurstTask {
  readonly name: string;
  readonly idsPerCall: number;
  readonly run: () => unknown;
}

/** The raw cost of one task: median ns per id, and its ratio to the floor of the same round. */
export interface BurstResult {
  readonly name: string;
  /** Median over rounds of the task's median ns per id. */
  readonly nsPerId: number;
  /** Median over rounds of (this task's median / the floor's median in that round). */
  readonly ratio: number;
  /** The lowest and highest per-round ratio, to show the noise. */
  readonly ratioMin: number;
  readonly ratioMax: number;
}

export interface BurstOptions {
  readonly rounds: number;
  /** Time budget per task and round (ms), after the warm-up. */
  readonly timeMs: number;
  readonly warmupMs: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs every task (the floor first) through tinybench in `rounds` fresh rounds. Each call of a
 * task is a burst of thousands of ids, so the timer's own cost (a performance.now() pair per
 * call) is spread over the burst instead of dwarfing a nanosecond-scale figure. A task's figure
 * in a round is the median of its calls; its ratio is taken against the floor of the same round,
 * so load that drifts between rounds cancels out; the report keeps the median over rounds.
 */
export async function measureBursts(
  floor: BurstTask,
  tasks: readonly BurstTask[],
  options: BurstOptions,
): Promise<BurstResult[]> {
  const all = [floor, ...tasks];
  const nsPerRound = all.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    const bench = new Bench({
      time: options.timeMs,
      warmupTime: options.warmupMs,
      iterations: 10,
      warmupIterations: 5,
      throws: true,
    });
    for (const task of all) bench.add(task.name, task.run);
    await bench.run();
    bench.tasks.forEach((task, i) => {
      const result = task.result;
      if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
      nsPerRound[i]!.push((result.latency.p50 * 1e6) / all[i]!.idsPerCall);
    });
  }
  const floorNs = nsPerRound[0]!;
  return all.map((task, i) => {
    const ratios = nsPerRound[i]!.map((ns, round) => ns / floorNs[round]!);
    return {
      name: task.name,
      nsPerId: median(nsPerRound[i]!),
      ratio: median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
    };
  });
}
