import type { Clock } from '../time/Clock.js';
import type { StoredMark } from '../identity/IdIdentity.js';

/**
 * The marks of services closed in this process, so that a new one on the same machine id
 * continues above them even without a state dir. Kept per clock (a mark bounds only services
 * reading the same clock) and per host-lock scope, on `globalThis` so two copies of the package
 * share them.
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

export function processMarks(clock: Clock, scope: string): Iterable<StoredMark> {
  return marksOf(clock, scope).values();
}

/** One entry per identity, the highest mark kept. */
export function recordProcessMark(clock: Clock, scope: string, mark: StoredMark): void {
  const marks = marksOf(clock, scope);
  const key = JSON.stringify(mark.identity);
  const previous = marks.get(key);
  if (previous === undefined || previous.markMs < mark.markMs) marks.set(key, mark);
}
