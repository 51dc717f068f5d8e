import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { IdConverter, IdType, silentLogger } from '@vesta/core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REST_ROUTES, startRestServer, type RestServer } from '../index.js';

/** Debian's Chromium (scripts/ensure-chromium.sh installs it); no browser download. */
const CHROMIUM = '/usr/bin/chromium';
/** Gitignored: screenshots to look at after a run. */
const ARTIFACTS = resolve(import.meta.dirname, '../../../../test-artifacts');
const TOKEN = 'page-test-token';
/** No daylight saving time, and an offset with minutes: the local date is checkable exactly. */
const TIME_ZONE = 'Asia/Kolkata';
const OFFSET_MS = (5 * 60 + 30) * 60_000;

let browser: Browser;
let server: RestServer;
let authed: RestServer;
let codec: IdConverter;
const contexts: BrowserContext[] = [];
/** Console errors and uncaught exceptions of every page (a CSP violation is a console error). */
const problems: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  [browser, server, authed] = await Promise.all([
    // Root (CI) cannot use Chromium's sandbox.
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }),
    startRestServer({ stateDir: false, logger: silentLogger, machineId: 1010, port: 0 }),
    startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1011,
      port: 0,
      authToken: TOKEN,
    }),
  ]);
  codec = IdConverter.standard(server.service.info().epochMs);
});

afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  expect(problems.splice(0)).toEqual([]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.close(), authed?.close()]);
});

