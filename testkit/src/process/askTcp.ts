import { createConnection } from 'node:net';

/**
 * Connects to 127.0.0.1:`port`, writes `message` and collects the answer until the server closes
 * the connection or `complete(answer)` says it has all of it; '' when nothing answers (refused,
 * reset, or silent for `timeoutMs`). The readiness probe of line-protocol servers.
 */
export function askTcp(
  port: number,
  message: string,
  complete: (answer: string) => boolean = () => false,
  timeoutMs = 1000,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    socket.setTimeout(timeoutMs);
    socket.on('connect', () => socket.write(message));
    socket.on('data', (chunk) => {
      answer += String(chunk);
      if (complete(answer)) socket.end();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(''));
    socket.on('timeout', () => socket.destroy());
  });
}
