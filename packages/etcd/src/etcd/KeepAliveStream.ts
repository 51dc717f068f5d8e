import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse } from 'etcd3';

type Stream = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

interface Waiter {
  readonly resolve: (alive: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One client's keep-alive stream, open for every renewal: a keep-alive is a message each way, not
 * a call. etcd answers in order, so a lease's answers come in the order its keep-alives were
 * sent. Once failed or ended, it rejects every keep-alive waiting and serves none again.
 */
export class KeepAliveStream {
  readonly #opening: Promise<Stream>;
  readonly #waiting = new Map<string, Waiter[]>();
  #failed: unknown;

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
    this.#opening.catch(() => undefined);
  }

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
