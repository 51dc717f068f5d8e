import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ERROR_CODES,
  formatId,
  GenMethod,
  ID_FORMS,
  IdScrambler,
  IdType,
  silentLogger,
} from '@vesta/core';
import { MAX_PEAK_LAYOUT, MIN_GRANULARITY_LAYOUT } from '@vesta/core/kit';
import { createEmbeddedIdService } from '@vesta/embedded';
import { createSegmentService, MemorySegmentStore } from '@vesta/segment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestIdService, REST_ROUTES, startRestServer, type RestServer } from './index.js';

/** The routes of the API (and its documents) a client calls, /metrics aside. */
const ROUTES = [
  '/genid',
  '/genids',
  '/genuuid',
  '/genuuids',
  '/expid',
  '/transtime',
  '/makeid',
  '/bounds',
  '/expuuid',
  '/info',
  '/generators',
  '/health',
  '/openapi.json',
] as const;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One real HTTP request; the raw body is kept as text so ids never pass through a number. */
function get(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: init.method ?? 'GET',
        headers: init.headers ?? {},
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function errorCode(answer: Answer): string {
  return (JSON.parse(answer.body) as { error: { code: string } }).error.code;
}

/** Reads the decimal strings of `"key":"123"` straight from the raw body. */
function rawIds(body: string): string[] {
  return [...body.matchAll(/"([0-9]+)"/g)].map((m) => m[1] ?? '');
}

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/**
 * Writes `bytes` on a fresh connection and reads until the server closes it (bounded), then
 * splits what came back into HTTP answers by their Content-Length.
 */
function rawExchange(port: number, bytes: string): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no close within 10 s')));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      let text = Buffer.concat(chunks).toString('latin1');
      const answers: RawAnswer[] = [];
      while (text.length > 0) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) break;
        const head = text.slice(0, end);
        text = text.slice(end + 4);
        let body = '';
        if (/^transfer-encoding: *chunked/im.test(head)) {
          for (;;) {
            const eol = text.indexOf('\r\n');
            const size = parseInt(text.slice(0, eol), 16);
            body += text.slice(eol + 2, eol + 2 + size);
            text = text.slice(eol + 2 + size + 2);
            if (size === 0 || Number.isNaN(size)) break;
          }
        } else {
          const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
          body = text.slice(0, length);
          text = text.slice(length);
        }
        answers.push({ status: Number(head.slice(9, 12)), head, body });
      }
      resolve(answers);
    });
  });
}

let dir: string;
let server: RestServer;
let clockOffsetMs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vesta-rest-'));
  // Segment mode's routes answer a key of an in-memory store (the stores are @vesta/segment's).
  const store = new MemorySegmentStore();
  await store.createKey('some-key', { step: 100 });
  server = await startRestServer({
    logger: silentLogger,
    machineId: 1000,
    port: 0,
    stateDir: join(dir, 'state'),
    clock: () => Date.now() + clockOffsetMs,
    segments: createSegmentService({ store }),
  });
});

