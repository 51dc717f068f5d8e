import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { silentLogger } from '@vesta/core';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRestApp, createRestIdService, startRestServer, type RestServer } from '../index.js';
import { PAGE_ROUTES } from './pageRoutes.js';

const TOKEN = 'page-routes-token';
const PAGE_DIR = resolve(import.meta.dirname, '../../page');
const SWAGGER_UI_DIR = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

function errorCode(answer: Answer): string {
  return (JSON.parse(answer.body.toString('utf8')) as { error: { code: string } }).error.code;
}

let server: RestServer;

beforeAll(async () => {
  server = await startRestServer({
    stateDir: false,
    logger: silentLogger,
    machineId: 1012,
    port: 0,
    authToken: TOKEN,
  });
});

afterAll(async () => {
  await server?.close();
});

describe('the id page and the docs of the REST server', () => {
  it.each(PAGE_ROUTES.map((route) => [route.path, route]))(
    'serves %s from its file without a token, typed, nosniff',
    async (path, route) => {
      const answer = await call(`${server.url}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe(route.contentType);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const file = join(route.from === 'page' ? PAGE_DIR : SWAGGER_UI_DIR, route.file);
      expect(answer.body.equals(await readFile(file))).toBe(true);
      const head = await call(`${server.url}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
    },
  );

  it('sends its documents with a strict Content-Security-Policy, and they hold no inline script or style', async () => {
    for (const path of ['/', '/docs']) {
      const answer = await call(`${server.url}${path}`);
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      const html = answer.body.toString('utf8');
      // Every script is a file of its own: the policy forbids inline ones anyway.
      expect(html.match(/<script\b[^>]*>/g)?.every((tag) => /\ssrc="/.test(tag))).toBe(true);
      expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    }
  });

  it('answers a query, another method or a near-miss path with a coded error', async () => {
    const query = await call(`${server.url}/?id=1`);
    expect(query.status).toBe(400);
    expect(errorCode(query)).toBe('INVALID_ARGUMENT');
    const post = await call(`${server.url}/docs`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    for (const path of ['/docs/', '/DOCS', '/assets/', '/assets/index.js', '/assets/../page.js']) {
      const missed = await call(`${server.url}${path}`);
      expect({ path, status: missed.status }).toEqual({ path, status: 404 });
      expect(errorCode(missed)).toBe('NOT_FOUND');
    }
  });

  it('keeps the API behind the token, its answers marked nosniff', async () => {
    const refused = await call(`${server.url}/info`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    const info = await call(`${server.url}/info`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(info.status).toBe(200);
    expect(info.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('the id page of createRestApp mounted in another express app', () => {
  it('redirects /ids to /ids/, where the page and its assets are found', async () => {
    const service = await createRestIdService({ machineId: 1013 });
    const outer = express();
    outer.use('/ids', createRestApp({ service }));
    const httpServer: Server = outer.listen(0, '127.0.0.1');
    await new Promise((done) => httpServer.once('listening', done));
    try {
      const base = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
      const bare = await call(`${base}/ids`);
      expect(bare.status).toBe(308);
      expect(new URL(bare.headers.get('location') ?? '', `${base}/ids`).href).toBe(`${base}/ids/`);
      const page = await call(`${base}/ids/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      // The page's links are relative: they resolve under the mount.
      for (const link of ['assets/page.js', 'assets/page.css', 'docs']) {
        expect(page.body.toString('utf8')).toContain(`"${link}"`);
        expect((await call(new URL(link, `${base}/ids/`).href)).status).toBe(200);
      }
      const docs = (await call(`${base}/ids/docs`)).body.toString('utf8');
      for (const link of ['assets/swagger-ui-bundle.js', 'assets/docs.js']) {
        expect(docs).toContain(`"${link}"`);
        expect((await call(new URL(link, `${base}/ids/docs`).href)).status).toBe(200);
      }
      expect((await call(`${base}/ids/docs/`)).status).toBe(404);
    } finally {
      httpServer.closeAllConnections();
      await new Promise((done) => httpServer.close(done));
      await service.close();
    }
  });
});
