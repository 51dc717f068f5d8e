import { caughtAsync } from '@vesta/testkit';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addServiceOptions, machineIdFromFlags, resolveServiceFlags } from './serviceFlags.js';

const DEFAULTS = { port: 8080, maxBatch: 10_000 };

function parse(argv: string[], env: Record<string, string> = {}) {
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  try {
    const command = addServiceOptions(new Command('x').exitOverride(), DEFAULTS);
    command.parse(argv, { from: 'user' });
    return resolveServiceFlags(command.opts(), DEFAULTS, '/srv');
  } finally {
    // Restored in place: modules keep a reference to process.env (hostMarksRoot's), and the
    // unit project runs its files in one module registry.
    for (const [name, value] of saved) {
      if (value === undefined) Reflect.deleteProperty(process.env, name);
      else process.env[name] = value;
    }
  }
}

describe('the shared server flags', () => {
  it('fill safe defaults: loopback, the default port, max-peak, a state dir under the working directory', () => {
    expect(parse([])).toEqual({
      host: '127.0.0.1',
      port: 8080,
      type: 0,
      epochMs: Date.parse('2025-01-01T00:00:00Z'),
      stateDir: '/srv/.vesta-state',
      authToken: undefined,
      maxBatch: 10_000,
      markWindowMs: 3000,
      logLevel: 'info',
      generators: { names: [], onDemand: false },
    });
  });

  it('take --generators as comma-separated names, and --generators-on-demand', () => {
    expect(parse(['--generators', 'orders, users', '--generators-on-demand'])).toMatchObject({
      generators: { names: ['orders', 'users'], onDemand: true },
    });
  });

  it("take --layout: the preset's type and epoch, unless --epoch is given", () => {
    expect(parse(['--layout', 'leaf'])).toMatchObject({
      layout: 'leaf',
      type: 1,
      epochMs: 1288834974657,
    });
    expect(parse(['--layout', 'sonyflake', '--epoch', '2020-01-01'])).toMatchObject({
      layout: 'sonyflake',
      epochMs: Date.UTC(2020, 0, 1),
    });
    expect(parse([], { VESTA_LAYOUT: 'js-safe' })).toMatchObject({ layout: 'js-safe', type: 0 });
  });

  it('read every flag, and the environment when a flag is absent', () => {
    expect(
      parse([
        '--port',
        '0',
        '--type',
        'min-granularity',
        '--epoch',
        '2024-06-01T00:00:00Z',
        '--state-dir',
        'st',
        '--max-batch',
        '5',
        '--mark-window-ms',
        '250',
      ]),
    ).toMatchObject({
      markWindowMs: 250,
      port: 0,
      type: 1,
      epochMs: Date.parse('2024-06-01T00:00:00Z'),
      stateDir: '/srv/st',
      maxBatch: 5,
    });
    expect(
      parse([], { VESTA_PORT: '9000', VESTA_AUTH_TOKEN: 'abc', VESTA_HOST: '0.0.0.0' }),
    ).toMatchObject({ port: 9000, authToken: 'abc', host: '0.0.0.0' });
    expect(parse(['--port', '9001'], { VESTA_PORT: '9000' }).port).toBe(9001);
  });

  it('refuse a log level pino does not have, naming the levels', () => {
    expect(() => resolveServiceFlags({ logLevel: 'loud' }, DEFAULTS)).toThrow(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
  });

  it('turn the state dir off with --no-state-dir or VESTA_NO_STATE_DIR', () => {
    expect(parse(['--no-state-dir']).stateDir).toBeUndefined();
    expect(parse([], { VESTA_NO_STATE_DIR: '1' }).stateDir).toBeUndefined();
  });

  it.each([
    [['--port', '65536']],
    [['--port', '-1']],
    [['--port', '80a']],
    [['--type', '2']],
    [['--epoch', 'yesterday']],
    [['--epoch', '2999-01-01T00:00:00Z']],
    [['--max-batch', '0']],
    [['--max-batch', '1000001']],
    [['--auth-token', 'has space']],
    [['--host', ' ']],
  ])('reject %j with INVALID_OPTIONS naming the flag', (argv) => {
    expect(() => parse(argv)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringContaining('--') }),
    );
  });
});

describe('--machine-id', () => {
  it("takes machine ids past 1023, as sonyflake's and uid-generator's server ranges need", async () => {
    expect(await machineIdFromFlags({ machineId: '58983' }, 1023, () => undefined)).toEqual({
      machineId: 58_983,
    });
    expect(await machineIdFromFlags({ machineId: '4194303' }, 1023, () => undefined)).toEqual({
      machineId: 4_194_303,
    });
  });

  it.each(['1234567890123456', '-1', '1e3', ''])('refuses %j with INVALID_OPTIONS', async (raw) => {
    const refused = await caughtAsync(() =>
      machineIdFromFlags({ machineId: raw }, 1023, () => undefined),
    );
    expect(refused.code).toBe('INVALID_OPTIONS');
  });
});
