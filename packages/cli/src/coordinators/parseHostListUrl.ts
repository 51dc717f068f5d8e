import { VestaError } from '@vesta/core';
import { definedOnly } from './definedOnly.js';

/**
 * `<scheme>://host:port[,host:port][/root]` → the host list (under the name `hostsOption`) and the
 * root (left out for `/` or no path: the provider's default); INVALID_OPTIONS for any other form.
 */
export function parseHostListUrl<const K extends string>(
  url: string,
  scheme: string,
  hostsOption: K,
): { [key in K]: string } & { root?: string } {
  const match = new RegExp(`^${scheme}://([^/?#]+)(/[^?#]*)?$`).exec(url);
  if (match === null || match[1] === undefined) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `--coordinator must be ${scheme}://host:port[,host:port][/root], got ${JSON.stringify(url)}`,
    );
  }
  const root = match[2] === '/' ? undefined : match[2];
  return { [hostsOption]: match[1], ...definedOnly({ root }) } as { [key in K]: string } & {
    root?: string;
  };
}
