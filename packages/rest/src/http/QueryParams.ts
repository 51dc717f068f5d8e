import { VestaError } from '@vesta/core';
import type { RestRoute } from './restRoutes.js';

const WHOLE = /^[0-9]{1,15}$/;

function shown(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part.includes('+') ? part.replaceAll('+', ' ') : part);
  } catch (cause) {
    throw new VestaError(
      'INVALID_ARGUMENT',
      `malformed percent-encoding in the query: ${shown(part)}`,
      { cause },
    );
  }
}

/**
 * The query of one request, checked against its route: an unknown parameter (a typo such as
 * `genmethod`), a repeated one or a query over the length cap is rejected, never ignored.
 * Parsed by hand: cheaper than a general query parser, and strict.
 */
export class QueryParams {
  static readonly #EMPTY = new QueryParams(new Map());
  readonly #values: Map<string, string>;

  private constructor(values: Map<string, string>) {
    this.#values = values;
  }

  /**
   * The query of `url` (path and query) for `route`. Throws PAYLOAD_TOO_LARGE over
   * `maxLength`, INVALID_ARGUMENT for unknown or repeated names and bad percent-encoding.
   */
  static parse(
    url: string,
    route: Pick<RestRoute, 'path' | 'params'>,
    maxLength: number,
  ): QueryParams {
    const at = url.indexOf('?');
    if (at < 0 || at === url.length - 1) return QueryParams.#EMPTY;
    const query = url.slice(at + 1);
    if (query.length > maxLength) {
      throw new VestaError(
        'PAYLOAD_TOO_LARGE',
        `the query is longer than ${maxLength} characters`,
        {
          details: { maxLength },
        },
      );
    }
    const values = new Map<string, string>();
    for (const part of query.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const name = decode(eq < 0 ? part : part.slice(0, eq));
      const value = eq < 0 ? '' : decode(part.slice(eq + 1));
      if (!route.params.some((p) => p.name === name)) {
        const accepted = route.params.map((p) => p.name);
        throw new VestaError(
          'INVALID_ARGUMENT',
          `unknown query parameter ${shown(name)}; ${route.path} ` +
            (accepted.length === 0 ? 'takes none' : `accepts ${accepted.join(', ')}`),
          { details: { parameter: name.slice(0, 40) } },
        );
      }
      if (values.has(name)) {
        throw new VestaError(
          'INVALID_ARGUMENT',
          `query parameter ${shown(name)} is given more than once`,
        );
      }
      values.set(name, value);
    }
    return new QueryParams(values);
  }

  /** The raw value, or undefined when absent. */
  optional(name: string): string | undefined {
    return this.#values.get(name);
  }

  /** The raw value; INVALID_ARGUMENT when absent or empty. */
  required(name: string): string {
    const value = this.#values.get(name);
    if (value === undefined || value === '') {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `query parameter ${JSON.stringify(name)} is required`,
      );
    }
    return value;
  }

  /** A whole decimal number (no sign, exponent, fraction or spaces); undefined when absent. */
  optionalWhole(name: string): number | undefined {
    const value = this.#values.get(name);
    if (value === undefined) return undefined;
    if (!WHOLE.test(value)) {
      throw new VestaError(
        'INVALID_ARGUMENT',
        `${name} must be a whole decimal number, got ${shown(value)}`,
      );
    }
    return Number(value);
  }

  /** A whole decimal number; INVALID_ARGUMENT when absent or malformed. */
  requiredWhole(name: string): number {
    this.required(name);
    return this.optionalWhole(name) as number;
  }
}
