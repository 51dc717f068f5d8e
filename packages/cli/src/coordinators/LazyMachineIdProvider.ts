import type { MachineIdLease, MachineIdProvider, MachineIdRequest } from '@vesta/core';

/**
 * A coordinator's provider built on first use: the command line imports a coordinator's
 * package (and its client: ioredis, pg, etcd3 with gRPC...) only when a `--coordinator` URL
 * names it, so every other start stays quick.
 */
export class LazyMachineIdProvider implements MachineIdProvider {
  readonly #build: () => Promise<MachineIdProvider>;
  #built: Promise<MachineIdProvider> | undefined;

  constructor(build: () => Promise<MachineIdProvider>) {
    this.#build = build;
  }

  /** Loads the package and builds the provider: INVALID_OPTIONS for bad options; connects to nothing. */
  load(): Promise<MachineIdProvider> {
    this.#built ??= this.#build();
    return this.#built;
  }

  async acquire(request: MachineIdRequest): Promise<MachineIdLease> {
    return (await this.load()).acquire(request);
  }
}
