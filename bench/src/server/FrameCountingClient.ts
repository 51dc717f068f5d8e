import { connect, type Socket } from 'node:net';

/**
 * The least a promise-per-request client can do: write one fixed request frame per call and
 * resolve the oldest waiting call each time `answerBytes` more bytes have come back, without
 * parsing them. The benchmark drives the node:net echo baseline and the Vesta server with it,
 * so both are measured behind the same client.
 */
export class FrameCountingClient {
  readonly #socket: Socket;
  readonly #frame: Buffer;
  readonly #answerBytes: number;
  readonly #waiting: ((value: number) => void)[] = [];
  #buffered = 0;

  private constructor(socket: Socket, frame: Buffer, answerBytes: number) {
    this.#socket = socket;
    this.#frame = frame;
    this.#answerBytes = answerBytes;
    socket.on('data', (chunk: Buffer) => {
      this.#buffered += chunk.length;
      while (this.#buffered >= this.#answerBytes) {
        this.#buffered -= this.#answerBytes;
        this.#waiting.shift()?.(1);
      }
    });
  }

  /**
   * Connects; when `greeting` is given, writes it and waits for its answer, one frame whose
   * size its u32 length prefix gives (a handshake, not parsed), before the client is ready.
   */
  static async connect(
    port: number,
    frame: Buffer,
    answerBytes: number,
    greeting?: { readonly frame: Buffer },
  ): Promise<FrameCountingClient> {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    if (greeting !== undefined) {
      socket.write(greeting.frame);
      await new Promise<void>((resolve, reject) => {
        let got = Buffer.alloc(0);
        const onData = (chunk: Buffer): void => {
          got = Buffer.concat([got, chunk]);
          if (got.length < 4) return;
          const answerBytes = 4 + got.readUInt32BE(0);
          if (got.length < answerBytes) return;
          socket.off('data', onData);
          if (got.length > answerBytes) reject(new Error('more than the handshake answer'));
          else resolve();
        };
        socket.on('data', onData);
      });
    }
    return new FrameCountingClient(socket, frame, answerBytes);
  }

  /** One request; resolves with 1 once its answer's bytes are in. */
  call(): Promise<number> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#socket.write(this.#frame);
    });
  }

  close(): void {
    this.#socket.destroy();
  }
}
