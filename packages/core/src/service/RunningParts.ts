import { Container, type ContainerModule } from 'inversify';
import { IdGenerators } from '../generators/IdGenerators.js';
import type { IdGeneratorsObserver, IdGeneratorsOptions } from '../generators/IdGenerators.js';
import { composeIdService } from './createIdService.js';
import type { IdService } from './IdService.js';
import type { IdServiceOptions } from './IdServiceOptions.js';

/** A running part of a server: its id service, its listeners, its segments. */
interface Part {
  close(): Promise<unknown>;
}

/**
 * A process's container: the id service's composition and its running parts, each closed on
 * deactivation. `close()` unbinds them in reverse, one after another (`unbindAll()` would close
 * them at once, so gRPC could outlive the service it serves); the last failure is thrown.
 */
export class RunningParts extends Container {
  readonly #started: symbol[] = [];
  #closed: Promise<void> | undefined;
  /** The modules every id service of the process composes with (a coordinator's). */
  readonly shared: ContainerModule[] = [];

  /** Loads `module` here and in the process's other id services (a generator's own layout). */
  async share(module: ContainerModule): Promise<void> {
    this.shared.push(module);
    await this.load(module);
  }

  /**
   * Starts the process's id service (core, `mode`, the shared modules), then its named generators:
   * one with its own layout gets a container of its own that shares the coordinator.
   */
  async startIdService(
    options: IdServiceOptions,
    mode: ContainerModule,
    names?: IdGeneratorsOptions,
    observer?: IdGeneratorsObserver,
  ): Promise<{ readonly service: IdService; readonly generators: IdGenerators }> {
    const build = (own: object, into: Container = new Container()) =>
      composeIdService(into, { ...options, ...own }, mode, ...(into === this ? [] : this.shared));
    const service = await this.start('service', () => build({}, this));
    const generators = await this.start('generators', () =>
      IdGenerators.create(service, names, build, observer),
    );
    return { service, generators };
  }

  /** Starts a part after the others; when it fails, closes those and throws the start's error. */
  async start<P extends Part>(name: string, start: () => Promise<P>): Promise<P> {
    const token = Symbol(name);
    this.bind<P>(token)
      .toDynamicValue(start)
      .inSingletonScope()
      .onDeactivation(async (part) => {
        await part.close();
      });
    const part = await this.closeOnFailure(() => this.getAsync<P>(token));
    this.#started.push(token);
    return part;
  }

  /** `build()`'s result; when it fails, closes the started parts and throws its error. */
  async closeOnFailure<T>(build: () => Promise<T>): Promise<T> {
    try {
      return await build();
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /** Closes the started parts, the last started first; once. */
  readonly close = (): Promise<void> => {
    this.#closed ??= (async () => {
      let failure: { error: unknown } | undefined;
      for (let token = this.#started.pop(); token !== undefined; token = this.#started.pop()) {
        await this.unbind(token).catch((error: unknown) => {
          failure = { error };
        });
      }
      if (failure !== undefined) throw failure.error;
    })();
    return this.#closed;
  };
}
