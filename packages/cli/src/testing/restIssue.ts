import { Agent, request } from 'node:http';
import type { Issue, IssueOutcome } from './startIdLoad.js';

/** A REST load client's requests and the keep-alive connections they share. */
export interface RestIssuer {
  readonly issue: Issue;
  /** Closes the connections. */
  close(): void;
}

/** How long a request may go without any answer. */
const ANSWER_TIMEOUT_MS = 30_000;

/** Reads one answer of `/genid` or `/genids`: ids, or the coded error of the JSON body. */
function outcomeOf(status: number, body: string): IssueOutcome {
  const parsed = JSON.parse(body) as {
    id?: string;
    ids?: string[];
    error?: { code?: string };
  };
  if (status === 200 && typeof parsed.id === 'string') return { ids: [parsed.id] };
  if (status === 200 && Array.isArray(parsed.ids)) return { ids: parsed.ids };
  return { error: `${status} ${parsed.error?.code ?? body.slice(0, 80)}` };
}

/**
 * Test helper: requests against a running `vesta rest` at `url`, alternating `GET /genid` and
 * `GET /genids?count=<batch>`, over keep-alive connections. Ids stay decimal strings.
 */
export function restIssue(url: string, batch: number): RestIssuer {
  const agent = new Agent({ keepAlive: true });
  const issue: Issue = (round) =>
    new Promise<IssueOutcome>((resolve, reject) => {
      const path = round % 2 === 0 ? '/genid' : `/genids?count=${batch}`;
      const req = request(`${url}${path}`, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          try {
            resolve(outcomeOf(res.statusCode ?? 0, body));
          } catch (error) {
            reject(error as Error);
          }
        });
        res.on('error', reject);
      });
      // A request nobody answers fails the test as such (not as a network error, which the
      // kill tests expect from a killed worker's connections), instead of hanging its stop().
      req.setTimeout(ANSWER_TIMEOUT_MS, () => {
        req.destroy();
        resolve({ error: `NO ANSWER in ${ANSWER_TIMEOUT_MS} ms` });
      });
      req.on('error', reject).end();
    });
  return { issue, close: () => agent.destroy() };
}
