import type { AuditReport } from './AuditReport.js';

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
