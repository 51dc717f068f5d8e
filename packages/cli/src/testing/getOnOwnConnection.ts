import { request } from 'node:http';

/**
 * Test helper: one GET on a connection of its own (so node:cluster hands it to the next worker),
 * resolving with the status and body; fails after 20 s without an answer.
 */
export function getOnOwnConnection(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`no answer from ${url} in 20 s`)));
    req.on('error', reject).end();
  });
}
