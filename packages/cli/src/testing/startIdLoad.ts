/** What one request of a load client got: ids (decimal strings) or an error code. */
export type IssueOutcome = { readonly ids: readonly string[] } | { readonly error: string };

/** Sends one request (the `round`-th of its client) and reads its answer. */
export type Issue = (round: number) => Promise<IssueOutcome>;

/** One answered request, timed on the monotonic clock of the test process. */
export interface IssuedBatch {
  readonly ids: readonly string[];
  /** `performance.now()` when the request was sent. */
  readonly sentAt: number;
  /** `performance.now()` when its answer was read. */
  readonly receivedAt: number;
}

/** One failed request, timed like {@link IssuedBatch}. */
export interface FailedIssue {
  readonly error: string;
  readonly sentAt: number;
  readonly receivedAt: number;
}

/** Concurrent clients issuing ids in a loop until stopped. */
export interface IdLoad {
  /** Every answered request, in the order answers arrived. */
  readonly batches: readonly IssuedBatch[];
  /** Every failed request, in the order failures arrived (network failures as `NETWORK:<errno>`). */
  readonly failures: readonly FailedIssue[];
  /** Failed requests, counted by error code. */
  readonly errors: ReadonlyMap<string, number>;
  /** Ids received so far. */
  received(): number;
  /** Requests sent and not yet answered. */
  inFlight(): number;
  /** Resolves once `check()` holds (tested after every answer); rejects after `deadlineMs`. */
  until(what: string, check: () => boolean, deadlineMs?: number): Promise<void>;
  /** Stops every client after its request in flight and resolves once all have stopped. */
  stop(): Promise<void>;
}

/** Options of {@link startIdLoad}. */
export interface IdLoadOptions {
  /** How many clients run at once, each with one request in flight at a time. */
  readonly clients: number;
  /** Sends one request. Thrown errors count as network failures. */
  readonly issue: Issue;
}

function networkCode(error: unknown): string {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return `NETWORK:${String(code ?? cause ?? (error instanceof Error ? error.message : error))}`;
}

/**
 * Test helper: starts `clients` loops that each send a request, wait for its answer and send
 * the next one at once, until {@link IdLoad.stop}. Every answer is kept with its send and
 * receive times, so a test can check both uniqueness and order (see {@link auditIds}).
 */
export function startIdLoad(options: IdLoadOptions): IdLoad {
  const batches: IssuedBatch[] = [];
  const failures: FailedIssue[] = [];
  const errors = new Map<string, number>();
  const waiters = new Set<() => void>();
  let received = 0;
  let inFlight = 0;
  let stopped = false;

  const notify = (): void => {
    for (const waiter of waiters) waiter();
  };
  const client = async (): Promise<void> => {
    for (let round = 0; !stopped; round++) {
      const sentAt = performance.now();
      inFlight++;
      let outcome: IssueOutcome;
      try {
        outcome = await options.issue(round);
      } catch (error) {
        outcome = { error: networkCode(error) };
      } finally {
        inFlight--;
      }
      if ('ids' in outcome) {
        batches.push({ ids: outcome.ids, sentAt, receivedAt: performance.now() });
        received += outcome.ids.length;
      } else {
        failures.push({ error: outcome.error, sentAt, receivedAt: performance.now() });
        errors.set(outcome.error, (errors.get(outcome.error) ?? 0) + 1);
        // A dead or refusing server answers at once: let the test's own events run in between.
        await new Promise((resolve) => setImmediate(resolve));
      }
      notify();
    }
  };
  const running = Array.from({ length: options.clients }, () => client());

  return {
    batches,
    failures,
    errors,
    received: () => received,
    inFlight: () => inFlight,
    until: (what, check, deadlineMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        if (check()) {
          resolve();
          return;
        }
        const waiter = (): void => {
          if (!check()) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `load: not ${what} within ${deadlineMs} ms (${received} ids, errors ${JSON.stringify([...errors])})`,
            ),
          );
        }, deadlineMs);
        waiters.add(waiter);
      }),
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}
