import { COORDINATORS } from './coordinatorFor.js';

/** The URL schemes of every coordinator, as `zookeeper://, redis:// (rediss://), ...`. */
export function coordinatorSchemes(): string {
  return COORDINATORS.map((c) => {
    const [first, ...others] = c.schemes.map((scheme) => `${scheme}://`);
    return others.length === 0 ? first : `${first} (${others.join(', ')})`;
  }).join(', ');
}

/**
 * The help paragraph of `--coordinator`: every coordinator's URL form and one example, so that
 * `--help` shows each scheme the flag takes.
 */
export function coordinatorHelp(): string {
  const lines = COORDINATORS.flatMap((c) => [
    `  ${c.form}${c.schemes.length > 1 ? ` (also ${c.schemes.slice(1).join('://, ')}://)` : ''}`,
    `      e.g. ${c.example}`,
  ]);
  return `\nCoordinators (--coordinator <url>):\n${lines.join('\n')}`;
}
