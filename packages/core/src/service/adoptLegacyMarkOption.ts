import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { ID_META_WIDTH_KEYS, type IdMetaWidths } from '../layout/IdMeta.js';
import { parsedOption, wholeNumber } from '../options/optionTypes.js';
import type { LegacyMarkAdoption } from '../state/FileTimeMarkStore.js';
import { parseEpoch } from '../time/parseEpoch.js';

/** What the `adoptLegacyMark` option takes: the options the first release ran with. */
export interface LegacyMarkOption {
  /** The first release's epoch, read like `epoch`; required (the mark files do not record it). */
  readonly epoch: number | Date | string;
  /** The first release's field widths (its `layout` option). @default the file's type's standard layout */
  readonly layout?: Partial<IdMetaWidths>;
  /** The first release's version. @default 0 */
  readonly version?: number;
}

/**
 * The declaration of `adoptLegacyMark`, resolved to the {@link LegacyMarkAdoption} the state
 * dir's store takes. The widths are checked against each file's type when it is adopted
 * (INVALID_OPTIONS naming the file); unknown keys are refused here.
 */
export const adoptLegacyMarkOption = z
  .strictObject(
    {
      epoch: parsedOption((value: unknown) => {
        if (value === undefined) {
          throw new VestaError(
            'INVALID_OPTIONS',
            'adoptLegacyMark.epoch is required: the mark files do not record it',
          );
        }
        return parseEpoch(value as number | Date | string, 'adoptLegacyMark.epoch');
      }),
      layout: z
        .strictObject(
          Object.fromEntries(ID_META_WIDTH_KEYS.map((key) => [key, z.unknown().optional()])),
          {
            error: 'must be an object of field widths',
          },
        )
        .default({}),
      version: wholeNumber(0, 2 ** 48 - 1).default(0),
    },
    { error: 'must be { epoch, layout?, version? }' },
  )
  .transform((o): LegacyMarkAdoption => ({
    epochMs: o.epoch,
    layout: o.layout as Partial<IdMetaWidths>,
    version: o.version,
  })) as unknown as z.ZodType<LegacyMarkAdoption, LegacyMarkOption>;
