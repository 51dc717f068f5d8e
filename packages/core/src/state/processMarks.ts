import type { Clock } from '../time/Clock.js';
import type { StoredMark } from '../identity/checkStoredMark.js';

/**
 * The marks of services closed in this process, so that a new service on the same machine id
 * continues above the times the closed one used even without a state dir. Marks are kept per
 * clock: a mark only bounds services reading the same clock (the system clock, or one injected
 * clock shared on purpose); and per host-lock scope, like the host lock and host marks: services
 * of different scopes are as independent as services on two hosts. Kept on `globalThis` under a
 * `Symbol.for` key, so two copies of the package share them.
 */
const REGISTRY = Symbol.for('vesta.processMarks');

type Registry = WeakMap<Clock, Map<string, Map<string, StoredMark>>>;

function marksOf(clock: Clock, scope: string): Map<string, StoredMark> {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= new WeakMap();
  let scopes = holder[REGISTRY].get(clock);
  if (scopes === undefined) {
    scopes = new Map();
    holder[REGISTRY].set(clock, scopes);
  }
  let marks = scopes.get(scope);
  if (marks === undefined) {
    marks = new Map();
    scopes.set(scope, marks);
  }
  return marks;
}

/**
 * The marks left by services of this process, of host-lock `scope`, that closed while reading
 * `clock`.
 */
export function processMarks(clock: Clock, scope: string): Iterable<StoredMark> {
  return marksOf(clock, scope).values();
}

/** Records the mark of a service that closes; one entry per identity, the highest mark kept. */
export function recordProcessMark(clock: Clock, scope: string, mark: StoredMark): void {
  const marks = marksOf(clock, scope);
  const key = JSON.stringify(mark.identity);
  const previous = marks.get(key);
  if (previous === undefined || previous.markMs < mark.markMs) marks.set(key, mark);
}
