import type { AuditCheckReport } from './AuditChecks.js';

export interface DuplicateExample {
  readonly id: string;
  readonly times: number;
  /** At most 10; only for a file (read again). */
  readonly lines?: readonly number[];
}

/** What `vesta audit` prints on stdout (the README documents each field). */
export interface AuditReport extends AuditCheckReport {
  readonly source: string;
  readonly layout: string;
  readonly epoch: string;
  readonly count: number;
  /** `count` copies beyond the first, of `distinct` values. */
  readonly duplicates: {
    readonly count: number;
    readonly distinct: number;
    readonly examples: readonly DuplicateExample[];
  };
}

/** The exit codes of `vesta audit` (the README's table); an unleased id counts as a duplicate. */
export const AUDIT_EXIT = { CLEAN: 0, DUPLICATES: 1, USAGE: 2, FINDINGS: 3 } as const;

/** The exit code of a finished audit (see {@link AUDIT_EXIT}). */
export function auditExitCode(report: AuditReport, strict: boolean): number {
  if (report.duplicates.count > 0 || (report.unleased?.count ?? 0) > 0) {
    return AUDIT_EXIT.DUPLICATES;
  }
  const kinds = [
    'future',
    'beforeEpoch',
    'machineOutOfRange',
    'unparseable',
    'orderBreaks',
  ] as const;
  const others = kinds.reduce((sum, kind) => sum + report[kind].count, 0);
  return strict && others > 0 ? AUDIT_EXIT.FINDINGS : AUDIT_EXIT.CLEAN;
}

const counted = (count: number, one: string, many: string): string =>
  `${count} ${count === 1 ? one : many}`;

function notJudged({ notJudged, notManaged }: NonNullable<AuditReport['unleased']>): string {
  return notManaged.count === 0
    ? `${notJudged} not judged`
    : `${notJudged} not judged, ${notManaged.count} of them of machine ids the coordinator does not manage: ${notManaged.machines.join(', ')}`;
}

/** The one line `vesta audit` writes to stderr: values read and findings counted. */
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
