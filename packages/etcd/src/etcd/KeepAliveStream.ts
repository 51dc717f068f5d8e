import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse } from 'etcd3';

type Stream = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

/** A keep-alive sent and not answered yet. */
interface Waiter {
  readonly resolve: (alive: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One etcd client's keep-alive stream, kept open for every renewal instead of a stream opened
 * for each: a keep-alive is then a message each way on it, not a call. etcd answers a stream's
 * requests one after the other, so a lease's answers come in the order its keep-alives were
 * sent. Once the stream fails or is ended, every keep-alive waiting on it is rejected and it
 * serves none again (the store opens another).
 */
export class KeepAliveStream {
  readonly #opening: Promise<Stream>;
  /** The keep-alives waiting for an answer, by lease, oldest first. */
  readonly #waiting = new Map<string, Waiter[]>();
  #failed: unknown;

  /** Over the stream `opening` resolves with (it is ended if it opens after {@link end}). */
  constructor(opening: Promise<Stream>) {
    this.#opening = opening.then(
      (stream) => {
        stream.on('data', (res: ILeaseKeepAliveResponse) => this.#answered(res));
        stream.on('error', (error: unknown) => this.#fail(error));
        stream.on('end', () => this.#fail(new Error('etcd ended the keep-alive stream')));
        if (this.#failed !== undefined) stream.end();
        return stream;
      },
      (error: unknown) => {
        this.#fail(error);
        throw error;
      },
    );
    // A stream that failed to open rejects the keep-alives that wait for it, and nothing else.
    this.#opening.catch(() => undefined);
  }

  /** Whether it can still carry keep-alives (not failed, not ended). */
  get usable(): boolean {
    return this.#failed === undefined;
  }

  /** Keeps each of `leases` alive once; for each, false when etcd says it has expired. */
  async keepAlive(leases: readonly string[]): Promise<boolean[]> {
    const stream = await this.#opening;
    return Promise.all(
      leases.map(
        (lease) =>
          new Promise<boolean>((resolve, reject) => {
            if (this.#failed !== undefined) {
              reject(this.#failed);
              return;
            }
            const waiters = this.#waiting.get(lease) ?? [];
            waiters.push({ resolve, reject });
            this.#waiting.set(lease, waiters);
            stream.write({ ID: lease });
          }),
      ),
    );
  }

  /** Ends the stream; keep-alives still waiting are rejected with `why`. */
  end(why: unknown = new Error('the keep-alive stream was ended')): void {
    const first = this.#failed === undefined;
    this.#fail(why);
    if (first) this.#opening.then((stream) => stream.end()).catch(() => undefined);
  }

  #answered(res: ILeaseKeepAliveResponse): void {
    const id = String(res.ID);
    const waiters = this.#waiting.get(id);
    const waiter = waiters?.shift();
    if (waiters?.length === 0) this.#waiting.delete(id);
    waiter?.resolve(Number(res.TTL) > 0);
  }

  #fail(error: unknown): void {
    this.#failed ??= error;
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    for (const w of waiting) w.reject(this.#failed);
  }
}
