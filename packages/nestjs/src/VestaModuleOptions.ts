import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import { VestaError } from '@vesta/core';
import type { EmbeddedIdServiceOptions } from '@vesta/embedded';
import type { IdClientOptions } from '@vesta/server';

/**
 * Which id service the module provides: exactly one of the two keys. Their options are the
 * services' own, validated by them when the module starts.
 */
export type VestaModuleOptions =
  | {
      /**
       * The embedded service (`createEmbeddedIdService` of `@vesta/embedded`, genMethod 0): a
       * `machineId`, or a `machineIdProvider` (a coordinator's lease, held until shutdown).
       */
      readonly embedded: EmbeddedIdServiceOptions;
      readonly client?: never;
    }
  | {
      /** The central servers' TCP client (`createIdClient` of `@vesta/server`, genMethod 1). */
      readonly client: IdClientOptions;
      readonly embedded?: never;
    };

/** `VestaModule.forRootAsync`: the options from a factory, with Nest's usual `inject` and `imports`. */
export interface VestaModuleAsyncOptions {
  /** Modules exporting what `inject` names (a configuration module). @default [] */
  readonly imports?: ModuleMetadata['imports'];
  /** The providers whose instances `useFactory` is called with, in order. @default [] */
  readonly inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** Returns (or resolves to) the module's options. */
  // Nest calls the factory with the injected instances, whose types it cannot know.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory(...args: any[]): VestaModuleOptions | Promise<VestaModuleOptions>;
}

const KEYS = ['embedded', 'client'] as const;

/**
 * Checks the module's own options (exactly one of `embedded` and `client`, nothing else) and
 * returns them frozen; INVALID_OPTIONS otherwise. The chosen service checks its own.
 */
export function resolveVestaModuleOptions(options: unknown): Readonly<VestaModuleOptions> {
  if (typeof options !== 'object' || options === null) {
    throw new VestaError('INVALID_OPTIONS', 'VestaModule takes { embedded } or { client }');
  }
  const unknown = Object.keys(options).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new VestaError('INVALID_OPTIONS', `unknown VestaModule option: ${unknown.join(', ')}`);
  }
  const given = KEYS.filter((key) => (options as Record<string, unknown>)[key] !== undefined);
  if (given.length !== 1) {
    throw new VestaError(
      'INVALID_OPTIONS',
      `VestaModule takes exactly one of embedded and client (given: ${given.join(', ') || 'none'})`,
    );
  }
  return Object.freeze({ ...options }) as VestaModuleOptions;
}
