import { z } from 'zod';

/**
 * A coordinator's URL: one of `schemes` (without the colon, e.g. `['redis', 'rediss']`) and a
 * host; `form` is what a mistake reads as (`must be a URL like ${form}`).
 */
export function coordinatorUrlOption(schemes: readonly string[], form: string): z.ZodString {
  const error = `must be a URL like ${form}`;
  return z.string({ error }).refine(
    (value) => {
      try {
        const url = new URL(value);
        return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { error },
  );
}
