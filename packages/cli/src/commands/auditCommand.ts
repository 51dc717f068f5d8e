import { machineIdRanges, VestaError, type IdMetaWidths } from '@vesta/core';
import { parseIdType } from '@vesta/core/kit';
import { Command, type CommanderError } from 'commander';
import { AUDIT_EXIT, auditExitCode, auditSummary } from '../audit/AuditReport.js';
import { fileIdLines, postgresIdLines, type IdLineSource } from '../audit/idLines.js';
import { LeaseCoverage } from '../audit/LeaseCoverage.js';
import { AUDIT_NUMBERS, runAudit, type AuditOptions } from '../audit/runAudit.js';
import { coordinatorOf } from './coordinatorOf.js';
import { addLayoutFlags, converterOf } from './layoutFlags.js';
import { addIdFormOptions, resolveIdFormFlags } from './idFormFlags.js';
import { addSchemaFlags, type Flags, type SchemaFlag } from './addSchemaFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { wholeFlag } from './wholeFlag.js';

export interface AuditFlags extends Flags {
  layout?: string;
  type?: string;
  epoch?: string;
  tempDir?: string;
  postgres?: string;
  query?: string;
  coordinator?: string;
}

const AUDIT_FLAGS = {
  futureTolerance: { schema: AUDIT_NUMBERS.futureToleranceMs, arg: 'ms' },
  examples: { schema: AUDIT_NUMBERS.examples, arg: 'n' },
  runSize: { schema: AUDIT_NUMBERS.runSize, arg: 'n' },
} satisfies Record<string, SchemaFlag>;

/** The coordinator's lease journal, then its allocations, read once before the ids. */
async function leaseCoverage(url: string, widths: IdMetaWidths): Promise<LeaseCoverage> {
  const admin = (await coordinatorOf(url)).admin(url);
  const history = await admin.history();
  const { embedded, server } = machineIdRanges(widths);
  return new LeaseCoverage(history, await admin.list(), [embedded, server]);
}

/** Where the values come from: the file (stdin when absent or `-`), or `--postgres` and `--query`. */
export function auditSource(file: string | undefined, flags: AuditFlags): IdLineSource {
  if (flags.postgres === undefined && flags.query === undefined) return fileIdLines(file);
  if (flags.postgres === undefined || flags.query === undefined) {
    throw new VestaError('INVALID_OPTIONS', '--postgres and --query go together');
  }
  if (file !== undefined) {
    throw new VestaError('INVALID_OPTIONS', 'give a file or --postgres, not both');
  }
  return postgresIdLines(flags.postgres, flags.query);
}

/** Validates the flags into the audit's options; INVALID_OPTIONS naming a bad flag. */
export function auditOptions(flags: AuditFlags, nowMs: number): AuditOptions {
  const type = flags.type === undefined ? undefined : parseIdType(flags.type, '--type');
  return {
    codec: converterOf(flags.layout, flags.epoch, type),
    how: resolveIdFormFlags(flags),
    nowMs,
    futureToleranceMs: wholeFlag(
      '--future-tolerance',
      flags.futureTolerance,
      AUDIT_FLAGS.futureTolerance.schema,
    ),
    examples: wholeFlag('--examples', flags.examples, AUDIT_FLAGS.examples.schema),
    runSize: wholeFlag('--run-size', flags.runSize, AUDIT_FLAGS.runSize.schema),
    ...(flags.tempDir === undefined ? {} : { tempDir: flags.tempDir }),
  };
}

/** `vesta audit [file]`: checks a column of ids and UUIDs for duplicates and misissued values. */
export function auditCommand(): Command {
  const command = addSchemaFlags(
    addLayoutFlags(
      new Command('audit').argument('[file]', 'ids, one per line (default: stdin; - is stdin)'),
      true,
    ),
    AUDIT_FLAGS,
    false,
  )
    .option('--strict', 'exit 3 on any finding besides duplicates (a duplicate exits 1)')
    .option('--stats', 'add the run files, bytes written, elapsed ms and peak RSS to the report')
    .option('--temp-dir <dir>', 'where the sort runs go (default: the system temp dir)')
    .option(
      '--postgres <url>',
      'read the ids from PostgreSQL (postgres://user@host:port/db; give a password in PGPASSWORD, not the URL: flags show in ps)',
    )
    .option('--query <sql>', 'with --postgres: the query; its first column is the ids')
    .option(
      '--coordinator <url>',
      "also judge each id's machine id against the coordinator's lease journal (as vesta machine-ids takes it): ids issued at a time nobody held their machine id are findings (exit 1)",
    )
    .exitOverride((error: CommanderError) => {
      if (error.exitCode !== 0) process.exit(AUDIT_EXIT.USAGE);
    });
  return addIdFormOptions(command, 'form of the ids (UUIDs are read in any form)').action(
    async (file: string | undefined, flags: AuditFlags) => {
      // Exit through process.exit, so the sorters' exit hooks remove their run files.
      const stop = (signal: NodeJS.Signals): void => process.exit(signal === 'SIGINT' ? 130 : 143);
      process.once('SIGINT', stop).once('SIGTERM', stop);
      try {
        const started = performance.now();
        const source = auditSource(file, flags);
        const options = auditOptions(flags, Date.now());
        const leases =
          flags.coordinator === undefined
            ? undefined
            : await leaseCoverage(flags.coordinator, options.codec.layout.widths);
        const { report, sort } = await runAudit(source, {
          ...options,
          ...(leases === undefined ? {} : { leases }),
        });
        const stats = {
          ...sort,
          elapsedMs: Math.round(performance.now() - started),
          maxRssBytes: process.resourceUsage().maxRSS * 1024,
        };
        const printed = flags.stats === true ? { ...report, stats } : report;
        process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
        process.stderr.write(`${auditSummary(report)}\n`);
        process.exitCode = auditExitCode(report, flags.strict === true);
      } catch (error) {
        reportCommandError('audit', error);
        process.exitCode = AUDIT_EXIT.USAGE;
      } finally {
        process.removeListener('SIGINT', stop).removeListener('SIGTERM', stop);
      }
    },
  );
}
