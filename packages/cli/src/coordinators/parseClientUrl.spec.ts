import { caught } from '@vesta/testkit';
import { describe, expect, it } from 'vitest';
import { parseClientUrl } from './parseClientUrl.js';

const parse = (text: string) => parseClientUrl(text, 'X', 'x://host', ['schema', 'table']);

describe('parseClientUrl', () => {
  it('takes its own parameters out of the URL the client gets', () => {
    expect(parse('postgres://u:p@db:5432/app?table=t&schema=s')).toEqual({
      url: 'postgres://u:p@db:5432/app',
      schema: 's',
      table: 't',
    });
  });

  it('leaves an absent parameter out', () => {
    expect(parse('redis://127.0.0.1:6379/2')).toEqual({
      url: 'redis://127.0.0.1:6379/2',
    });
  });

  it.each([
    ['not a url', 'must be x://host'],
    ['redis://h:1?prefix=a', 'unknown X URL parameter prefix (only schema, table)'],
  ])('refuses %j with INVALID_OPTIONS', (text, message) => {
    const error = caught(() => parse(text));
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(message);
  });
});
