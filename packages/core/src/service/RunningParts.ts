import { Container } from 'inversify';

/** A running part of a server: its id service, its listeners, its segments. */
interface Part {
  close(): Promise<unknown>;
}

/**
 * The parts a server runs, singletons of one container whose deactivation closes them. `close()`
 * unbinds them in reverse, each once the one before settled (the last failure is thrown):
 * `unbindAll()` would deactivate them at once, so gRPC could outlive the service it serves.
 */
export class RunningParts {
  readonly #container = new Container();
  readonly #active: symbol[] = [];
  #closed: Promise<void> | undefined;

  /** Starts a part after the others; when it fails, closes those and throws the start's error. */
  async start<P extends Part>(name: string, start: () => Promise<P>): Promise<P> {
    const token = Symbol(name);
    this.#container
      .bind<P>(token)
      .toDynamicValue(start)
      .inSingletonScope()
      .onDeactivation(async (part) => {
        await part.close();
      });
    this.#container.onActivation<P>(token, (_context, part) => {
      this.#active.push(token);
      return part;
    });
    try {
      return await this.#container.getAsync<P>(token);
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
  }

  /** Closes the started parts, the last started first; once. */
  readonly close = (): Promise<void> => {
    this.#closed ??= (async () => {
      let failure: { error: unknown } | undefined;
      for (let token = this.#active.pop(); token !== undefined; token = this.#active.pop()) {
        await this.#container.unbind(token).catch((error: unknown) => {
          failure = { error };
        });
      }
      if (failure !== undefined) throw failure.error;
    })();
    return this.#closed;
  };
}
