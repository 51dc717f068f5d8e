import { VestaError } from '@vesta/core';

/** Refuses store options that give neither a URL nor a connection of the application's own. */
export function requireConnection(
  store: string,
  options: { readonly url?: string | undefined },
  connection: string,
  given: unknown,
): void {
  if (options.url === undefined && given === undefined) {
    throw new VestaError('INVALID_OPTIONS', `a ${store} needs url or ${connection}`, {
      details: { option: 'url' },
    });
  }
}
