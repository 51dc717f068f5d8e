import { VestaError } from '@vesta/core';

/** A calendar date in a time zone, as zero-padded digits. */
export interface ZonedDate {
  readonly yyyy: string;
  readonly MM: string;
  readonly dd: string;
}

/** How often a business number's sequence starts over. */
export type NumberReset = 'day' | 'month' | 'year' | 'never';

type Piece =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'date'; readonly tokens: readonly string[] }
  | { readonly kind: 'seq'; readonly width: number };

const DATE_TOKEN = /yyyy|yy|MM|dd|[-/._]/g;

const invalid = (message: string): VestaError =>
  new VestaError('INVALID_OPTIONS', message, { details: { option: 'template' } });

/**
 * A business-number template such as `INV-{yyyyMMdd}-{seq:6}`: text, date parts in braces
 * (`yyyy`, `yy`, `MM`, `dd`, `- / . _`) and one `{seq:N}` (N digits, 1 to 19) or `{seq}`. It must
 * show every date part of its reset period, or two periods would give the same number.
 */
export class NumberTemplate {
  readonly template: string;
  readonly width: number | undefined;
  readonly #pieces: readonly Piece[];

  constructor(template: string, reset: NumberReset) {
    this.template = template;
    const pieces: Piece[] = [];
    let seqs = 0;
    let width: number | undefined;
    for (const [, text, field] of template.matchAll(/([^{}]*)(?:\{([^{}]*)\}|$)/g)) {
      if (text) pieces.push({ kind: 'text', text });
      if (field === undefined) continue;
      const seq = /^seq(?::(\d{1,2}))?$/.exec(field);
      if (seq !== null) {
        width = seq[1] === undefined ? undefined : Number(seq[1]);
        if (width !== undefined && (width < 1 || width > 19))
          throw invalid(`template ${JSON.stringify(template)}: {seq:N} takes N from 1 to 19`);
        pieces.push(width === undefined ? { kind: 'seq', width: 0 } : { kind: 'seq', width });
        seqs++;
        continue;
      }
      const tokens = field.match(DATE_TOKEN) ?? [];
      if (field === '' || tokens.join('') !== field)
        throw invalid(
          `template ${JSON.stringify(template)}: {${field}} is neither a date (yyyy, yy, MM, dd, - / . _) nor {seq:N}`,
        );
      pieces.push({ kind: 'date', tokens });
    }
    if (/[{}]/.test(pieces.map((p) => (p.kind === 'text' ? p.text : '')).join('')))
      throw invalid(`template ${JSON.stringify(template)}: unbalanced braces`);
    if (seqs !== 1)
      throw invalid(`template ${JSON.stringify(template)}: needs exactly one {seq} or {seq:N}`);
    const shown = new Set(pieces.flatMap((p) => (p.kind === 'date' ? p.tokens : [])));
    const needed = { day: ['y', 'MM', 'dd'], month: ['y', 'MM'], year: ['y'], never: [] }[reset];
    const missing = needed.filter((part) =>
      part === 'y' ? !shown.has('yyyy') && !shown.has('yy') : !shown.has(part),
    );
    if (missing.length > 0)
      throw invalid(
        `template ${JSON.stringify(template)} resets every ${reset} but does not show ${missing.map((m) => (m === 'y' ? 'the year' : m)).join(', ')}: two periods would give the same number`,
      );
    this.width = width;
    this.#pieces = pieces;
  }

  /** SEGMENT_SEQUENCE_OVERFLOW when `seq` is wider than `{seq:N}`. */
  format(seq: bigint, date: ZonedDate): string {
    const digits = String(seq);
    if (this.width !== undefined && digits.length > this.width) {
      const why = `sequence ${digits} does not fit the ${this.width} digits of ${JSON.stringify(this.template)}; numbers never wrap`;
      const details = { sequence: digits, width: this.width };
      throw new VestaError('SEGMENT_SEQUENCE_OVERFLOW', why, { details });
    }
    return this.#pieces
      .map((p) => {
        if (p.kind === 'text') return p.text;
        if (p.kind === 'seq') return digits.padStart(p.width, '0');
        return p.tokens
          .map((t) =>
            t === 'yy' ? date.yyyy.slice(-2) : t in date ? date[t as keyof ZonedDate] : t,
          )
          .join('');
      })
      .join('');
  }
}