async function open(base: string, path = '/'): Promise<Page> {
  const context = await browser.newContext({
    timezoneId: TIME_ZONE,
    viewport: { width: 1200, height: 900 },
  });
  contexts.push(context);
  // Generous bounds for a loaded CI machine (swagger-ui's bundle is large); every wait is on
  // a selector or an event, never a fixed delay.
  context.setDefaultTimeout(50_000);
  const page = await context.newPage();
  page.on('console', (message) => {
    // A 4xx the test asks for is logged too; anything else (a CSP violation, say) is a problem.
    if (
      message.type() === 'error' &&
      !/^Failed to load resource: .* status of 4\d\d/.test(message.text())
    ) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(`${base}${path}`);
  return page;
}

async function openPage(base: string): Promise<Page> {
  const page = await open(base);
  await page.locator('body[data-ready="true"]').waitFor();
  return page;
}

async function decode(page: Page, id: string): Promise<void> {
  await page.fill('#id-input', id);
  await page.click('#decode-form button[type="submit"]');
}

/** The field table of the decoded id: name -> value, as the page shows them. */
async function shownFields(page: Page): Promise<Record<string, string>> {
  await page.locator('#decoded:not([hidden])').waitFor();
  const rows = await page.$$eval('#fields tbody tr', (trs) =>
    trs.map((tr) => [
      tr.querySelector('.name')?.textContent ?? '',
      tr.querySelector('.value')?.textContent ?? '',
    ]),
  );
  return Object.fromEntries(rows);
}

/** What the page shows for a local date in TIME_ZONE (whose ICU name may be the older Asia/Calcutta). */
function localDate(ms: number): RegExp {
  const shifted = new Date(ms + OFFSET_MS).toISOString().replace('T', ' ').replace('Z', '');
  return new RegExp(
    `^${shifted.replaceAll('.', '\\.')} UTC\\+05:30 \\(Asia/(Kolkata|Calcutta)\\)$`,
  );
}

// A browser run is slow on a loaded 2-core machine: bounds well above the usual 60 s.
describe('the id page', { timeout: 120_000 }, () => {
  it("shows the server's layout and decodes a known id into its bit fields, dates and layout", async () => {
    const page = await openPage(server.url);
    await page.locator('#server', { hasText: 'Machine 1010' }).waitFor();
    expect(await page.textContent('#server')).toContain(
      'Layout from bit 0: machine 10, seq 20, time 30, genMethod 2, type 1, version 1.',
    );

    const id = codec.makeId(
      { time: 59_678_014, seq: 654_321, machine: 1010, genMethod: 2, version: 1 },
      { machine: 0, genMethod: 0, version: 0 },
    );
    const fields = codec.expId(id);
    await decode(page, String(id));
    expect(await shownFields(page)).toEqual({
      version: String(fields.version),
      type: String(fields.type),
      genMethod: String(fields.genMethod),
      time: String(fields.time),
      seq: String(fields.seq),
      machine: String(fields.machine),
    });
    // 64 cells, bit 63 first, reading the id's binary digits.
    const cells = await page.$$eval('#bits .cell', (spans) => spans.map((s) => s.textContent));
    expect(cells.join('')).toBe(id.toString(2).padStart(64, '0'));
    // One coloured segment per field, as wide as the field, labelled with width and value.
    const segments = await page.$$eval('#segments .segment', (divs) =>
      divs.map((d) => [
        d.getAttribute('data-field'),
        d.querySelector('.width')?.textContent,
        d.querySelector('.value')?.textContent,
        Math.round(d.getBoundingClientRect().width),
      ]),
    );
    expect(segments.map(([name, width, value]) => [name, width, value])).toEqual([
      ['version', '1b', '1'],
      ['type', '1b', '0'],
      ['genMethod', '2b', '2'],
      ['time', '30b', '59678014'],
      ['seq', '20b', '654321'],
      ['machine', '10b', '1010'],
    ]);
    const cellWidth = (await page.locator('#bits .cell').first().boundingBox())?.width ?? 0;
    const [, , , timeWidth] = segments[3] ?? [];
    expect(Math.abs(Number(timeWidth) - 30 * cellWidth)).toBeLessThan(cellWidth);

    const date = codec.transTime(fields.time, fields.type);
    expect(await page.textContent('#date-utc')).toBe(date.toISOString());
    expect(await page.textContent('#date-local')).toMatch(localDate(date.getTime()));
    expect(await page.textContent('#decoded-layout')).toBe(
      'type 0 (max-peak), time unit 1000 ms; from bit 0: machine 10, seq 20, time 30, genMethod 2, type 1, version 1',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'rest-page.png'), fullPage: true });
  });

  it("decodes an id of the other type with that type's layout, to the millisecond", async () => {
    const other = IdConverter.standard(codec.epochMs, IdType.MIN_GRANULARITY);
    const id = other.makeId(
      { time: 1_000_000_000_123, seq: 1000 },
      {
        machine: 5,
        genMethod: 0,
        version: 0,
      },
    );
    const page = await openPage(server.url);
    await decode(page, String(id));
    const fields = other.expId(id);
    expect(await shownFields(page)).toMatchObject({
      time: String(fields.time),
      seq: '1000',
      machine: '5',
      type: '1',
    });
    const date = other.transTime(fields.time, fields.type);
    expect(await page.textContent('#date-utc')).toBe(date.toISOString());
    expect(await page.textContent('#date-local')).toMatch(localDate(date.getTime()));
    expect(await page.textContent('#decoded-layout')).toContain(
      'type 1 (min-granularity), time unit 1 ms; from bit 0: machine 10, seq 10, time 40',
    );
  });

  it('draws the bits above a narrower layout as unused', async () => {
    const narrow = await startRestServer({
      stateDir: false,
      logger: silentLogger,
      machineId: 1014,
      port: 0,
      layout: { versionBits: 0 },
    });
    try {
      const id = await narrow.service.genId();
      const page = await openPage(narrow.url);
      await decode(page, String(id));
      const fields = await shownFields(page);
      expect(Object.keys(fields)).toEqual([
        'unused',
        'type',
        'genMethod',
        'time',
        'seq',
        'machine',
      ]);
      expect(fields).toMatchObject({ unused: '0', machine: '1014', genMethod: '2' });
      expect(await page.textContent('#fields tr[data-field="unused"] .range')).toBe('63');
      expect(await page.textContent('#decoded-layout')).toMatch(
        /from bit 0: machine 10, seq 20, time 30, genMethod 2, type 1$/,
      );
    } finally {
      await narrow.close();
    }
  });

  it("shows the server's coded error for junk, with its message", async () => {
    const page = await openPage(server.url);
    const junk = 'not an id!';
    const answer = await fetch(`${server.url}/expid?id=${encodeURIComponent(junk)}`);
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    await decode(page, junk);
    const shown = page.locator('#decode-error[data-code]:not([hidden])');
    await shown.waitFor();
    expect(await shown.getAttribute('data-code')).toBe('INVALID_ARGUMENT');
    expect(await shown.textContent()).toBe(`${error.code} ${error.message}`);
    expect(await page.isHidden('#decoded')).toBe(true);
  });

  it('issues ids with its button, and decodes one when clicked', async () => {
    const page = await openPage(server.url);
    await page.fill('#issue-count', '3');
    await page.click('#issue');
    await page.locator('#issued li:nth-child(3)').waitFor();
    const ids = (
      await page.$$eval('#issued .issued-id', (b) => b.map((x) => x.textContent ?? ''))
    ).map((text) => BigInt(text));
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    for (const id of ids) expect(codec.expId(id)).toMatchObject({ machine: 1010, genMethod: 2 });

    await page.click('#issued li:nth-child(2) button');
    expect(await shownFields(page)).toMatchObject({ machine: '1010', genMethod: '2' });
    expect(await page.textContent('#decoded-id')).toBe(String(ids[1]));

    await page.fill('#issue-count', '0');
    await page.click('#issue');
    await page.locator('#issue-error[data-code="INVALID_ARGUMENT"]').waitFor();
  });

  it('links to the OpenAPI document, rendered by swagger-ui from this server', async () => {
    const page = await openPage(server.url);
    await page.click('#docs-link');
    await page.locator('.swagger-ui .info .title', { hasText: 'Vesta REST id service' }).waitFor();
    await page.locator('.opblock').first().waitFor();
    const paths = await page.$$eval('.opblock .opblock-summary-path', (nodes) =>
      nodes.map((n) => n.getAttribute('data-path')),
    );
    expect(paths.sort()).toEqual(REST_ROUTES.map((r) => r.path).sort());
    await page.screenshot({ path: join(ARTIFACTS, 'rest-docs.png') });
  });
});