afterAll(async () => {
  await server.close();
  agent.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('the REST server', () => {
  it('issues one id as a decimal string above 2^53, exact, of genMethod 2 and its machine', async () => {
    const answer = await get(server.url, '/genid');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body).toMatch(/^\{"id":"[0-9]+"\}$/);
    const id = BigInt(rawIds(answer.body)[0] ?? '');
    expect(id > 2n ** 53n).toBe(true);
    const fields = server.service.expId(id);
    expect(fields).toMatchObject({
      machine: 1000,
      genMethod: GenMethod.REST,
      type: IdType.MAX_PEAK,
    });
  });

  it('issues a batch of strictly increasing ids', async () => {
    const answer = await get(server.url, '/genids?count=500');
    expect(answer.status).toBe(200);
    const ids = rawIds(answer.body).map(BigInt);
    expect(ids).toHaveLength(500);
    for (let i = 1; i < ids.length; i++) expect((ids[i] ?? 0n) > (ids[i - 1] ?? 0n)).toBe(true);
  });

  it.each([
    ['/genids', 'count missing'],
    ['/genids?count=0', 'count below 1'],
    ['/genids?count=10001', 'count above the max batch'],
    ['/genids?count=1e3', 'count with an exponent'],
    ['/genids?count=-5', 'count negative'],
    ['/genids?count=5&count=6', 'count given twice'],
    ['/genid?count=5', 'a parameter /genid does not take'],
    ['/makeid?time=1&seq=2&genmethod=1', 'a misspelt parameter'],
    ['/makeid?time=1&seq=1048576', 'seq one past its field'],
    ['/makeid?time=1073741824&seq=0', 'time one past its field'],
    ['/makeid?time=1&seq=0&machine=1024', 'machine one past its field'],
    ['/makeid?time=1&seq=0&genMethod=4', 'genMethod one past its field'],
    ['/makeid?time=1&seq=0&version=2', 'version one past its field'],
    ['/makeid?time=1&seq=0&type=2', 'an unknown type'],
    ['/makeid?seq=0', 'time missing'],
    ['/expid?id=18446744073709551616', 'an id of 2^64'],
    ['/expid?id=12a', 'an id that is not decimal'],
    ['/expid?id=%ZZ', 'bad percent-encoding'],
    ['/transtime?time=1.5', 'a fractional time'],
  ])('answers 400 INVALID_ARGUMENT for %s (%s)', async (path) => {
    const answer = await get(server.url, path);
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe('INVALID_ARGUMENT');
  });

  it('decodes ids of both types and of the embedded mode, with the date of their time', async () => {
    const embedded = await createEmbeddedIdService({ machineId: 7, type: 'min-granularity' });
    try {
      const id = await embedded.genId();
      const answer = await get(server.url, `/expid?id=${id}`);
      expect(answer.status).toBe(200);
      const fields = embedded.expId(id);
      expect(JSON.parse(answer.body)).toEqual({
        id: String(id),
        ...fields,
        date: embedded.transTime(fields.time, fields.type).toISOString(),
        // The server is max-peak: the other type's id is read with that type's standard layout.
        layout: { ...MIN_GRANULARITY_LAYOUT.widths, unitMs: 1 },
      });
      expect(answer.body).toContain(`"id":"${id}"`);
      expect(fields).toMatchObject({
        machine: 7,
        genMethod: GenMethod.EMBEDDED,
        type: IdType.MIN_GRANULARITY,
      });
    } finally {
      await embedded.close();
    }
  });

  it('makes the id of given fields, which decodes back to them', async () => {
    const made = await get(
      server.url,
      '/makeid?time=123456&seq=789&machine=5&genMethod=1&type=max-peak&version=0',
    );
    expect(made.status).toBe(200);
    const id = rawIds(made.body)[0] ?? '';
    const decoded = JSON.parse((await get(server.url, `/expid?id=${id}`)).body) as Record<
      string,
      unknown
    >;
    expect(decoded).toMatchObject({
      id,
      machine: 5,
      seq: 789,
      time: 123456,
      genMethod: 1,
      type: 0,
      version: 0,
    });
    const own = JSON.parse((await get(server.url, '/makeid?time=1&seq=2')).body) as { id: string };
    expect(server.service.expId(own.id)).toMatchObject({
      machine: 1000,
      genMethod: 2,
      time: 1,
      seq: 2,
    });
    const top = await get(
      server.url,
      `/makeid?time=${MIN_GRANULARITY_LAYOUT.time.max}&seq=${MIN_GRANULARITY_LAYOUT.seq.max}&machine=1023&genMethod=3&type=1&version=1`,
    );
    expect(top.body).toBe(`{"id":"${(1n << 64n) - 1n}"}`);
  });

  it('turns a time field into its date for either type', async () => {
    const info = server.service.info();
    const seconds = JSON.parse((await get(server.url, '/transtime?time=60&type=0')).body) as {
      date: string;
    };
    expect(seconds.date).toBe(new Date(info.epochMs + 60_000).toISOString());
    const millis = JSON.parse(
      (await get(server.url, '/transtime?time=60&type=min-granularity')).body,
    ) as { date: string };
    expect(millis.date).toBe(new Date(info.epochMs + 60).toISOString());
    expect(
      (await get(server.url, `/transtime?time=${MAX_PEAK_LAYOUT.time.max + 1}&type=0`)).status,
    ).toBe(400);
  });

  it('reports its layout, machine id, genMethod, epoch and expiry', async () => {
    const info = JSON.parse((await get(server.url, '/info')).body) as Record<string, unknown>;
    expect(info).toMatchObject({
      machine: 1000,
      genMethod: 2,
      type: 0,
      maxBatch: 10_000,
      layout: MAX_PEAK_LAYOUT.widths,
    });
    expect(typeof info.expiry).toBe('string');
    expect(typeof info.epoch).toBe('string');
  });

  it('exports Prometheus metrics of ids, requests by route and status, and latency', async () => {
    await get(server.url, '/genid');
    const answer = await get(server.url, '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toMatch(/^vesta_ids_issued_total [1-9][0-9]*$/m);
    expect(answer.body).toMatch(/^vesta_requests_total\{route="\/genid",status="200"\} [1-9]/m);
    expect(answer.body).toContain(
      'vesta_request_duration_seconds_bucket{le="0.001",route="/genid"}',
    );
    expect(answer.body).toContain('vesta_clock_rollbacks_total');
    expect(answer.body).toContain('vesta_sequence_exhausted_total');
  });

  it('answers 404 with a coded error for unknown paths, without echoing them in metrics labels', async () => {
    const answer = await get(server.url, '/nope/../../etc/passwd');
    expect(answer.status).toBe(404);
    expect(errorCode(answer)).toBe('NOT_FOUND');
    expect((await get(server.url, '/metrics')).body).toMatch(
      /vesta_requests_total\{route="unmatched",status="404"\}/,
    );
  });

  it('answers 405 with an Allow header for a wrong method', async () => {
    const answer = await get(server.url, '/genid', { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('GET, HEAD');
    expect(errorCode(answer)).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 413 to a query over the length cap', async () => {
    const answer = await get(server.url, `/expid?id=${'1'.repeat(2000)}`);
    expect(answer.status).toBe(413);
    expect(errorCode(answer)).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 503 on /genid and /health when the clock stepped back beyond the tolerance, and recovers', async () => {
    await get(server.url, '/genid');
    clockOffsetMs = -5_000;
    try {
      const genid = await get(server.url, '/genid');
      expect(genid.status).toBe(503);
      expect(errorCode(genid)).toBe('CLOCK_MOVED_BACKWARDS');
      expect(genid.headers['retry-after']).toBe('1');
      const health = await get(server.url, '/health');
      expect(health.status).toBe(503);
      expect(JSON.parse(health.body)).toMatchObject({
        status: 'unavailable',
        error: { code: 'CLOCK_MOVED_BACKWARDS' },
      });
    } finally {
      clockOffsetMs = 0;
    }
    expect((await get(server.url, '/health')).body).toBe('{"status":"ok"}');
  });

  it('issues 200,000 distinct ids to 50 concurrent clients', async () => {
    const seen = new Set<string>();
    const client = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) {
        const answer = await get(server.url, '/genid');
        expect(answer.status).toBe(200);
        for (const id of rawIds(answer.body)) seen.add(id);
      }
      for (let i = 0; i < 20; i++) {
        const answer = await get(server.url, '/genids?count=199');
        expect(answer.status).toBe(200);
        for (const id of rawIds(answer.body)) seen.add(id);
      }
    };
    await Promise.all(Array.from({ length: 50 }, client));
    expect(seen.size).toBe(50 * (20 + 20 * 199));
  });

  it('lists every route it serves, with its parameters, in the OpenAPI document', async () => {
    const doc = JSON.parse((await get(server.url, '/openapi.json')).body) as {
      openapi: string;
      paths: Record<
        string,
        { get: { parameters: { name: string; in: string; required: boolean }[] } }
      >;
    };
    expect(doc.openapi).toMatch(/^3\./);
    const leafRoutes = ['/api/snowflake/get/{key}', '/api/snowflake/decodeSnowflakeId'];
    const segmentRoutes = ['/segment/{key}', '/api/segment/get/{key}'];
    const issueRoutes = [...ROUTES, '/metrics', ...leafRoutes, ...segmentRoutes];
    expect(Object.keys(doc.paths).sort()).toEqual([...issueRoutes].sort());
    expect(REST_ROUTES.map((r) => r.path).sort()).toEqual([...issueRoutes].sort());
    const sample: Record<string, string> = {
      count: '3',
      key: 'default',
      id: '2369919850714760191',
      time: '5',
      seq: '1',
      machine: '1',
      genMethod: '1',
      type: '1',
      version: '0',
      format: 'decimal',
      scrambled: 'false',
      snowflakeId: '2369919850714760191',
      from: '2026-11-27T00:00:00Z',
      to: '1795824000000',
      uuid: '019ac4d2-6a2b-7000-8000-3e8123456789',
    };
    for (const [documented, item] of Object.entries(doc.paths)) {
      const path = documented.replace('{key}', 'some-key');
      const query = item.get.parameters
        .filter((p) => p.in === 'query')
        // UUIDs have forms of their own.
        .map((p) => {
          const value = p.name === 'format' && path.startsWith('/genuuid') ? 'hex' : sample[p.name];
          return `${p.name}=${value ?? ''}`;
        })
        .join('&');
      const answer = await get(server.url, query === '' ? path : `${path}?${query}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      const undocumented = await get(server.url, `${path}?${query === '' ? '' : `${query}&`}zzz=1`);
      expect({ path, status: undocumented.status }).toEqual({ path, status: 400 });
    }
  });

  it('answers a few thousand random paths and queries with a 200 or a coded 4xx, never a 500, and stays healthy', async () => {
    let seed = 0x5eed;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(items: readonly T[]): T => items[random(items.length)] as T;
    const paths = [
      ...ROUTES,
      '/',
      '/docs',
      '/docs/',
      '/assets/page.js',
      '/x',
      '/genid/',
      '/GENID',
      '//genid',
      '/genids/1',
      '/%',
      '/%2e%2e/',
      '/genid%00',
    ];
    const names = [
      'count',
      'id',
      'time',
      'seq',
      'machine',
      'genMethod',
      'genmethod',
      'type',
      'version',
      'format',
      'scrambled',
      '',
      'a',
      '%',
      '%41',
      'count[]',
      '__proto__',
      'constructor',
    ];
    const values = [
      '',
      '0',
      '1',
      '-1',
      '1e9',
      '999999999999999999999',
      '18446744073709551615',
      '%',
      '%zz',
      '%00',
      'max-peak',
      'base32',
      'hex',
      'true',
      '-9223372036854775808',
      'ZZZZZZZZZZZZZ',
      '1.5',
      '%201',
      '+1',
      '0x10',
      'NaN',
      'null',
      '%E2%82%AC',
    ];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const parts = Array.from({ length: random(5) }, () => {
        const name = pick(names);
        return random(6) === 0
          ? name
          : `${name}=${pick(values)}${random(8) === 0 ? pick(values) : ''}`;
      });
      const query =
        parts.length === 0 && random(2) === 0 ? '' : `?${parts.join(pick(['&', '&&', '=', ';']))}`;
      const answer = await get(server.url, `${pick(paths)}${query}`);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status !== 200) {
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        const code = errorCode(answer);
        expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(answer.status);
      }
    }
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(404)).toBeGreaterThan(0);

    const garbage = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () =>
        socket.end('\x00\x01NOT HTTP AT ALL\r\n\r\n'),
      );
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(garbage).toContain('"code":"PROTOCOL_ERROR"');
    expect((await get(server.url, '/health')).status).toBe(200);
    expect((await get(server.url, '/genid')).status).toBe(200);
  });
});

describe("requests node's HTTP parser refuses", () => {
  it.each([
    ['an HTTP/1.1 request without Host', 'GET /genid HTTP/1.1\r\n\r\n', 400, 'PROTOCOL_ERROR'],
    [
      'a CONNECT',
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
      405,
      'METHOD_NOT_ALLOWED',
    ],
    ['a malformed request line', 'GET /genid HTTP/1.1 x\r\nHost: a\r\n\r\n', 400, 'PROTOCOL_ERROR'],
    ['a request line of junk', '\x00\x01\x02 junk\r\n\r\n', 400, 'PROTOCOL_ERROR'],
    [
      'request headers over the cap',
      `GET /genid HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ])('answer %s with a coded JSON error, then close', async (_name, bytes, status, code) => {
    const answers = await rawExchange(server.port, bytes);
    expect(answers).toHaveLength(1);
    const [answer] = answers as [RawAnswer];
    expect(answer.status).toBe(status);
    expect(answer.head).toMatch(/^content-type: application\/json/im);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code, message: expect.any(String) } });
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status);
    if (status === 405) expect(answer.head).toMatch(/^allow: GET, HEAD$/im);
  });

  it('answers the valid requests pipelined ahead of junk first, then the coded error', async () => {
    const answers = await rawExchange(
      server.port,
      'GET /genid HTTP/1.1\r\nHost: a\r\n\r\n' +
        'GET /genids?count=3 HTTP/1.1\r\nHost: a\r\n\r\n' +
        '\x00junk after them\r\n\r\n',
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400]);
    expect(answers[0]?.body).toMatch(/^\{"id":"[0-9]+"\}$/);
    expect(rawIds(answers[1]?.body ?? '')).toHaveLength(3);
    expect(JSON.parse(answers[2]?.body ?? '')).toMatchObject({ error: { code: 'PROTOCOL_ERROR' } });
  });
});

