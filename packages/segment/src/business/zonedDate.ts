/** A calendar date in a time zone, as zero-padded digits. */
export interface ZonedDate {
  readonly yyyy: string;
  readonly MM: string;
  readonly dd: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** RangeError for a zone the runtime does not know. */
export function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** The date `ms` (Unix ms) falls on in `timeZone` (an IANA name, e.g. `Asia/Shanghai`). */
export function zonedDate(ms: number, timeZone: string): ZonedDate {
  let yyyy = '';
  let MM = '';
  let dd = '';
  for (const part of zoneFormat(timeZone).formatToParts(ms)) {
    if (part.type === 'year') yyyy = part.value.padStart(4, '0');
    else if (part.type === 'month') MM = part.value;
    else if (part.type === 'day') dd = part.value;
  }
  return { yyyy, MM, dd };
}
