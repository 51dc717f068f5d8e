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
   * Connects; when `greeting` is given, writes it and waits for `greetingAnswerBytes` before
   * the client is ready (a handshake, its answer not parsed).
   */
  static async connect(
    port: number,
    frame: Buffer,
    answerBytes: number,
    greeting?: { readonly frame: Buffer; readonly answerBytes: number },
  ): Promise<FrameCountingClient> {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    if (greeting !== undefined) {
      socket.write(greeting.frame);
      await new Promise<void>((resolve, reject) => {
        let got = 0;
        const onData = (chunk: Buffer): void => {
          got += chunk.length;
          if (got < greeting.answerBytes) return;
          socket.off('data', onData);
          if (got > greeting.answerBytes) reject(new Error('more than the handshake answer'));
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
