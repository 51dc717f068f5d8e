import type { AuditCheckReport } from './AuditChecks.js';

/** A value found more than once, as the report shows it. */
export interface DuplicateExample {
  /** The id as a decimal string, or the UUID canonical. */
  readonly id: string;
  /** How often it was found. */
  readonly times: number;
  /**
   * The lines it was found on (at most 10), when the input could be read again (a file);
   * absent for stdin and a query.
   */
  readonly lines?: readonly number[];
}

/** What `vesta audit` prints on stdout, as one JSON object. */
export interface AuditReport extends AuditCheckReport {
  /** Where the values came from: the file's path, `stdin` or `postgres`. */
  readonly source: string;
  /** The layout preset the ids were read with (`vesta-max-peak` reads both Vesta types). */
  readonly layout: string;
  readonly epoch: string;
  /** Values read (ids and UUIDs); unparseable lines are not among them. */
  readonly count: number;
  /** Values found more than once: `count` copies beyond the first, of `distinct` values. */
  readonly duplicates: {
    readonly count: number;
    readonly distinct: number;
    readonly examples: readonly DuplicateExample[];
  };
}

/**
 * The exit codes of `vesta audit`:
 * - 0: no duplicate (and, with `--strict`, no other finding);
 * - 1: at least one duplicate, or (with `--coordinator`) an id issued by a machine id at a time
 *   nobody held it: evidence of a second issuer on that machine id, as a duplicate is;
 * - 2: the audit could not run (a bad flag, an unreadable input, a failed query);
 * - 3: with `--strict`, no duplicate but another finding (a time in the future or before the
 *   epoch, a machine id out of range, an unparseable line, an order break).
 */
export const AUDIT_EXIT = { CLEAN: 0, DUPLICATES: 1, USAGE: 2, FINDINGS: 3 } as const;

/** The number of findings other than duplicates. */
export function otherFindings(report: AuditReport): number {
  return (
    report.future.count +
    report.beforeEpoch.count +
    report.machineOutOfRange.count +
    report.unparseable.count +
    report.orderBreaks.count
  );
}

/** The exit code of a finished audit (see {@link AUDIT_EXIT}). */
export function auditExitCode(report: AuditReport, strict: boolean): number {
  if (report.duplicates.count > 0 || (report.unleased?.count ?? 0) > 0) {
    return AUDIT_EXIT.DUPLICATES;
  }
  return strict && otherFindings(report) > 0 ? AUDIT_EXIT.FINDINGS : AUDIT_EXIT.CLEAN;
}

const counted = (count: number, one: string, many: string): string =>
  `${count} ${count === 1 ? one : many}`;

/** How many values the journal did not judge, and of them how many the coordinator never managed. */
function notJudged({ notJudged, notManaged }: NonNullable<AuditReport['unleased']>): string {
  return notManaged.count === 0
    ? `${notJudged} not judged`
    : `${notJudged} not judged, ${notManaged.count} of them of machine ids the coordinator does not manage: ${notManaged.machines.join(', ')}`;
}

/**
 * The one line `vesta audit` writes to stderr: how many values it read from where, and how many
 * of each finding (the details are in the JSON report on stdout).
 */
export function auditSummary(report: AuditReport): string {
  const findings = [
    counted(report.duplicates.count, 'duplicate', 'duplicates'),
    `${report.future.count} in the future`,
    `${report.beforeEpoch.count} before the epoch`,
    counted(report.machineOutOfRange.count, 'machine id out of range', 'machine ids out of range'),
    counted(report.unparseable.count, 'unparseable line', 'unparseable lines'),
    counted(report.orderBreaks.count, 'order break', 'order breaks'),
    ...(report.unleased === undefined
      ? []
      : [`${report.unleased.count} unleased (${notJudged(report.unleased)})`]),
  ];
  return `vesta audit: ${report.count} ids and UUIDs (${counted(report.ids, 'id', 'ids')}, ${counted(report.uuids, 'UUID', 'UUIDs')}) from ${report.source}, ${counted(report.machines.length, 'issuer', 'issuers')}: ${findings.join(', ')}`;
}
