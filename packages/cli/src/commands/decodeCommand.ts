import { decodeUuid, IdConverter, VestaError, type IdMeta, type UuidFields } from '@vesta/core';
import { Command } from 'commander';
import type { Flags } from './addSchemaFlags.js';
import { isUuidText, readId, type IdFormValues } from '../idText.js';
import { addIdFormOptions, resolveIdFormFlags } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { addLayoutFlags, layoutAndEpoch } from './layoutFlags.js';

/** Decodes an id offline (of `layout`, else the standard layouts), as REST's /expid; INVALID_ARGUMENT. */
export function decodeId(
  raw: string,
  epochMs: number,
  how: IdFormValues = { form: 'decimal', scrambler: undefined },
  layout?: IdMeta,
) {
  const id = readId(raw, how);
  const codec =
    layout === undefined ? IdConverter.standard(epochMs) : new IdConverter(layout, epochMs);
  const fields = codec.expId(id);
  const date = codec.transTime(fields.time, fields.type);
  if (Number.isNaN(date.getTime()))
    throw new VestaError('INVALID_ARGUMENT', `id ${id} has a time past any date`);
  return { id: String(id), ...fields, date: date.toISOString() };
}

/** What `vesta decode` prints for one argument: a UUID's fields or an id's. */
export function decodeArgument(
  raw: string,
  epochMs: number,
  how?: IdFormValues,
  layout?: IdMeta,
): ReturnType<typeof decodeId> | UuidFields {
  return isUuidText(raw) ? decodeUuid(raw) : decodeId(raw, epochMs, how, layout);
}

/** `vesta decode <id...>`: one JSON line per id or UUID, offline. */
export function decodeCommand(): Command {
  const command = new Command('decode').argument(
    '<ids...>',
    'ids, as decimal strings unless --format says otherwise, or UUIDs (v7: time; Vesta v7: machine, counter, genMethod too)',
  );
  addLayoutFlags(command, false);
  return addIdFormOptions(command, 'form of the ids').action(
    (ids: string[], flags: { epoch?: string; layout?: string } & Flags) => {
      try {
        const { layout, epochMs } = layoutAndEpoch(flags.layout, flags.epoch);
        const how = resolveIdFormFlags(flags);
        const lines = ids.map((raw) => JSON.stringify(decodeArgument(raw, epochMs, how, layout)));
        process.stdout.write(`${lines.join('\n')}\n`);
      } catch (error) {
        reportCommandError('decode', error);
      }
    },
  );
}
