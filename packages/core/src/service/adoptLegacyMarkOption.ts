import { z } from 'zod';
import { VestaError } from '../errors/VestaError.js';
import { ID_META_WIDTH_KEYS, type IdMetaWidths } from '../layout/IdMeta.js';
import { checkedLater, parsedOption, wholeNumber } from '../options/optionTypes.js';
import type { LegacyMarkAdoption } from '../state/FileTimeMarkStore.js';
import { parseEpoch } from '../time/parseEpoch.js';

/**
 * The declaration of `adoptLegacyMark`: the options the first release ran with, resolved to
 * the {@link LegacyMarkAdoption} the state dir's store takes. The widths are checked against
 * each file's type when it is adopted (INVALID_OPTIONS naming the file); unknown keys are
 * refused here.
 */
export const adoptLegacyMarkOption = z
  .strictObject(
    {
      /** The first release's epoch, read like `epoch`; required (the mark files do not record it). */
      epoch: parsedOption((value: number | Date | string) => {
        if (value === undefined) {
          throw new VestaError(
            'INVALID_OPTIONS',
            'adoptLegacyMark.epoch is required: the mark files do not record it',
          );
        }
        return parseEpoch(value, 'adoptLegacyMark.epoch');
      }),
      /** The first release's field widths (its `layout` option). @default the file's type's standard layout */
      layout: z
        .strictObject(
          Object.fromEntries(
            ID_META_WIDTH_KEYS.map((key) => [key, checkedLater<number>().optional()]),
          ) as Record<keyof IdMetaWidths, z.ZodOptional<z.ZodType<number, number>>>,
          { error: 'must be an object of field widths' },
        )
        .default({}),
      /** The first release's version. @default 0 */
      version: wholeNumber(0, 2 ** 48 - 1).default(0),
    },
    { error: 'must be { epoch, layout?, version? }' },
  )
  .transform((o): LegacyMarkAdoption => ({
    epochMs: o.epoch,
    layout: o.layout as Partial<IdMetaWidths>,
    version: o.version,
  }));

/** What the `adoptLegacyMark` option takes: see {@link adoptLegacyMarkOption} for each. */
export type LegacyMarkOption = Readonly<z.input<typeof adoptLegacyMarkOption>>;