describe('HEAD of a route that issues ids', () => {
  it('answers with the headers of GET and no body, validates the query, and consumes no id', async () => {
    const frozenMs = Date.now();
    const local = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1004,
      port: 0,
      clock: () => frozenMs,
    });
    try {
      const idOf = async (): Promise<bigint> =>
        BigInt((JSON.parse((await get(local.url, '/genid')).body) as { id: string }).id);
      const before = local.service.expId(await idOf());
      for (const path of ['/genid', '/genids?count=10000', '/genids?count=1']) {
        const head = await get(local.url, path, { method: 'HEAD' });
        expect({ path, status: head.status, body: head.body }).toEqual({
          path,
          status: 200,
          body: '',
        });
        expect(head.headers['content-type']).toMatch(/^application\/json/);
      }
      expect((await get(local.url, '/genids?count=0', { method: 'HEAD' })).status).toBe(400);
      const after = local.service.expId(await idOf());
      expect({ time: after.time, seq: after.seq }).toEqual({
        time: before.time,
        seq: before.seq + 1,
      });
    } finally {
      await local.close();
    }
  });
});

describe('the REST server in other id forms', () => {
  const SCRAMBLE_KEY = 'rest-spec-scramble-key-0123';
  let keyed: RestServer;
  const logged: string[] = [];

  beforeAll(async () => {
    const keep = (fields: unknown, message?: string) =>
      void logged.push(JSON.stringify(fields) + String(message));
    keyed = await startRestServer({
      stateDir: false,
      logger: { info: keep, warn: keep, error: keep },
      machineId: 1002,
      port: 0,
      scrambleKey: SCRAMBLE_KEY,
    });
  });

  afterAll(async () => {
    await keyed.close();
  });

  const body = async (path: string): Promise<Record<string, unknown>> => {
    const answer = await get(keyed.url, path);
    expect({ path, status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
    return JSON.parse(answer.body) as Record<string, unknown>;
  };

  it('issues ids in each form, which /expid reads back in that form', async () => {
    for (const form of ID_FORMS) {
      const { id } = (await body(`/genid?format=${form}`)) as { id: string };
      const decoded = await body(`/expid?id=${encodeURIComponent(id)}&format=${form}`);
      expect(formatId(decoded.id as string, form)).toBe(id);
      expect(decoded).toMatchObject({ machine: 1002, genMethod: GenMethod.REST });
    }
  });

  it('issues batches whose fixed-width forms sort as the ids do', async () => {
    for (const form of ['hex', 'base32', 'base62'] as const) {
      const { ids } = (await body(`/genids?count=50&format=${form}`)) as { ids: string[] };
      expect(new Set(ids.map((id) => id.length))).toEqual(new Set([formatId(0n, form).length]));
      expect([...ids].sort()).toEqual(ids);
    }
  });

  it("reads Java's signed decimal of a version-1 id, and writes it back with format=signed", async () => {
    const { id } = (await body('/makeid?time=5&seq=1&version=1')) as { id: string };
    const signed = formatId(id, 'signed');
    expect(signed.startsWith('-')).toBe(true);
    expect(await body(`/expid?id=${signed}`)).toEqual(await body(`/expid?id=${id}`));
    expect(await body('/makeid?time=5&seq=1&version=1&format=signed')).toEqual({ id: signed });
  });

  it('scrambles with its key on request: codes the key reads back, in no visible order', async () => {
    const { ids } = (await body('/genids?count=20&format=base32&scrambled=true')) as {
      ids: string[];
    };
    const scrambler = new IdScrambler(SCRAMBLE_KEY);
    const plain = ids.map((code) => scrambler.parse(code, 'base32'));
    expect([...plain].sort((a, b) => (a < b ? -1 : 1))).toEqual(plain);
    expect([...ids].sort()).not.toEqual(ids);
    const decoded = await body(`/expid?id=${ids[0]}&format=base32&scrambled=true`);
    expect(decoded.id).toBe(String(plain[0]));
  });

  it('keeps the scramble key out of its logs, /info and the OpenAPI document', async () => {
    const info = await body('/info');
    expect(info.scrambling).toBe(true);
    const doc = (await get(keyed.url, '/openapi.json')).body;
    expect(logged.length).toBeGreaterThan(0);
    for (const text of [...logged, JSON.stringify(info), doc])
      expect(text).not.toContain(SCRAMBLE_KEY);
  });

  it.each([
    ['/genid?format=base36', 'an unknown form'],
    ['/genid?scrambled=yes', 'a scrambled flag that is not true or false'],
    ['/expid?id=2369919850714760191&format=base32', 'a decimal read as base32'],
    ['/expid?id=G000000000000&format=base32', 'a base32 id of 2^64'],
    ['/expid?id=-9223372036854775809', "a negative id below Java's long"],
    ['/genids?count=2&format=', 'an empty form'],
  ])('answers 400 INVALID_ARGUMENT to %s (%s)', async (path) => {
    const answer = await get(keyed.url, path);
    expect(answer.status).toBe(400);
    expect(errorCode(answer)).toBe('INVALID_ARGUMENT');
  });

  it('refuses scrambled=true on a server without a scramble key', async () => {
    const answer = await get(server.url, '/genid?format=base32&scrambled=true');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('scramble key') },
    });
  });

  it('refuses a scramble key shorter than 16 bytes with INVALID_OPTIONS, without echoing it', async () => {
    const error = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1003,
      port: 0,
      scrambleKey: 'short-secret',
    }).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error?.code).toBe('INVALID_OPTIONS');
    expect(error?.message).not.toContain('short-secret');
  });
});

