import {
  decodeUuid,
  IdConverter,
  VestaError,
  type Id,
  type IdMeta,
  type UuidFields,
} from '@vesta/core';
import { Command } from 'commander';
import type { Flags } from './addSchemaFlags.js';
import { isUuidText, readId, type IdFormValues } from '../idText.js';
import { addIdFormOptions, resolveIdFormFlags } from './idFormFlags.js';
import { reportCommandError } from './reportCommandError.js';
import { addLayoutFlags, layoutAndEpoch } from './layoutFlags.js';

/** The decoded form of an id, as `vesta decode` prints it (the same shape as REST's /expid). */
export interface DecodedId extends Id {
  readonly id: string;
  readonly date: string;
}

/** Decodes an id offline (of `layout`, else the standard layouts); INVALID_ARGUMENT. */
export function decodeId(
  raw: string,
  epochMs: number,
  how: IdFormValues = { form: 'decimal', scrambler: undefined },
  layout?: IdMeta,
): DecodedId {
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
): DecodedId | UuidFields {
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
