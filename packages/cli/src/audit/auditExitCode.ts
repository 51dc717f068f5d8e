import type { AuditReport } from './AuditReport.js';

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
