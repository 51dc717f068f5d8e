import { Bench } from 'tinybench';

/** One task of a raw-cost run: `run` issues `idsPerCall` ids per call. */
export interface BurstTask {
  readonly name: string;
  readonly idsPerCall: number;
  readonly run: () => unknown;
}

/** The raw cost of one task: median ns per id, and its ratio to the floor of the same round. */
export interface BurstResult {
  readonly task: BurstTask;
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? NaN) + upper) / 2;
}

/** One round: every task through a fresh tinybench, each task's median ns per id. */
async function runRound(tasks: readonly BurstTask[], options: BurstOptions): Promise<number[]> {
  const bench = new Bench({
    time: options.timeMs,
    warmupTime: options.warmupMs,
    iterations: 10,
    warmupIterations: 5,
    throws: true,
  });
  for (const task of tasks) bench.add(task.name, task.run);
  await bench.run();
  return bench.tasks.map((benchTask, i) => {
    const result = benchTask.result;
    if (result.state !== 'completed') throw new Error(`${benchTask.name}: ${result.state}`);
    return (result.latency.p50 * 1e6) / (tasks[i]?.idsPerCall ?? NaN);
  });
}

/**
 * Runs the floor and every task through tinybench in `rounds` fresh rounds. Each call of a
 * task is a burst of thousands of ids, so the timer's own cost (a performance.now() pair per
 * call) is spread over the burst instead of dwarfing a nanosecond-scale figure. A task's figure
 * in a round is the median of its calls; its ratio is taken against the floor of the same round,
 * so load that drifts between rounds cancels out; the report keeps the median over rounds.
 */
export async function measureBursts(
  floor: BurstTask,
  tasks: readonly BurstTask[],
  options: BurstOptions,
): Promise<{ floorNsPerId: number; results: BurstResult[] }> {
  const rounds: { floorNs: number; taskNs: number[] }[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const [floorNs = NaN, ...taskNs] = await runRound([floor, ...tasks], options);
    rounds.push({ floorNs, taskNs });
  }
  const results = tasks.map((task, i) => {
    const ns = rounds.map((round) => round.taskNs[i] ?? NaN);
    const ratios = rounds.map((round) => (round.taskNs[i] ?? NaN) / round.floorNs);
    return {
      task,
      nsPerId: median(ns),
      ratio: median(ratios),
      ratioMin: Math.min(...ratios),
      ratioMax: Math.max(...ratios),
    };
  });
  return { floorNsPerId: median(rounds.map((round) => round.floorNs)), results };
}