describe('the REST server with auth', () => {
  it('answers 401 without a valid token, 200 with it, and keeps /health open', async () => {
    const token = 's3cret-token-for-tests';
    const authed = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1001,
      port: 0,
      authToken: token,
    });
    try {
      const none = await get(authed.url, '/genid');
      expect(none.status).toBe(401);
      expect(errorCode(none)).toBe('UNAUTHORIZED');
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(
        (await get(authed.url, '/genid', { headers: { authorization: `Bearer ${token}x` } }))
          .status,
      ).toBe(401);
      expect(
        (await get(authed.url, '/metrics', { headers: { authorization: 'Basic abc' } })).status,
      ).toBe(401);
      expect(
        (await get(authed.url, '/genid', { headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
      expect((await get(authed.url, '/health')).status).toBe(200);
    } finally {
      await authed.close();
    }
  });
});

describe('startRestServer', () => {
  it.each([[923], [0], [1024]])(
    'refuses machine id %i outside the server range with MACHINE_ID_OUT_OF_RANGE',
    async (machineId) => {
      await expect(
        startRestServer({ stateDir: false, logger: silentLogger, machineId, port: 0 }),
      ).rejects.toMatchObject({
        code: 'MACHINE_ID_OUT_OF_RANGE',
      });
    },
  );

  it('refuses an unknown option and a bad port with INVALID_OPTIONS', async () => {
    await expect(
      startRestServer({ stateDir: false, logger: silentLogger, machineId: 1000, port: 70_000 }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    await expect(
      startRestServer({
        stateDir: false,
        logger: silentLogger,
        machineId: 1000,
        port: 0,
        ...{ prot: 1 },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('rejects with LISTEN_FAILED, naming the address, when the port is in use', async () => {
    // Another machine id: on the same one the host lock refuses first (MACHINE_ID_IN_USE).
    const error: unknown = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1020,
      port: server.port,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LISTEN_FAILED' });
    expect((error as Error).message).toContain(`127.0.0.1:${server.port}`);
    expect((error as Error).message).toContain('EADDRINUSE');
  });

  it('finishes a request in flight when closed, then refuses new connections', async () => {
    const local = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1002,
      port: 0,
      type: 'min-granularity',
      maxBatch: 200_000,
    });
    const inFlight = get(local.url, '/genids?count=200000');
    // In flight for sure once it has used up a millisecond's sequence (it needs ~200 of them).
    while (((await local.metrics.sequenceExhausted.get()).values[0]?.value ?? 0) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const closing = local.close();
    const answer = await inFlight;
    await closing;
    expect(answer.status).toBe(200);
    expect(rawIds(answer.body)).toHaveLength(200_000);
    await expect(get(local.url, '/health')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(local.service.genId()).rejects.toMatchObject({ code: 'SERVICE_CLOSED' });
  });
});

describe('createRestApp', () => {
  it('answers 500 INTERNAL_ERROR without a stack trace or the inner message when the service fails unexpectedly', async () => {
    const { createRestApp } = await import('./index.js');
    const real = await createRestIdService({ machineId: 1003 });
    const broken = Object.create(real) as typeof real;
    broken.genId = () => Promise.reject(new TypeError('secret internal detail'));
    const errors: unknown[] = [];
    const app = createRestApp({
      service: broken,
      logger: { info() {}, warn() {}, error: (fields) => errors.push(fields) },
    });
    const httpServer = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => httpServer.once('listening', resolve));
    try {
      const { port } = httpServer.address() as { port: number };
      const answer = await get(`http://127.0.0.1:${port}`, '/genid');
      expect(answer.status).toBe(500);
      expect(errorCode(answer)).toBe('INTERNAL_ERROR');
      expect(answer.body).not.toContain('secret');
      expect(answer.body).not.toMatch(/\bat [\w.<>]+ \(/);
      expect(errors).toHaveLength(1);
    } finally {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
      await real.close();
    }
  });

  it.each([
    [2500, '3'],
    [1000, '1'],
    [10, '1'],
    [undefined, '1'],
  ])(
    'answers OVERLOADED (retryAfterMs %s) with 503 and Retry-After %s in whole seconds, at least 1',
    async (retryAfterMs, retryAfter) => {
      const { createRestApp } = await import('./index.js');
      const { VestaError } = await import('@vesta/core');
      const real = await createRestIdService({ machineId: 1003 });
      const overloaded = Object.create(real) as typeof real;
      overloaded.genIds = () =>
        Promise.reject(
          new VestaError('OVERLOADED', 'too many ids asked at once', {
            ...(retryAfterMs === undefined ? {} : { details: { retryAfterMs } }),
          }),
        );
      const httpServer = createRestApp({ service: overloaded }).listen(0, '127.0.0.1');
      await new Promise((resolve) => httpServer.once('listening', resolve));
      try {
        const { port } = httpServer.address() as { port: number };
        const answer = await get(`http://127.0.0.1:${port}`, '/genids?count=5');
        expect(answer.status).toBe(503);
        expect(errorCode(answer)).toBe('OVERLOADED');
        expect(answer.headers['retry-after']).toBe(retryAfter);
      } finally {
        httpServer.closeAllConnections();
        await new Promise((resolve) => httpServer.close(resolve));
        await real.close();
      }
    },
  );

  it('keeps a request in the in-flight total while its ids are made, even after its client left', async () => {
    // Two ids a millisecond on a clock that stands still: a third waits (until CLOCK_STALLED).
    let reached: (() => void) | undefined;
    const working = new Promise<void>((resolve) => (reached = resolve));
    let armed = false;
    const local = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1019,
      port: 0,
      type: 'min-granularity',
      layout: { seqBits: 1, versionBits: 10 },
      rollbackToleranceMs: 0,
      maxRequestsInFlight: 1,
      clock: () => {
        if (armed) reached?.();
        return Date.UTC(2026, 0, 1);
      },
    });
    try {
      armed = true;
      const leaver = connect(local.port, '127.0.0.1');
      leaver.write('GET /genids?count=3 HTTP/1.1\r\nHost: x\r\n\r\n');
      await working; // the handler is making its ids
      leaver.destroy();
      await new Promise((resolve) => leaver.once('close', resolve));
      const next = await get(local.url, '/genid', { headers: { connection: 'close' } });
      expect(next.status).toBe(503);
      expect(errorCode(next)).toBe('OVERLOADED');
    } finally {
      await local.close();
    }
  });

  it('refuses a service of another genMethod', async () => {
    const { createRestApp } = await import('./index.js');
    const embedded = await createEmbeddedIdService({ machineId: 3 });
    try {
      expect(() => createRestApp({ service: embedded })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTIONS' }),
      );
    } finally {
      await embedded.close();
    }
  });
});