describe('the id page with auth on', { timeout: 120_000 }, () => {
  it('asks for the token, keeps it in sessionStorage and sends it, for the page and the docs', async () => {
    const page = await openPage(authed.url);
    await page.locator('#auth:not([hidden])').waitFor();
    expect(await page.textContent('#auth-reason')).toBe('This server needs a token.');
    await page.screenshot({ path: join(ARTIFACTS, 'rest-page-token.png') });

    await page.fill('#token', 'wrong');
    await page.click('#auth-form button[type="submit"]');
    await page.locator('#auth-reason', { hasText: 'refused the token' }).waitFor();

    await page.fill('#token', TOKEN);
    await page.click('#auth-form button[type="submit"]');
    await page.locator('#server', { hasText: 'Machine 1011' }).waitFor();
    expect(await page.isHidden('#auth')).toBe(true);
    expect(await page.evaluate("sessionStorage.getItem('vesta.token')")).toBe(TOKEN);

    const id = await authed.service.genId();
    await decode(page, String(id));
    expect(await shownFields(page)).toMatchObject({ machine: '1011' });

    await page.click('#docs-link');
    await page.locator('.swagger-ui .info .title', { hasText: 'Vesta REST id service' }).waitFor();

    await page.goBack();
    await page.locator('body[data-ready="true"]').waitFor();
    await page.click('#forget-token');
    await page.locator('#auth:not([hidden])').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('vesta.token')")).toBeNull();
  });
});
