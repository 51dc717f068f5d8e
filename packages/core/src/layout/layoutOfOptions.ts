import type { IdMeta } from './IdMeta.js';
import { parseIdType, type IdType, type IdTypeName } from './IdType.js';
import { resolveLayoutOption, type LayoutOption } from './resolveLayoutOption.js';

/**
 * The layout the `layout` and `type` options of a service describe, for a mode that must know
 * it before building the service (its machine-id range); undefined when they are invalid,
 * which the service then reports with the code of the mistake.
 */
export function layoutOfOptions(options: {
  readonly layout?: LayoutOption | undefined;
  readonly type?: IdType | IdTypeName | undefined;
}): IdMeta | undefined {
  try {
    const type = options.type === undefined ? undefined : parseIdType(options.type);
    return resolveLayoutOption(options.layout, type).layout;
  } catch {
    return undefined;
  }
}
